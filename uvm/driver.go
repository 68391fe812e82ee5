package uvm

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/stats"
)

// Driver is the host UVM driver: it services one fault batch at a time
// (fixed service latency, then per fault a policy decision), and executes
// the decisions as three waves of messages: shootdowns, page copies, PTE
// installs. The decisions themselves live in PageTable.Resolve and the
// policy; this component only sequences them in simulated time.
type Driver struct {
	*sim.ComponentBase
	engine sim.Engine
	cfg    Config
	port   sim.Port
	gpus   []sim.Port // each GMMU's PCIe port

	pageSize uint64
	table    *PageTable
	policy   pagepolicy.Policy
	objectOf func(ptr uint64) int
	check    *Checker
	counters []*stats.Counters

	queue       []*FaultBatchMsg
	cur         *batch
	nextBatchID uint64
	recvPending bool
	scratch     Plan

	// capacity is the pages each GPU may hold (0: unlimited); evictor
	// picks victims beyond it. pinned[p] is the batch that touched p last,
	// so a batch never evicts a page it is placing.
	capacity int
	evictor  eviction.Policy
	pinned   []uint64
	victims  []uint64
}

type batch struct {
	id          uint64
	msg         *FaultBatchMsg
	servicedAt  sim.VTimeInSec
	pendingAcks int
	pendingDone int
	copies      []Transfer
	maps        [][]Mapping
	resolved    [][]Resolution
	invals      [][]Inval
}

type driverEvent struct {
	t    sim.VTimeInSec
	h    sim.Handler
	kind eventKind
}

type eventKind uint8

const (
	evDrain   eventKind = iota // drain the port
	evService                  // the batch's fixed service time is over: decide
	evDecided                  // the policy's own lookups are over: shoot down
)

func (e *driverEvent) Time() sim.VTimeInSec { return e.t }
func (e *driverEvent) Handler() sim.Handler { return e.h }
func (e *driverEvent) IsSecondary() bool    { return false }

// Port is the driver's PCIe port.
func (d *Driver) Port() sim.Port { return d.port }

// Evictor is the eviction policy, or nil when GPU memory is not limited.
func (d *Driver) Evictor() eviction.Policy { return d.evictor }

// Table is the centralized page table.
func (d *Driver) Table() *PageTable { return d.table }

// Policy is the page policy in force.
func (d *Driver) Policy() pagepolicy.Policy { return d.policy }

// ConnectGPU records GMMU g's PCIe port as the destination for GPU g.
func (d *Driver) ConnectGPU(g int, p sim.Port) {
	for len(d.gpus) <= g {
		d.gpus = append(d.gpus, nil)
	}
	d.gpus[g] = p
}

// SetChecker turns on the coherence checking mode.
func (d *Driver) SetChecker(c *Checker) { d.check = c }

// Observe passes a kernel launch, an allocation or a free to the policy.
func (d *Driver) Observe(e pagepolicy.Event) error { return d.policy.Observe(e) }

// NotifyRecv schedules a drain of the port at the current time.
func (d *Driver) NotifyRecv(now sim.VTimeInSec, _ sim.Port) {
	if !d.recvPending {
		d.recvPending = true
		d.engine.Schedule(&driverEvent{t: now, h: d})
	}
}

// NotifyPortFree is unused: the driver's links have unbounded send queues.
func (d *Driver) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle runs the driver's events.
func (d *Driver) Handle(e sim.Event) error {
	ev := e.(*driverEvent)
	now := ev.t
	switch ev.kind {
	case evService:
		d.service(now)
		return nil
	case evDecided:
		d.sendInvalidations(now, d.cur.invals)
		return nil
	}
	d.recvPending = false
	for msg := d.port.Retrieve(now); msg != nil; msg = d.port.Retrieve(now) {
		d.receive(now, msg)
	}
	return nil
}

func (d *Driver) receive(now sim.VTimeInSec, msg sim.Msg) {
	switch m := msg.(type) {
	case *FaultBatchMsg:
		d.queue = append(d.queue, m)
		if d.cur == nil {
			d.startBatch(now)
		}
	case *InvalidateAckMsg:
		d.cur.pendingAcks--
		if d.cur.pendingAcks == 0 {
			d.startTransfers(now)
		}
	case *TransferDoneMsg, *PageDataMsg: // PageData: an eviction reached the host
		d.cur.pendingDone--
		if d.cur.pendingDone == 0 {
			d.finish(now)
		}
	default:
		panic(fmt.Sprintf("uvm.Driver: unexpected message %T", msg))
	}
}

func (d *Driver) startBatch(now sim.VTimeInSec) {
	m := d.queue[0]
	d.queue = d.queue[1:]
	d.nextBatchID++
	n := len(d.gpus)
	d.cur = &batch{id: d.nextBatchID, msg: m, maps: make([][]Mapping, n), resolved: make([][]Resolution, n)}
	if !m.Counter {
		d.counters[m.GPU].FaultBatches++
	}
	t := now + sim.VTimeInSec((d.cfg.FaultServiceNs+d.cfg.PerFaultNs*float64(len(m.Faults)))*1e-9)
	d.engine.Schedule(&driverEvent{t: t, h: d, kind: evService})
}

// service decides every fault of the batch and starts the shootdowns.
func (d *Driver) service(now sim.VTimeInSec) {
	b := d.cur
	b.servicedAt = now
	g := b.msg.GPU
	invals := make([][]Inval, len(d.gpus))
	lookup := 0.0
	if b.msg.Counter {
		d.counters[g].ACNotifications += uint64(b.msg.Notifications)
	}
	for _, f := range b.msg.Faults {
		if b.msg.Counter {
			d.migrateGroupPage(g, f.Page, invals)
			continue
		}
		if m, ok := d.table.Adequate(g, f.Page, f.Write); ok {
			d.addMap(m, CauseHost)
			continue
		}
		fault := pagepolicy.Fault{GPU: g, Page: f.Page, Write: f.Write, Protection: f.Protection,
			Object: d.objectOf(f.Ptr), Ptr: f.Ptr, TimeNs: float64(now) * 1e9}
		dec := d.policy.Decide(fault, d.table.Page(f.Page))
		for _, u := range dec.Updates { // the policy's predictions: only the driver writes the table
			d.table.SetBits(u.Page, u.Bits)
		}
		lookup += d.lookupCost(dec)
		wasHost := d.table.Page(f.Page).Owner == Host
		plan := &d.scratch
		plan.Inval, plan.Copy, plan.Map = plan.Inval[:0], plan.Copy[:0], plan.Map[:0]
		d.table.Resolve(g, f.Page, f.Write, dec, plan)
		d.collect(g, plan, d.count(g, plan, wasHost), invals)
	}
	d.evict(invals)
	if lookup > 0 {
		// The policy's lookups delay the batch's resolution.
		b.invals = invals
		b.servicedAt = now + sim.VTimeInSec(lookup*1e-9)
		for _, rs := range b.resolved {
			for i := range rs {
				rs[i].ServicedAt = b.servicedAt
			}
		}
		d.engine.Schedule(&driverEvent{t: b.servicedAt, h: d, kind: evDecided})
		return
	}
	d.sendInvalidations(now, invals)
}

// evict brings every GPU the batch filled beyond its capacity back within
// it. The victims' shootdowns and copy-backs join the batch's waves, so the
// faulting GPU waits for them, as it waits for the driver to free memory.
func (d *Driver) evict(invals [][]Inval) {
	if d.evictor == nil {
		return
	}
	b := d.cur
	for _, f := range b.msg.Faults {
		d.pinned[f.Page] = b.id
	}
	pinned := func(p uint64) bool { return d.pinned[p] == b.id }
	plan := &d.scratch
	for h := range d.gpus {
		over := d.table.Used(h) - d.capacity
		if over <= 0 {
			continue
		}
		d.victims = d.evictor.Victims(h, over, pinned, d.victims[:0])
		plan.Inval, plan.Copy, plan.Map = plan.Inval[:0], plan.Copy[:0], plan.Map[:0]
		for _, v := range d.victims {
			d.table.Evict(h, v, plan)
			d.counters[h].Evictions++
		}
		d.collect(h, plan, CauseHost, invals)
	}
}

// lookupCost is the time a decision's own lookups add to the batch: all of
// it when they follow the host page walk, the excess over the walk when
// they run beside it.
func (d *Driver) lookupCost(dec pagepolicy.Decision) float64 {
	if dec.Overlapped {
		return max(0, dec.LookupNs-d.cfg.PerFaultNs)
	}
	return dec.LookupNs
}

// migrateGroupPage moves one page of a notified access-counter group to the
// counting GPU g, if it lives on another GPU (host pages are not resident
// anywhere yet and stay put).
func (d *Driver) migrateGroupPage(g int, page uint64, invals [][]Inval) {
	pg := d.table.Page(page)
	if pg.Owner == Host || pg.Owner == g && pg.Copies == 1<<uint(g) {
		return
	}
	plan := &d.scratch
	plan.Inval, plan.Copy, plan.Map = plan.Inval[:0], plan.Copy[:0], plan.Map[:0]
	d.table.Resolve(g, page, true, pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: pg.Bits}, plan)
	d.collect(g, plan, CauseMigration, invals)
}

func (d *Driver) collect(g int, plan *Plan, cause Cause, invals [][]Inval) {
	for _, iv := range plan.Inval {
		invals[iv.GPU] = append(invals[iv.GPU], iv)
		d.counters[iv.GPU].Invalidations++
	}
	d.cur.copies = append(d.cur.copies, plan.Copy...)
	for _, m := range plan.Map {
		d.addMap(m, cause)
	}
}

func (d *Driver) sendInvalidations(now sim.VTimeInSec, invals [][]Inval) {
	b := d.cur
	for h, entries := range invals {
		if len(entries) == 0 {
			continue
		}
		b.pendingAcks++
		d.send(now, h, &InvalidateMsg{Entries: entries, Batch: b.id}, 16*len(entries))
	}
	if b.pendingAcks == 0 {
		d.startTransfers(now)
	}
}

// count updates the action counters and returns the stall cause.
func (d *Driver) count(g int, plan *Plan, wasHost bool) Cause {
	c := d.counters[g]
	switch plan.Action {
	case pagepolicy.Duplicate:
		c.Duplications++
		return CauseDuplication
	case pagepolicy.Collapse:
		c.Collapses++
		return CauseCollapse
	case pagepolicy.MapRemote:
		return CauseRemote
	case pagepolicy.LocalCopy:
		c.Duplications++
		return CauseDuplication
	}
	if wasHost {
		return CauseHost
	}
	return CauseMigration
}

func (d *Driver) addMap(m Mapping, cause Cause) {
	b := d.cur
	b.maps[m.GPU] = append(b.maps[m.GPU], m)
	b.resolved[m.GPU] = append(b.resolved[m.GPU], Resolution{ServicedAt: b.servicedAt, Cause: cause})
}

// startTransfers sends the batch's page copies: host pages go straight over
// PCIe, GPU pages are sent by their source GPU on command.
func (d *Driver) startTransfers(now sim.VTimeInSec) {
	b := d.cur
	type pair struct{ from, to int }
	groups := map[pair][]uint64{}
	var order []pair
	for _, t := range b.copies {
		k := pair{t.From, t.To}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], t.Page)
		if d.check != nil {
			d.check.Copied(t.From, t.To, t.Page)
		}
		d.countTransfer(t)
	}
	for _, k := range order {
		pages := groups[k]
		b.pendingDone++
		if k.from == Host {
			d.send(now, k.to, &PageDataMsg{From: Host, To: k.to, Pages: pages, Batch: b.id}, len(pages)*int(d.pageSize))
			continue
		}
		d.send(now, k.from, &TransferCmdMsg{To: k.to, Pages: pages, Batch: b.id}, 8*len(pages))
	}
	if b.pendingDone == 0 {
		d.finish(now)
	}
}

func (d *Driver) countTransfer(t Transfer) {
	switch {
	case t.From == Host:
		d.counters[t.To].MigrationsH2D++
	case t.To == Host:
		d.counters[t.From].MigrationsD2H++
	case t.Replica:
	default:
		d.counters[t.To].MigrationsD2D++
	}
}

// finish installs the PTEs; the faulting GPU's message ends the batch.
func (d *Driver) finish(now sim.VTimeInSec) {
	b := d.cur
	for g, entries := range b.maps {
		end := g == b.msg.GPU
		if len(entries) == 0 && !end {
			continue
		}
		d.send(now, g, &MapMsg{Entries: entries, Resolved: b.resolved[g],
			EndOfBatch: end && !b.msg.Counter, EndOfCounterBatch: end && b.msg.Counter}, 16*len(entries))
	}
	d.cur = nil
	if len(d.queue) > 0 {
		d.startBatch(now)
	}
}

func (d *Driver) send(now sim.VTimeInSec, g int, msg sim.Msg, bytes int) {
	meta := msg.Meta()
	meta.Src, meta.Dst, meta.SendTime, meta.TrafficBytes = d.port, d.gpus[g], now, bytes
	if err := d.port.Send(msg); err != nil {
		panic("uvm.Driver: PCIe send refused; links must have unbounded send queues")
	}
}
