package uvm

import (
	"slices"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/earlyadaptor"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// A runtime adapts the driver's batch pipeline to oversubscription:
// UVMSmart's adaptive runtime, ObservUVM, SUV-Mgmt (and SC) and
// Early-Adaptor. Each method is one stage of a batch, in the order the
// Service reaches them; a runtime embeds noStages and overrides the stages
// it acts in. The Service keeps the runtimes the config turns on in a
// list and calls every one at every stage, so the pipeline asks no
// question about which are on.
type runtime interface {
	// counterBatch serves an access-counter batch's pages and reports
	// whether it did; if no runtime did, the driver migrates each page.
	counterBatch(g int, pages []uint64, invals [][]uvmproto.Inval) (served bool)
	// counterPage comes before the driver migrates page p of a counter
	// batch.
	counterPage(p uint64)
	// migrated: a fault (cause fault), a counter notification or a
	// prefetch moved page p of object to g, from the host or not.
	migrated(g int, p uint64, object int, fromHost bool, cause moveCause)
	// prefetchable reports whether g's prefetcher may bring page p.
	prefetchable(g int, p uint64) bool
	// decided: every fault and prefetch of the batch is decided.
	decided(g int, counter bool, prefetched []uint64, invals [][]uvmproto.Inval)
	// makeRoom runs before the eviction policy picks victims (SUV's
	// pools); n is the batch's placements. It reports whether the
	// runtime evicts at all, so that the stage runs without an evictor.
	makeRoom(pinned func(uint64) bool, launch bool, n int, invals [][]uvmproto.Inval) error
	evicts() bool
	// beforeVictims and afterVictims surround GPU h's victims.
	beforeVictims(h int, at sim.VTimeInSec)
	afterVictims(h int, at sim.VTimeInSec, n int) error
	// evicted: every GPU is within its capacity again.
	evicted(invals [][]uvmproto.Inval)
	// faultBatchDone ends a fault batch (not a counter or launch batch).
	faultBatchDone(g int, faults []uvmproto.FaultEntry, now sim.VTimeInSec) error
	// freed: the application freed an object.
	freed(object int)
	// report adds the runtime's counts to m.
	report(m map[string]float64)
}

// moveCause is why a page moved to a GPU.
type moveCause uint8

const (
	moveFault moveCause = iota
	moveCounter
	movePrefetch
)

// noStages is the runtime that acts in no stage.
type noStages struct{}

func (noStages) counterBatch(int, []uint64, [][]uvmproto.Inval) bool             { return false }
func (noStages) counterPage(uint64)                                              {}
func (noStages) migrated(int, uint64, int, bool, moveCause)                      {}
func (noStages) prefetchable(int, uint64) bool                                   { return true }
func (noStages) decided(int, bool, []uint64, [][]uvmproto.Inval)                 {}
func (noStages) makeRoom(func(uint64) bool, bool, int, [][]uvmproto.Inval) error { return nil }
func (noStages) evicts() bool                                                    { return false }
func (noStages) beforeVictims(int, sim.VTimeInSec)                               {}
func (noStages) afterVictims(int, sim.VTimeInSec, int) error                     { return nil }
func (noStages) evicted([][]uvmproto.Inval)                                      {}
func (noStages) faultBatchDone(int, []uvmproto.FaultEntry, sim.VTimeInSec) error { return nil }
func (noStages) freed(int)                                                       {}
func (noStages) report(map[string]float64)                                       {}

// smartRuntime is UVMSmart's adaptive runtime: it learns each
// allocation's pattern from migrations from the host and hot counter
// blocks, and may switch eviction to the tree.
type smartRuntime struct {
	noStages
	s *Service
}

func (r smartRuntime) counterPage(p uint64) { r.s.smart.Hot(p) }

func (r smartRuntime) migrated(_ int, p uint64, object int, fromHost bool, _ moveCause) {
	if fromHost {
		r.s.smart.Migrated(object, p)
	}
}

func (r smartRuntime) decided(int, bool, []uint64, [][]uvmproto.Inval) { r.s.smart.Flush() }

func (r smartRuntime) beforeVictims(_ int, at sim.VTimeInSec) {
	if r.s.smart.Evicting(float64(at) * 1e9).TBNEviction {
		r.s.smartEviction.Use()
	}
}

func (r smartRuntime) report(m map[string]float64) { r.s.smartReport(m) }

// observeRuntime is ObservUVM: it serves counter batches as observation,
// watches faulted and prefetched regions, and acts after decisions and
// evictions.
type observeRuntime struct {
	noStages
	o *observe
}

func (r observeRuntime) counterBatch(g int, pages []uint64, _ [][]uvmproto.Inval) bool {
	r.o.notifiedAll(g, pages)
	return true
}

func (r observeRuntime) migrated(g int, p uint64, _ int, _ bool, cause moveCause) {
	if cause == moveFault {
		r.o.fault(g, p)
	}
}

// prefetchable keeps an ObservUVM sample on the host, remote-mapped.
func (r observeRuntime) prefetchable(g int, p uint64) bool { return !r.o.isSample(g, p) }

func (r observeRuntime) decided(g int, counter bool, prefetched []uint64, invals [][]uvmproto.Inval) {
	if !counter {
		r.o.prefetched(g, prefetched)
	}
	r.o.apply(invals)
}

func (r observeRuntime) evicted(invals [][]uvmproto.Inval) {
	r.o.evicted()
	r.o.apply(invals)
}

func (r observeRuntime) report(m map[string]float64) { r.o.s.observeReport(m) }

// suvRuntime is SUV-Mgmt (or SC): counter batches go through its
// structure plans, its pools make room before the eviction policy, and a
// freed structure's placements end.
type suvRuntime struct {
	noStages
	m *suvMode
}

func (r suvRuntime) counterBatch(g int, pages []uint64, invals [][]uvmproto.Inval) bool {
	s := r.m.s
	for _, p := range pages {
		if r.m.counted(g, p, s.table.Page(p)) {
			s.migrateGroupPage(g, p, invals)
		}
	}
	return true
}

func (r suvRuntime) prefetchable(g int, p uint64) bool { return r.m.prefetchable(g, p) }

func (r suvRuntime) makeRoom(pinned func(uint64) bool, launch bool, n int, invals [][]uvmproto.Inval) error {
	r.m.trim(pinned, n, invals)
	if r.m.s.check != nil {
		return r.m.verify(launch, n)
	}
	return nil
}

func (suvRuntime) evicts() bool { return true }

func (r suvRuntime) freed(object int) { r.m.free(object) }

func (r suvRuntime) report(m map[string]float64) { r.m.s.suvReport(m) }

// eaRuntime is Early-Adaptor: a controller per GPU that sets its tree
// prefetcher's thresholds from the faults and evictions it sees.
type eaRuntime struct {
	noStages
	ctl   []*earlyadaptor.Controller
	seeds []uint64
}

func (r *eaRuntime) afterVictims(h int, at sim.VTimeInSec, n int) error {
	return r.ctl[h].OnEvict(float64(at)*1e9, n)
}

// faultBatchDone feeds GPU g's controller the batch's faulted pages (each
// once; EA's history counts faults after handling, not prefetches), which
// may change the thresholds the next batch's prefetch uses.
func (r *eaRuntime) faultBatchDone(g int, faults []uvmproto.FaultEntry, now sim.VTimeInSec) error {
	r.seeds = r.seeds[:0]
	for _, f := range faults {
		r.seeds = append(r.seeds, f.Page)
	}
	slices.Sort(r.seeds)
	r.seeds = slices.Compact(r.seeds)
	return r.ctl[g].OnFaults(float64(now)*1e9, r.seeds)
}

func (r *eaRuntime) report(m map[string]float64) {
	for _, c := range r.ctl {
		st := c.Stats()
		add(m, map[string]uint64{"ea_detections": st.Detections, "ea_evaluations": st.Evaluations,
			"ea_risk_signals": st.RiskSignals, "ea_threshold_changes": st.Changes, "ea_decreases": st.Decreases,
			"ea_disables": st.Disables, "ea_enables": st.Enables, "ea_blocks_disabled": st.BlocksDisabled})
	}
}
