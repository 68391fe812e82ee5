package platform

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

// resolve is the first part of Build and Check: it validates the config,
// fills in the scale and size defaults, and finds the workload (a paper's
// alias runs, and is recorded, as its workload) and the policy's traits.
func (o Options) resolve() (Options, benchmarks.Workload, pagepolicy.Traits, error) {
	if err := o.Config.Validate(); err != nil {
		return o, nil, pagepolicy.Traits{}, err
	}
	return o.resolveValid()
}

// resolveValid is resolve for a config already validated.
func (o Options) resolveValid() (Options, benchmarks.Workload, pagepolicy.Traits, error) {
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Size == "" {
		o.Size = "auto"
	}
	w, err := o.workload, error(nil)
	if w == nil {
		w = o.Program
	}
	if w == nil {
		w, err = benchmarks.New(o.Workload)
	}
	if err != nil {
		return o, nil, pagepolicy.Traits{}, err
	}
	o.Workload = w.Info().Name
	if o.Program != nil {
		// No workload's Setup sizes a recording, so nothing else
		// checks the parameters it gives.
		if err := CheckParams(o.params()); err != nil {
			return o, nil, pagepolicy.Traits{}, fmt.Errorf("recording of %s: %w", o.Workload, err)
		}
	}
	traits, err := pagepolicy.TraitsOf(o.Policy)
	if err != nil {
		return o, nil, pagepolicy.Traits{}, err
	}
	if err := checkReads(o); err != nil && !o.unreadKeys {
		return o, nil, pagepolicy.Traits{}, err
	}
	return o, w, traits, nil
}

// setupFacts are what the checks after a workload's set-up read of it, so
// that Checker can keep them instead of the set-up.
type setupFacts struct {
	footprint, end uint64
	// access checks the accesses the workload declares against its
	// kernels (benchmarks.CheckAccess).
	access func() error
	// widest is the kernel with the most wavefronts a workgroup, which
	// a CU must hold at once.
	widest      string
	widestWaves int
}

func factsOf(alloc *objtable.Allocator, kernels []benchmarks.Kernel, access func() error) setupFacts {
	f := setupFacts{footprint: alloc.Footprint(), end: alloc.End(), access: access}
	for _, k := range kernels {
		if k.Workgroups > 0 && k.WavefrontsPerWorkgroup > f.widestWaves {
			f.widest, f.widestWaves = k.Name, k.WavefrontsPerWorkgroup
		}
	}
	return f
}

// checkSetup is what Build checks between the workload's set-up and the
// system's: what the selected runtimes ask of the workload, the footprint against GPU memory, and the pages
// against what mgpu simulates. It returns each GPU's capacity in pages.
func checkSetup(o Options, w benchmarks.Workload, f setupFacts) (int, error) {
	c := o.Config
	for _, r := range c.UVM.Selected() {
		if r.Spec.CheckWorkload != nil {
			if err := r.Spec.CheckWorkload(r.Name, w, f.access); err != nil {
				return 0, fmt.Errorf("workload %s: %w", o.Workload, err)
			}
		}
	}
	if f.widestWaves > c.GPU.WavefrontsPerCU {
		// A GPU never places a workgroup wider than a CU: the run
		// would stall.
		return 0, fmt.Errorf("workload %s: kernel %s has workgroups of %d wavefronts, more than a CU holds (gpu.wavefronts_per_cu = %d): raise gpu.wavefronts_per_cu to at least %d",
			o.Workload, f.widest, f.widestWaves, c.GPU.WavefrontsPerCU, f.widestWaves)
	}
	capacity, err := capacityPages(c, f.footprint, o.Workload)
	if err != nil {
		return 0, err
	}
	if pages := f.end / uint64(c.PageSize); pages > maxPages {
		return 0, fmt.Errorf("footprint %s of %s is %d pages of %s, over the %d pages (%s at 4KB) mgpu simulates: its page tables take tens of bytes of host memory per page and GPU; lower --scale, or raise page_size",
			units.Bytes(f.footprint).Human(), o.Workload, pages, c.PageSize.Human(), uint64(maxPages), units.Bytes(maxPages*4096).Human())
	}
	return capacity, nil
}

// declaredCheckFrom is the declared footprint from which checkDeclaredSize
// checks before set-up (4 GiB, a choice: below it a workload's inputs are
// built in seconds within this machine's memory, and checkSetup names the
// exact footprint).
const declaredCheckFrom = 4 << 30

// checkDeclaredSize makes checkSetup's footprint checks (GPU memory, the
// pages mgpu simulates) on the footprint the workload's paper size
// declares (Info.PaperSize), before the workload builds its inputs: a
// graph generated at --scale 1e5 exhausted the host's memory before
// checkSetup, after set-up, could say what was wrong. Only a footprint
// more than twice a bound is refused here: a workload builds a shape
// near its declared size (a power of two, a whole tile), at scale 0.05
// up to 1.5 times off, so nearer a bound checkSetup decides.
func checkDeclaredSize(w benchmarks.Workload, o Options) error {
	declared := w.Info().PaperSize
	if declared == (benchmarks.PaperSize{}) {
		return nil
	}
	c := o.Config
	fp, err := declared.Footprint(o.params())
	if err != nil {
		return fmt.Errorf("workload %s: %w", o.Workload, err)
	}
	if fp <= declaredCheckFrom {
		return nil // set-up is cheap: checkSetup gives the exact footprint
	}
	surely := fp / 2
	if c.Oversubscribe == 0 && surely > uint64(c.GPU.Memory)*uint64(c.GPUs) {
		_, err := capacityPages(c, fp, o.Workload)
		return err
	}
	if limit := uint64(maxPages) * uint64(c.PageSize); surely > limit {
		return fmt.Errorf("footprint %s of %s is over the %d pages of %s (%s) mgpu simulates: lower --scale to at most %.4g at this size, or raise page_size",
			units.Bytes(fp).Human(), o.Workload, uint64(maxPages), c.PageSize.Human(), units.Bytes(limit).Human(), o.Scale*float64(limit)/float64(fp))
	}
	return nil
}

// Check reports whether Build would accept o, without building the system
// or running it: the config, the workload and policy, the workload's
// set-up and footprint, and the driver's combination of policy, fault
// handling, prefetcher, eviction and runtime, which it makes and drops.
func Check(o Options) error { return NewChecker().Check(o) }

// Checker is Check for many runs: it sets each workload up once per
// size, and makes the driver once per driver configuration, for all the
// runs that share them (a sweep's runs share most). It is not safe for
// concurrent use.
type Checker struct {
	valid   map[config.Config]error
	setups  map[setupKey]setupResult
	drivers map[driverKey]error
}

// NewChecker returns an empty Checker.
func NewChecker() *Checker {
	return &Checker{valid: map[config.Config]error{}, setups: map[setupKey]setupResult{}, drivers: map[driverKey]error{}}
}

// setupKey is everything a workload's set-up depends on.
type setupKey struct {
	workload string
	params   benchmarks.Params
	idBits   int
	pageSize units.Bytes
	traits   pagepolicy.Traits
}

type setupResult struct {
	facts setupFacts
	err   error
}

// driverKey is everything the driver's making depends on but the seed,
// which only seeds its random choices.
type driverKey struct {
	uvm          uvm.Config
	policy       string
	policyConfig pagepolicy.Config
	gpus, line   int
	pageSize     uint64
	pages        uint64
	capacity     int
	clockMHz     float64
}

// Check is the package's Check, with what it made for earlier runs.
func (k *Checker) Check(o Options) error {
	err, ok := k.valid[o.Config]
	if !ok {
		err = o.Config.Validate()
		remember(k.valid, o.Config, err)
	}
	if err != nil {
		return err
	}
	o, w, traits, err := o.resolveValid()
	if err != nil {
		return err
	}
	// Before the cache: it reads the config's memory, which the set-up's
	// key leaves out, and setupWorkload makes it again, then passing.
	if err := checkDeclaredSize(w, o); err != nil {
		return err
	}
	c := o.Config
	key := setupKey{workload: w.Info().Name, params: o.params(), idBits: c.Policy.IDBits, pageSize: c.PageSize, traits: traits}
	r, ok := k.setups[key]
	if !ok || o.workload != nil {
		alloc, kernels, err := setupWorkload(w, o, traits)
		if err == nil {
			hints := benchmarks.CheckAccess(kernels, len(alloc.Objects()))
			r.facts = factsOf(alloc, kernels, func() error { return hints })
		}
		r.err = err
		if o.workload == nil {
			k.setups[key] = r
		}
	}
	if r.err != nil {
		return r.err
	}
	capacity, err := checkSetup(o, w, r.facts)
	if err != nil {
		return err
	}
	pageSize := uint64(c.PageSize)
	dk := driverKey{uvm: c.UVM, policy: o.Policy, policyConfig: c.Policy, gpus: c.GPUs, line: int(c.GPU.LineSize),
		pageSize: pageSize, pages: r.facts.end / pageSize, capacity: capacity, clockMHz: c.GPU.FreqMHz}
	err, ok = k.drivers[dk]
	if !ok {
		_, err = uvm.MakeBuilder().WithGPUs(dk.gpus).WithConfig(c.UVM).WithSeed(o.Seed).WithLineSize(dk.line).
			WithClockMHz(dk.clockMHz).WithPolicy(o.Policy, c.Policy).WithPages(pageSize, dk.pages).
			WithCapacity(capacity).WithObjectLookup(func(uint64) int { return -1 }).BuildService()
		remember(k.drivers, dk, err)
	}
	return err
}

// maxRemembered bounds the Checker's caches of configs and drivers: a
// sweep of a million runs, each of its own config (1.8 KB), is checked in
// bounded memory. Past it a cache starts again; a sweep varies its configs
// in order, so what runs share is remembered while they share it. The
// set-ups, slow to make and small to keep, are all kept.
const maxRemembered = 4096

// remember is m[k] = v, first emptying m when it holds maxRemembered.
func remember[K comparable, V any](m map[K]V, k K, v V) {
	if len(m) >= maxRemembered {
		clear(m)
	}
	m[k] = v
}
