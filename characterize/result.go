package characterize

import (
	"math/bits"
	"time"

	"github.com/mgpu-sim/mgpu/benchmarks"
)

// Result is a workload's characterization.
type Result struct {
	Workload        string
	Params          benchmarks.Params
	GPUs            int
	Distribution    string
	CUs             int
	WavefrontsPerCU int
	// Policy is the page policy of the zero-latency run.
	Policy    string
	Footprint uint64
	Objects   []Object
	Phases    []Phase
	// ObjectPhases has one entry per object touched in a phase, in phase
	// then object order.
	ObjectPhases []ObjectPhase
	// ObjectRun has one entry per object, classified over the whole run
	// (Phase is -1).
	ObjectRun []ObjectPhase
	// Intervals are the equal slices of the access order (Fig. 4/7), or
	// the phases with Options.PhaseIntervals (then PhaseIntervals is set).
	Intervals      []Interval
	PhaseIntervals bool
	// App is the app-level census (Fig. 20): 4 KB and 2 MB pages, each
	// over the whole run and over (page, phase) pairs.
	App []App
	// Page accesses to objects in total, read and written; accesses
	// outside every object; memory instructions the GPUs issued.
	Accesses, Reads, Writes, Unmanaged, Instructions uint64
	// SimTimeNs is the simulated time of the zero-latency run: the
	// instruction clock, not an execution time.
	SimTimeNs float64
	Wall      time.Duration
	// Warnings are caveats about this result.
	Warnings []string

	// Per dense 4 KB page: the whole-run GPU mask and flags, accesses
	// [d*2n+2g+w], interval records [d*I+i].
	runMask  []uint64
	runFlags []uint8
	counts   []uint64
	iv       []uint16
}

// Object is one allocation of the workload.
type Object struct {
	ID         int
	Name       string
	Size       uint64
	FirstPage  uint64 // 4 KB page number of the first byte
	Pages      int    // 4 KB pages
	LargePages int    // 2 MB pages
	dense      int    // first dense 4 KB index
	large      int    // first dense 2 MB index
}

// Phase is one kernel: an explicit phase (a launch) or an implicit one (a
// Barrier continuation).
type Phase struct {
	Index int
	// Name is the kernel name; Label adds #step for launches with implicit
	// phases.
	Name, Label string
	// Launch counts explicit phases from 0; Step counts the implicit
	// phases of a launch from 0 (the launch itself).
	Launch, Step int
	Explicit     bool
	Workgroups   int
	// Slots is the workgroups a GPU holds at once in this kernel.
	Slots int
	// Start is the index of the phase's first access in the run. Accesses
	// counts them all, unmanaged ones included; Reads and Writes only
	// those to objects.
	Start                   uint64
	Accesses, Reads, Writes uint64
}

// ObjectPhase is one object in one phase (or, with Phase -1, over the
// whole run).
type ObjectPhase struct {
	Phase  int
	Object int
	// Small and Large count the touched pages by class at 4 KB and 2 MB.
	Small, Large Census
	// Reads and Writes are page accesses per GPU.
	Reads, Writes []uint64
}

// ReadAccesses is the object's read accesses over all GPUs.
func (op *ObjectPhase) ReadAccesses() uint64 { return sum(op.Reads) }

// WriteAccesses is the object's write accesses over all GPUs.
func (op *ObjectPhase) WriteAccesses() uint64 { return sum(op.Writes) }

// Accesses is the object's page accesses.
func (op *ObjectPhase) Accesses() uint64 { return op.ReadAccesses() + op.WriteAccesses() }

func sum(v []uint64) uint64 {
	var s uint64
	for _, x := range v {
		s += x
	}
	return s
}

// Interval is one slice of the access order: accesses [Start, End).
type Interval struct {
	Index      int
	Start, End uint64
	// Census counts the 4 KB pages touched in the interval by their class
	// within it; Untouched is the other allocated pages.
	Census    Census
	Untouched int
}

// App is the census of all touched pages at one page size over one
// period: "run" (each page once, over the whole execution) or "phase"
// (each page once per phase that touched it).
type App struct {
	PageSize uint64
	Period   string
	Census   Census
}

// endPhase folds the current phase's page records into per-object
// aggregates and the whole-run records, and clears them.
func (r *recorder) endPhase() {
	ph := &r.phases[len(r.phases)-1]
	ph.Accesses = r.t - ph.Start
	first := len(r.ops)
	idx := make([]int, len(r.objs)) // object -> index in r.ops, +1
	entry := func(obj int) *ObjectPhase {
		if idx[obj] == 0 {
			r.ops = append(r.ops, ObjectPhase{Phase: ph.Index, Object: obj})
			idx[obj] = len(r.ops) - first
		}
		return &r.ops[first+idx[obj]-1]
	}
	// Objects are in ID order in r.ops when created in ID order: collect
	// the touched objects first.
	for obj := range r.objs {
		base := obj * 2 * r.n
		var any uint64
		for _, v := range r.objCounts[base : base+2*r.n] {
			any |= v
		}
		if any != 0 {
			entry(obj)
		}
	}
	for _, d := range r.touched {
		obj := int(r.pageObj[d])
		m, f := r.mask[d], r.flags[d]
		if c, ok := classOf(m, f); ok {
			entry(obj).Small[c]++
		}
		r.runMask[d] |= m
		r.runFlags[d] |= f
		ob := &r.objs[obj]
		l := ob.large + (int(d)-ob.dense)>>largeShift
		if r.lflags[l] == 0 {
			r.ltouched = append(r.ltouched, uint32(l))
		}
		r.lmask[l] |= m
		r.lflags[l] |= f
		r.mask[d], r.flags[d] = 0, 0
	}
	r.touched = r.touched[:0]
	for _, l := range r.ltouched {
		obj := r.largeObj(int(l))
		if c, ok := classOf(r.lmask[l], r.lflags[l]); ok {
			entry(obj).Large[c]++
		}
		r.lmask[l], r.lflags[l] = 0, 0
	}
	r.ltouched = r.ltouched[:0]
	for i := first; i < len(r.ops); i++ {
		op := &r.ops[i]
		op.Reads, op.Writes = r.perGPU(r.objCounts[op.Object*2*r.n:])
		ph.Reads += op.ReadAccesses()
		ph.Writes += op.WriteAccesses()
	}
	clear(r.objCounts)
}

// perGPU splits interleaved read/write counters of n GPUs.
func (r *recorder) perGPU(v []uint64) (reads, writes []uint64) {
	reads, writes = make([]uint64, r.n), make([]uint64, r.n)
	for g := 0; g < r.n; g++ {
		reads[g], writes[g] = v[2*g], v[2*g+1]
	}
	return reads, writes
}

// largeObj finds the object of dense 2 MB page l.
func (r *recorder) largeObj(l int) int {
	lo, hi := 0, len(r.objs)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if r.objs[mid].large <= l {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func (r *recorder) result(workload string, p benchmarks.Params) *Result {
	res := &Result{Workload: workload, Params: p, GPUs: r.n, CUs: r.cus, WavefrontsPerCU: r.wavefrontsPerCU,
		Footprint: r.footprint, Objects: r.objs, Phases: r.phases, ObjectPhases: r.ops, Unmanaged: r.unmanaged,
		runMask: r.runMask, runFlags: r.runFlags, counts: r.counts, iv: r.iv, PhaseIntervals: r.perPhase}
	for _, ph := range r.phases {
		res.Reads += ph.Reads
		res.Writes += ph.Writes
	}
	res.Accesses = res.Reads + res.Writes
	// Whole run, per object, at both page sizes.
	for oi := range r.objs {
		ob := &r.objs[oi]
		op := ObjectPhase{Phase: -1, Object: ob.ID, Reads: make([]uint64, r.n), Writes: make([]uint64, r.n)}
		for d := ob.dense; d < ob.dense+ob.Pages; d++ {
			if c, ok := classOf(r.runMask[d], r.runFlags[d]); ok {
				op.Small[c]++
			}
			for g := 0; g < r.n; g++ {
				op.Reads[g] += r.counts[d*2*r.n+2*g]
				op.Writes[g] += r.counts[d*2*r.n+2*g+1]
			}
		}
		for l := 0; l < ob.LargePages; l++ {
			var m uint64
			var f uint8
			for d := ob.dense + l*perLarge; d < min(ob.dense+(l+1)*perLarge, ob.dense+ob.Pages); d++ {
				m |= r.runMask[d]
				f |= r.runFlags[d]
			}
			if c, ok := classOf(m, f); ok {
				op.Large[c]++
			}
		}
		res.ObjectRun = append(res.ObjectRun, op)
	}
	// App level.
	run4, run2, ph4, ph2 := App{SmallPage, "run", Census{}}, App{LargePage, "run", Census{}},
		App{SmallPage, "phase", Census{}}, App{LargePage, "phase", Census{}}
	for i := range res.ObjectRun {
		run4.Census.add(&res.ObjectRun[i].Small)
		run2.Census.add(&res.ObjectRun[i].Large)
	}
	for i := range res.ObjectPhases {
		ph4.Census.add(&res.ObjectPhases[i].Small)
		ph2.Census.add(&res.ObjectPhases[i].Large)
	}
	res.App = []App{run4, run2, ph4, ph2}
	// Intervals.
	I := r.intervals
	pages := len(r.runMask)
	for i := 0; i < I; i++ {
		iv := Interval{Index: i, Start: r.bound(i), End: r.bound(i + 1)}
		if i == I-1 {
			iv.End = max(r.total, r.t)
		}
		if r.perPhase {
			iv.Start, iv.End = r.t, r.t
			if i < len(r.phases) {
				iv.Start = r.phases[i].Start
				iv.End = iv.Start + r.phases[i].Accesses
			}
			if i == I-1 {
				iv.End = r.t
			}
		}
		for d := 0; d < pages; d++ {
			if c, ok := ivClass(r.iv[d*I+i]); ok {
				iv.Census[c]++
			}
		}
		iv.Untouched = pages - iv.Census.Pages()
		res.Intervals = append(res.Intervals, iv)
	}
	return res
}

// PageClass returns the whole-run class of 4 KB page i of object obj; ok
// is false if the page was never touched.
func (res *Result) PageClass(obj, i int) (Class, bool) {
	d := res.Objects[obj].dense + i
	return classOf(res.runMask[d], res.runFlags[d])
}

// PageGPUs is the number of GPUs that touched 4 KB page i of object obj.
func (res *Result) PageGPUs(obj, i int) int {
	return bits.OnesCount64(res.runMask[res.Objects[obj].dense+i])
}

// IntervalClass returns the class of 4 KB page i of object obj in interval
// iv; ok is false if the page was not touched in it.
func (res *Result) IntervalClass(obj, i, iv int) (Class, bool) {
	d := res.Objects[obj].dense + i
	return ivClass(res.iv[d*len(res.Intervals)+iv])
}
