package platform

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	suvrt "github.com/mgpu-sim/mgpu/runtimes/suv"
	"github.com/mgpu-sim/mgpu/suv"
	"github.com/mgpu-sim/mgpu/uvm"
)

// suvHints is SUV-Host's runtime half: it turns what a workload declares
// about each launch's accesses (benchmarks.Access, the facts SUV's
// compiler passes derive) into SUV's hints with the launch's runtime
// values, as SUV's injected host code does before each launch (§V-B).
// suvHint says how each fact maps.
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
	share := float64(k.Workgroups) / float64(h.gpus) // the program's grid, truncated or not
	wss := float64(conc) <= h.fraction*share
	for _, a := range k.Access {
		l.Hints = append(l.Hints, suvHint(name[a.Object], a, int64(h.alloc.Object(a.Object).Size), conc, wss))
	}
	return l
}

// suvHint is SUV's hint for object name (size bytes) from what the
// workload declares of its accesses in one launch, conc workgroups of
// which one GPU holds at once. The pattern gives the class: Analysable
// is Density (which the working set may turn Temporal), HostLoop
// Iterative with the loop's span, DataDependent Unknown. Density is the
// declared accesses over the size; the working set is the declared
// per-workgroup range times conc, unless wss is false (conc is more than
// concurrent_fraction of the GPU's share of the grid), where SUV skips
// the analysis and the object stays Density.
func suvHint(name string, a benchmarks.Access, size int64, conc int, wss bool) suv.Hint {
	h := suv.Hint{Object: name, Class: suvClass(a.Pattern), Iter: suv.Iteration{
		Index: a.Loop.Index, Count: a.Loop.Count,
		OffsetBytes: a.Loop.OffsetBytes, StrideBytes: a.Loop.StrideBytes, SpanBytes: a.Loop.SpanBytes,
	}}
	if a.Pattern != benchmarks.DataDependent {
		h.Density = a.Accesses / float64(size)
		if a.WorkgroupBytes > 0 && wss {
			h.WSSBytes = min(a.WorkgroupBytes*int64(conc), size)
		}
	}
	return h
}

// suvClass is SUV's declared tag for an access pattern.
func suvClass(p benchmarks.AccessPattern) suv.Class {
	switch p {
	case benchmarks.HostLoop:
		return suv.Iterative
	case benchmarks.DataDependent:
		return suv.Unknown
	}
	return suv.Density
}

// checkSUV refuses, before a run, a workload SUV cannot plan: one that
// declares no accesses, or accesses of objects a launch does not pass
// (hints checks them: benchmarks.CheckAccess over the set-up's kernels).
func checkSUV(c Config, w benchmarks.Workload, hints func() error) error {
	if c.UVM.Adaptive != uvm.AdaptiveSUV && c.UVM.Adaptive != uvm.AdaptiveSC {
		return nil
	}
	if !benchmarks.DeclaresAccess(w) {
		var ok []string
		for _, n := range benchmarks.Names() {
			if x, err := benchmarks.New(n); err == nil && benchmarks.DeclaresAccess(x) {
				ok = append(ok, n)
			}
		}
		return fmt.Errorf("uvm.adaptive=%s plans from the hints a workload declares, and %s declares none: workloads with SUV hints are %v", c.UVM.Adaptive, w.Info().Name, ok)
	}
	return hints()
}

// SUVClasses are the classes Algorithm 1 acts on for each object of each
// launch of the run o describes, from the hints the workload declares,
// without simulating it: the objects SUV would treat as Temporal,
// Iterative, Density or Unknown at that size. The figures' similar size
// is where they are the classes at the paper's size.
func SUVClasses(o Options) ([]map[string]suv.Class, error) {
	u, err := o.setUp()
	if err != nil {
		return nil, err
	}
	c, kernels := u.o.Config, u.kernels
	h := &suvHints{alloc: u.alloc, page: uint64(c.PageSize), gpus: c.GPUs, cus: c.GPU.CUs, slots: c.GPU.WavefrontsPerCU,
		fraction: c.UVM.SUV.ConcurrentFraction}
	sc := c.UVM.SUV.ForPageSize(c.PageSize)
	out := make([]map[string]suv.Class, len(kernels))
	for i := range kernels {
		l := h.launch(i, &kernels[i])
		plan, err := suv.PlanLaunch(sc, 0, l.Objects, l.Hints) // classes do not depend on the HBM
		if err != nil {
			return nil, fmt.Errorf("workload %s, launch %d: %w", u.o.Workload, i, err)
		}
		out[i] = make(map[string]suv.Class, len(plan.Placements))
		for _, p := range plan.Placements {
			out[i][p.Object] = p.Class
		}
	}
	return out, nil
}
