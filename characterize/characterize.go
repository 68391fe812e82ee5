// Package characterize measures the page and object access patterns of a
// workload the way OASIS §IV (Motivation and Characterization) does, by
// running its kernels functionally: no timing, no page tables, no
// migrations, only which GPU reads or writes which page, and when.
//
// # Definitions (OASIS §IV-B)
//
// A page is private in a period if exactly one GPU accessed it, shared if
// two or more did. It is read-only if it was only read, write-only if only
// written, rw-mix if both. An object takes the class of its pages in the
// period when all of them or over 90% of them (strictly: count*10 >
// touched*9) share it; otherwise it is private-shared-mix, or rw-mix for
// the read/write dimension (the paper's "30% read-only and 70% write-only
// or rw-mix" example). The two dimensions are classified independently
// and combined, e.g. shared-read-only.
//
// Phases: every Kernel is a phase. A launch is an explicit phase; a Kernel
// with Barrier set is an implicit phase of the preceding launch (the
// iterations of SHOC Stencil2D between grid barriers, OASIS Fig. 7). A
// launch followed by barrier continuations is labelled Name#0, Name#1, ...;
// a launch without continuations is labelled Name.
//
// Time is the global order of lane accesses (see "How the run is
// modelled"). Fig. 4/7's "8 intervals of the execution time" are 8 equal
// slices of that order: lane access t (0-based) of T in total falls in
// interval t*8/T. Only 4 KB pages are classified per interval.
//
// # Choices where the paper is silent
//
//   - Only pages touched in a period are classified; shares and the 90%
//     rule count touched pages only. Interval rows in page_intervals.csv
//     are written for touched (page, interval) pairs only; the interval
//     summary counts the rest of the allocated pages as untouched.
//   - Access counts are lane accesses: an instruction with L active lanes
//     is L accesses. A page's class depends only on which GPUs touched it
//     and whether it was read and/or written, not on the counts.
//   - The 2 MB classification is the 4 KB one aggregated: a 2 MB page's GPU
//     set and read/write flags are the union of its 4 KB pages' in the same
//     period. The allocator aligns every object to 2 MB (as the simulator's
//     does), so a 2 MB page never holds two objects.
//   - App-level shares (Fig. 20) are reported over two periods: "run" (a
//     page classified over the whole execution, one count per page) and
//     "phase" (one count per page and phase in which it was touched). The
//     paper does not say which it plots; for one-phase apps they agree.
//   - Per-phase object rows are listed only for objects touched in the
//     phase; the whole-run rows list every object.
//   - The kernel-argument object of the paper workloads is a real object
//     (see benchmarks.allocKernarg) and is reported like any other.
//   - Accesses outside every object are counted as unmanaged lanes; they
//     advance time but are not classified.
//
// # How the run is modelled
//
// Workgroups are assigned to GPUs as the simulator does, except that
// greedy is approximated without timing. The simulator's greedy dispatcher
// hands the next workgroup to whichever GPU has a free slot, GPU 0 first
// at a launch; with GPUs running at the same speed each GPU fills its slots
// in turn. So here GPU g first gets workgroups [g*S, (g+1)*S), S being its
// workgroup slots, and after that the GPUs take chunks of C consecutive
// workgroups in turn (C = Options.GreedyChunk, default S). The first fill
// is exact; after it the simulator's assignment follows timing: faults
// stall some GPUs, which then take their next workgroups in bursts. In
// on-touch runs at Table II size the bursts were hundreds of workgroups
// long for mm (C = S = 640 gives page classes close to the simulator's)
// but about 35 for mt (the default then finds the input mostly private
// where the simulator's run shares 91% of its pages; --greedy-chunk 35
// agrees within 2%). contiguous and round-robin are exact, and a PerDevice
// kernel is always contiguous, as in platform/runner.go. S is CUs *
// (WavefrontsPerCU / WavefrontsPerWorkgroup), as gpu.Comp.Fill packs
// workgroups into CUs (at least one workgroup per CU).
//
// Execution: each GPU keeps up to S resident workgroups, admitting its
// next assigned workgroup when one finishes; it issues one instruction per
// step from its resident wavefronts in round-robin order, and the GPUs
// take steps in turn (GPU 0, 1, ..., N-1, 0, ...). Kernels run one after
// another. So every GPU and every resident wavefront advances at the same
// instruction rate; this order is the "time" of the intervals.
//
// Intervals need the total lane count in advance, so Run first counts the
// lanes with a second, independent Setup of the workload (Setup must be
// deterministic for given Params, which the simulator's reproducibility
// already requires).
//
// # Memory
//
// Per 4 KB page the run keeps: the GPU mask and flags of the current phase
// and of the whole run, the per-interval class (2 bytes x intervals), and
// the read and write lane counts per GPU over the run (16 bytes per GPU).
// Per phase it keeps only per-object aggregates. For a 300 MB footprint on
// 4 GPUs that is about 100 bytes x 75K pages; mt at 320 MB on 16 GPUs peaks
// at about 70 MB of RSS.
package characterize

import (
	"fmt"
	"time"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Page sizes of the characterization: OASIS's 4 KB base page and the 2 MB
// large page of §VI-B4.
const (
	SmallPage = 4 << 10
	LargePage = 2 << 20

	smallShift = 12
	perLarge   = LargePage / SmallPage
	largeShift = 9 // log2(perLarge)
)

// Defaults for Options fields left zero.
const (
	// DefaultIntervals is Fig. 4/7's 8 intervals of the execution.
	DefaultIntervals = 8
	// DefaultCUs and DefaultWavefrontsPerCU are gpu.DefaultConfig (OASIS
	// Table I: 64 CUs; 40 wavefront slots per CU as in MGPUSim's R9 Nano).
	DefaultCUs             = 64
	DefaultWavefrontsPerCU = 40
	// MaxGPUs is the widest GPU mask a page record holds.
	MaxGPUs = 64
)

// Options describe the system the workload is characterized on.
type Options struct {
	// GPUs is the GPU count, 1 to 64. It overrides Params.GPUs.
	GPUs int
	// Distribution is the workgroup distribution scheme (benchmarks.Schemes;
	// empty means greedy).
	Distribution string
	// CUs and WavefrontsPerCU give the workgroup slots of a GPU (zero means
	// the defaults above).
	CUs, WavefrontsPerCU int
	// Intervals is the number of equal slices of the access order (zero
	// means 8).
	Intervals int
	// GreedyChunk is the number of consecutive workgroups a GPU takes in
	// turn under greedy after its first fill (zero means its slots; see
	// the package comment).
	GreedyChunk int
}

func (o *Options) normalize() error {
	if o.GPUs < 1 || o.GPUs > MaxGPUs {
		return fmt.Errorf("%d GPUs: must be between 1 and %d", o.GPUs, MaxGPUs)
	}
	if o.Distribution == "" {
		o.Distribution = benchmarks.SchemeGreedy
	}
	if _, err := benchmarks.NewDispatcher(o.Distribution, 0, 1); err != nil {
		return err
	}
	if o.CUs == 0 {
		o.CUs = DefaultCUs
	}
	if o.WavefrontsPerCU == 0 {
		o.WavefrontsPerCU = DefaultWavefrontsPerCU
	}
	if o.Intervals == 0 {
		o.Intervals = DefaultIntervals
	}
	switch {
	case o.CUs < 0:
		return fmt.Errorf("%d CUs: must be positive", o.CUs)
	case o.WavefrontsPerCU < 0:
		return fmt.Errorf("%d wavefronts per CU: must be positive", o.WavefrontsPerCU)
	case o.GreedyChunk < 0:
		return fmt.Errorf("greedy chunk %d: must not be negative", o.GreedyChunk)
	case o.Intervals < 1 || o.Intervals > 1<<16:
		return fmt.Errorf("%d intervals: must be between 1 and 65536", o.Intervals)
	}
	return nil
}

// Slots is the number of workgroups of k a GPU holds at once.
func (o Options) Slots(k *benchmarks.Kernel) int {
	per := 1
	if k.WavefrontsPerWorkgroup > 0 {
		per = max(1, o.WavefrontsPerCU/k.WavefrontsPerWorkgroup)
	}
	return max(1, o.CUs*per)
}

// Assign returns the workgroups of k each GPU runs, in the order it runs
// them (see the package comment for greedy).
func (o Options) Assign(k *benchmarks.Kernel) [][]int32 {
	n, w := o.GPUs, k.Workgroups
	out := make([][]int32, n)
	scheme := o.Distribution
	if k.PerDevice {
		scheme = benchmarks.SchemeContiguous
	}
	if scheme == benchmarks.SchemeContiguous || scheme == benchmarks.SchemeRoundRobin {
		// Static schemes: the simulator's own dispatcher, drained per GPU.
		d, err := benchmarks.NewDispatcher(scheme, w, n)
		if err != nil {
			return out // no GPUs: nothing to assign
		}
		for g := range out {
			for wg, ok := d.Next(g); ok; wg, ok = d.Next(g) {
				out[g] = append(out[g], int32(wg))
			}
		}
		return out
	}
	// greedy: a first fill of S each, then chunks in turn
	s := o.Slots(k)
	c := o.GreedyChunk
	if c == 0 {
		c = s
	}
	for wg := 0; wg < w; wg++ {
		g := wg / s
		if g >= n {
			g = (wg - n*s) / c % n
		}
		out[g] = append(out[g], int32(wg))
	}
	return out
}

// Run characterizes workload w with parameters p on the system o.
func Run(w benchmarks.Workload, p benchmarks.Params, o Options) (*Result, error) {
	start := time.Now()
	if err := o.normalize(); err != nil {
		return nil, err
	}
	p.GPUs = o.GPUs
	if p.Scale == 0 {
		p.Scale = 1
	}
	if p.Size == "" {
		p.Size = benchmarks.SizeAuto
	}
	// Pass 1: the total lane count, on an independent instance.
	_, kernels1, err := setup(w, p)
	if err != nil {
		return nil, err
	}
	total := countLanes(kernels1, o)
	alloc, kernels, err := setup(w, p)
	if err != nil {
		return nil, err
	}
	r := newRecorder(alloc, kernels, o, total)
	r.run()
	res := r.result(w.Name(), p)
	if r.t != total {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"workload %s is not deterministic: a second Setup issued %d lane accesses, the first %d; intervals are approximate",
			w.Name(), r.t, total))
	}
	res.Wall = time.Since(start)
	return res, nil
}

func setup(w benchmarks.Workload, p benchmarks.Params) (*objtable.Allocator, []benchmarks.Kernel, error) {
	// Untagged pointers: nothing here needs the Obj_ID in the pointer.
	alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits}, LargePage)
	if err != nil {
		return nil, nil, err
	}
	kernels, err := w.Setup(alloc, p)
	if err != nil {
		return nil, nil, fmt.Errorf("workload %s: %w", w.Name(), err)
	}
	return alloc, kernels, nil
}

func lanesOf(in *benchmarks.Instruction) int {
	return min(max(in.Lanes, 0), benchmarks.WavefrontSize)
}

// countLanes is the total lane accesses of the kernels under o.
func countLanes(kernels []benchmarks.Kernel, o Options) uint64 {
	var t uint64
	var in benchmarks.Instruction
	for i := range kernels {
		k := &kernels[i]
		for g, wgs := range o.Assign(k) {
			for _, wg := range wgs {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					s := k.Wavefront(int(wg), wf, g)
					for s.Next(&in) {
						t += uint64(lanesOf(&in))
					}
				}
			}
		}
	}
	return t
}
