package suv

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// Kind is what an Action asks of the driver (§V-D).
type Kind uint8

// Action kinds.
const (
	// PinHBM places the range on this GPU and removes it from eviction
	// (suvPinOnGPU).
	PinHBM Kind = iota + 1
	// PinHost keeps the range in host memory, mapped into this GPU's page
	// table, so accesses go remote over the link without faults and never
	// migrate, not even by access counters (suvPinOnHost with
	// suvSetNoMigrateRegion).
	PinHost
	// OnDemand lets the range migrate by faults (prefetcher included) into
	// a pool of Quota bytes of its own: a QuotaPool, which evicts only
	// this structure's pages.
	OnDemand
	// EnableAC serves the range remotely and lets access-counter
	// notifications migrate it, into its own pool of Quota bytes; the rest
	// of the address space ignores the counters (suvEnableAccessCounter).
	EnableAC
	// Prefetch migrates the range to this GPU and pins it
	// (cudaMemPrefetchAsync plus suvPinOnGPU), at a host-loop boundary.
	Prefetch
	// Evict unpins the range and returns it to the host, pinned and
	// remote-mapped as PinHost, at a host-loop boundary.
	Evict
)

func (k Kind) String() string {
	if k >= PinHBM && k <= Evict {
		return [...]string{"pin-hbm", "pin-host", "on-demand", "enable-ac", "prefetch", "evict"}[k-PinHBM]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Action is one driver request on a range of one object.
type Action struct {
	Kind   Kind
	Object string
	Range  Range
	// Quota is the pool size in bytes, for OnDemand and EnableAC.
	Quota int64
}

// Placement records the decision for one hinted object.
type Placement struct {
	Object string
	// Class is the class acted on (Classify), Density its hint's.
	Class   Class
	Density float64
	// HBMBytes is what the object holds or reserves on this GPU: pinned
	// pages, its pool's quota, or its iteration window.
	HBMBytes int64
	// BatchIters is, for an Iterative structure served by prefetching, the
	// iterations one prefetch covers; 0 otherwise.
	BatchIters int
	// Reason says why, for logs and result files.
	Reason string
}

// Plan is one GPU's decision for one launch. Actions come in an order
// that frees HBM before using it: host pins and evictions, then pools,
// then HBM pins and prefetches; within a kind, in decision order.
type Plan struct {
	// Avail is the HBM given, rounded down to pages; Used is what the
	// placements hold of it.
	Avail, Used int64
	PageSize    int64
	Actions     []Action
	// Placements has one entry per hinted object, in object order.
	Placements []Placement
}

// entry is one hinted object while planning.
type entry struct {
	h          Hint
	idx        int   // position in the launch's objects, the tie-break
	size, need int64 // bytes, and bytes rounded up to pages
	class      Class
}

// planner accumulates a plan; host, pool, pin and pre are the action
// buckets in the order Plan promises.
type planner struct {
	c                    Config
	page, given, avail   int64
	host, pool, pin, pre []Action
	placed               []Placement
	entries              []entry
	footprint            int64
	// chase: the launch has an Unknown structure (SparseBesideChase).
	chase bool
}

func newPlanner(c Config, availHBM int64, objects []Object, hints Hints) (*planner, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if availHBM < 0 {
		return nil, fmt.Errorf("suv available HBM %d bytes: must not be negative", availHBM)
	}
	if err := hints.Validate(objects); err != nil {
		return nil, err
	}
	p := &planner{c: c, page: c.page(), avail: alignDown(availHBM, c.page())}
	p.given = p.avail
	at := make(map[string]int, len(objects))
	for i, o := range objects {
		at[o.Name] = i
	}
	for _, h := range hints {
		i := at[h.Object]
		size := objects[i].Bytes
		e := entry{h: h, idx: i, size: size, need: alignUp(size, p.page), class: Classify(c, h, size)}
		p.entries = append(p.entries, e)
		p.footprint += e.need
	}
	slices.SortFunc(p.entries, func(a, b entry) int { return cmp.Compare(a.idx, b.idx) })
	p.placed = make([]Placement, len(p.entries))
	for i, e := range p.entries {
		p.placed[i] = Placement{Object: e.h.Object, Class: e.class, Density: e.h.Density}
	}
	return p, nil
}

func (p *planner) add(bucket *[]Action, k Kind, e entry, r Range, quota int64) {
	if r.Len > 0 {
		*bucket = append(*bucket, Action{Kind: k, Object: e.h.Object, Range: r, Quota: quota})
	}
}

func whole(e entry) Range { return Range{Off: 0, Len: e.size} }

// hostPin pins all of entry i on the host.
func (p *planner) hostPin(i int, why string, args ...any) {
	p.add(&p.host, PinHost, p.entries[i], whole(p.entries[i]), 0)
	p.placed[i].Reason = fmt.Sprintf(why, args...)
}

// hbmPin pins the first bytes of entry i (a page multiple, or all of it)
// on HBM and the rest on the host.
func (p *planner) hbmPin(i int, bytes int64) {
	e := p.entries[i]
	n := min(bytes, e.size)
	p.add(&p.pin, PinHBM, e, Range{Len: n}, 0)
	p.add(&p.host, PinHost, e, Range{Off: n, Len: e.size - n}, 0)
	p.avail -= bytes
	p.placed[i].HBMBytes = bytes
}

func (p *planner) finish() Plan {
	pl := Plan{Avail: p.given, PageSize: p.page, Placements: p.placed}
	for _, x := range p.placed {
		pl.Used += x.HBMBytes
	}
	pl.Actions = slices.Concat(p.host, p.pool, p.pin, p.pre)
	return pl
}

// byDensity lists the entries of the given classes, densest first, ties
// in object order (a stable sort of entries already in object order).
func (p *planner) byDensity(classes ...Class) []int {
	var out []int
	for i, e := range p.entries {
		if slices.Contains(classes, e.class) {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(p.entries[b].h.Density, p.entries[a].h.Density) })
	return out
}

// mulDiv is a*b/d without overflow, for a <= d.
func mulDiv(a, b, d int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(d))
	return int64(q)
}

// PlanLaunch is SUV-Mgmt for one launch on one GPU with availHBM bytes of
// HBM for the application (its capacity less any reservation, not what
// happens to be free: Algorithm 1 re-plans from scratch at every launch,
// and a host loop's plans must agree on batch boundaries). Objects are the
// allocations the hints may name; only hinted objects are planned, and
// their sizes make the launch's footprint. Per the paper's Algorithm 1:
//
//  1. Unknown structures each reserve (size/footprint) x avail, taken from
//     the starting avail, and get access-counter migration into it.
//  2. Iterative structures reserve their prefetch window (one batch),
//     densest first, before placement. The paper does not place them in
//     Algorithm 1; the released SUV-Mgmt reserves prefetch windows first
//     (penguin-suv.h perform_memory_management_iterative).
//  3. The rest, densest first: with no HBM left, pin on the host; beside
//     an Unknown structure, one at or below DensityThreshold is pinned on
//     the host (SparseBesideChase: §VI and the released SUV-Mgmt); a
//     Temporal structure denser than DensityThreshold gets an on-demand
//     pool of its WSS (clamped to what is left: the printed algorithm has
//     no guard), a sparser one goes where SparseTemporal says (hbm: like
//     Density, as the printed code falls through from line 16 to the HBM
//     pin and the released SUV-Mgmt does; host: the text's reading of
//     line 16); a Density structure has as much as fits pinned on HBM,
//     the rest on the host.
//  4. If HBM is left over, an Iterative structure that now fits whole is
//     pinned whole instead of prefetched (the released code grows its
//     prefetch windows into leftover HBM; whole is the limit).
//
// Algorithm 2 runs with it: at a batch start the Iterative structures get
// their Evict and Prefetch actions (see boundary).
func PlanLaunch(c Config, availHBM int64, objects []Object, hints Hints) (Plan, error) {
	p, err := newPlanner(c, availHBM, objects, hints)
	if err != nil {
		return Plan{}, err
	}
	p.unknowns()
	type window struct {
		i, k int
		w    int64
	}
	var windows []window
	for _, i := range p.byDensity(Iterative) {
		e := p.entries[i]
		k, w := fitBatch(c, e.h.Iter, e.size, p.avail)
		if k == 0 {
			p.hostPin(i, "iterative: not one iteration's span fits in the %d bytes left", p.avail)
			continue
		}
		p.avail -= w
		windows = append(windows, window{i, k, w})
	}
	for _, i := range p.byDensity(Density, Temporal) {
		e := p.entries[i]
		switch {
		case p.avail == 0:
			p.hostPin(i, "%s: no HBM left", e.class)
		case p.chase && c.SparseBesideChase == SparseHost && e.h.Density <= c.DensityThreshold:
			p.hostPin(i, "%s: density %g <= threshold %g beside a pointer chase", e.class, e.h.Density, c.DensityThreshold)
		case e.class == Temporal && e.h.Density > c.DensityThreshold:
			q := min(alignUp(e.h.WSSBytes, p.page), p.avail, e.need)
			p.add(&p.pool, OnDemand, e, whole(e), q)
			p.avail -= q
			p.placed[i].HBMBytes = q
			p.placed[i].Reason = fmt.Sprintf("temporal: on demand into %d of WSS %d bytes", q, e.h.WSSBytes)
		case e.class == Temporal && c.SparseTemporal == SparseHost:
			p.hostPin(i, "temporal: density %g <= threshold %g", e.h.Density, c.DensityThreshold)
		default:
			b := min(e.need, p.avail)
			p.hbmPin(i, b)
			p.placed[i].Reason = fmt.Sprintf("%s: %d of %d bytes pinned on HBM", e.class, min(b, e.size), e.size)
		}
	}
	for _, w := range windows {
		e := p.entries[w.i]
		if extra := e.need - w.w; extra <= p.avail {
			p.avail += w.w
			p.hbmPin(w.i, e.need)
			p.placed[w.i].Reason = "iterative: fits whole in the HBM left, pinned instead of prefetched"
			continue
		}
		host, evict, pre := boundary(c, e.h.Iter, e.size, w.k)
		for _, r := range host {
			p.add(&p.host, PinHost, e, r, 0)
		}
		for _, r := range evict {
			p.add(&p.host, Evict, e, r, 0)
		}
		for _, r := range pre {
			p.add(&p.pre, Prefetch, e, r, 0)
		}
		p.placed[w.i].HBMBytes, p.placed[w.i].BatchIters = w.w, w.k
		p.placed[w.i].Reason = fmt.Sprintf("iterative: window of %d bytes, %d iterations per prefetch", w.w, w.k)
	}
	return p.finish(), nil
}

// unknowns is Algorithm 1's lines 2-5: a share of the starting HBM in
// proportion to size over the launch's footprint, under access counters.
// A share under one page cannot hold a migration: the structure is pinned
// on the host instead.
func (p *planner) unknowns() {
	avail0 := p.avail
	for i, e := range p.entries {
		if e.class != Unknown {
			continue
		}
		p.chase = true
		q := min(alignDown(mulDiv(e.need, avail0, p.footprint), p.page), p.avail, e.need)
		if q < p.page {
			p.hostPin(i, "unknown: HBM share under one page")
			continue
		}
		p.add(&p.pool, EnableAC, e, whole(e), q)
		p.avail -= q
		p.placed[i].HBMBytes = q
		p.placed[i].Reason = fmt.Sprintf("unknown: access counters into %d bytes (size/footprint of %d)", q, avail0)
	}
}

// Verify checks the plan's invariants: the placements hold no more than
// Avail; each object's HBM pins and pool quotas stay within its
// placement; an Iterative window holds its prefetches; and no action names
// an object without a placement.
func (pl Plan) Verify() error {
	if pl.PageSize <= 0 {
		return fmt.Errorf("suv plan: page size %d", pl.PageSize)
	}
	used := map[string]int64{}
	pre := map[string]int64{}
	for _, a := range pl.Actions {
		switch a.Kind {
		case PinHBM:
			used[a.Object] += a.Range.pages(pl.PageSize) * pl.PageSize
		case OnDemand, EnableAC:
			used[a.Object] += a.Quota
		case Prefetch:
			pre[a.Object] += a.Range.pages(pl.PageSize) * pl.PageSize
		}
	}
	var total int64
	placed := map[string]bool{}
	for _, x := range pl.Placements {
		placed[x.Object] = true
		if x.HBMBytes < 0 {
			return fmt.Errorf("suv plan: %q holds %d bytes", x.Object, x.HBMBytes)
		}
		total += x.HBMBytes
		if used[x.Object] > x.HBMBytes {
			return fmt.Errorf("suv plan: %q pins or reserves %d bytes, its placement %d", x.Object, used[x.Object], x.HBMBytes)
		}
		if pre[x.Object] > x.HBMBytes {
			return fmt.Errorf("suv plan: %q prefetches %d bytes into a window of %d", x.Object, pre[x.Object], x.HBMBytes)
		}
	}
	for _, a := range pl.Actions {
		if !placed[a.Object] {
			return fmt.Errorf("suv plan: %s action on %q, which has no placement", a.Kind, a.Object)
		}
	}
	if total != pl.Used || total > pl.Avail {
		return fmt.Errorf("suv plan: placements hold %d bytes (Used %d) of %d available", total, pl.Used, pl.Avail)
	}
	return nil
}
