package uvm

import (
	"fmt"
	"slices"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Service is the host UVM driver's fault-batch protocol as a pure state
// machine in the style of etcd's raft: no engine, no ports. Its inputs are
// Receive (a message from a GMMU) and Tick (the time it asked for has
// come); what it wants done comes out of Ready: messages to send to GPUs,
// in order, then at most one wake-up time.
//
// Its rules: one batch (of faults, or of access-counter notifications) is
// serviced at a time, in arrival order. A batch costs a fixed service
// latency plus a per-fault cost; then every fault is decided (by the page
// table and the policy) and the policy's own lookups may delay the
// batch further. Then three waves go out, each waiting for the previous
// one: shootdowns (until every GPU acknowledged), page copies (until every
// copy arrived), PTE installs (the faulting GPU's ends its batch).
type Service struct {
	// rts are the runtimes the config turned on (UVMSmart, ObservUVM,
	// SUV or SC, Early-Adaptor), called at every stage of a batch.
	rts []Runtime
	// tracer hears of batches, shootdowns and migrations (tasks.go).
	tracer taskTracer

	cfg      Config
	gpus     int
	table    *PageTable
	policy   pagepolicy.Policy
	objectOf func(ptr uint64) int
	check    *Checker
	counters []*stats.Counters
	build    uvmproto.Builder

	queue       []pendingBatch
	cur         *batch
	nextBatchID uint64
	scratch     Plan

	// capacity is the pages each GPU may hold (0: unlimited); evictor
	// picks victims beyond it. pinned[p] is the batch that touched p last,
	// so a batch never evicts a page it is placing.
	// threads holds when each host thread is free (HostThreads > 0).
	threads []sim.VTimeInSec
	// unserviced skips the host's fault service (the ideal bound).
	unserviced bool
	// thrash is the thrashing control over counter notifications, and
	// faultThrash over faults (uvm.thrashing_faults); offThrashing when
	// off. Like the stages below, they are chosen when the Service is
	// built, so that a batch asks no question about what is on.
	thrash, faultThrash thrashControl
	// prefetchStage brings g's prefetcher's pages with a fault batch
	// (none with prefetching off); evictStage brings every GPU within
	// its capacity (none when nothing evicts).
	prefetchStage func(g int, invals [][]uvmproto.Inval)
	evictStage    func(invals [][]uvmproto.Inval)
	// copied hear of every page copy as it is issued: the coherence
	// checker, the move observer, thrashing control.
	copied []func(t Transfer, now sim.VTimeInSec)
	// core is the fault handling the config names, and reporters add the
	// counts of parts beyond the runtimes (UVMMU's units).
	core      Core
	reporters []func(map[string]float64)

	capacity int
	evictor  eviction.Policy
	pinned   []uint64
	victims  []uint64
	// mapped[p] is the batch that last planned a mapping of p.
	mapped []uint64

	// trees is each GPU's prefetcher (nil: prefetching off); arrived and
	// extra are its scratch.
	trees        []*prefetch.Tree
	seeds, extra []uint64
	pageSize     uint64
	base         uint64 // virtual address of page 0 (WithAddressBase)
	objects      bool   // objectOf tells allocated pages from padding
	// stepErr is the first error of a runtime's stage or a launch plan,
	// reported by the next Tick.
	stepErr error

	// handler is the registered fault-handling core that replaces the
	// batches (nil: none; the core then wraps it); concurrent is its
	// HandlingSpec.Concurrent.
	handler    FaultCore
	concurrent bool

	ready ServiceReady
}

// pendingBatch is a fault batch or an access-counter batch as received.
type pendingBatch struct {
	// readyAt is when the host threads finish servicing it (thread model
	// only; the single-threaded model starts the clock when the batch
	// reaches the head of the queue).
	readyAt       sim.VTimeInSec
	gpu           int
	kind          batchKind
	faults        []uvmproto.FaultEntry
	pages         []uint64 // counter batch
	notifications int
	launch        Launch // placement batch
}

// batchKind is what a batch serves.
type batchKind uint8

const (
	faultBatch   batchKind = iota
	counterBatch           // access-counter notifications
	// placementBatch is a launch's placement (gpu -1), for the runtimes
	// that place (Placer): a driver call of its own, with no faults.
	placementBatch
)

func (p pendingBatch) size() int {
	switch p.kind {
	case placementBatch:
		return 0
	case counterBatch:
		return len(p.pages)
	}
	return len(p.faults)
}

type phase uint8

const (
	phaseService phase = iota // the fixed service time runs
	phaseDecided              // the policy's lookups run
	phaseAcks                 // shootdowns are out
	phaseCopies               // page copies are out
)

type batch struct {
	pendingBatch
	id          uint64
	phase       phase
	servicedAt  sim.VTimeInSec
	pendingAcks int
	pendingDone int
	copies      []Transfer
	prefetched  []uint64
	maps        [][]uvmproto.Mapping
	resolved    [][]uvmproto.Resolution
	invals      [][]uvmproto.Inval
	// traced, shootdown and migration say which of its tasks started
	// (tasks.go).
	traced, shootdown, migration bool
}

// ServiceReady is what the service asks its host to do, in this order.
type ServiceReady struct {
	// Send holds unaddressed messages, each for GPU To's GMMU.
	Send []Outgoing
	// WakeAt, when Wake is set, is when Tick must be called.
	WakeAt sim.VTimeInSec
	Wake   bool
	// Placed reports that the launch placement in service is done: the
	// launch may start.
	Placed bool
}

// Outgoing is one message for one GPU.
type Outgoing struct {
	To  int
	Msg sim.Msg
	// At, if later than now, is when the message leaves.
	At sim.VTimeInSec
}

// Table is the centralized page table.
func (s *Service) Table() *PageTable { return s.table }

// Policy is the page policy in force.
func (s *Service) Policy() pagepolicy.Policy { return s.policy }

// Evictor is the eviction policy, or nil when GPU memory is not limited.
func (s *Service) Evictor() eviction.Policy { return s.evictor }

// Ready returns what the service wants done since the last Advance.
func (s *Service) Ready() ServiceReady { return s.ready }

// Advance tells the service its Ready was carried out.
func (s *Service) Advance() {
	clear(s.ready.Send)
	s.ready = ServiceReady{Send: s.ready.Send[:0]}
}

// Counters are GPU g's counts kept by the driver.
func (s *Service) Counters(g int) *stats.Counters { return s.counters[g] }

// Busy reports whether a batch is being serviced.
func (s *Service) Busy() bool { return s.cur != nil }

// Core is the driver's fault handling as a pure state machine: messages
// from the GMMUs in (Receive), wake-ups in (Tick), what to send and when
// to wake out (Ready, then Advance), and what it counted (Report). The
// batch Service is one; a registered FaultCore over the Service's table
// and counters (RegisterHandling) is the other; the Driver holds the one
// the config names (Service.Core).
type Core interface {
	Receive(now sim.VTimeInSec, msg sim.Msg) error
	Tick(now sim.VTimeInSec) error
	Ready() ServiceReady
	Advance()
	Report() map[string]float64
}

// setChecker turns on the coherence checking mode: the checker hears of
// every page copy.
func (s *Service) setChecker(c *Checker) {
	s.check = c
	s.copied = append(s.copied, func(t Transfer, _ sim.VTimeInSec) { c.Copied(t.From, t.To, t.Page) })
}

// Core is the fault handling the config names: the Service's batches, or
// a registered core over the Service's table and counters.
func (s *Service) Core() Core { return s.core }

// Receive takes one message from a GMMU into the batch pipeline.
func (s *Service) Receive(now sim.VTimeInSec, msg sim.Msg) error {
	if err := s.inRange(msg); err != nil {
		return err
	}
	switch m := msg.(type) {
	case *uvmproto.FaultBatchMsg:
		s.enqueue(now, pendingBatch{gpu: m.GPU, faults: m.Faults})
	case *uvmproto.CounterBatchMsg:
		s.enqueue(now, pendingBatch{gpu: m.GPU, kind: counterBatch, pages: m.Pages, notifications: m.Notifications})
	case *uvmproto.InvalidateAckMsg:
		if s.cur == nil || s.cur.phase != phaseAcks || m.Batch != s.cur.id {
			return fmt.Errorf("uvm: shootdown acknowledgement for batch %d from GPU %d while no shootdown of it is pending", m.Batch, m.GPU)
		}
		s.cur.pendingAcks--
		if s.cur.pendingAcks == 0 {
			s.traceShootdownEnd(s.cur)
			s.startTransfers(now)
		}
	case *uvmproto.TransferDoneMsg:
		return s.arrived(now, m.Batch)
	case *uvmproto.WritebackMsg:
		return s.arrived(now, m.Batch)
	default:
		return fmt.Errorf("uvm: unexpected message %T", msg)
	}
	return nil
}

// inRange checks that the pages a GMMU's message names are the driver's:
// a GMMU and a driver built with different page counts would otherwise
// index past the page table.
func (s *Service) inRange(msg sim.Msg) error {
	if g, ok := senderGPU(msg); ok && (g < 0 || g >= s.gpus) {
		return fmt.Errorf("uvm: %T from GPU %d, but the driver serves GPUs 0 to %d (WithGPUs(%d)): build each GMMU WithGPUID of the slot ConnectGPU connects it to",
			msg, g, s.gpus-1, s.gpus)
	}
	n := uint64(s.table.Len())
	switch x := msg.(type) {
	case *uvmproto.FaultBatchMsg:
		for _, f := range x.Faults {
			if f.Page >= n {
				return fmt.Errorf("uvm: GPU %d faulted on page %d, beyond the driver's %d pages: the GMMU's and the driver's WithPages disagree", x.GPU, f.Page, n)
			}
		}
	case *uvmproto.CounterBatchMsg:
		for _, p := range x.Pages {
			if p >= n {
				return fmt.Errorf("uvm: GPU %d counted page %d, beyond the driver's %d pages: the GMMU's and the driver's WithPages disagree", x.GPU, p, n)
			}
		}
	}
	return nil
}

// senderGPU is the GPU a GMMU's message names as its sender.
func senderGPU(msg sim.Msg) (int, bool) {
	switch x := msg.(type) {
	case *uvmproto.FaultBatchMsg:
		return x.GPU, true
	case *uvmproto.CounterBatchMsg:
		return x.GPU, true
	case *uvmproto.InvalidateAckMsg:
		return x.GPU, true
	case *uvmproto.TransferDoneMsg:
		return x.GPU, true
	case *uvmproto.WritebackMsg:
		return x.From, true
	}
	return 0, false
}

func (s *Service) arrived(now sim.VTimeInSec, id uint64) error {
	if s.cur == nil || s.cur.phase != phaseCopies || id != s.cur.id {
		return fmt.Errorf("uvm: page transfer of batch %d completed while no transfer of it is pending", id)
	}
	s.cur.pendingDone--
	if s.cur.pendingDone == 0 {
		s.finish(now)
	}
	return nil
}

// Tick is called at the time Ready asked for.
func (s *Service) Tick(now sim.VTimeInSec) error {
	if s.cur == nil {
		return fmt.Errorf("uvm: woken at %v with no batch in service", now)
	}
	switch s.cur.phase {
	case phaseService:
		s.service(now)
		if s.stepErr != nil {
			return s.stepErr
		}
	case phaseDecided:
		s.sendInvalidations(now, s.cur.invals)
	default:
		return fmt.Errorf("uvm: woken at %v while batch %d waits for messages", now, s.cur.id)
	}
	return nil
}

// Observe passes a kernel launch, an allocation or a free to the policy
// (and a free to SUV-Mgmt, whose placements hold until then).
func (s *Service) Observe(e pagepolicy.Event) error {
	if e.Kind == pagepolicy.Free && e.Object != nil {
		for _, r := range s.rts {
			r.Freed(e.Object.ID)
		}
	}
	return s.policy.Observe(e)
}

func (s *Service) enqueue(now sim.VTimeInSec, p pendingBatch) {
	if len(s.threads) > 0 && !s.unserviced {
		p.readyAt = s.reserveThreads(now, p.size())
	}
	s.queue = append(s.queue, p)
	if s.cur == nil {
		s.startBatch(now)
	}
}

func (s *Service) wake(t sim.VTimeInSec) { s.ready.WakeAt, s.ready.Wake = t, true }

func (s *Service) send(g int, msg sim.Msg) {
	s.ready.Send = append(s.ready.Send, Outgoing{To: g, Msg: msg})
}

// sendAt sends msg to GPU g's GMMU when at comes.
func (s *Service) sendAt(g int, msg sim.Msg, at sim.VTimeInSec) {
	s.ready.Send = append(s.ready.Send, Outgoing{To: g, Msg: msg, At: at})
}

func (s *Service) startBatch(now sim.VTimeInSec) {
	p := s.queue[0]
	s.queue = s.queue[1:]
	s.nextBatchID++
	s.cur = &batch{pendingBatch: p, id: s.nextBatchID,
		maps: make([][]uvmproto.Mapping, s.gpus), resolved: make([][]uvmproto.Resolution, s.gpus)}
	if p.kind == faultBatch {
		s.counters[p.gpu].FaultBatches++
	}
	s.traceBatchStart(s.cur)
	switch {
	case s.unserviced:
		s.wake(now)
		return
	case len(s.threads) > 0:
		s.wake(max(now, p.readyAt))
		return
	}
	s.wake(now + sim.VTimeInSec((s.cfg.FaultServiceNs+s.cfg.PerFaultNs*float64(s.charged(p)))*1e-9))
}

// pageObject is the object page p belongs to (-1: none), asked by the
// page's address.
func (s *Service) pageObject(p uint64) int { return s.objectOf(s.base + p*s.pageSize) }

// charged is how many of p's faults pay per_fault_ns (uvm.per_fault_charge).
func (s *Service) charged(p pendingBatch) int {
	if s.cfg.PerFaultCharge != ChargeNewPages {
		return p.size()
	}
	n := 0
	for _, f := range p.faults {
		if _, ok := s.table.Adequate(p.gpu, f.Page, f.Write); !ok {
			n++
		}
	}
	return n
}

// reserveThreads services n faults arriving at now on the host threads,
// each on the earliest-free thread for per_fault_ns, and returns when the
// batch is ready: fault_service_ns after its last fault.
func (s *Service) reserveThreads(now sim.VTimeInSec, n int) sim.VTimeInSec {
	per := sim.VTimeInSec(s.cfg.PerFaultNs * 1e-9)
	last := now
	for i := 0; i < n; i++ {
		t := 0
		for j, free := range s.threads {
			if free < s.threads[t] {
				t = j
			}
		}
		end := max(now, s.threads[t]) + per
		s.threads[t] = end
		last = max(last, end)
	}
	return last + sim.VTimeInSec(s.cfg.FaultServiceNs*1e-9)
}

// service decides every fault of the batch and starts the shootdowns.
func (s *Service) service(now sim.VTimeInSec) {
	b := s.cur
	b.servicedAt = now
	g := b.gpu
	invals := make([][]uvmproto.Inval, s.gpus)
	lookup := 0.0
	if b.kind == placementBatch {
		for _, r := range s.rts {
			if p, ok := r.(Placer); ok {
				s.failStep(p.Place(b.launch, invals))
			}
		}
	}
	if b.kind == counterBatch {
		s.counters[g].ACNotifications += uint64(b.notifications)
		s.counterBatch(g, b.pages, now, invals)
	}
	for _, f := range b.faults {
		if m, ok := s.table.Adequate(g, f.Page, f.Write); ok {
			s.addMap(m, uvmproto.CauseHost)
			continue
		}
		fault := pagepolicy.Fault{GPU: g, Page: f.Page, Write: f.Write, Protection: f.Protection,
			Object: s.objectOf(f.Ptr), Ptr: f.Ptr, TimeNs: float64(now) * 1e9}
		pg := s.table.Page(f.Page)
		dec := s.policy.Decide(fault, pg)
		if dec.Action == pagepolicy.Migrate && pg.Owner != Host && s.faultThrash.skip(f.Page, now) {
			dec.Action = pagepolicy.MapRemote // pinned where it is (the driver's PIN)
		}
		for _, u := range dec.Updates { // the policy's predictions: only the driver writes the table
			s.table.SetBits(u.Page, u.Bits)
		}
		lookup += s.lookupCost(dec)
		wasHost := s.table.Page(f.Page).Owner == Host
		plan := &s.scratch
		plan.Reset()
		s.table.Resolve(g, f.Page, f.Write, dec, plan)
		if plan.Action == pagepolicy.Migrate {
			for _, r := range s.rts {
				r.Migrated(g, f.Page, fault.Object, wasHost, MoveFault)
			}
		}
		s.collect(g, plan, s.count(g, plan, wasHost), invals)
	}
	if b.kind == faultBatch {
		s.prefetchStage(g, invals)
	}
	for _, r := range s.rts {
		r.Decided(g, b.kind == counterBatch, b.prefetched, invals)
	}
	s.evictStage(invals)
	for _, r := range s.rts {
		r.Evicted(invals)
	}
	if b.kind == faultBatch {
		for _, r := range s.rts {
			s.failStep(r.FaultBatchDone(g, b.faults, now))
		}
	}
	for _, r := range s.rts {
		if h, ok := r.(HostTimer); ok {
			lookup += h.BatchNs()
		}
	}
	if lookup > 0 {
		// The policy's lookups, and the runtimes' host time, delay the
		// batch's resolution.
		b.invals = invals
		b.phase = phaseDecided
		b.servicedAt = now + sim.VTimeInSec(lookup*1e-9)
		for _, rs := range b.resolved {
			for i := range rs {
				rs[i].ServicedAt = b.servicedAt
			}
		}
		s.wake(b.servicedAt)
		return
	}
	s.sendInvalidations(now, invals)
}

// makeRoom pins the batch's pages, so that no eviction takes them, and
// lets the runtimes that evict make room first.
func (s *Service) makeRoom(invals [][]uvmproto.Inval) {
	b := s.cur
	for _, f := range b.faults {
		s.pinned[f.Page] = b.id
	}
	for _, p := range b.pages {
		s.pinned[p] = b.id
	}
	for _, p := range b.prefetched {
		s.pinned[p] = b.id
	}
	pinned := func(p uint64) bool { return s.pinned[p] == b.id }
	n := len(b.faults) + len(b.pages) + len(b.prefetched)
	for _, r := range s.rts {
		s.failStep(r.MakeRoom(pinned, b.kind == placementBatch, n, invals))
	}
}

// evict brings every GPU the batch filled beyond its capacity back within
// it. The victims' shootdowns and copy-backs join the batch's waves, so the
// faulting GPU waits for them, as it waits for the driver to free memory.
func (s *Service) evict(invals [][]uvmproto.Inval) {
	b := s.cur
	pinned := func(p uint64) bool { return s.pinned[p] == b.id }
	plan := &s.scratch
	for h := 0; h < s.gpus; h++ {
		over := s.table.Used(h) - s.capacity
		if over <= 0 {
			continue
		}
		for _, r := range s.rts {
			r.BeforeVictims(h, b.servicedAt)
		}
		s.victims = s.evictor.Victims(h, over, pinned, s.victims[:0])
		plan.Reset()
		for _, v := range s.victims {
			if s.table.Evict(h, v, plan) {
				s.mapEvicted(h, v, plan)
			}
			s.counters[h].Evictions++
		}
		for _, r := range s.rts {
			s.failStep(r.AfterVictims(h, s.cur.servicedAt, len(s.victims)))
		}
		s.collect(h, plan, uvmproto.CauseHost, invals)
	}
}

// mapEvicted applies the policy's answer to page p, which GPU g has just
// copied back to the host: the mapping joins the eviction's plan, after
// its shootdown.
func (s *Service) mapEvicted(g int, p uint64, plan *Plan) {
	if d, ok := s.policy.Evicted(s.table.Page(p)); ok {
		s.table.Resolve(g, p, false, d, plan)
	}
}

// prefetch migrates to g, with the batch, the pages g's prefetcher picks
// around the faulted pages that came to g. Only pages still on the host
// with no copy anywhere move (Early-Adaptor, ISPASS 2023, Fig. 1: the
// prefetcher migrates a subregion's CPU-resident pages); a page another
// GPU holds is left to the policy's next fault, and
// a page no allocation holds (the padding of an object's 2 MB slot) never
// moves, as the driver's VA blocks end at their allocation's range.
func (s *Service) prefetch(g int, invals [][]uvmproto.Inval) {
	b := s.cur
	bit := uint64(1) << uint(g)
	s.seeds = s.seeds[:0]
	for _, f := range b.faults {
		if s.table.Page(f.Page).Copies&bit != 0 {
			s.seeds = append(s.seeds, f.Page)
		}
	}
	if len(s.seeds) == 0 {
		return
	}
	resident := func(p uint64) bool { return s.table.Page(p).Copies&bit != 0 }
	s.extra = s.trees[g].Prefetch(s.seeds, resident, s.extra[:0])
	plan := &s.scratch
	for _, p := range s.extra {
		pg := s.table.Page(p)
		if pg.Owner != Host || pg.Copies != 0 || s.objects && s.pageObject(p) < 0 {
			continue // not on the host only, or no allocation's page (2 MB-slot padding)
		}
		if !s.prefetchable(g, p) {
			continue // a runtime keeps it on the host
		}
		plan.Reset()
		s.table.Resolve(g, p, false, pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: pg.Bits}, plan)
		s.collect(g, plan, uvmproto.CauseHost, invals)
		s.migrated(g, p, true, MovePrefetch)
		b.prefetched = append(b.prefetched, p)
		s.counters[g].Prefetches++
	}
}

func (s *Service) failStep(err error) {
	if err != nil && s.stepErr == nil {
		s.stepErr = err
	}
}

// Report is what the runtimes the config turned on counted, summed over
// the GPUs, each under its prefix: ea_ (Early-Adaptor), uvmmu_ (UVMMU's
// fault-handling core), observuvm_, suv_ (SUV and SC) and uvmsmart_. It is empty
// when none is on.
func (s *Service) Report() map[string]float64 {
	m := map[string]float64{}
	for _, r := range s.rts {
		r.Report(m)
	}
	for _, r := range s.reporters {
		r(m)
	}
	return m
}

// AddCounts adds counts to a Report map: a runtime's counts are uint64s.
func AddCounts(m map[string]float64, counts map[string]uint64) {
	for k, v := range counts {
		m[k] += float64(v)
	}
}

// Trees are the GPUs' prefetchers (nil when prefetching is off), for a
// controller such as Early-Adaptor that sets their thresholds.
func (s *Service) Trees() []*prefetch.Tree { return s.trees }

// lookupCost is the time a decision's own lookups add to the batch: all of
// it when they follow the host page walk, the excess over the walk when
// they run beside it.
func (s *Service) lookupCost(dec pagepolicy.Decision) float64 {
	if dec.Overlapped {
		return max(0, dec.LookupNs-s.cfg.PerFaultNs)
	}
	return dec.LookupNs
}

// counterBatch serves an access-counter batch: a runtime that takes it
// (ObservUVM's observation, SUV's plans), else the driver migrates each
// notified page that thrashing control lets move.
func (s *Service) counterBatch(g int, pages []uint64, now sim.VTimeInSec, invals [][]uvmproto.Inval) {
	for _, r := range s.rts {
		if r.CounterBatch(g, pages, invals) {
			return
		}
	}
	for _, p := range pages {
		if s.thrash.skip(p, now) {
			s.counters[g].ACThrottled++
			continue
		}
		for _, r := range s.rts {
			r.CounterPage(p)
		}
		s.migrateGroupPage(g, p, invals)
	}
}

// prefetchable reports whether every runtime lets g's prefetcher bring p.
func (s *Service) prefetchable(g int, p uint64) bool {
	for _, r := range s.rts {
		if !r.Prefetchable(g, p) {
			return false
		}
	}
	return true
}

// migrated tells the runtimes that page p moved to g, outside a fault.
func (s *Service) migrated(g int, p uint64, fromHost bool, cause MoveCause) {
	if len(s.rts) == 0 {
		return // no object lookup
	}
	obj := s.pageObject(p)
	for _, r := range s.rts {
		r.Migrated(g, p, obj, fromHost, cause)
	}
}

// migrateGroupPage moves one page of a notified access-counter group to the
// counting GPU g, if it lives on another GPU, or on the host and g maps it
// there (zero-copy); a host page g does not use stays put.
func (s *Service) migrateGroupPage(g int, page uint64, invals [][]uvmproto.Inval) {
	pg := s.table.Page(page)
	if pg.Owner == Host && pg.Remote&(1<<uint(g)) == 0 || pg.Owner == g && pg.Copies == 1<<uint(g) {
		return
	}
	plan := &s.scratch
	plan.Reset()
	s.table.Resolve(g, page, true, pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: pg.Bits}, plan)
	s.migrated(g, page, pg.Owner == Host, MoveCounter)
	s.collect(g, plan, uvmproto.CauseMigration, invals)
}

// Place queues a launch's placement for the runtime that places
// (Placer): a driver call that costs the fixed service latency and then
// moves and maps pages in the usual waves. The launch may start when
// Ready reports Placed.
func (s *Service) Place(now sim.VTimeInSec, l Launch) error {
	if !s.Places() {
		return fmt.Errorf("uvm: a launch placement, but no runtime places")
	}
	s.enqueue(now, pendingBatch{gpu: -1, kind: placementBatch, launch: l})
	return nil
}

// Places reports whether a runtime places pages before each launch
// (Placer), so that the program hands the driver its launches.
func (s *Service) Places() bool {
	return slices.ContainsFunc(s.rts, func(r Runtime) bool { _, ok := r.(Placer); return ok })
}

// clearScratch is the service's reusable plan, emptied.
func (s *Service) clearScratch() *Plan { return s.scratch.Reset() }

func (s *Service) collect(g int, plan *Plan, cause uvmproto.Cause, invals [][]uvmproto.Inval) {
	for _, iv := range plan.Inval {
		invals[iv.GPU] = append(invals[iv.GPU], iv)
		s.counters[iv.GPU].Invalidations++
		if s.mapped[iv.Page] == s.cur.id {
			s.restate(iv.GPU, iv.Page)
		}
	}
	s.cur.copies = append(s.cur.copies, plan.Copy...)
	for _, m := range plan.Map {
		s.addMap(m, cause)
	}
}

func (s *Service) sendInvalidations(now sim.VTimeInSec, invals [][]uvmproto.Inval) {
	b := s.cur
	b.phase = phaseAcks
	for h, entries := range invals {
		if len(entries) == 0 {
			continue
		}
		b.pendingAcks++
		s.send(h, s.build.Invalidate(entries, b.id))
	}
	s.traceShootdown(b)
	if b.pendingAcks == 0 {
		s.startTransfers(now)
	}
}

// count updates the action counters and returns the stall cause.
func (s *Service) count(g int, plan *Plan, wasHost bool) uvmproto.Cause {
	c := s.counters[g]
	switch plan.Action {
	case pagepolicy.Duplicate:
		c.Duplications++
		return uvmproto.CauseDuplication
	case pagepolicy.Collapse:
		c.Collapses++
		return uvmproto.CauseCollapse
	case pagepolicy.MapRemote:
		return uvmproto.CauseRemote
	case pagepolicy.LocalCopy:
		c.Duplications++
		return uvmproto.CauseDuplication
	}
	if wasHost {
		return uvmproto.CauseHost
	}
	return uvmproto.CauseMigration
}

func (s *Service) addMap(m uvmproto.Mapping, cause uvmproto.Cause) {
	b := s.cur
	s.mapped[m.Page] = b.id
	b.maps[m.GPU] = append(b.maps[m.GPU], m)
	b.resolved[m.GPU] = append(b.resolved[m.GPU], uvmproto.Resolution{ServicedAt: b.servicedAt, Cause: cause})
}

// restate rewrites the batch's earlier mappings of p on g to what the
// table says now. A batch installs its mappings after its shootdowns, so
// a mapping planned before a later step of the same batch shot p down on
// g (a runtime unmapping an observation sample, say) would otherwise be
// installed after that shootdown and outlive it on the GPU. The fault
// waiting on it still wakes, and faults again if p is now unmapped.
func (s *Service) restate(g int, p uint64) {
	m, _ := s.table.Adequate(g, p, false)
	for i := range s.cur.maps[g] {
		if s.cur.maps[g][i].Page == p {
			s.cur.maps[g][i] = m
		}
	}
}

// startTransfers sends the batch's page copies: host pages go straight over
// PCIe, GPU pages are sent by their source GPU on command.
func (s *Service) startTransfers(now sim.VTimeInSec) {
	b := s.cur
	b.phase = phaseCopies
	type pair struct{ from, to int }
	groups := map[pair][]uint64{}
	var order []pair
	for _, t := range b.copies {
		k := pair{t.From, t.To}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], t.Page)
		s.countTransfer(t)
		for _, f := range s.copied {
			f(t, now)
		}
	}
	for _, k := range order {
		pages := groups[k]
		b.pendingDone++
		if k.from == Host {
			s.send(k.to, s.build.PageData(Host, k.to, pages, b.id))
			continue
		}
		s.send(k.from, s.build.TransferCmd(k.to, pages, b.id))
	}
	s.traceMigration(b)
	if b.pendingDone == 0 {
		s.finish(now)
	}
}

func (s *Service) countTransfer(t Transfer) {
	switch {
	case t.From == Host:
		s.counters[t.To].MigrationsH2D++
	case t.To == Host:
		s.counters[t.From].MigrationsD2H++
	case t.Replica:
	default:
		s.counters[t.To].MigrationsD2D++
	}
}

// finish installs the PTEs; the faulting GPU's message ends the batch.
func (s *Service) finish(now sim.VTimeInSec) {
	b := s.cur
	for g, entries := range b.maps {
		end := g == b.gpu
		switch {
		case end && b.kind == counterBatch:
			s.send(g, s.build.CounterReply(entries, b.resolved[g]))
		case end || len(entries) > 0:
			s.send(g, s.build.Map(entries, b.resolved[g], end))
		}
	}
	if b.kind == placementBatch {
		s.ready.Placed = true
	}
	s.traceBatchEnd(b)
	s.cur = nil
	if len(s.queue) > 0 {
		s.startBatch(now)
	}
}
