package observuvm

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/eviction"
)

// Options are what the simulator tells an Engine beyond Config.
type Options struct {
	GPUs     int
	PageSize uint64 // bytes, a power of two
	// Pages is the page count: page numbers are 0..Pages-1. It sizes the
	// eviction policy's region lists.
	Pages uint64
	// Allocations are the footprint's allocations, for RGP's streams and
	// bounds (nil: one allocation of every page).
	Allocations []Range
	// Resident reports whether page is in gpu's HBM and may be moved out
	// as a sample (not pinned, not in flight). A block is sampled only if
	// all its pages are resident. Nil: every block of a resident region.
	Resident func(gpu int, page uint64) bool
}

// EngineStats are one GPU's event counts.
type EngineStats struct {
	Faults, Prefetches, Evictions uint64
	RemoteAccesses, Notifications uint64
	RGPRegions, RGPNoTrigger      uint64 // regions prefetched; proposals dropped for want of a trigger counter
	ThresholdChanges              uint64
}

// Engine is ObservUVM's userspace engine (Sec. V-C, Fig. 6) for a
// simulator: it owns, per GPU, the access-counter unit, the observer
// state, the eviction policy and the prefetchers, dispatches each upstream
// event of Table I to all of them, and returns the downstream decisions
// as Actions. As in the paper, after every fault, notification and
// eviction it asks the policy for observation candidates to fill the
// budget (Sec. VI-A, Listing 1). An Engine is not safe for concurrent use.
type Engine struct {
	cfg   Config
	geo   Geometry
	obs   *Observer
	pol   Policy
	touch eviction.Toucher // pol's, or nil
	hit   HitObserver      // pol's, or nil
	fb    Feedback         // pol's, or nil
	fdp   *FDP
	rgp   *RGP
	units []*CounterUnit
	thr   []int
	res   func(int, uint64) bool
	stats []EngineStats

	// scratch, and the GPU and region the method values below refer to
	cur           int
	curRegion     uint64
	cands         []uint64
	victim        []uint64
	targets       []Target
	skipFn, hbmFn func(uint64) bool
	blockFn       func(int) bool
	fbBlocks      uint64
}

// NewEngine returns the engine cfg describes.
func NewEngine(cfg Config, o Options) (*Engine, error) {
	obs, err := NewObserver(cfg, o.GPUs, o.PageSize)
	if err != nil {
		return nil, err
	}
	if o.Pages == 0 {
		return nil, fmt.Errorf("observuvm: an engine over 0 pages")
	}
	pol, err := New(cfg.Policy, cfg, o.GPUs, (o.Pages+obs.Geometry().PagesPerRegion-1)/obs.Geometry().PagesPerRegion)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, geo: obs.Geometry(), obs: obs, pol: pol, res: o.Resident,
		thr: make([]int, o.GPUs), stats: make([]EngineStats, o.GPUs)}
	e.touch, _ = pol.(eviction.Toucher)
	e.hit, _ = pol.(HitObserver)
	e.fb, _ = pol.(Feedback)
	for g := range o.GPUs {
		u, err := NewCounterUnit(cfg.Counters, cfg.CounterThreshold, cfg.CounterGranularity, o.PageSize)
		if err != nil {
			return nil, err
		}
		e.units = append(e.units, u)
		e.thr[g] = cfg.shallowThreshold()
	}
	if cfg.Shallow == ShallowFDP {
		e.fdp = NewFDP(cfg, o.GPUs)
	}
	if cfg.Deep == DeepRGP {
		if e.rgp, err = NewRGP(cfg, o.GPUs, e.geo, o.Allocations); err != nil {
			return nil, err
		}
	}
	e.skipFn = func(r uint64) bool { return e.obs.State(e.cur, r) != Resident }
	e.hbmFn = func(r uint64) bool { return e.obs.InHBM(e.cur, r) }
	e.blockFn = e.blockEligible
	return e, nil
}

func (e *Engine) check(g int) {
	if g < 0 || g >= len(e.units) {
		panic(fmt.Sprintf("observuvm: GPU %d of %d", g, len(e.units)))
	}
}

// Geometry is the engine's page geometry.
func (e *Engine) Geometry() Geometry { return e.geo }

// Observer is the engine's observer (read it; do not drive it directly).
func (e *Engine) Observer() *Observer { return e.obs }

// Policy is the engine's eviction policy.
func (e *Engine) Policy() Policy { return e.pol }

// FDP is the engine's FDP, nil unless Shallow is fdp.
func (e *Engine) FDP() *FDP { return e.fdp }

// Counter is GPU g's access-counter unit.
func (e *Engine) Counter(g int) *CounterUnit { return e.units[g] }

// Threshold is the tree prefetcher threshold in force on g: the driver
// sets it at start; SetThreshold actions change it.
func (e *Engine) Threshold(g int) int { return e.thr[g] }

// Stats are g's event counts.
func (e *Engine) Stats(g int) EngineStats { return e.stats[g] }

// blockEligible: every page of block b of curRegion is resident on cur,
// and the block was prefetched when fbBlocks is set.
func (e *Engine) blockEligible(b int) bool {
	if e.fbBlocks != 0 && e.fbBlocks&(1<<uint(b)) == 0 {
		return false
	}
	if e.res == nil {
		return true
	}
	first := e.geo.BlockStart(e.curRegion, b)
	for p := first; p < first+e.geo.PagesPerBlock; p++ {
		if !e.res(e.cur, p) {
			return false
		}
	}
	return true
}

// OnPageFault reports a demand fault of g on page, which migrates in
// (onPageFault).
func (e *Engine) OnPageFault(g int, page uint64, dst []Action) []Action {
	e.check(g)
	e.stats[g].Faults++
	r := e.geo.Region(page)
	e.obs.OnFault(g, r)
	e.pol.Placed(g, r)
	if e.rgp != nil {
		e.cur = g
		e.targets = e.rgp.OnFault(g, page, e.hbmFn, e.targets[:0])
		dst = e.prefetchTargets(g, dst)
	}
	return e.Refill(g, dst)
}

// prefetchTargets arms each RGP target's trigger and asks for its region.
func (e *Engine) prefetchTargets(g int, dst []Action) []Action {
	for _, t := range e.targets {
		if !e.obs.ArmInPlace(g, t.Region, t.Block, ForTrigger) {
			e.stats[g].RGPNoTrigger++
			continue
		}
		e.stats[g].RGPRegions++
		dst = append(dst, Action{Kind: PrefetchRegion, GPU: g, Region: t.Region,
			First: e.geo.BlockStart(t.Region, t.Block), Pages: e.geo.PagesPerBlock})
	}
	return dst
}

// OnPrefetch reports that a prefetch brought the blocks set in blocks (bit
// b: block b) of region to g, whether the tree prefetcher or an RGP
// PrefetchRegion did (onPrefetch). Under FDP an unobserved prefetched
// region, while the feedback budget lasts, becomes a feedback sample
// (setFeedbackCandidate): one of the blocks just prefetched goes back to
// the host (Sec. IV-B). A driver that still has that block in flight may
// cancel its migration instead of moving it twice; the decision is the
// same.
func (e *Engine) OnPrefetch(g int, region uint64, blocks uint64, dst []Action) []Action {
	e.check(g)
	e.stats[g].Prefetches++
	e.obs.OnResident(g, region)
	prefetched(e.pol, g, region)
	if e.fdp != nil && blocks != 0 && e.obs.State(g, region) == Resident && e.obs.Free(g, ForFeedback) > 0 {
		e.cur, e.curRegion, e.fbBlocks = g, region, blocks
		dst, _ = e.obs.Observe(g, region, ForFeedback, e.blockFn, dst)
		e.fbBlocks = 0
	}
	return dst
}

// OnEviction reports that region left g (onEviction); the driver evicts
// whole regions, normally Victim's.
func (e *Engine) OnEviction(g int, region uint64, dst []Action) []Action {
	e.check(g)
	e.stats[g].Evictions++
	start := len(dst)
	unseen, p, dst := e.obs.OnEvicted(g, region, dst)
	e.clearCounters(g, dst[start:])
	if unseen && e.fb != nil {
		e.fb.Unseen(g, region)
	}
	e.pol.Removed(g, region)
	if unseen && p == ForFeedback && e.fdp != nil {
		dst = e.feedback(g, false, dst)
	}
	return e.Refill(g, dst)
}

func (e *Engine) clearCounters(g int, acts []Action) {
	for _, a := range acts {
		e.units[g].Clear(a.First, HostSource())
	}
}

func (e *Engine) feedback(g int, accessed bool, dst []Action) []Action {
	if thr, changed := e.fdp.Feedback(g, accessed); changed {
		e.thr[g] = thr
		e.stats[g].ThresholdChanges++
		dst = append(dst, Action{Kind: SetThreshold, GPU: g, Threshold: thr})
	}
	return dst
}

// OnRemoteAccess reports one access of g that left the GPU: to host DRAM
// through a remote mapping, or to a peer's HBM. It runs g's counter unit;
// the driver services every notification and clears its counter, and a
// notification on an armed sample is a hit (onAccessCounter). With
// counter_scope "samples" only sample pages are counted.
func (e *Engine) OnRemoteAccess(g int, page uint64, src Source, dst []Action) []Action {
	e.check(g)
	e.stats[g].RemoteAccesses++
	if e.cfg.CounterScope == ScopeSamples && (src.Kind != Host || !e.obs.IsSample(g, page)) {
		return dst
	}
	n, ok := e.units[g].Access(page, src)
	if !ok {
		return dst
	}
	e.stats[g].Notifications++
	e.units[g].Clear(n.Page, n.Source)
	start := len(dst)
	r, p, hit, dst := e.obs.OnNotification(g, n, dst)
	if !hit {
		return dst
	}
	e.clearCounters(g, dst[start:])
	if e.touch != nil {
		e.touch.Touch(g, r)
	}
	switch {
	case p == ForFeedback && e.fdp != nil:
		dst = e.feedback(g, true, dst)
	case p == ForTrigger && e.rgp != nil:
		e.cur = g
		e.targets = e.rgp.OnTrigger(g, n.Page, e.hbmFn, e.targets[:0])
		dst = e.prefetchTargets(g, dst)
	}
	return e.Refill(g, dst)
}

// OnHit reports an access of g to page in its own HBM. Hardware cannot
// see these; only OracleLRU uses them.
func (e *Engine) OnHit(g int, page uint64) {
	if e.hit != nil {
		e.hit.OnHit(g, e.geo.Region(page))
	}
}

// Victim is the region to evict from g now (setEvictionRegion), skipping
// regions for which skip is true (nil: none).
func (e *Engine) Victim(g int, skip func(region uint64) bool) (uint64, bool) {
	e.check(g)
	e.victim = e.pol.Victims(g, 1, orNone(skip), e.victim[:0])
	if len(e.victim) == 0 {
		return 0, false
	}
	return e.victim[0], true
}

// Refill fills g's eviction-observation budget with the policy's
// candidates (setObservabilityCandidate). The event methods call it; a
// driver need not.
func (e *Engine) Refill(g int, dst []Action) []Action {
	n := e.obs.Free(g, ForEviction)
	if n == 0 {
		return dst
	}
	e.cur = g
	e.cands = e.pol.Candidates(g, n, e.skipFn, e.cands[:0])
	for _, r := range e.cands {
		e.curRegion = r
		dst, _ = e.obs.Observe(g, r, ForEviction, e.blockFn, dst)
	}
	return dst
}
