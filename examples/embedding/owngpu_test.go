package embedding_test

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/examples/embedding"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/trace"
)

// sameAccesses is the example's workload as an mgpu workload: one kernel
// launched on each GPU (PerDevice) with one one-wavefront workgroup per
// GPU, issuing that GPU's accesses in order, one lane each.
type sameAccesses struct{}

func (sameAccesses) Info() benchmarks.Info {
	return benchmarks.Info{Name: "embedding-example", Description: "the embedding example's accesses", Suite: "example"}
}

func (sameAccesses) Setup(alloc *objtable.Allocator, _ benchmarks.Params) ([]benchmarks.Kernel, error) {
	var ptrs []uint64
	for _, o := range embedding.Objects() {
		p, err := alloc.MallocManaged(o.Size, o.Name)
		if err != nil {
			return nil, err
		}
		ptrs = append(ptrs, p)
	}
	accesses := embedding.Workload()
	return []benchmarks.Kernel{{Name: "example", Args: []int{0, 1}, Workgroups: 2, WavefrontsPerWorkgroup: 1, PerDevice: true,
		Wavefront: func(_, _, gpu int) benchmarks.Stream {
			list := accesses[gpu]
			return &trace.Loop{N: len(list), Gen: func(i int, in *trace.Instruction) {
				in.Reset()
				in.Lanes, in.Write = 1, list[i].Write
				in.Addr[0] = rebase(list[i].Addr, ptrs)
			}}
		}}}, nil
}

// rebase moves an address of the example's objects to the same offset in
// the object the platform allocated.
func rebase(addr uint64, ptrs []uint64) uint64 {
	for i, o := range embedding.Objects() {
		if a := objtable.Strip(addr); a >= o.Base && a < o.Base+o.Size {
			return ptrs[i] + (a - o.Base)
		}
	}
	panic("an access outside the example's objects")
}

func init() {
	benchmarks.Register("embedding-example", func() benchmarks.Workload { return sameAccesses{} })
}

// TestSameAsMgpusGPU runs the example's accesses on mgpu's own GPUs
// (platform, the coherence checker on) and requires the same outcome as
// under the example's GPUs and Akita's TLBs: per GPU the same far faults,
// protection faults, migrations, duplications and collapses, and the same
// policy learned for each object. Only the timing differs (the GPUs' own
// latencies), and on these accesses it changes nothing the policy sees.
func TestSameAsMgpusGPU(t *testing.T) {
	cfg := config.DefaultConfig()
	cfg.GPUs, cfg.Check = 2, true
	own, err := platform.Run(platform.Options{Workload: "embedding-example", Policy: "oasis", Seed: 1, Scale: 1, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := embedding.Run(embedding.Workload())
	if err != nil {
		t.Fatal(err)
	}
	for g, c := range ex.GPUs {
		o := own.PerGPU[g]
		got := [6]uint64{c.FarFaults, c.ProtectionFaults, c.MigrationsH2D, c.MigrationsD2D, c.Duplications, c.Collapses}
		want := [6]uint64{o.PageFaults, o.ProtectionFaults, o.MigrationsH2D, o.MigrationsD2D, o.Duplications, o.Collapses}
		if got != want {
			t.Errorf("GPU %d: far faults, protection faults, migrations from the host and from a peer, duplications, collapses: %v under the example, %v on mgpu's GPU", g, got, want)
		}
	}
	names := map[int]string{}
	for _, o := range own.Objects {
		names[o.ID] = o.Name
	}
	for _, o := range embedding.Objects() {
		names[-o.ID] = o.Name // the example's IDs, negated to keep them apart
	}
	learned := map[string]string{} // object name -> last policy, on mgpu's GPU
	for _, c := range own.PolicyHistory {
		learned[names[c.Object]] = c.Policy
	}
	if len(learned) != len(ex.Policies) {
		t.Errorf("OASIS learned %v on mgpu's GPU, %v under the example", learned, ex.Policies)
	}
	for _, p := range ex.Policies {
		name := names[-p.Object]
		if learned[name] != p.Policy {
			t.Errorf("object %s: %s under the example, %q on mgpu's GPU", name, p.Policy, learned[name])
		}
	}
}
