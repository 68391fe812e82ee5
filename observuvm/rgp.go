package observuvm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Range is an allocation (one cudaMallocManaged): pages First ..
// First+Pages-1.
type Range struct {
	First, Pages uint64
}

func (r Range) end() uint64 { return r.First + r.Pages }

// Target is a region RGP prefetches and the block of it left on the host
// as its trigger.
type Target struct {
	Region uint64
	Block  int
}

// RGP is Region-Grain Prefetching (Sec. VI-D, Fig. 8), per GPU: a
// next-region prefetcher within an allocation, paced by feedback.
//
// Stream detection: per GPU and allocation, a fault 1..RGPWindow blocks
// past the previous fault is a neighbour and raises a confidence count,
// any other jump lowers it (a repeat of the same block changes nothing);
// at RGPConfidence or more the allocation is streaming. The count
// saturates at twice that, so a streaming allocation survives a few stray
// faults. The paper says only "faulting addresses ... to neighboring
// pages", so the window, confidence and hysteresis are chosen here, and
// streams ascend (Fig. 8 shows no other direction).
//
// A demand fault in region r of a streaming allocation proposes regions
// r+1..r+RGPDegree; a trigger hit in region r proposes the first RGPDegree
// regions after r, within RGPLookahead, not yet in HBM: "the next
// yet-to-be-prefetched region". A fault means the stream outran the
// prefetches (or a new sweep began), so it restarts from the fault; a
// trigger keeps one region ahead of consumption. Each proposed region has
// a random trigger block inside the allocation. Regions beyond the
// allocation's last page are never proposed.
type RGP struct {
	cfg    Config
	geo    Geometry
	allocs []Range
	per    []*rgpGPU
}

type rgpGPU struct {
	streams []rgpStream
	rng     *rand.Rand
}

type rgpStream struct {
	last uint64 // block number of the last fault
	seen bool
	conf int
}

// NewRGP returns RGP for gpus GPUs over allocs, which must not overlap
// (nil: one allocation of every page).
func NewRGP(cfg Config, gpus int, geo Geometry, allocs []Range) (*RGP, error) {
	a := slices.Clone(allocs)
	if len(a) == 0 {
		a = []Range{{0, math.MaxUint64}}
	}
	slices.SortFunc(a, func(x, y Range) int {
		switch {
		case x.First < y.First:
			return -1
		case x.First > y.First:
			return 1
		}
		return 0
	})
	for i, r := range a {
		if r.Pages == 0 {
			return nil, fmt.Errorf("observuvm rgp: allocation at page %d has no pages", r.First)
		}
		if i > 0 && a[i-1].end() > r.First {
			return nil, fmt.Errorf("observuvm rgp: allocations at pages %d and %d overlap", a[i-1].First, r.First)
		}
	}
	p := &RGP{cfg: cfg, geo: geo, allocs: a}
	for g := range gpus {
		p.per = append(p.per, &rgpGPU{streams: make([]rgpStream, len(a)), rng: newRand(cfg.Seed^0x726770, g)})
	}
	return p, nil
}

// alloc returns the index of the allocation that holds page.
func (p *RGP) alloc(page uint64) (int, bool) {
	i, _ := slices.BinarySearchFunc(p.allocs, page, func(r Range, pg uint64) int {
		switch {
		case r.end() <= pg:
			return -1
		case r.First > pg:
			return 1
		}
		return 0
	})
	return i, i < len(p.allocs) && p.allocs[i].First <= page && page < p.allocs[i].end()
}

// Streaming reports whether the allocation holding page streams on g.
func (p *RGP) Streaming(g int, page uint64) bool {
	a, ok := p.alloc(page)
	return ok && p.per[g].streams[a].conf >= p.cfg.RGPConfidence
}

// OnFault records a demand fault of g on page and appends the regions to
// prefetch, skipping those for which inHBM is true.
func (p *RGP) OnFault(g int, page uint64, inHBM func(region uint64) bool, dst []Target) []Target {
	a, ok := p.alloc(page)
	if !ok {
		return dst
	}
	s := &p.per[g].streams[a]
	b := page / p.geo.PagesPerBlock
	if s.seen && b != s.last {
		if b > s.last && b-s.last <= uint64(p.cfg.RGPWindow) {
			s.conf = min(s.conf+1, 2*p.cfg.RGPConfidence)
		} else {
			s.conf = max(s.conf-1, 0)
		}
	}
	s.last, s.seen = b, true
	if s.conf < p.cfg.RGPConfidence {
		return dst
	}
	r := p.geo.Region(page)
	for c := r + 1; c <= r+uint64(p.cfg.RGPDegree); c++ {
		if !p.inAlloc(a, c) {
			break
		}
		if !inHBM(c) {
			dst = append(dst, p.target(g, a, c))
		}
	}
	return dst
}

// OnTrigger handles a hit on the trigger page of g and appends the next
// regions to prefetch.
func (p *RGP) OnTrigger(g int, page uint64, inHBM func(region uint64) bool, dst []Target) []Target {
	a, ok := p.alloc(page)
	if !ok {
		return dst
	}
	r, got := p.geo.Region(page), 0
	for c := r + 1; c <= r+uint64(p.cfg.RGPLookahead) && got < p.cfg.RGPDegree; c++ {
		if !p.inAlloc(a, c) {
			break
		}
		if !inHBM(c) {
			dst = append(dst, p.target(g, a, c))
			got++
		}
	}
	return dst
}

// inAlloc reports whether region c starts inside allocation a (c may not
// overflow: a region past the last representable page is not).
func (p *RGP) inAlloc(a int, c uint64) bool {
	if c == 0 || c > math.MaxUint64/p.geo.PagesPerRegion {
		return false
	}
	return c*p.geo.PagesPerRegion < p.allocs[a].end()
}

// target picks a random trigger block of region c inside allocation a.
func (p *RGP) target(g, a int, c uint64) Target {
	lo := max(c*p.geo.PagesPerRegion, p.allocs[a].First)
	hi := min(c*p.geo.PagesPerRegion+p.geo.PagesPerRegion-1, p.allocs[a].end()-1) // no overflow: PagesPerRegion is a power of two
	b0, b1 := p.geo.Block(lo), p.geo.Block(hi)
	return Target{Region: c, Block: b0 + p.per[g].rng.IntN(b1-b0+1)}
}
