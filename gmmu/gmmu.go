// Package gmmu is the GPU memory-management unit: the GPU's local page
// table, its page-table walkers and page-walk cache, the far-fault buffer
// that batches faults to the host driver, and the handling of the driver's
// shootdowns, transfers and PTE installs.
package gmmu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/cache"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/uvm"
)

// PTE is a local page-table entry.
type PTE struct {
	Kind  uvm.MapKind
	Owner int8 // the GPU a remote mapping points at
	Bits  pagepolicy.Bits
}

// GPU is what the GMMU needs from the GPU it sits in.
type GPU interface {
	// Shootdown drops (or downgrades) the pages from TLBs and caches and
	// drains the pipelines; it returns when the drain is done.
	Shootdown(now sim.VTimeInSec, entries []uvm.Inval) sim.VTimeInSec
	// DropTranslation removes a page from the TLBs only.
	DropTranslation(page uint64)
	// SendPages sends page data to another GPU over NVLink.
	SendPages(now sim.VTimeInSec, to int, pages []uint64, batch uint64)
}

// Waiter is a stalled wavefront waiting for a fault to be resolved.
type Waiter interface {
	Resolved(now sim.VTimeInSec, r uvm.Resolution)
}

type fault struct {
	entry   uvm.FaultEntry
	sent    bool
	waiters []Waiter
}

// Comp is one GPU's GMMU.
type Comp struct {
	*sim.ComponentBase
	engine   sim.Engine
	cfg      Config
	id       int
	pageSize uint64
	batchMax int
	port     sim.Port
	driver   sim.Port
	gpu      GPU
	counters *stats.Counters

	table   []PTE
	walkers []sim.VTimeInSec
	pwc     *cache.Cache
	cycle   sim.VTimeInSec

	pending     []uvm.FaultEntry
	outstanding map[uint64]*fault
	inFlight    bool
	acPending   [][]uint64
	acInFlight  bool
	recvPending bool
}

type recvEvent struct {
	t sim.VTimeInSec
	h sim.Handler
}

func (e *recvEvent) Time() sim.VTimeInSec { return e.t }
func (e *recvEvent) Handler() sim.Handler { return e.h }
func (e *recvEvent) IsSecondary() bool    { return false }

// Port is the GMMU's PCIe port to the driver.
func (m *Comp) Port() sim.Port { return m.port }

// SetDriver sets the driver's port and the GPU this GMMU serves.
func (m *Comp) SetDriver(p sim.Port) { m.driver = p }

// SetGPU attaches the GPU.
func (m *Comp) SetGPU(g GPU) { m.gpu = g }

// Entry returns the local PTE of a page.
func (m *Comp) Entry(page uint64) PTE { return m.table[page] }

// Mapping reports the local mapping of a page (for the checker).
func (m *Comp) Mapping(page uint64) (uvm.MapKind, int) {
	e := m.table[page]
	return e.Kind, int(e.Owner)
}

// Place installs an initial local mapping (spread placement).
func (m *Comp) Place(page uint64, e PTE) { m.table[page] = e }

// Walk performs a page-table walk that starts at now and returns when it
// ends. Walkers are a pool; a walk waits for the first free one. The
// page-walk cache holds upper-level entries, so a hit on the entry that
// points at the leaf table leaves one memory access.
func (m *Comp) Walk(now sim.VTimeInSec, page uint64) sim.VTimeInSec {
	m.counters.PageWalks++
	w := 0
	for i, t := range m.walkers {
		if t < m.walkers[w] {
			w = i
		}
	}
	start := now
	if m.walkers[w] > start {
		start = m.walkers[w]
	}
	levels := m.cfg.Levels
	// Upper levels from the leaf's parent upwards: level L-1 covers 512
	// pages, L-2 covers 512^2, ...
	accesses := levels
	for l := 1; l < levels; l++ {
		key := (page>>(9*uint(l)))<<3 | uint64(l)
		if m.pwc.Lookup(key, 0) {
			accesses = l
			break
		}
	}
	for l := 1; l < levels; l++ {
		m.pwc.Insert((page>>(9*uint(l)))<<3|uint64(l), 0)
	}
	end := start + sim.VTimeInSec(accesses*m.cfg.LevelCycles)*m.cycle
	m.walkers[w] = end
	return end
}

// Fault records a far fault. Faults on one page coalesce: later wavefronts
// just wait on the first fault's resolution.
func (m *Comp) Fault(now sim.VTimeInSec, e uvm.FaultEntry, w Waiter) {
	if f, ok := m.outstanding[e.Page]; ok {
		f.waiters = append(f.waiters, w)
		if !f.sent && e.Write && !f.entry.Write {
			f.entry.Write, f.entry.Protection = true, e.Protection
			m.upgradePending(e)
		}
		return
	}
	e.RaisedAt = now
	m.outstanding[e.Page] = &fault{entry: e, waiters: []Waiter{w}}
	m.pending = append(m.pending, e)
	if e.Protection {
		m.counters.ProtectionFaults++
	} else {
		m.counters.PageFaults++
	}
	if !m.inFlight {
		m.flush(now)
	}
}

func (m *Comp) upgradePending(e uvm.FaultEntry) {
	for i := range m.pending {
		if m.pending[i].Page == e.Page {
			m.pending[i].Write, m.pending[i].Protection = true, e.Protection
		}
	}
}

// flush sends up to one batch of pending faults to the driver.
func (m *Comp) flush(now sim.VTimeInSec) {
	if len(m.pending) == 0 {
		return
	}
	n := min(len(m.pending), m.batchMax)
	batch := make([]uvm.FaultEntry, n)
	copy(batch, m.pending[:n])
	m.pending = append(m.pending[:0], m.pending[n:]...)
	for _, e := range batch {
		m.outstanding[e.Page].sent = true
	}
	m.inFlight = true
	m.send(now, &uvm.FaultBatchMsg{GPU: m.id, Faults: batch}, 32*n)
}

// NotifyCounter queues an access-counter notification: pages are the
// group's pages to migrate here. Notifications go to the driver in batches,
// one batch in flight at a time, like faults.
func (m *Comp) NotifyCounter(now sim.VTimeInSec, pages []uint64) {
	m.acPending = append(m.acPending, pages)
	if !m.acInFlight {
		m.flushCounters(now)
	}
}

func (m *Comp) flushCounters(now sim.VTimeInSec) {
	if len(m.acPending) == 0 {
		return
	}
	n := min(len(m.acPending), m.batchMax)
	var entries []uvm.FaultEntry
	for _, group := range m.acPending[:n] {
		for _, p := range group {
			entries = append(entries, uvm.FaultEntry{Page: p, RaisedAt: now})
		}
	}
	m.acPending = append(m.acPending[:0], m.acPending[n:]...)
	m.acInFlight = true
	m.send(now, &uvm.FaultBatchMsg{GPU: m.id, Faults: entries, Counter: true, Notifications: n}, 32*n)
}

// NotifyRecv schedules a drain of the PCIe port.
func (m *Comp) NotifyRecv(now sim.VTimeInSec, _ sim.Port) {
	if !m.recvPending {
		m.recvPending = true
		m.engine.Schedule(&recvEvent{t: now, h: m})
	}
}

// NotifyPortFree is unused: links have unbounded send queues.
func (m *Comp) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle drains the PCIe port.
func (m *Comp) Handle(e sim.Event) error {
	now := e.Time()
	m.recvPending = false
	for msg := m.port.Retrieve(now); msg != nil; msg = m.port.Retrieve(now) {
		m.receive(now, msg)
	}
	return nil
}

func (m *Comp) receive(now sim.VTimeInSec, msg sim.Msg) {
	switch x := msg.(type) {
	case *uvm.InvalidateMsg:
		for _, iv := range x.Entries {
			e := &m.table[iv.Page]
			switch {
			case !iv.Downgrade:
				*e = PTE{Bits: e.Bits}
			case e.Kind == uvm.LocalRW:
				e.Kind = uvm.LocalRO
			case e.Kind == uvm.RemoteRW:
				e.Kind = uvm.RemoteRO
			}
		}
		done := m.gpu.Shootdown(now, x.Entries)
		m.send(done, &uvm.InvalidateAckMsg{GPU: m.id, Batch: x.Batch}, 8)
	case *uvm.TransferCmdMsg:
		if x.To == uvm.Host {
			m.send(now, &uvm.PageDataMsg{From: m.id, To: uvm.Host, Pages: x.Pages, Batch: x.Batch}, len(x.Pages)*int(m.pageSize))
			return
		}
		m.gpu.SendPages(now, x.To, x.Pages, x.Batch)
	case *uvm.PageDataMsg:
		m.DataArrived(now, x.Batch)
	case *uvm.MapMsg:
		m.install(now, x)
	default:
		panic(fmt.Sprintf("gmmu: unexpected message %T", msg))
	}
}

// DataArrived tells the driver that a transfer into this GPU completed.
func (m *Comp) DataArrived(now sim.VTimeInSec, batch uint64) {
	m.send(now, &uvm.TransferDoneMsg{GPU: m.id, Batch: batch}, 8)
}

func (m *Comp) install(now sim.VTimeInSec, x *uvm.MapMsg) {
	for i, e := range x.Entries {
		m.table[e.Page] = PTE{Kind: e.Kind, Owner: int8(e.Owner), Bits: e.Bits}
		m.gpu.DropTranslation(e.Page)
		f, ok := m.outstanding[e.Page]
		if !ok || !f.sent {
			continue
		}
		delete(m.outstanding, e.Page)
		for _, w := range f.waiters {
			w.Resolved(now, x.Resolved[i])
		}
	}
	if x.EndOfBatch {
		m.inFlight = false
		m.flush(now)
	}
	if x.EndOfCounterBatch {
		m.acInFlight = false
		m.flushCounters(now)
	}
}

func (m *Comp) send(at sim.VTimeInSec, msg sim.Msg, bytes int) {
	meta := msg.Meta()
	meta.Src, meta.Dst, meta.SendTime, meta.TrafficBytes = m.port, m.driver, at, bytes
	if err := m.port.Send(msg); err != nil {
		panic("gmmu: PCIe send refused; links must have unbounded send queues")
	}
}
