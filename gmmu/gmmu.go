// Package gmmu is the GPU memory-management unit: the GPU's local page
// table, its page-table walkers and page-walk cache, the far-fault buffer
// that batches faults to the host driver, and the handling of the driver's
// shootdowns, transfers and PTE installs.
//
// Two doors lead in. mgpu's own GPU model calls Entry, Walk and Fault
// directly, the fast path that keeps one engine event per memory
// instruction. Any other Akita model sends Akita's vm.TranslationReq to the
// Top port and gets a vm.TranslationRsp back, after a page walk and, if the
// page is not mapped, a far fault serviced by the driver.
//
// One way leads out to the GPU: what the GMMU asks of it (shootdowns,
// dropped translations, page copies to a peer) goes as the messages of
// uvmproto/control.go through the Control port, to mgpu's GPU as to any
// other model's. mgpu's GPU also took them as Go calls until the messages
// were measured under issue 62's 3% bar: 0.998x the calls' CPU time over
// 78 pairs of the 26-run set (standard error 1.6%; the quick set's short
// runs 1.029x), and 1-2% of a profile's samples, spent on a message
// allocated per request and an Akita port's buffer and lock
// (docs/performance.md, "One path from GMMU to GPU"). On the on-chip
// interconnect.Wire each side acts on a message inside the sender's Send,
// so the messages add no engine event and the results are the calls' to
// the byte.
package gmmu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/tasks"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// PTE is a local page-table entry.
type PTE = uvmproto.PTE

// Comp is one GPU's GMMU: an Akita component around the FaultBuffer core.
type Comp struct {
	*sim.ComponentBase
	// traced names the task of each outstanding far fault while a hook
	// listens (package tasks).
	traced   map[uint64]string
	nextTask uint64
	engine   sim.Engine
	cfg      Config
	id       int
	pageSize uint64
	base     uint64
	port     *uvmproto.Port // PCIe, to the driver
	top      *uvmproto.Port // translation requests from another model
	ctrl     *uvmproto.Port // the GPU side as messages (uvmproto/control.go)
	out      *uvmproto.Outbox
	frames   *Frames // physical memory, for Top's answers (WithFrames)
	topOut   *uvmproto.Outbox
	ctrlOut  *uvmproto.Outbox
	driver   sim.Port
	// gpuPort is the GPU's control port (ConnectGPU). Without one the
	// GMMU acknowledges shootdowns at once and cannot send pages to a
	// peer GPU.
	gpuPort sim.Port
	// keys are the tagged addresses Top answered each page under, which
	// a GPU that speaks messages flushes from its TLB (tlbKeys).
	keys tlbKeys
	// shootdowns are the driver's shootdowns waiting for the GPU's
	// ShootdownRsp, by the request's ID.
	shootdowns map[string]*uvmproto.InvalidateMsg
	counters   *stats.Counters
	build      uvmproto.Builder
	faults     *FaultBuffer
	err        error

	table   []PTE
	big     bigPages
	walkers *walkerPool
	pwc     *walkCache
	cycle   sim.VTimeInSec

	src                                  engine.Source
	recvPending, topPending, ctrlPending bool
	recvDelay                            sim.VTimeInSec
}

// recvEvent drains port.
type recvEvent struct {
	t    sim.VTimeInSec
	o    engine.Order
	h    sim.Handler
	port sim.Port
}

func (e *recvEvent) Time() sim.VTimeInSec { return e.t }
func (e *recvEvent) Order() engine.Order  { return e.o }
func (e *recvEvent) Handler() sim.Handler { return e.h }
func (e *recvEvent) IsSecondary() bool    { return false }

// Port is the GMMU's PCIe port to the driver.
func (m *Comp) Port() sim.Port { return m.port }

// Top is the port that takes Akita vm.TranslationReq messages.
func (m *Comp) Top() sim.Port { return m.top }

// Control is the port for the GPU side as messages (uvmproto/control.go):
// the GPU it sits in, mgpu's or another model's, connects its port here.
func (m *Comp) Control() sim.Port { return m.ctrl }

// SetDriver sets the driver's port.
func (m *Comp) SetDriver(p sim.Port) { m.driver = p }

// ConnectGPU names the GPU's port that takes the GMMU's control requests
// (shootdowns, dropped translations, page copies).
func (m *Comp) ConnectGPU(p sim.Port) { m.gpuPort = p }

// Counters are the counts the GMMU keeps (faults, page walks).
func (m *Comp) Counters() *stats.Counters { return m.counters }

// Refused is how many sends its connections refused and it resent.
func (m *Comp) Refused() uint64 { return m.out.Refused() + m.topOut.Refused() + m.ctrlOut.Refused() }

// Err is the first error the GMMU met, if any; it stops handling then.
func (m *Comp) Err() error { return m.err }

// Geometry is the page size and the number of pages of the managed space,
// for the driver to check against its own when they are connected.
func (m *Comp) Geometry() (pageSize, pages uint64) { return m.pageSize, uint64(len(m.table)) }

// AddressBase is the virtual address of the GMMU's page 0.
func (m *Comp) AddressBase() uint64 { return m.base }

// Entry returns the local PTE of a page.
func (m *Comp) Entry(page uint64) PTE { return m.table[page] }

// Mapping reports the local mapping of a page (for the checker).
func (m *Comp) Mapping(page uint64) (uvmproto.MapKind, int) {
	e := m.table[page]
	return e.Kind, int(e.Owner)
}

// Place installs an initial local mapping (spread placement).
func (m *Comp) Place(page uint64, e PTE) {
	m.table[page] = e
	m.big.update(m.table, page)
	m.fail(m.frame(page, e))
}

// BigPageShift is log2 of the pages one big PTE maps, 0 when every page
// is translated alone (Config.BigPage).
func (m *Comp) BigPageShift() uint { return m.big.shift }

// InBigPage reports whether page is mapped by a big PTE now, so that one
// TLB entry covers its whole big page. Any change to a PTE of the big page
// splits it, and the GPU is told to drop that page's translations then.
func (m *Comp) InBigPage(page uint64) bool { return m.big.shift != 0 && m.big.big[page>>m.big.shift] }

// HugePageShift is log2 of the pages one 2 MB PTE maps, 0 when none do
// (Config.HugePage).
func (m *Comp) HugePageShift() uint { return m.big.hugeShift }

// InHugePage reports whether page is mapped by a 2 MB PTE now: one TLB
// entry then covers its whole VA block.
func (m *Comp) InHugePage(page uint64) bool {
	return m.big.hugeShift != 0 && m.big.huge[page>>m.big.hugeShift]
}

// frame keeps the frames in step with a new PTE: a page held here takes a
// frame here, one mapped to a peer's memory one there, and a page no longer
// held here frees its frame.
func (m *Comp) frame(page uint64, e PTE) error {
	switch {
	case m.frames == nil:
		return nil
	case e.Kind.Readable() && !e.Kind.Remote():
		return m.frames.Place(m.id, page)
	case e.Kind.Remote() && e.Owner != uvmproto.Host:
		m.frames.Release(m.id, page)
		return m.frames.Place(int(e.Owner), page)
	}
	m.frames.Release(m.id, page)
	return nil
}

// Walk performs a page-table walk that starts at now and returns when it
// ends. Walkers are a pool; a walk waits for the first free one. The
// page-walk cache holds upper-level entries, so a hit on the entry that
// points at the leaf table leaves one memory access.
func (m *Comp) Walk(now sim.VTimeInSec, page uint64) sim.VTimeInSec {
	m.counters.PageWalks++
	start := max(now, m.walkers.earliest())
	accesses := m.pwc.accesses(page, m.cfg.Levels)
	end := start + sim.VTimeInSec(accesses*m.cfg.LevelCycles)*m.cycle
	m.walkers.occupy(end)
	return end
}

// Fault records a far fault raised at now by w. Faults on one page
// coalesce: later waiters just wait on the first fault's resolution.
func (m *Comp) Fault(now sim.VTimeInSec, e uvmproto.FaultEntry, w Waiter) {
	if m.faults.Raise(now, e, w) {
		if e.Protection {
			m.counters.ProtectionFaults++
		} else {
			m.counters.PageFaults++
		}
		m.traceFault(e)
	}
	m.apply(now)
}

// traceFault starts the task of a new far fault, for the hooks attached
// to the GMMU (package tasks); its resolution ends it.
func (m *Comp) traceFault(e uvmproto.FaultEntry) {
	if !tasks.On(m) {
		return
	}
	if m.traced == nil {
		m.traced = map[uint64]string{}
	}
	kind := "far_fault"
	if e.Protection {
		kind = "protection_fault"
	}
	m.nextTask++
	id := fmt.Sprintf("%s.fault%d", m.Name(), m.nextTask)
	m.traced[e.Page] = id
	tasks.Start(m, tasks.Task{ID: id, Kind: kind, What: fmt.Sprintf("page %d", e.Page)})
}

// Concurrent lets every fault go to the driver as soon as it is raised,
// with no limit on faults in flight: hardware fault handling (UVMMU),
// where each fault is handled on its own.
func (m *Comp) Concurrent() { m.faults.Concurrent() }

// NotifyCounter queues an access-counter notification: pages are the
// group's pages to migrate here.
func (m *Comp) NotifyCounter(now sim.VTimeInSec, pages []uint64) {
	m.faults.Notify(pages)
	m.apply(now)
}

// apply carries out what the fault buffer asked for.
func (m *Comp) apply(now sim.VTimeInSec) {
	rd := m.faults.Ready()
	for _, w := range rd.Wake {
		if id, ok := m.traced[w.Page]; ok {
			delete(m.traced, w.Page)
			tasks.End(m, id)
		}
		w.Waiter.Resolved(now, w.Resolution)
	}
	for _, msg := range rd.Send {
		m.out.Send(msg, m.driver, now)
	}
	m.faults.Advance()
}

// NotifyRecv schedules a drain of the port that received. A message from
// the GPU on Control is handled as it arrives, inside the GPU's send, so
// that a connection without latency (interconnect.Wire) adds no event,
// unless the GMMU was built with a receive delay.
func (m *Comp) NotifyRecv(now sim.VTimeInSec, in sim.Port) {
	pending, p := &m.recvPending, m.port
	switch {
	case m.top.Is(in):
		pending, p = &m.topPending, m.top
	case m.ctrl.Is(in):
		pending, p = &m.ctrlPending, m.ctrl
	}
	m.fail(p.NeedsRecvDelay(m.recvDelay))
	if p == m.ctrl && m.recvDelay == 0 && m.err == nil {
		for msg := p.Retrieve(now); msg != nil && m.err == nil; msg = p.Retrieve(now) {
			m.fail(m.control(now, msg))
		}
		if m.err == nil {
			return
		}
	}
	if !*pending {
		*pending = true
		m.engine.Schedule(&recvEvent{t: now + m.recvDelay, o: m.src.Next(engine.RankGMMU), h: m, port: p})
	}
}

// NotifyPortFree resends what a full connection refused.
func (m *Comp) NotifyPortFree(now sim.VTimeInSec, p sim.Port) {
	switch {
	case m.top.Is(p):
		m.topOut.PortFree(now)
	case m.ctrl.Is(p):
		m.ctrlOut.PortFree(now)
	default:
		m.out.PortFree(now)
	}
}

// Handle drains a port, or finishes a translation request's walk.
func (m *Comp) Handle(e sim.Event) error {
	if m.err != nil {
		return m.err
	}
	now := e.Time()
	switch ev := e.(type) {
	case *recvEvent:
		switch ev.port {
		case sim.Port(m.top):
			m.topPending = false
			for msg := m.top.Retrieve(now); msg != nil; msg = m.top.Retrieve(now) {
				m.fail(m.translate(now, msg))
			}
			return m.err
		case sim.Port(m.ctrl):
			m.ctrlPending = false
			for msg := m.ctrl.Retrieve(now); msg != nil; msg = m.ctrl.Retrieve(now) {
				m.fail(m.control(now, msg))
			}
			return m.err
		}
		m.recvPending = false
		for msg := m.port.Retrieve(now); msg != nil; msg = m.port.Retrieve(now) {
			m.fail(m.receive(now, msg))
		}
	case *walkEvent:
		m.walked(now, ev)
	default:
		m.fail(fmt.Errorf("unexpected event %T", e))
	}
	return m.err
}

// fail records the first error.
func (m *Comp) fail(err error) {
	if err != nil && m.err == nil {
		m.err = fmt.Errorf("%s: %w", m.Name(), err)
	}
}

func (m *Comp) receive(now sim.VTimeInSec, msg sim.Msg) error {
	if err := m.inRange(msg); err != nil {
		return err
	}
	switch x := msg.(type) {
	case *uvmproto.InvalidateMsg:
		m.invalidate(x.Entries)
		if m.gpuPort == nil {
			m.acknowledge(x, now)
			break
		}
		req := m.build.Shootdown(x.Entries)
		req.VAddrs = tlbKeysOf(m.keys, x.Entries, func(iv uvmproto.Inval) uint64 { return iv.Page })
		m.shootdowns[req.ID] = x
		m.ctrlOut.Send(req, m.gpuPort, now)
	case *uvmproto.TransferCmdMsg:
		switch {
		case x.To == uvmproto.Host:
			m.out.Send(m.build.Writeback(m.id, x.Pages, x.Batch), m.driver, now)
		case m.gpuPort != nil:
			m.ctrlOut.Send(m.build.SendPages(x.To, x.Pages, x.Batch), m.gpuPort, now)
		default:
			return fmt.Errorf("transfer to GPU %d commanded, but no GPU is connected to send pages over NVLink (ConnectGPU)", x.To)
		}
	case *uvmproto.PageDataMsg:
		if len(x.Entries) > 0 {
			m.install(now, x.Entries)
			m.faults.Reply(x.Entries, x.Resolved, false, false)
			m.apply(now)
		}
		m.DataArrived(now, x.Batch)
	case *uvmproto.MapMsg:
		m.install(now, x.Entries)
		m.faults.Reply(x.Entries, x.Resolved, x.EndOfBatch, false)
		m.apply(now)
	case *uvmproto.CounterReplyMsg:
		m.install(now, x.Entries)
		m.faults.Reply(x.Entries, x.Resolved, false, true)
		m.apply(now)
	default:
		return fmt.Errorf("unexpected message %T on PCIe", msg)
	}
	return nil
}

// inRange checks that the pages a driver message names are this GMMU's:
// a GMMU and a driver built with different page counts would otherwise
// index past the table.
func (m *Comp) inRange(msg sim.Msg) error {
	n := uint64(len(m.table))
	p, bad := uint64(0), false
	switch x := msg.(type) {
	case *uvmproto.InvalidateMsg:
		p, bad = beyond(x.Entries, func(iv uvmproto.Inval) uint64 { return iv.Page }, n)
	case *uvmproto.MapMsg:
		p, bad = beyond(x.Entries, mappingPage, n)
	case *uvmproto.CounterReplyMsg:
		p, bad = beyond(x.Entries, mappingPage, n)
	case *uvmproto.PageDataMsg:
		p, bad = beyond(x.Entries, mappingPage, n)
	}
	if bad {
		return fmt.Errorf("%T names page %d, beyond this GMMU's %d pages: the GMMU's and the driver's WithPages disagree", msg, p, n)
	}
	return nil
}

func mappingPage(e uvmproto.Mapping) uint64 { return e.Page }

// beyond returns the first page of entries at or past n.
func beyond[T any](entries []T, page func(T) uint64, n uint64) (uint64, bool) {
	for _, e := range entries {
		if p := page(e); p >= n {
			return p, true
		}
	}
	return 0, false
}

func (m *Comp) invalidate(entries []uvmproto.Inval) {
	for _, iv := range entries {
		e := &m.table[iv.Page]
		switch {
		case !iv.Downgrade:
			*e = PTE{Bits: e.Bits}
			if m.frames != nil {
				m.frames.Release(m.id, iv.Page)
			}
		case e.Kind == uvmproto.LocalRW:
			e.Kind = uvmproto.LocalRO
		case e.Kind == uvmproto.RemoteRW:
			e.Kind = uvmproto.RemoteRO
		}
		m.big.update(m.table, iv.Page)
	}
}

func (m *Comp) install(now sim.VTimeInSec, entries []uvmproto.Mapping) {
	for _, e := range entries {
		m.table[e.Page] = PTE{Kind: e.Kind, Owner: int8(e.Owner), Bits: e.Bits}
		m.big.update(m.table, e.Page)
		m.fail(m.frame(e.Page, m.table[e.Page]))
	}
	if m.gpuPort != nil && len(entries) > 0 {
		pages := make([]uint64, len(entries))
		for i, e := range entries {
			pages[i] = e.Page
		}
		req := m.build.DropTranslations(pages)
		req.VAddrs = tlbKeysOf(m.keys, pages, func(p uint64) uint64 { return p })
		m.ctrlOut.Send(req, m.gpuPort, now)
	}
}

// acknowledge tells the driver that shootdown x is done at at: the
// acknowledgement, or for a hardware eviction the pages' write-back.
func (m *Comp) acknowledge(x *uvmproto.InvalidateMsg, at sim.VTimeInSec) {
	if x.Writeback {
		pages := make([]uint64, len(x.Entries))
		for i, iv := range x.Entries {
			pages[i] = iv.Page
		}
		m.out.Send(m.build.Writeback(m.id, pages, x.Batch), m.driver, at)
		return
	}
	m.out.Send(m.build.InvalidateAck(x, m.id), m.driver, at)
}

// control handles a message from the GPU on the Control port.
func (m *Comp) control(now sim.VTimeInSec, msg sim.Msg) error {
	switch x := msg.(type) {
	case *uvmproto.ShootdownRsp:
		inv, ok := m.shootdowns[x.RespondTo]
		if !ok {
			return fmt.Errorf("shootdown response to %q, which is not a pending shootdown", x.RespondTo)
		}
		delete(m.shootdowns, x.RespondTo)
		// at the drain's end, which a connection that hands dated
		// messages over early delivers before it comes
		m.acknowledge(inv, max(now, x.SendTime))
	case *uvmproto.PagesArrivedMsg:
		m.DataArrived(now, x.Batch)
	case *uvmproto.CounterNotifyMsg:
		if p, bad := beyond(x.Pages, func(p uint64) uint64 { return p }, uint64(len(m.table))); bad {
			return fmt.Errorf("access-counter notification names page %d, beyond this GMMU's %d pages", p, len(m.table))
		}
		m.NotifyCounter(now, x.Pages)
	default:
		return fmt.Errorf("unexpected message %T on Control", msg)
	}
	return nil
}

// DataArrived tells the driver that a transfer into this GPU completed.
func (m *Comp) DataArrived(now sim.VTimeInSec, batch uint64) {
	m.out.Send(m.build.TransferDone(m.id, batch), m.driver, now)
}
