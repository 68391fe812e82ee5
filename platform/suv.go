package platform

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	suvrt "github.com/mgpu-sim/mgpu/runtimes/suv"
	"github.com/mgpu-sim/mgpu/suv"
	"github.com/mgpu-sim/mgpu/uvm"
)

// suvHints is SUV-Host's runtime half: it evaluates a workload's declared
// hints (benchmarks.SUVHint, what the compiler passes derive) with the
// launch's runtime values, as SUV's injected host code does before each
// launch (§V-B). Density is the declared accesses over the object's size;
// the working set is the declared per-workgroup range times the
// workgroups one GPU holds at once, unless that is more than
// concurrent_fraction of the GPU's share of the grid, where SUV skips the
// analysis and the object stays Density.
type suvHints struct {
	alloc    *objtable.Allocator
	page     uint64
	gpus     int
	cus      int
	slots    int // wavefront slots per CU
	fraction float64
	// oracle, when set, holds each kernel's measured hints, which replace
	// the declared ones.
	oracle [][]suv.Hint
}

// concurrent is SUV's concurrentTBs for k on one GPU: resident
// workgroups per CU (its wavefront slots over the workgroup's wavefronts;
// SUV: threads per SM over threads per TB) times the CUs.
func (h *suvHints) concurrent(k *benchmarks.Kernel) int {
	return h.slots / max(1, k.WavefrontsPerWorkgroup) * h.cus
}

// launch is the driver's view of launch k, kernel i of the run.
func (h *suvHints) launch(i int, k *benchmarks.Kernel) *suvrt.Launch {
	l := &suvrt.Launch{}
	names := map[string]bool{}
	name := map[int]string{}
	for _, id := range k.Args {
		o := h.alloc.Object(id)
		n := o.Name
		if names[n] || n == "" {
			n = fmt.Sprintf("%s#%d", o.Name, id) // SUV names structures uniquely
		}
		names[n], name[id] = true, n
		l.IDs = append(l.IDs, id)
		l.Objects = append(l.Objects, suv.Object{Name: n, Bytes: int64(o.Size)})
		l.First = append(l.First, o.FirstPage(h.page))
	}
	if h.oracle != nil {
		l.Hints = h.oracle[i]
		return l
	}
	conc := h.concurrent(k)
	share := float64(k.Workgroups) / float64(h.gpus)
	for _, d := range k.SUV {
		size := h.alloc.Object(d.Object).Size
		hint := suv.Hint{Object: name[d.Object], Class: d.Class, Iter: d.Iter}
		if d.Class != suv.Unknown {
			hint.Density = d.Accesses / float64(size)
			if d.WorkgroupRangeBytes > 0 && float64(conc) <= h.fraction*share {
				hint.WSSBytes = min(d.WorkgroupRangeBytes*int64(conc), int64(size))
			}
		}
		l.Hints = append(l.Hints, hint)
	}
	return l
}

// checkSUV refuses, before a run, a workload SUV cannot plan: one that
// declares no hints, or hints that name objects a launch does not pass
// (hints checks them: benchmarks.CheckSUVHints over the set-up's kernels).
func checkSUV(c Config, w benchmarks.Workload, hints func() error) error {
	if c.UVM.Adaptive != uvm.AdaptiveSUV && c.UVM.Adaptive != uvm.AdaptiveSC {
		return nil
	}
	if !benchmarks.HasSUVHints(w) {
		var ok []string
		for _, n := range benchmarks.Names() {
			if x, err := benchmarks.New(n); err == nil && benchmarks.HasSUVHints(x) {
				ok = append(ok, n)
			}
		}
		return fmt.Errorf("uvm.adaptive=%s plans from the hints a workload declares, and %s declares none: workloads with SUV hints are %v", c.UVM.Adaptive, w.Info().Name, ok)
	}
	return hints()
}
