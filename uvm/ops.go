package uvm

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Ops is what a runtime may do to the driver within the batch in service,
// as ObservUVM's engine does: change the page table through a plan whose
// shootdowns, copies and mappings join the batch. RuntimeEnv carries it.
type Ops interface {
	// Table is the centralized page table.
	Table() *PageTable
	// Plan is the driver's scratch plan, emptied: fill it with the
	// table's Resolve, Evict or Unmap, then Carry it.
	Plan() *Plan
	// Carry adds plan's shootdowns to invals (the stage's), its copies
	// and mappings to the batch in service, for GPU g.
	Carry(g int, plan *Plan, cause uvmproto.Cause, invals [][]uvmproto.Inval)
	// Pin keeps page p with the batch in service: it does not evict it.
	Pin(p uint64)
	// Pinned reports whether the batch in service holds p.
	Pinned(p uint64) bool
	// Migrate moves page p to g as an access-counter notification does.
	Migrate(g int, p uint64, invals [][]uvmproto.Inval)
	// Counters are GPU g's counts.
	Counters(g int) *stats.Counters
	// Checking reports whether the coherence checker runs, so that a
	// runtime checks its own promises too.
	Checking() bool
	// Fail stops the run with err at the next tick.
	Fail(err error)
	// Now is when the batch in service was serviced.
	Now() sim.VTimeInSec
}

// ops is the Service's Ops.
type ops struct{ s *Service }

func (o ops) Table() *PageTable { return o.s.table }
func (o ops) Plan() *Plan       { return o.s.clearScratch() }
func (o ops) Carry(g int, plan *Plan, cause uvmproto.Cause, invals [][]uvmproto.Inval) {
	o.s.collect(g, plan, cause, invals)
}
func (o ops) Pin(p uint64) {
	if o.s.cur != nil {
		o.s.cur.prefetched = append(o.s.cur.prefetched, p)
	}
}
func (o ops) Pinned(p uint64) bool {
	s := o.s
	return s.pinned != nil && s.cur != nil && s.pinned[p] == s.cur.id
}
func (o ops) Migrate(g int, p uint64, invals [][]uvmproto.Inval) {
	o.s.migrateGroupPage(g, p, invals)
}
func (o ops) Counters(g int) *stats.Counters { return o.s.counters[g] }
func (o ops) Checking() bool                 { return o.s.check != nil }
func (o ops) Fail(err error)                 { o.s.failStep(err) }
func (o ops) Now() sim.VTimeInSec {
	if o.s.cur == nil {
		return 0
	}
	return o.s.cur.servicedAt
}
