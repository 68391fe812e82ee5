package pagepolicy

import (
	"fmt"
	"slices"

	"github.com/mgpu-sim/mgpu/cache"
)

// grit is GRIT ("GRIT: Enhancing Multi-GPU Performance with Fine-Grained
// Dynamic Page Placement", HPCA 2024, §V-A to §V-D and Fig. 16): a per-page
// scheme chosen from the page's own faults, spread to its neighbours.
//
//   - Fault-Aware Initiator: every local fault and protection fault on a
//     page, from any GPU, bumps the page's fault counter in the PA-Table.
//     Every page starts on on-touch. At the threshold (4) the driver picks
//     a scheme and deletes the page's PA entry.
//   - Policy Decision Selection: a page that reached the threshold is
//     shared, so only its R/W bit matters: reads only → duplication, any
//     write → access-counter. The scheme goes into the PTE policy bits.
//   - PA-Cache: 64 entries, 4-way, indexed by the low VPN bits,
//     write-allocate, LRU, write-back of evicted entries. A hit costs
//     pa_cache_ns, a miss one host-memory read of the PA-Table. The lookup
//     runs beside the host page walk (Decision.Overlapped).
//   - Neighbouring-Aware Prediction: groups of 1, 8, 64 and 512 aligned
//     pages, the group size held at the group's base page.
//
// Our choices where the paper is silent or ambiguous:
//   - The registering fault counts as 1; the decision fires when the count
//     reaches the threshold (the paper's 2-bit counter cannot reach its
//     own sweep's 8 and 16, and it does not say whether the registering
//     fault counts). Faults after an eviction count (the paper does not
//     say whether a PA-Table entry outlives an eviction to the host).
//   - A page never returns to on-touch (GRIT names no transition back;
//     OASIS, HPCA 2025, §V states that a policy never returns to it).
//   - Promotion looks at the aligned 8-page block holding the page,
//     counting the page itself, and promotes when more than half (5 of 8)
//     use the new scheme; the same rule lifts eight 8-page groups to 64
//     and eight 64-page groups to 512 (§V-D says "8 neighbouring pages"
//     and "more than half" without fixing the window or whether the page
//     counts). A promotion writes the scheme bits of the whole group in
//     the host PTEs only: no migration, no invalidation; a page applies
//     them at its next fault (§V-D: the group check runs in the
//     background, and a neighbour takes the new scheme at its next fault).
//   - Demotion: when a page inside a group changes scheme, each enclosing
//     group splits into its eight subgroups, which keep the next size
//     down, and the 8-page block holding the page drops to single pages.
//   - No group check when the new scheme equals the old (AC → AC).
//   - The scheme bits of other pages go back to the driver in
//     Decision.Updates, which applies them before it resolves the fault.
//     Within one Decide, reads see that Decide's own pending writes, as
//     they would if the PTEs were written in place.
//   - GRIT's Table IV encodes the bits differently (01 OT, 10 AC, 11 D);
//     we keep one encoding (OASIS Fig. 12) so Fig. 23's shares compare.
type grit struct {
	Base
	cfg    Config
	count  []uint8 // PA-Table fault counter per page
	write  []bool  // PA-Table R/W bit per page
	paC    *cache.Cache
	level  []uint8 // group size at a base page: 0 = 1, 1 = 8, 2 = 64, 3 = 512 pages
	table  PageView
	hits   uint64
	misses uint64
	wbacks uint64
	st     gritStats

	// The current Decide's writes: updates holds those to other pages
	// (returned as Decision.Updates and reused by the next Decide);
	// pending[p] is 1 + the bits written to p, 0 if none, so reads see
	// them before the driver applies them; fault is the faulting page,
	// whose bits travel in Decision.Bits.
	updates []BitsUpdate
	pending []uint8
	fault   uint64
}

type gritStats struct {
	decisions, changes, promotions, demotions, predicted uint64
	toDup, toAC                                          uint64
}

// groupFanout is the number of subgroups in a group (8 pages, 8 groups of
// 8, 8 groups of 64).
const groupFanout = 8

// maxLevel is the largest group: 8^3 = 512 pages, one 2 MB page-table page.
const maxLevel = 3

func init() {
	Register("grit", Traits{}, func(c Config, env Env) (Policy, error) { return newGRIT(c, env) })
	ReadsKeys("grit", append(slices.Clone(counterKeys), "dup_write_first", "grit_threshold",
		"pa_cache_entries", "pa_cache_ways", "pa_cache_ns", "grit_neighbors", "grit_pa_lookup", "host_mem_ns")...)
}

func newGRIT(c Config, env Env) (*grit, error) {
	if env.Table == nil {
		return nil, fmt.Errorf("grit: needs the page table (Env.Table) for neighbour prediction")
	}
	if c.GRITThreshold < 1 || c.GRITThreshold > 255 {
		return nil, fmt.Errorf("policy.grit_threshold = %d: must be between 1 and 255", c.GRITThreshold)
	}
	pc, err := cache.New(c.PACacheEntries, c.PACacheWays)
	if err != nil {
		return nil, fmt.Errorf("policy.pa_cache_entries/ways: %w", err)
	}
	n := env.Table.Len()
	return &grit{cfg: c, paC: pc, table: env.Table,
		count: make([]uint8, n), write: make([]bool, n), level: make([]uint8, n), pending: make([]uint8, n)}, nil
}

func (g *grit) Name() string { return "grit" }

func (g *grit) Decide(f Fault, p Page) Decision {
	// The driver has applied the previous Decide's writes by now.
	for _, u := range g.updates {
		g.pending[u.Page] = 0
	}
	g.pending[g.fault] = 0
	g.updates, g.fault = g.updates[:0], f.Page
	ns := g.paLookup(f.Page)
	g.count[f.Page]++
	if f.Write {
		g.write[f.Page] = true
	}
	bits := p.Bits
	if int(g.count[f.Page]) >= g.cfg.GRITThreshold {
		bits = g.decide(f.Page, p.Bits)
	}
	var d Decision
	switch bits {
	case Duplication:
		d = duplication{readOnlyFirst: g.cfg.DupWriteFirst == DupReadOnlyCopy}.Decide(f, p)
	case AccessCounter:
		d = accessCounter{}.Decide(f, p)
	default:
		d = onTouch{}.Decide(f, p)
	}
	d.Bits = bits
	d.Updates = g.updates
	d.LookupNs, d.Overlapped = ns, g.cfg.GRITPALookup != GRITLookupSerial
	return d
}

// setBits records b as page p's policy bits: in Decision.Bits for the
// faulting page, in Decision.Updates for any other.
func (g *grit) setBits(p uint64, b Bits) {
	g.pending[p] = uint8(b) + 1
	if p != g.fault {
		g.updates = append(g.updates, BitsUpdate{Page: p, Bits: b})
	}
}

// bitsAt reads page p's policy bits as this Decide has left them so far.
func (g *grit) bitsAt(p uint64) Bits {
	if v := g.pending[p]; v != 0 {
		return Bits(v - 1)
	}
	return g.table.Page(p).Bits
}

// paLookup prices the PA-Cache access for page and keeps the cache's
// contents: a miss reads the PA-Table and allocates, writing back the
// victim.
func (g *grit) paLookup(page uint64) float64 {
	if g.paC.Lookup(page, 0) {
		g.hits++
		return g.cfg.PACacheNs
	}
	g.misses++
	if _, evicted := g.paC.Insert(page, 0); evicted {
		g.wbacks++ // off the critical path: a write buffer drains it
	}
	return g.cfg.PACacheNs + g.cfg.HostMemNs
}

// decide picks the scheme of a page at the threshold, deletes its PA
// entry, and runs neighbour prediction if the scheme changed.
func (g *grit) decide(page uint64, old Bits) Bits {
	g.st.decisions++
	bits := Duplication
	if g.write[page] {
		bits = AccessCounter
	}
	g.count[page], g.write[page] = 0, false
	g.paC.Invalidate(page)
	if bits == old {
		return bits
	}
	g.st.changes++
	if bits == Duplication {
		g.st.toDup++
	} else {
		g.st.toAC++
	}
	g.setBits(page, bits)
	if g.cfg.GRITNeighbors {
		g.demote(page)
		g.promote(page, bits)
	}
	return bits
}

// span is the number of pages in a group of a level.
func span(level int) uint64 { return 1 << (3 * uint(level)) }

// containing returns the level and base of the largest group holding page.
func (g *grit) containing(page uint64) (int, uint64) {
	for l := maxLevel; l >= 1; l-- {
		base := page / span(l) * span(l)
		if int(g.level[base]) >= l {
			return l, base
		}
	}
	return 0, page
}

// demote splits every group around page: subgroups keep the next size
// down, and the page's own 8-page block becomes single pages.
func (g *grit) demote(page uint64) {
	l, base := g.containing(page)
	if l == 0 {
		return
	}
	g.st.demotions++
	for ; l >= 1; l-- {
		sub := span(l - 1)
		for i := uint64(0); i < groupFanout; i++ {
			if s := base + i*sub; s < uint64(len(g.level)) {
				g.level[s] = uint8(l - 1)
			}
		}
		base = page / sub * sub
	}
}

// promote lifts page's groups while more than half of each next group
// already uses bits.
func (g *grit) promote(page uint64, bits Bits) {
	n := uint64(len(g.level))
	for l := 1; l <= maxLevel; l++ {
		base := page / span(l) * span(l)
		sub := span(l - 1)
		agree := 0
		for i := uint64(0); i < groupFanout; i++ {
			s := base + i*sub
			if s >= n {
				break
			}
			if int(g.level[s]) >= l-1 && g.bitsAt(s) == bits {
				agree++
			}
		}
		if agree <= groupFanout/2 {
			return
		}
		g.st.promotions++
		for p := base; p < min(base+span(l), n); p++ {
			if g.bitsAt(p) != bits {
				g.setBits(p, bits)
				g.st.predicted++
			}
		}
		g.level[base] = uint8(l)
	}
}

// Report gives the PA-Cache and prediction counters.
func (g *grit) Report() Report { return Report{Stats: g.stats()} }

func (g *grit) stats() map[string]float64 {
	rate := 0.0
	if g.hits+g.misses > 0 {
		rate = float64(g.hits) / float64(g.hits+g.misses)
	}
	return map[string]float64{
		"pa_cache_hits":       float64(g.hits),
		"pa_cache_misses":     float64(g.misses),
		"pa_cache_hit_rate":   rate,
		"pa_cache_writebacks": float64(g.wbacks),
		"decisions":           float64(g.st.decisions),
		"policy_changes":      float64(g.st.changes),
		"changes_to_dup":      float64(g.st.toDup),
		"changes_to_ac":       float64(g.st.toAC),
		"promotions":          float64(g.st.promotions),
		"demotions":           float64(g.st.demotions),
		"predicted_pages":     float64(g.st.predicted),
	}
}
