package observuvm

import (
	"fmt"
	"strings"
)

// Policy is an eviction policy over 2 MB regions, per GPU: the callbacks
// of Table I (the artifact's EvictionPolicy, artifact appendix H) with a
// GPU id. Regions are Geometry.Region numbers. A policy only orders
// regions; the driver evicts, and the observer observes.
type Policy interface {
	// Name is the policy's name as New spells it.
	Name() string
	// OnPageFault: a demand fault on gpu migrated a page of region in
	// (onPageFault). A first fault inserts the region, later ones promote
	// it as the policy defines.
	OnPageFault(gpu int, region uint64)
	// OnAccessCounter: a sample of region, observed on gpu, was accessed
	// (onAccessCounter): the region is in active use.
	OnAccessCounter(gpu int, region uint64)
	// OnEviction: region left gpu (onEviction). unseen is true if it was
	// under observation and no sample had been accessed: the negative
	// feedback of Sec. IV-B.
	OnEviction(gpu int, region uint64, unseen bool)
	// OnPrefetch: a prefetch brought the blocks set in blocks (bit b =
	// block b of the region) of region to gpu (onPrefetch). A region not
	// yet listed is inserted; a prefetch is not an access.
	OnPrefetch(gpu int, region uint64, blocks uint64)
	// Victim is the region to evict from gpu now (setEvictionRegion),
	// skipping regions for which skip is true (nil: none). Each call is one
	// eviction request: the driver calls it once per region it lists, with
	// those already listed skipped. Only Tournament keeps state across
	// calls (whose turn is next); the eviction is reported by OnEviction.
	Victim(gpu int, skip func(region uint64) bool) (uint64, bool)
	// Candidates appends up to n regions of gpu to observe, most urgent
	// first (setObservabilityCandidate), skipping those for which skip is
	// true: the driver passes "already observed".
	Candidates(gpu, n int, skip func(region uint64) bool, dst []uint64) []uint64
}

// HitObserver is implemented by policies that need every HBM hit, which
// only a simulator can give (OracleLRU).
type HitObserver interface {
	OnHit(gpu int, region uint64)
}

// New returns the named eviction policy for gpus GPUs.
func New(name string, cfg Config, gpus int) (Policy, error) {
	if gpus < 1 {
		return nil, fmt.Errorf("observuvm: %d GPUs: need at least 1", gpus)
	}
	switch name {
	case LRM:
		return &lrm{lists: newLists(gpus)}, nil
	case LRU:
		return &lru{lists: newLists(gpus)}, nil
	case OracleLRU:
		return &oracleLRU{lru{lists: newLists(gpus)}}, nil
	case LFU:
		return newLFU(cfg, gpus), nil
	case CP:
		return newCP(cfg, gpus), nil
	case Tournament:
		return newTournament(cfg, gpus)
	}
	return nil, fmt.Errorf("unknown observuvm eviction policy %q: valid policies are %s", name, strings.Join(PolicyNames(), ", "))
}

type lists []*olist

func newLists(gpus int) lists {
	l := make(lists, gpus)
	for g := range l {
		l[g] = newOList()
	}
	return l
}

// lrm is the stock driver's least-recently-migrated list (Fig. 2): a
// region goes to the tail whenever a page migrates into it, by fault or
// by prefetch, and HBM hits are invisible. It observes nothing.
type lrm struct{ lists lists }

func (*lrm) Name() string                                                    { return LRM }
func (p *lrm) OnPageFault(g int, r uint64)                                   { p.lists[g].pushBack(r) }
func (*lrm) OnAccessCounter(int, uint64)                                     {}
func (p *lrm) OnEviction(g int, r uint64, _ bool)                            { p.lists[g].remove(r) }
func (p *lrm) OnPrefetch(g int, r uint64, _ uint64)                          { p.lists[g].pushBack(r) }
func (*lrm) Candidates(_, _ int, _ func(uint64) bool, dst []uint64) []uint64 { return dst }
func (p *lrm) Victim(g int, skip func(uint64) bool) (uint64, bool) {
	return p.lists[g].first(p.lists[g].head(), false, skip)
}

// lru is the approximate LRU of Listing 1 (Fig. 7a): faults insert or
// promote to the tail, a hit on an observed region promotes it, the head
// is the victim, and the unobserved regions nearest the head are the
// observation candidates, so the regions at risk are the ones watched.
type lru struct{ lists lists }

func (*lru) Name() string                  { return LRU }
func (p *lru) OnPageFault(g int, r uint64) { p.lists[g].pushBack(r) }
func (p *lru) OnAccessCounter(g int, r uint64) {
	if l := p.lists[g]; l.has(r) {
		l.pushBack(r)
	}
}
func (p *lru) OnEviction(g int, r uint64, _ bool) { p.lists[g].remove(r) }

// OnPrefetch inserts a region a prefetch brought (RGP) at the tail, as a
// fault would, but does not promote a listed one: a prefetch is not use.
func (p *lru) OnPrefetch(g int, r uint64, _ uint64) {
	if l := p.lists[g]; !l.has(r) {
		l.pushBack(r)
	}
}
func (p *lru) Victim(g int, skip func(uint64) bool) (uint64, bool) {
	return p.lists[g].first(p.lists[g].head(), false, skip)
}
func (p *lru) Candidates(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	return p.lists[g].walk(p.lists[g].head(), false, n, skip, dst)
}

// oracleLRU is true LRU over every HBM hit (not in the paper): the
// simulator's upper bound for sampled observability. It sees everything,
// so it observes nothing.
type oracleLRU struct{ lru }

func (*oracleLRU) Name() string { return OracleLRU }

// OnHit promotes a resident region the GPU accessed in HBM.
func (p *oracleLRU) OnHit(g int, r uint64) { p.lru.OnAccessCounter(g, r) }
func (*oracleLRU) Candidates(_, _ int, _ func(uint64) bool, dst []uint64) []uint64 {
	return dst
}
