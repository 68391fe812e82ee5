package observuvm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mgpu-sim/mgpu/eviction"
)

// Policy is an eviction policy over 2 MB regions, per GPU: the callbacks
// of Table I (the artifact's EvictionPolicy, artifact appendix H) in
// eviction's vocabulary, with region numbers (Geometry.Region) where
// eviction has pages:
//   - Placed is onPageFault: a demand fault on gpu migrated a page of the
//     region in. A first fault lists the region, later ones promote it as
//     the policy defines.
//   - Removed is onEviction: the region left gpu.
//   - Victims is setEvictionRegion, one eviction request per region listed,
//     skipping regions for which pinned is true. Only Tournament keeps state
//     across requests (whose turn is next).
//
// A policy only orders regions; the driver evicts, and the observer
// observes. The optional hooks are eviction.Toucher (onAccessCounter: a
// sample of the region, observed on gpu, was accessed), eviction.Prefetcher
// (onPrefetch, when a prefetch is not a use; without it a prefetch is a
// Placed), HitObserver and Feedback.
type Policy interface {
	eviction.Policy
	// Name is the policy's name as New spells it.
	Name() string
	// Candidates appends up to n regions of gpu to observe, most urgent
	// first (setObservabilityCandidate), skipping those for which skip is
	// true (nil: none): the driver passes "already observed".
	Candidates(gpu, n int, skip func(region uint64) bool, dst []uint64) []uint64
}

// HitObserver is implemented by policies that need every HBM hit, which
// only a simulator can give (OracleLRU).
type HitObserver interface {
	OnHit(gpu int, region uint64)
}

// Feedback is implemented by policies that learn from an observed region
// evicted with no sample accessed, the negative feedback of Sec. IV-B
// (CP). The engine calls Unseen just before Removed.
type Feedback interface {
	Unseen(gpu int, region uint64)
}

// New returns the named eviction policy for gpus GPUs and regions regions
// (region numbers 0..regions-1).
func New(name string, cfg Config, gpus int, regions uint64) (Policy, error) {
	if gpus < 1 {
		return nil, fmt.Errorf("observuvm: %d GPUs: need at least 1", gpus)
	}
	if regions < 1 {
		return nil, fmt.Errorf("observuvm: %d regions: need at least 1", regions)
	}
	o := eviction.Options{GPUs: gpus, Pages: regions, PagesPerChunk: 1, PagesPerBlock: 1}
	list := func(ev string) eviction.Policy {
		p, err := eviction.NewWith(ev, o)
		if err != nil {
			panic(err) // eviction's own names with valid sizes
		}
		return p
	}
	switch name {
	case LRM:
		return &listed{Policy: list(eviction.LRM2MB), name: LRM}, nil
	case LRU:
		return &listed{Policy: list(eviction.LRU2MB), name: LRU, observes: true}, nil
	case OracleLRU:
		return &oracleLRU{listed{Policy: list(eviction.LRU2MB), name: OracleLRU}}, nil
	case LFU:
		return &listed{Policy: eviction.NewLFU(o, eviction.LFUOptions{Bins: cfg.LFUBins, Forget: !cfg.LFUKeepHistory,
			FaultsCount: true, ResidentOnly: true}), name: LFU, observes: true}, nil
	case CP:
		return newCP(cfg, gpus), nil
	case Tournament:
		return newTournament(cfg, gpus, regions)
	}
	return nil, fmt.Errorf("unknown observuvm eviction policy %q: valid policies are %s", name, strings.Join(PolicyNames(), ", "))
}

// listed is one of eviction's policies over region numbers:
//   - LRM is eviction's lrm-2mb: the stock driver's least-recently-migrated
//     list (Fig. 2), a region going to the tail whenever a page migrates
//     into it, by fault or by prefetch; HBM hits are invisible. It observes
//     nothing.
//   - LRU is eviction's lru-2mb, the approximate LRU of Listing 1 (Fig. 7a):
//     faults insert or promote to the tail, a hit on an observed region
//     promotes it (Touch), a prefetch inserts but does not promote, the
//     head is the victim, and the unobserved regions nearest the head are
//     the observation candidates, so the regions at risk are the ones
//     watched.
//   - LFU is eviction's LFU read as Sec. VI-A (Fig. 7b) has it: resident
//     regions in frequency bins, each ordered by recency. A first fault
//     inserts a region in the lowest bin; every further fault, and every hit
//     on an observed region, moves it to the next. The victim is the least
//     recent of the lowest non-empty bin, and the regions nearest it are
//     observed, so a region at risk that is still used climbs out of
//     danger. The paper gives neither the number of bins, nor any aging,
//     nor whether a frequency survives eviction: the top bin (LFUBins-1)
//     saturates, there is no aging, and with LFUKeepHistory (default) the
//     frequency survives eviction, so a refault counts as one more access:
//     "the driver uses the fault stream to track the frequency of accesses
//     to a region" while its pages are in DRAM. A prefetch lists a region at
//     its frequency without counting. Observation candidates continue into
//     the next bins when the lowest holds fewer than the budget.
type listed struct {
	eviction.Policy
	name     string
	observes bool // its victims, in order, are its observation candidates
}

func (p *listed) Name() string { return p.name }

// Touch passes an access-counter hit to a policy that counts them.
func (p *listed) Touch(g int, r uint64) {
	if t, ok := p.Policy.(eviction.Toucher); ok {
		t.Touch(g, r)
	}
}

// Prefetched lists a region a prefetch brought: as a fault would, unless
// the policy tells a prefetch apart.
func (p *listed) Prefetched(g int, r uint64) { prefetched(p.Policy, g, r) }

func (p *listed) Victims(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	return p.Policy.Victims(g, n, orNone(skip), dst)
}

func (p *listed) Candidates(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	if !p.observes {
		return dst
	}
	return p.Victims(g, n, skip, dst)
}

// oracleLRU is true LRU over every HBM hit (not in the paper): the
// simulator's upper bound for sampled observability. It sees everything,
// so it observes nothing.
type oracleLRU struct{ listed }

// OnHit promotes a resident region the GPU accessed in HBM.
func (p *oracleLRU) OnHit(g int, r uint64) { p.Touch(g, r) }

func none(uint64) bool { return false }

// orNone is skip, or a function that skips nothing.
func orNone(skip func(uint64) bool) func(uint64) bool {
	if skip == nil {
		return none
	}
	return skip
}

// requests lists up to n regions of g, one eviction request each: one(g,
// skip) is a policy's choice of a single region, and the regions already
// listed are skipped.
func requests(one func(int, func(uint64) bool) (uint64, bool), g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	skip = orNone(skip)
	if n == 1 {
		if r, ok := one(g, skip); ok {
			dst = append(dst, r)
		}
		return dst
	}
	start := len(dst)
	both := func(r uint64) bool { return skip(r) || slices.Contains(dst[start:], r) }
	for len(dst)-start < n {
		r, ok := one(g, both)
		if !ok {
			break
		}
		dst = append(dst, r)
	}
	return dst
}

// prefetched tells p that a prefetch brought region r to g.
func prefetched(p eviction.Policy, g int, r uint64) {
	if f, ok := p.(eviction.Prefetcher); ok {
		f.Prefetched(g, r)
		return
	}
	p.Placed(g, r)
}
