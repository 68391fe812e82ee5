package uvm

import (
	"fmt"
	"math/bits"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// LocalView exposes the GPUs' local page tables to the checker, so it can
// catch two writable copies at the moment of a write.
type LocalView interface {
	Mapping(gpu int, page uint64) (kind MapKind, owner int)
}

// CoherenceError is a broken memory-model invariant. The checker records
// the first one at the offending access and reports it through OnViolation,
// so the run stops there with it as its error.
type CoherenceError struct {
	Policy string
	Page   uint64
	GPU    int
	Msg    string
}

func (e *CoherenceError) Error() string {
	return fmt.Sprintf("coherence violation under policy %s: page %d, GPU %d: %s", e.Policy, e.Page, e.GPU, e.Msg)
}

// Checker keeps a version number per page and per copy. Every write bumps
// the page's version; every read must observe the latest version. It is the
// checking mode the tests turn on.
type Checker struct {
	policy string
	gpus   int
	latest []uint32
	ver    []uint32 // page*(gpus+1) + location; location gpus is the host
	table  *PageTable
	local  LocalView
	// Incoherent marks a policy that is a bound rather than a mechanism
	// (ideal): reads of stale replicas are allowed by definition.
	Incoherent bool
	// OnViolation, if set, is called once, with the first violation.
	OnViolation func(error)
	err         error
}

// Err is the first violation seen, if any.
func (c *Checker) Err() error { return c.err }

// NewChecker makes a checker for n pages over gpus GPUs.
func NewChecker(policy string, gpus int, n uint64, table *PageTable, local LocalView) *Checker {
	return &Checker{
		policy: policy, gpus: gpus, table: table, local: local,
		latest: make([]uint32, n), ver: make([]uint32, n*uint64(gpus+1)),
	}
}

func (c *Checker) loc(page uint64, where int) *uint32 {
	if where == Host {
		where = c.gpus
	}
	return &c.ver[page*uint64(c.gpus+1)+uint64(where)]
}

func (c *Checker) fail(page uint64, g int, format string, args ...any) {
	if c.err != nil {
		return
	}
	c.err = &CoherenceError{Policy: c.policy, Page: page, GPU: g, Msg: fmt.Sprintf(format, args...)}
	if c.OnViolation != nil {
		c.OnViolation(c.err)
	}
}

// Access checks one access by GPU g whose data lives at target (g itself for
// a local mapping, the owner for a remote one).
func (c *Checker) Access(g int, page uint64, write bool, target int) {
	v := c.loc(page, target)
	if c.Incoherent {
		if write {
			*v = c.latest[page] + 1
			c.latest[page]++
		}
		return
	}
	if *v != c.latest[page] {
		c.fail(page, g, "stale %s: the copy on GPU %d has version %d, latest is %d", rw(write), target, *v, c.latest[page])
	}
	if !write {
		return
	}
	for h := 0; h < c.gpus; h++ {
		if h == target {
			continue
		}
		if k, _ := c.local.Mapping(h, page); k == LocalRW {
			c.fail(page, g, "write while GPU %d also holds a writable copy (GPU %d writes the copy on GPU %d)", h, g, target)
		}
		if k, _ := c.local.Mapping(h, page); k == LocalRO {
			c.fail(page, g, "write while GPU %d holds a read-only replica", h)
		}
	}
	c.latest[page]++
	*v = c.latest[page]
}

// Copied records that page data moved from one location to another.
func (c *Checker) Copied(from, to int, page uint64) {
	*c.loc(page, to) = *c.loc(page, from)
}

// Final checks that no page was lost: the owner (or the host) and every
// replica hold the latest version.
func (c *Checker) Final() error {
	if c.err != nil || c.Incoherent {
		return c.err
	}
	for p := uint64(0); p < c.table.Len(); p++ {
		pg := c.table.Page(p)
		if *c.loc(p, pg.Owner) != c.latest[p] {
			return &CoherenceError{Policy: c.policy, Page: p, GPU: pg.Owner, Msg: "page lost: its owner does not hold the latest version"}
		}
		for m := pg.Copies; m != 0; {
			g := bits.TrailingZeros64(m)
			m &^= 1 << uint(g)
			if *c.loc(p, g) != c.latest[p] {
				return &CoherenceError{Policy: c.policy, Page: p, GPU: g, Msg: "a replica does not hold the latest version"}
			}
		}
		if pg.Copies != 0 && pg.Copies&(pg.Copies-1) != 0 && c.table.Writable(p) {
			return &CoherenceError{Policy: c.policy, Page: p, GPU: pg.Owner, Msg: "replicated page is writable"}
		}
		if err := c.agrees(p, pg); err != nil {
			return err
		}
	}
	return nil
}

// agrees checks that every GPU's own page table maps p as the driver's
// table does (local copy, remote mapping or none) once no batch is in
// flight: a mapping the driver has dropped but a GPU still holds is
// served from memory the driver no longer tracks for it.
func (c *Checker) agrees(p uint64, pg pagepolicy.Page) error {
	for g := 0; g < c.gpus; g++ {
		bit := uint64(1) << uint(g)
		want := "none"
		switch {
		case pg.Copies&bit != 0:
			want = "local"
		case pg.Remote&bit != 0:
			want = "remote"
		}
		k, _ := c.local.Mapping(g, p)
		got := "none"
		switch {
		case k == LocalRO || k == LocalRW:
			got = "local"
		case k.Remote():
			got = "remote"
		}
		if got != want {
			return &CoherenceError{Policy: c.policy, Page: p, GPU: g,
				Msg: fmt.Sprintf("the GPU's page table maps it %s, the driver's %s", got, want)}
		}
	}
	return nil
}

func rw(write bool) string {
	if write {
		return "write"
	}
	return "read"
}
