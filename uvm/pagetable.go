// Package uvm is the host side of unified memory: the centralized page
// table, the planning of how a fault is resolved (pure), and the Driver
// component that services fault batches by sending invalidations, page
// transfers and PTE updates over the links.
package uvm

import (
	"math/bits"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// Host is the residency of a page in CPU memory.
const Host = pagepolicy.Host

// PageTable is the centralized page table: every page's residency, its
// replicas and remote mappings, and its two PTE policy bits. It is indexed
// by page number.
type PageTable struct {
	owner    []int8
	copies   []uint64
	remote   []uint64
	writable []bool
	bits     []pagepolicy.Bits
	// used counts the pages resident on each GPU (its frames in use).
	used     []int
	observer Residency
}

// Residency is told when a page becomes resident on a GPU or leaves it: the
// eviction policy's view of the table.
type Residency interface {
	Placed(g int, p uint64)
	Removed(g int, p uint64)
}

// Observe sends every later residency change to r.
func (t *PageTable) Observe(r Residency) { t.observer = r }

// Used is the number of pages resident on GPU g.
func (t *PageTable) Used(g int) int {
	if g < 0 || g >= len(t.used) {
		return 0
	}
	return t.used[g]
}

// setCopies sets the GPUs holding a copy of p and keeps the per-GPU
// residency counts and the observer in step.
func (t *PageTable) setCopies(p uint64, m uint64) {
	old := t.copies[p]
	t.copies[p] = m
	for d := old ^ m; d != 0; {
		g := bits.TrailingZeros64(d)
		d &^= 1 << uint(g)
		for len(t.used) <= g {
			t.used = append(t.used, 0)
		}
		if m&(1<<uint(g)) != 0 {
			t.used[g]++
			if t.observer != nil {
				t.observer.Placed(g, p)
			}
		} else {
			t.used[g]--
			if t.observer != nil {
				t.observer.Removed(g, p)
			}
		}
	}
}

// NewPageTable makes a table of n pages, all resident on the host.
func NewPageTable(n uint64) *PageTable {
	t := &PageTable{
		owner: make([]int8, n), copies: make([]uint64, n), remote: make([]uint64, n),
		writable: make([]bool, n), bits: make([]pagepolicy.Bits, n),
	}
	for i := range t.owner {
		t.owner[i] = Host
	}
	return t
}

// Len is the number of pages.
func (t *PageTable) Len() uint64 { return uint64(len(t.owner)) }

// Page returns the policy's view of a page.
func (t *PageTable) Page(p uint64) pagepolicy.Page {
	return pagepolicy.Page{Owner: int(t.owner[p]), Copies: t.copies[p], Remote: t.remote[p], Bits: t.bits[p]}
}

// Writable reports whether the owner's copy is mapped read-write.
func (t *PageTable) Writable(p uint64) bool { return t.writable[p] }

// Place makes g the exclusive, writable owner of p without any transfer:
// the initial "spread" placement.
func (t *PageTable) Place(p uint64, g int) {
	t.owner[p], t.remote[p], t.writable[p] = int8(g), 0, true
	t.setCopies(p, 1<<uint(g))
}

// SetBits records the policy bits of a page.
func (t *PageTable) SetBits(p uint64, b pagepolicy.Bits) { t.bits[p] = b }

// Transfer is one page copy. From or To may be Host.
type Transfer struct {
	From, To int
	Page     uint64
	// Replica marks a duplication's copy, counted as a duplication rather
	// than a migration.
	Replica bool
}

// Plan is what resolving one fault takes: shootdowns first, then copies,
// then PTE installs.
type Plan struct {
	Action pagepolicy.Action
	Inval  []Inval
	Copy   []Transfer
	Map    []Mapping
}

// Reset empties the plan for reuse, keeping its slices' storage.
func (p *Plan) Reset() *Plan {
	p.Inval, p.Copy, p.Map = p.Inval[:0], p.Copy[:0], p.Map[:0]
	return p
}

// Adequate reports whether GPU g's current central mapping already serves
// the access, so the fault raced with an earlier resolution and needs only
// a re-sent PTE.
func (t *PageTable) Adequate(g int, p uint64, write bool) (Mapping, bool) {
	bit := uint64(1) << uint(g)
	m := Mapping{GPU: g, Page: p, Owner: int(t.owner[p]), Bits: t.bits[p]}
	switch {
	case t.copies[p]&bit != 0:
		m.Kind = LocalRO
		if t.writable[p] {
			m.Kind = LocalRW
		}
	case t.remote[p]&bit != 0:
		m.Kind = RemoteRO
		if t.writable[p] {
			m.Kind = RemoteRW
		}
	default:
		return m, false
	}
	return m, !write || m.Kind.Writable()
}

// Resolve plans decision d for a fault by g on p and applies it to the
// table. It appends to plan's slices so a caller can reuse them.
func (t *PageTable) Resolve(g int, p uint64, write bool, d pagepolicy.Decision, plan *Plan) {
	plan.Action = d.Action
	t.bits[p] = d.Bits
	owner := int(t.owner[p])
	switch {
	case d.Action == pagepolicy.MapRemote && owner == Host && d.HostRemote:
		t.mapHost(g, p, plan)
	case d.Action == pagepolicy.MapRemote && owner == Host:
		// Without HostRemote a host page migrates on first touch, as
		// the UVM driver does.
		plan.Action = pagepolicy.Migrate
		t.migrate(g, p, plan)
	case d.Action == pagepolicy.Migrate:
		t.migrate(g, p, plan)
	case d.Action == pagepolicy.LocalCopy:
		t.localCopy(g, p, plan)
	case d.Action == pagepolicy.Collapse:
		t.collapse(g, p, plan)
	case d.Action == pagepolicy.Duplicate && (!write || d.ReadOnlyFirst):
		t.duplicate(g, p, plan)
	case d.Action == pagepolicy.Duplicate:
		// A write cannot be served by a read-only replica.
		plan.Action = pagepolicy.Collapse
		t.collapse(g, p, plan)
	default:
		t.mapRemote(g, p, write, plan)
	}
}

// dropOthers plans the shootdowns that must precede moving p to g: every
// other GPU that holds or maps p, and g's own remote mapping. A GPU whose
// remote mapping survived the move (an access-counter migration to the
// GPU that maps the page remotely, which keeps running) would go on
// writing the old copy after it was sent.
func (t *PageTable) dropOthers(g int, p uint64, plan *Plan) {
	m := (t.copies[p] | t.remote[p]) &^ (t.copies[p] & (1 << uint(g)))
	for m != 0 {
		h := bits.TrailingZeros64(m)
		m &^= 1 << uint(h)
		plan.Inval = append(plan.Inval, Inval{GPU: h, Page: p})
	}
}

// source picks where a new copy comes from: the owner (every GPU copy is
// equally near on a fully connected NVLink), or the host.
func (t *PageTable) source(p uint64) int { return int(t.owner[p]) }

func (t *PageTable) migrate(g int, p uint64, plan *Plan) {
	t.dropOthers(g, p, plan)
	if t.copies[p]&(1<<uint(g)) == 0 {
		plan.Copy = append(plan.Copy, Transfer{From: t.source(p), To: g, Page: p})
	}
	t.owner[p], t.remote[p], t.writable[p] = int8(g), 0, true
	t.setCopies(p, 1<<uint(g))
	plan.Map = append(plan.Map, Mapping{GPU: g, Page: p, Kind: LocalRW, Owner: g, Bits: t.bits[p]})
}

func (t *PageTable) collapse(g int, p uint64, plan *Plan) {
	// Same bookkeeping as a migration: the writer ends as the only copy.
	t.migrate(g, p, plan)
}

// mapHost maps host page p remotely on g (zero-copy over PCIe). The host
// copy is the only one, so every mapping of it may write.
func (t *PageTable) mapHost(g int, p uint64, plan *Plan) {
	t.remote[p] |= 1 << uint(g)
	t.writable[p] = true
	plan.Map = append(plan.Map, Mapping{GPU: g, Page: p, Kind: RemoteRW, Owner: Host, Bits: t.bits[p]})
}

// dropRemote plans the shootdown of every remote mapping of p.
func (t *PageTable) dropRemote(p uint64, plan *Plan) {
	for m := t.remote[p]; m != 0; {
		h := bits.TrailingZeros64(m)
		m &^= 1 << uint(h)
		plan.Inval = append(plan.Inval, Inval{GPU: h, Page: p})
	}
	t.remote[p] = 0
}

func (t *PageTable) duplicate(g int, p uint64, plan *Plan) {
	owner := int(t.owner[p])
	if owner == Host {
		// Zero-copy mappings of the host copy would write it after the
		// replica was taken.
		t.dropRemote(p, plan)
		plan.Copy = append(plan.Copy, Transfer{From: Host, To: g, Page: p})
		t.owner[p], t.writable[p] = int8(g), false
		t.setCopies(p, 1<<uint(g))
		plan.Map = append(plan.Map, Mapping{GPU: g, Page: p, Kind: LocalRO, Owner: g, Bits: t.bits[p]})
		return
	}
	// Remote mappings may write; they cannot coexist with replicas (g's
	// own included: it would write the owner's copy after it was sent).
	t.dropRemote(p, plan)
	if t.writable[p] {
		plan.Inval = append(plan.Inval, Inval{GPU: owner, Page: p, Downgrade: true})
	}
	if t.copies[p]&(1<<uint(g)) == 0 {
		plan.Copy = append(plan.Copy, Transfer{From: owner, To: g, Page: p, Replica: true})
	}
	t.setCopies(p, t.copies[p]|1<<uint(g))
	t.writable[p] = false
	plan.Map = append(plan.Map, Mapping{GPU: g, Page: p, Kind: LocalRO, Owner: g, Bits: t.bits[p]})
}

func (t *PageTable) mapRemote(g int, p uint64, write bool, plan *Plan) {
	owner := int(t.owner[p])
	if t.copies[p]&(1<<uint(g)) != 0 {
		// g already holds a replica: a write collapses onto it.
		t.collapse(g, p, plan)
		plan.Action = pagepolicy.Collapse
		return
	}
	if write && !t.writable[p] {
		// Collapse the replicas onto the owner, which becomes writable.
		for m := t.copies[p] &^ (1 << uint(owner)); m != 0; {
			h := bits.TrailingZeros64(m)
			m &^= 1 << uint(h)
			plan.Inval = append(plan.Inval, Inval{GPU: h, Page: p})
		}
		t.dropRemote(p, plan)
		t.writable[p] = true
		t.setCopies(p, 1<<uint(owner))
		plan.Map = append(plan.Map, Mapping{GPU: owner, Page: p, Kind: LocalRW, Owner: owner, Bits: t.bits[p]})
	}
	t.remote[p] |= 1 << uint(g)
	kind := RemoteRO
	if t.writable[p] {
		kind = RemoteRW
	}
	plan.Map = append(plan.Map, Mapping{GPU: g, Page: p, Kind: kind, Owner: owner, Bits: t.bits[p]})
}

// localCopy gives g a writable copy of its own and leaves every other copy
// as it is (the Ideal bound). The owner stays the first holder.
func (t *PageTable) localCopy(g int, p uint64, plan *Plan) {
	bit := uint64(1) << uint(g)
	if t.copies[p]&bit == 0 {
		plan.Copy = append(plan.Copy, Transfer{From: t.source(p), To: g, Page: p, Replica: true})
		if t.owner[p] == Host {
			t.owner[p] = int8(g)
		}
		t.setCopies(p, t.copies[p]|bit)
	}
	t.writable[p] = false
	plan.Map = append(plan.Map, Mapping{GPU: g, Page: p, Kind: LocalRW, Owner: g, Bits: t.bits[p]})
}

// Unmap plans dropping GPU g's remote mapping of p, if it has one: the
// page stays where it is, and g's next access faults.
func (t *PageTable) Unmap(g int, p uint64, plan *Plan) {
	if bit := uint64(1) << uint(g); t.remote[p]&bit != 0 {
		t.remote[p] &^= bit
		plan.Inval = append(plan.Inval, Inval{GPU: g, Page: p})
	}
}

// Evict plans taking GPU g's copy of p out of its memory and reports
// whether the data goes back to the host. A replica is dropped: another
// GPU keeps a valid copy, and becomes the owner if g was. The last copy of
// an owned page is shot down everywhere it is mapped and copied back to
// the host. The PTE policy bits stay, so a policy can tell a page it
// evicted from one never touched (OASIS §VI-D).
func (t *PageTable) Evict(g int, p uint64, plan *Plan) (copyBack bool) {
	bit := uint64(1) << uint(g)
	if t.copies[p]&bit == 0 {
		return false
	}
	plan.Inval = append(plan.Inval, Inval{GPU: g, Page: p})
	others := t.copies[p] &^ bit
	if int(t.owner[p]) == g || others == 0 {
		// Remote mappings point at the owner's copy, which is going.
		t.dropRemote(p, plan)
	}
	if others != 0 {
		if int(t.owner[p]) == g {
			t.owner[p] = int8(bits.TrailingZeros64(others))
		}
		t.setCopies(p, others)
		return false
	}
	plan.Copy = append(plan.Copy, Transfer{From: g, To: Host, Page: p})
	t.owner[p], t.remote[p], t.writable[p] = Host, 0, false
	t.setCopies(p, 0)
	return true
}
