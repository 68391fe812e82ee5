// Package characterize measures the page and object access patterns of a
// workload the way OASIS §IV (Motivation and Characterization) does. It
// executes nothing itself: it builds the real platform (package platform)
// on a zero-latency configuration, runs it, and observes it. Every page
// access reaches it through platform.Options.Observer and every kernel start
// through platform.Options.Launches; which GPU runs which workgroup, and in
// which order, is the simulator's own dispatch.
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
// Phases: every Kernel the runner starts is a phase. A launch is an
// explicit phase; a Kernel with Barrier set is an implicit phase of the
// preceding launch (the iterations of SHOC Stencil2D between grid
// barriers, OASIS Fig. 7). A launch followed by barrier continuations is
// labelled Name#0, Name#1, ...; a launch without continuations is labelled
// Name. A phase holds the accesses observed from its start to the next
// kernel's start: kernels run one after another, so that is its accesses.
//
// Accesses and time: an access is one wavefront memory instruction on one
// 4 KB page, what the GPU translates and the platform's observer reports;
// an instruction whose active lanes touch k distinct pages is k accesses,
// and compute-only instructions are none. Simulated time in the
// zero-latency run is an instruction clock (see below), not execution time,
// so intervals are defined by the count of accesses: the engine delivers
// accesses in simulated-time order, and Fig. 4/7's "8 intervals of the
// execution time" are 8 equal slices of that order. Access t (0-based) of
// T in total falls in interval t*8/T, i.e. interval i holds accesses
// [ceil(i*T/8), ceil((i+1)*T/8)). Only 4 KB pages are classified per
// interval. With Options.PhaseIntervals the intervals are the phases
// instead (interval i holds exactly phase i's accesses), for the classes
// per iteration of Fig. 7b: equal slices need not fall on the phase
// boundaries (st's first iteration also loads the kernel arguments).
//
// # Choices where the paper is silent
//
//   - Only pages touched in a period are classified; shares and the 90%
//     rule count touched pages only. Interval rows in page_intervals.csv
//     are written for touched (page, interval) pairs only; the interval
//     summary counts the rest of the allocated pages as untouched.
//   - A page's class depends only on which GPUs touched it and whether it
//     was read and/or written, not on the access counts.
//   - The 2 MB classification is the 4 KB one aggregated: a 2 MB page's GPU
//     set and read/write flags are the union of its 4 KB pages' in the same
//     period. The platform aligns every object to 2 MB, so a 2 MB page never
//     holds two objects.
//   - App-level shares (Fig. 20) are reported over two periods: "run" (a
//     page classified over the whole execution, one count per page) and
//     "phase" (one count per page and phase in which it was touched). The
//     paper does not say which it plots; for one-phase apps they agree.
//   - Per-phase object rows are listed only for objects touched in the
//     phase; the whole-run rows list every object.
//   - The kernel-argument object of the paper workloads is a real object
//     (see benchmarks.AllocKernarg) and is reported like any other.
//   - Accesses outside every object are counted as unmanaged; they
//     advance the access order but are not classified.
//
// # The run (ZeroLatency)
//
// The platform runs the configured system's structure (GPU count, CUs,
// wavefront slots, distribution scheme, TLB and cache geometry, walkers,
// fault batch) with its timing removed: every *_cycles and *_ns key of the
// configuration is 0 (cache, TLB, page-walk, DRAM, drain, fault service,
// per-fault, link and switch latencies, kernel launch, policy lookups),
// every *_gbps bandwidth is 1e9 GB/s (a 4 KB page crosses a link in 4e-6
// ns), message headers are 0 bytes, GPU memory is 1 TB (nothing is ever
// evicted), placement is host and checking is off. One cost is kept:
// gpu.issue_cycles is 1, not 0, and each instruction still takes the
// workload's own compute cycles. That is the clock: every resident
// wavefront of every GPU issues at the same rate, and a fault, a migration
// or a walk costs nothing, so the greedy dispatcher hands out workgroups as
// GPUs of equal speed free their slots. With no clock at all every event
// would happen at time 0, and the engine's order among equal times (a
// heap, not FIFO) would run a few wavefronts to completion while the
// others wait. The remaining timing effect is page-walker queueing: with
// zero-cost walks a walk can still wait for a walker whose last walk was
// issued a few cycles ahead.
//
// The policy is ideal (OASIS §IV-A: every GPU's first touch leaves a local
// copy, nothing moves afterwards). With free faults the policy does not
// change when any wavefront issues, so every policy gives the same accesses
// up to the order of events at equal times; ideal is the one with the
// fewest page-table events (one fault per GPU and page, no migration or
// invalidation), so it runs fastest. On-touch, for instance, migrates a
// shared page on every access from another GPU.
//
// Intervals need the access count T in advance, so Run first counts the
// accesses on a second, independent Setup of the workload, walking every
// wavefront's instruction stream without simulating (Setup must be
// deterministic for given Params, which the simulator's reproducibility
// already requires). The count does not depend on which GPU runs a
// workgroup: paper workloads ignore the GPU argument of Kernel.Wavefront,
// and PerDevice kernels, which use it, are counted on the contiguous
// assignment the runner gives them. If the run still sees another count,
// the result carries a warning and the last interval absorbs the
// difference.
//
// # Memory
//
// Per 4 KB page the observer keeps: the GPU mask and flags of the current
// phase and of the whole run, the per-interval class (2 bytes x
// intervals), and the read and write access counts per GPU over the run
// (16 bytes per GPU). Per phase it keeps only per-object aggregates. For a
// 300 MB footprint on 4 GPUs that is about 100 bytes x 75K pages, next to
// the platform's own page tables.
package characterize

import (
	"fmt"
	"strings"
	"time"

	"github.com/mgpu-sim/mgpu/benchmarks"
	_ "github.com/mgpu-sim/mgpu/benchmarks/all" // registers every workload
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/units"
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

const (
	// DefaultIntervals is Fig. 4/7's 8 intervals of the execution.
	DefaultIntervals = 8
	// MaxGPUs is the widest GPU mask a page record holds (the platform's
	// limit too).
	MaxGPUs = 64
	// Policy is the page policy of the zero-latency run (see the package
	// comment).
	Policy = "ideal"
)

// Options describe the system the workload is characterized on.
type Options struct {
	// Config is the system. Its structure is kept (GPU count, CUs,
	// wavefront slots, distribution scheme, cache and TLB geometry); its
	// timing is replaced by ZeroLatency.
	Config config.Config
	// Intervals is the number of equal slices of the access order (zero
	// means 8).
	Intervals int
	// PhaseIntervals makes the intervals the phases instead: interval i
	// holds exactly the accesses of phase (kernel) i, so the page classes
	// over time are the classes per phase, e.g. per iteration of st
	// (OASIS Fig. 7b). Intervals is then ignored.
	PhaseIntervals bool
}

// ZeroLatency returns c with every timing cost removed, as the package
// comment describes: *_cycles and *_ns keys 0 except gpu.issue_cycles 1,
// *_gbps keys 1e9, headers 0 bytes, 1 TB per GPU, 4 KB pages placed on the
// host, no checking. Keys are found by suffix, as Config.Validate checks
// them, so a latency added to the configuration later is zeroed too. A key
// without effect in c (Config.InEffect: UVMMU's cycles under software
// fault handling, or a policy.* key that the characterizer's policy does
// not read: platform.Affects) keeps its value: it costs nothing, and
// Build accepts no such key away from its default.
func ZeroLatency(c config.Config) config.Config {
	for _, k := range config.Keys(c) {
		if !c.InEffect(k.Key) || !platform.Affects(k.Key, Policy, "") {
			continue
		}
		var v string
		switch {
		case strings.HasSuffix(k.Key, "_cycles"), strings.HasSuffix(k.Key, "_ns"):
			v = "0"
		case strings.HasSuffix(k.Key, "_gbps"):
			v = "1e9"
		default:
			continue
		}
		if err := c.Set(k.Key + "=" + v); err != nil {
			panic(fmt.Sprintf("characterize: zeroing %s: %v", k.Key, err)) // keys come from Keys
		}
	}
	c.GPU.IssueCycles = 1
	c.Link.HeaderBytes = 0
	c.GPU.Memory = units.TB
	c.Oversubscribe = 0
	c.PageSize = SmallPage
	c.Placement = "host"
	c.Check = false
	return c
}

func (o *Options) normalize() error {
	if o.Intervals == 0 {
		o.Intervals = DefaultIntervals
	}
	if o.Intervals < 1 || o.Intervals > 1<<16 {
		return fmt.Errorf("%d intervals: must be between 1 and 65536", o.Intervals)
	}
	return nil
}

// Run characterizes the named workload with parameters p on the system o.
// p.GPUs is replaced by the configuration's GPU count.
func Run(workload string, p benchmarks.Params, o Options) (*Result, error) {
	start := time.Now()
	if err := o.normalize(); err != nil {
		return nil, err
	}
	cfg := ZeroLatency(o.Config)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p.GPUs = cfg.GPUs
	if p.Scale == 0 {
		p.Scale = 1
	}
	if p.Size == "" {
		p.Size = benchmarks.SizeAuto
	}
	w, err := benchmarks.New(workload)
	if err != nil {
		return nil, err
	}
	// The access count, on an independent instance.
	kernels, err := setup(w, p)
	if err != nil {
		return nil, err
	}
	total := countAccesses(kernels, cfg.GPUs)
	r := &recorder{n: cfg.GPUs, intervals: o.Intervals, total: total,
		cus: cfg.GPU.CUs, wavefrontsPerCU: cfg.GPU.WavefrontsPerCU}
	if o.PhaseIntervals {
		if len(kernels) > 1<<16 {
			return nil, fmt.Errorf("workload %s: %d kernels: at most 65536 phase intervals", workload, len(kernels))
		}
		r.intervals, r.perPhase = max(1, len(kernels)), true
	}
	sys, err := platform.Build(platform.Options{Workload: workload, Policy: Policy, Seed: p.Seed,
		Scale: p.Scale, Size: p.Size, Iterations: p.Iterations, Config: cfg, Observer: r, Launches: r})
	if err != nil {
		return nil, err
	}
	r.init(sys.Objects())
	run, err := sys.Run()
	if err != nil {
		return nil, fmt.Errorf("workload %s: zero-latency run: %w", workload, err)
	}
	r.finish()
	res := r.result(workload, p)
	res.Distribution = cfg.Distribution
	res.Policy = Policy
	res.SimTimeNs = run.SimTimeNs
	res.Instructions = run.Totals.MemInstructions
	if o.PhaseIntervals && len(res.Phases) != r.intervals {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the run started %d kernels where the workload's set-up has %d; the phase intervals past the last are empty and the last holds any extra phases",
			len(res.Phases), r.intervals))
	}
	if r.t != total {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the run observed %d page accesses where counting the workload's streams gave %d (a stream that depends on its GPU, or a Setup that is not deterministic); intervals are approximate",
			r.t, total))
	}
	res.Wall = time.Since(start)
	return res, nil
}

func setup(w benchmarks.Workload, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	// Untagged pointers: only the pages matter here. The alignment is the
	// platform's for 4 KB pages, though nothing depends on it.
	alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits}, LargePage)
	if err != nil {
		return nil, err
	}
	kernels, err := w.Setup(alloc, p)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", w.Info().Name, err)
	}
	return kernels, nil
}

// countAccesses is the number of page accesses the kernels issue on gpus
// GPUs: per memory instruction, the distinct 4 KB pages of its active
// lanes, the pages the GPU's coalescer finds. Workgroups are taken in the
// contiguous assignment, the runner's for PerDevice kernels; other kernels'
// streams do not depend on the GPU.
func countAccesses(kernels []benchmarks.Kernel, gpus int) uint64 {
	var t uint64
	var in benchmarks.Instruction
	var pages [benchmarks.WavefrontSize]uint64
	for i := range kernels {
		k := &kernels[i]
		d, err := benchmarks.NewDispatcher(benchmarks.SchemeContiguous, k.Workgroups, gpus)
		if err != nil {
			continue // no workgroups to count (the runner rejects it too)
		}
		for g := 0; g < gpus; g++ {
			for wg, ok := d.Next(g); ok; wg, ok = d.Next(g) {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					s := k.Wavefront(wg, wf, g)
					for s.Next(&in) {
						t += uint64(distinctPages(&in, &pages))
					}
				}
			}
		}
	}
	return t
}

// distinctPages is the number of distinct 4 KB pages among the active lanes
// of in; pages is scratch space.
func distinctPages(in *benchmarks.Instruction, pages *[benchmarks.WavefrontSize]uint64) int {
	n := 0
	last := ^uint64(0)
lanes:
	for l := 0; l < min(max(in.Lanes, 0), benchmarks.WavefrontSize); l++ {
		p := objtable.Strip(in.Addr[l]) >> smallShift
		if p == last {
			continue
		}
		last = p
		for _, q := range pages[:n] {
			if q == p {
				continue lanes
			}
		}
		pages[n] = p
		n++
	}
	return n
}
