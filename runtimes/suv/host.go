package suv

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	core "github.com/mgpu-sim/mgpu/suv"
	"github.com/mgpu-sim/mgpu/units"
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
	oracle [][]core.Hint
}

// concurrent is SUV's concurrentTBs for k on one GPU: resident
// workgroups per CU (its wavefront slots over the workgroup's wavefronts;
// SUV: threads per SM over threads per TB) times the CUs.
func (h *suvHints) concurrent(k *benchmarks.Kernel) int {
	return h.slots / max(1, k.WavefrontsPerWorkgroup) * h.cus
}

// launch is the driver's view of launch k, kernel i of the run.
func (h *suvHints) launch(i int, k *benchmarks.Kernel) *Launch {
	l := &Launch{}
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
		l.Objects = append(l.Objects, core.Object{Name: n, Bytes: int64(o.Size)})
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
func suvHint(name string, a benchmarks.Access, size int64, conc int, wss bool) core.Hint {
	h := core.Hint{Object: name, Class: suvClass(a.Pattern), Iter: core.Iteration{
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
func suvClass(p benchmarks.AccessPattern) core.Class {
	switch p {
	case benchmarks.HostLoop:
		return core.Iterative
	case benchmarks.DataDependent:
		return core.Unknown
	}
	return core.Density
}

// checkWorkload refuses, before a run, a workload SUV cannot plan: one
// that declares no accesses, or accesses of objects a launch does not
// pass (access checks them: benchmarks.CheckAccess over the set-up's
// kernels).
func checkWorkload(name string, w benchmarks.Workload, access func() error) error {
	if !benchmarks.DeclaresAccess(w) {
		var ok []string
		for _, n := range benchmarks.Names() {
			if x, err := benchmarks.New(n); err == nil && benchmarks.DeclaresAccess(x) {
				ok = append(ok, n)
			}
		}
		return fmt.Errorf("uvm.adaptive=%s plans from the hints a workload declares, and %s declares none: workloads with SUV hints are %v", name, w.Info().Name, ok)
	}
	return access()
}

// newHints is the host-side half of a run of w on gpus GPUs of page-byte
// pages, under c: with the oracle's measured hints if oracle.
func newHints(c core.Config, page uint64, gpus int, w uvm.Workload, oracle bool) (*suvHints, error) {
	h := &suvHints{alloc: w.Alloc, page: page, gpus: gpus, cus: w.CUs, slots: w.SlotsPerCU, fraction: c.ConcurrentFraction}
	if oracle {
		var err error
		if h.oracle, err = oracleHints(h, c, w.Kernels); err != nil {
			return nil, fmt.Errorf("suv oracle: %w", err)
		}
	}
	return h, nil
}

// Hints are what SUV-Host hands the driver before each launch of w on
// gpus GPUs of page-byte pages under c (a Launch per kernel): the
// objects the launch passes, and its hints, declared or, with
// uvm.suv.hints=oracle, measured.
func Hints(c uvm.Config, page units.Bytes, gpus int, w uvm.Workload) ([]*Launch, error) {
	sc := Config.Of(c).ForPageSize(page)
	return hints(sc, page, gpus, w, sc.Hints == core.HintsOracle)
}

func hints(sc core.Config, page units.Bytes, gpus int, w uvm.Workload, oracle bool) ([]*Launch, error) {
	h, err := newHints(sc, uint64(page), gpus, w, oracle)
	if err != nil {
		return nil, err
	}
	out := make([]*Launch, len(w.Kernels))
	for i := range w.Kernels {
		out[i] = h.launch(i, &w.Kernels[i])
	}
	return out, nil
}

// Classes are the classes Algorithm 1 acts on for each object of each
// launch of workload w under c, from the hints the workload declares,
// without simulating it: the objects SUV would treat as Temporal,
// Iterative, Density or Unknown at that size. The figures' similar size
// is where they are the classes at the paper's size.
func Classes(c uvm.Config, page units.Bytes, gpus int, w uvm.Workload) ([]map[string]core.Class, error) {
	sc := Config.Of(c).ForPageSize(page)
	ls, err := hints(sc, page, gpus, w, false)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]core.Class, len(ls))
	for i, l := range ls {
		plan, err := core.PlanLaunch(sc, 0, l.Objects, l.Hints) // classes do not depend on the HBM
		if err != nil {
			return nil, fmt.Errorf("launch %d: %w", i, err)
		}
		out[i] = make(map[string]core.Class, len(plan.Placements))
		for _, p := range plan.Placements {
			out[i][p.Object] = p.Class
		}
	}
	return out, nil
}
