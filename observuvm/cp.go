package observuvm

import (
	"math"

	"github.com/mgpu-sim/mgpu/recency"
)

// cp is Cyclic Protection (Sec. VI-A, Fig. 7c), for loops over more
// regions than fit in HBM, where LRU evicts every region just before its
// reuse. The resident list (head oldest, tail newest) is split: a
// protected part at the head, never evicted while an unprotected region
// is left, and an unprotected window of the newest W regions at the tail.
// Faults insert (or promote) regions at the tail, into the window.
//
// Which end is evicted is ambiguous: the text says "from the tail of the
// unprotected area (S)" while the figure puts S at the head of the
// unprotected area, by the protected boundary, and only a victim at the
// boundary makes the window size matter. CPBoundary (default) evicts the
// oldest region of the window: regions enter at the tail, age through the
// window for W evictions and leave at S, while the protected part stays
// and hits every cycle (MRU-like for loops, Sec. VI-A). CPTail evicts the
// list tail, the literal reading: pure MRU, where W only moves the
// observed regions.
//
// The regions nearest S are observed. A hit on one means regions are
// still in use when they reach S, so the window grows by CPStep; an
// observed region evicted unseen means they were not, so it shrinks by
// CPStep, giving the protected part more room. Only regions CP itself
// nominated count. The paper gives neither the initial split, nor the
// step, nor bounds: the window starts at (1-CPProtected) of the resident
// regions, follows that fraction until the first eviction, and then stays
// in 1..resident regions.
type cp struct {
	unprot float64 // initial window fraction
	step   int
	tail   bool
	per    []*cpGPU
}

type cpGPU struct {
	l          *olist
	s          int32 // first unprotected node (recency.None: none); all nodes before it are protected (mark)
	nUnprot    int
	w          int // window target; -1 until the first eviction
	nominated  map[uint64]bool
	grow, shrk uint64
}

func newCP(c Config, gpus int) *cp {
	p := &cp{unprot: 1 - c.CPProtected, step: c.CPStep, tail: c.CPVictim == CPTail}
	for range gpus {
		p.per = append(p.per, &cpGPU{l: newOList(), s: recency.None, w: -1, nominated: map[uint64]bool{}})
	}
	return p
}

func (*cp) Name() string { return CP }

// window is the current window target in regions.
func (p *cp) window(s *cpGPU) int {
	n := s.l.len()
	if s.w >= 0 {
		return min(s.w, n)
	}
	return min(n, max(1, int(math.Round(p.unprot*float64(n)))))
}

// rebalance moves the boundary until the window holds its target.
func (p *cp) rebalance(s *cpGPU) {
	t := p.window(s)
	for s.nUnprot > t && s.s != recency.None {
		s.l.setMark(s.s, true)
		s.s = s.l.next(s.s)
		s.nUnprot--
	}
	for s.nUnprot < t {
		c := s.l.tail()
		if s.s != recency.None {
			c = s.l.prev(s.s)
		}
		if c == recency.None || !s.l.marked(c) {
			break
		}
		s.l.setMark(c, false)
		s.s = c
		s.nUnprot++
	}
}

func (p *cp) insert(s *cpGPU, r uint64) {
	n := s.l.pushBack(r)
	s.nUnprot++
	if s.s == recency.None {
		s.s = n
	}
	p.rebalance(s)
}

func (p *cp) drop(s *cpGPU, r uint64) {
	n := s.l.get(r)
	if n == recency.None {
		return
	}
	if !s.l.marked(n) {
		s.nUnprot--
		if n == s.s {
			s.s = s.l.next(n)
		}
	}
	s.l.remove(r)
	p.rebalance(s)
}

func (p *cp) Placed(g int, r uint64) {
	s := p.per[g]
	p.drop(s, r)
	p.insert(s, r)
}

// Prefetched inserts a region a prefetch brought; it does not promote one.
func (p *cp) Prefetched(g int, r uint64) {
	if s := p.per[g]; !s.l.has(r) {
		p.insert(s, r)
	}
}

func (p *cp) fix(s *cpGPU) {
	if s.w < 0 {
		s.w = p.window(s)
	}
}

// Touch: a hit on a region CP nominated grows the window.
func (p *cp) Touch(g int, r uint64) {
	s := p.per[g]
	if !s.nominated[r] || !s.l.has(r) {
		return
	}
	delete(s.nominated, r)
	p.fix(s)
	s.w = min(s.w+p.step, s.l.len())
	s.grow++
	p.rebalance(s)
}

// Unseen: a region CP nominated left unseen, so the window shrinks.
func (p *cp) Unseen(g int, r uint64) {
	s := p.per[g]
	p.fix(s)
	if s.nominated[r] {
		s.w = max(1, s.w-p.step)
		s.shrk++
	}
}

func (p *cp) Removed(g int, r uint64) {
	s := p.per[g]
	p.fix(s)
	delete(s.nominated, r)
	p.drop(s, r)
}

func (p *cp) Victims(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	return requests(p.victim, g, n, skip, dst)
}

func (p *cp) victim(g int, skip func(uint64) bool) (uint64, bool) {
	s := p.per[g]
	if p.tail {
		return s.l.first(s.l.tail(), true, skip)
	}
	if r, ok := s.l.first(s.s, false, skip); ok {
		return r, true
	}
	return s.l.first(s.l.head(), false, skip) // only protected regions are evictable
}

func (p *cp) Candidates(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	s := p.per[g]
	start := len(dst)
	if p.tail {
		dst = s.l.walk(s.l.tail(), true, n, skip, dst)
	} else {
		dst = s.l.walk(s.s, false, n, skip, dst)
	}
	for _, r := range dst[start:] {
		s.nominated[r] = true
	}
	return dst
}

// Window is g's unprotected window in regions.
func (p *cp) Window(g int) int { return p.window(p.per[g]) }
