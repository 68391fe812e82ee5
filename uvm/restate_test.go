package uvm_test

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
	"github.com/mgpu-sim/mgpu/uvmtest"
)

// unmapper maps page 7 of GPU 0 remotely in its first batch and unmaps it
// after the victims of its second, as ObservUVM releases a sample when its
// region leaves.
type unmapper struct {
	uvm.Stages
	env     uvm.RuntimeEnv
	batches int
}

func (r *unmapper) Decided(g int, _ bool, _ []uint64, invals [][]uvmproto.Inval) {
	r.batches++
	if r.batches != 1 {
		return
	}
	plan := r.env.Ops.Plan()
	t := r.env.Ops.Table()
	t.Resolve(g, 7, false, pagepolicy.Decision{Action: pagepolicy.MapRemote, HostRemote: true}, plan)
	r.env.Ops.Carry(g, plan, uvmproto.CauseRemote, invals)
}

func (r *unmapper) Evicted(invals [][]uvmproto.Inval) {
	if r.batches != 2 {
		return
	}
	plan := r.env.Ops.Plan()
	r.env.Ops.Table().Unmap(0, 7, plan)
	r.env.Ops.Carry(0, plan, uvmproto.CauseHost, invals)
}

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, "unmapper", uvm.RuntimeSpec{New: func(env uvm.RuntimeEnv) (uvm.Runtime, error) {
		return &unmapper{env: env}, nil
	}})
}

// A batch installs its mappings after its shootdowns. A fault on a page
// already mapped re-sends the mapping; if a later step of the same batch
// unmaps the page, the mapping the GPU installs must say so, or the GPU
// keeps reading through a mapping the driver no longer has (ObservUVM's
// released samples read over PCIe for the rest of a run).
func TestBatchMappingFollowsLaterShootdown(t *testing.T) {
	c := uvm.DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 0, 0
	c.Prefetch.Policy = "off"
	c.Adaptive = "unmapper"
	s, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 16).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	if got := lastMapping(uvmtest.Mappings(t, s, 0, 0))[7]; !got.Remote() {
		t.Fatalf("first batch maps page 7 %v, want remote", got)
	}
	// A fault on page 7 raised before the remote mapping arrived.
	got, ok := lastMapping(uvmtest.Mappings(t, s, 0, 7))[7]
	if !ok {
		t.Fatal("second batch sends no mapping for page 7: its fault would never wake")
	}
	if got != uvmproto.Unmapped || s.Table().Page(7).Remote != 0 {
		t.Fatalf("page 7 sent as %v with table remote %b, want unmapped on both", got, s.Table().Page(7).Remote)
	}
}

// lastMapping is the last kind each page was mapped as: the one that
// stays installed.
func lastMapping(maps []uvmproto.Mapping) map[uint64]uvmproto.MapKind {
	out := map[uint64]uvmproto.MapKind{}
	for _, m := range maps {
		out[m.Page] = m.Kind
	}
	return out
}
