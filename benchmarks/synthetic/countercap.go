package synthetic

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// CounterCap is ObservUVM's access-counter capacity microbenchmark
// ("Observability-aided GPU Memory Oversubscription", ISCA 2026, Sec.
// III-D, Fig. 3): allocate p 2 MB regions, keep them on the host mapped
// remotely, access each region x times and set the counter threshold to
// x, so that a GPU with enough counters raises one notification per
// region. The paper counts min(p, 256): 256 counters.
//
// Shape: workload countercap-p (p in CounterCapRegions) allocates one
// object "regions" of p x 2 MB (the allocator aligns it to 2 MB, so
// region r is exactly one 2 MB counter granule). One kernel, "countercap",
// has p workgroups of one wavefront; wavefront r issues
// CounterCapAccesses single-lane loads of distinct lines, 256 bytes apart,
// in the first 4 KB of region r (one page at any page size of 4 KB or
// more, no line twice at any line size up to 256 bytes, so a cache never
// hides an access from the counter).
//
// p is the workload's size and does not follow Params.Scale (a quick run
// must still cross 256 regions); Scale and Size are only validated. The
// paper gives neither x nor the access order; x = 8 and one wavefront per
// region are chosen here. The pages are not pinned: the simulator has no
// pinning, and a policy that migrates a page after its region's
// notification (access-counter with policy.ac_host=remote) changes
// nothing, since the x-th access is the region's last.
type CounterCap struct{ Regions int }

// CounterCapRegions are the p of the countercap-p workloads: below, at and
// above the paper's 256 counters.
var CounterCapRegions = []int{64, 128, 256, 512, 1024}

// CounterCapAccesses is x, the accesses to each region (the threshold the
// microbenchmark sets).
const CounterCapAccesses = 8

const (
	counterCapRegion = 2 * benchmarks.MiB
	counterCapStride = 256
	counterCapCycles = 4
)

// CounterCapName is the workload with p regions.
func CounterCapName(p int) string { return fmt.Sprintf("countercap-%d", p) }

func init() {
	for _, p := range CounterCapRegions {
		benchmarks.Register(CounterCapName(p), func() benchmarks.Workload { return CounterCap{Regions: p} })
	}
}

// Info implements Workload. It declares no paper size: its size is the
// region count, whatever Params.Scale.
func (w CounterCap) Info() benchmarks.Info {
	return benchmarks.Info{
		Name: CounterCapName(w.Regions),
		Description: fmt.Sprintf("ObservUVM Fig. 3 counter-capacity microbenchmark: %d 2 MB regions, each read %d times (distinct lines); scale-independent",
			w.Regions, CounterCapAccesses),
		Suite: "ObservUVM",
	}
}

// Setup implements Workload.
func (w CounterCap) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	if err := benchmarks.CheckScale(p.Scale); err != nil {
		return nil, fmt.Errorf("%s: %w", CounterCapName(w.Regions), err)
	}
	if _, err := benchmarks.Column(p); err != nil {
		return nil, fmt.Errorf("%s: %w", CounterCapName(w.Regions), err)
	}
	if w.Regions < 1 {
		return nil, fmt.Errorf("%s: %d regions: must be at least 1", CounterCapName(w.Regions), w.Regions)
	}
	ptr, err := alloc.MallocManaged(uint64(w.Regions)*counterCapRegion, "regions")
	if err != nil {
		return nil, err
	}
	return []benchmarks.Kernel{{
		Name: "countercap", Args: benchmarks.LastObjects(alloc, 1), Workgroups: w.Regions, WavefrontsPerWorkgroup: 1,
		Wavefront: func(wg, _, _ int) benchmarks.Stream {
			base := ptr + uint64(wg)*counterCapRegion
			return &benchmarks.Loop{N: CounterCapAccesses, Gen: func(i int, in *benchmarks.Instruction) {
				in.Compute = counterCapCycles
				in.Lanes = 1
				in.Addr[0] = base + uint64(i)*counterCapStride
			}}
		},
	}}, nil
}
