package gmmu

import (
	"fmt"
	"slices"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// The door for other Akita models: Akita's own translation protocol on the
// Top port. A request is walked like any TLB miss; a mapped page is
// answered when the walk ends; an unmapped one raises a far fault and is
// answered when the driver has resolved it. Akita's vm.TranslationReq is a
// read (it carries no access type); an AccessReq with Write set is a store,
// which a page mapped read-only (a duplication replica, a first read-only
// copy) answers only after a protection fault has made it writable, as the
// driver collapses the replicas. Answers carry no permission (Akita's
// vm.Page has none), so a requester must ask again with Write before a
// store through a translation it got for a read. A request may carry an OASIS pointer tag (objtable.Tagging)
// above the 48 address bits: the page is found from the address below it,
// the fault carries the tagged pointer, so that OASIS reads the object ID
// from it, and the answer keeps the tag, so that the requester's TLB finds
// the entry under the address it asked for.

// AccessReq is a translation request for an access of a known type, for
// a requester that stores: vm.TranslationReq cannot say it writes. The
// answer is a vm.TranslationRsp like any other.
type AccessReq struct {
	vm.TranslationReq
	Write bool
}

type walkEvent struct {
	t     sim.VTimeInSec
	o     engine.Order
	h     sim.Handler
	req   *vm.TranslationReq
	write bool
}

func (e *walkEvent) Time() sim.VTimeInSec { return e.t }
func (e *walkEvent) Order() engine.Order  { return e.o }
func (e *walkEvent) Handler() sim.Handler { return e.h }
func (e *walkEvent) IsSecondary() bool    { return false }

func (m *Comp) translate(now sim.VTimeInSec, msg sim.Msg) error {
	var req *vm.TranslationReq
	write := false
	switch r := msg.(type) {
	case *vm.TranslationReq:
		req = r
	case *AccessReq:
		req, write = &r.TranslationReq, r.Write
	default:
		return fmt.Errorf("unexpected message %T on Top: it takes vm.TranslationReq or gmmu.AccessReq", msg)
	}
	page, err := m.pageOf(req.VAddr)
	if err != nil {
		return err
	}
	m.engine.Schedule(&walkEvent{t: m.Walk(now, page), o: m.src.Next(engine.RankGMMU), h: m, req: req, write: write})
	return nil
}

func (m *Comp) pageOf(ptr uint64) (uint64, error) {
	va := objtable.Strip(ptr)
	if va < m.base || (va-m.base)/m.pageSize >= uint64(len(m.table)) {
		return 0, fmt.Errorf("translation of %#x: outside the managed range [%#x, %#x)", va, m.base, m.base+uint64(len(m.table))*m.pageSize)
	}
	return (va - m.base) / m.pageSize, nil
}

func (m *Comp) walked(now sim.VTimeInSec, ev *walkEvent) {
	page, _ := m.pageOf(ev.req.VAddr)
	kind := m.table[page].Kind
	if kind.Writable() || kind.Readable() && !ev.write {
		m.respond(now, ev.req, page)
		return
	}
	m.Fault(now, uvmproto.FaultEntry{Page: page, Ptr: ev.req.VAddr, Write: ev.write, Protection: kind.Readable()},
		doorWaiter{m: m, req: ev.req, page: page, write: ev.write})
}

// doorWaiter answers a translation request once its fault is resolved.
type doorWaiter struct {
	m     *Comp
	req   *vm.TranslationReq
	page  uint64
	write bool
}

// Resolved answers the request, unless a store waited on a fault that left
// the page read-only (it coalesced with a read's): then the request is
// walked again, as a GPU replays the store, and raises a protection fault.
func (w doorWaiter) Resolved(now sim.VTimeInSec, _ uvmproto.Resolution) {
	m := w.m
	if w.write && !m.table[w.page].Kind.Writable() {
		m.engine.Schedule(&walkEvent{t: m.Walk(now, w.page), o: m.src.Next(engine.RankGMMU), h: m, req: w.req, write: true})
		return
	}
	m.respond(now, w.req, w.page)
}

// respond answers req. DeviceID is the GPU whose memory holds the page
// (1 + index, Akita's numbering, where 0 is the host). PAddr is the
// physical address of the page's frame there when the GMMU has frames
// (WithFrames); otherwise, and for a page in host memory, it is the
// page's virtual address without the tag.
func (m *Comp) respond(now sim.VTimeInSec, req *vm.TranslationReq, page uint64) {
	e := m.table[page]
	where := m.id
	if e.Kind.Remote() {
		where = int(e.Owner)
	}
	pa := m.base + page*m.pageSize
	va := req.VAddr - objtable.Strip(req.VAddr) + pa // the request's tag, the page's address
	if m.frames != nil && where != uvmproto.Host {
		if err := m.frames.Place(where, page); err != nil { // held there: a no-op
			m.fail(err)
			return
		}
		pa, _ = m.frames.Addr(where, page)
	}
	rsp := vm.TranslationRspBuilder{}.WithSendTime(now).WithRspTo(req.ID).
		WithPage(vm.Page{PID: req.PID, VAddr: va, PAddr: pa, PageSize: m.pageSize,
			Valid: true, DeviceID: uint64(where + 1), Unified: true}).Build()
	m.topOut.Send(rsp, req.Src, now)
	if m.gpuPort != nil {
		m.keys.add(page, va)
	}
}

// tlbKeys holds, per page, the tagged page addresses Top answered it
// under: Akita's TLB keys an entry by the exact address it asked for, so
// a shootdown or a dropped translation names these (ShootdownReq.VAddrs)
// and the GPU need not rebuild tags from the allocator. They are kept for
// the run: a TLB may hold an answer that crossed a flush.
type tlbKeys map[uint64][]uint64

func (k *tlbKeys) add(page, va uint64) {
	if *k == nil {
		*k = tlbKeys{}
	}
	if !slices.Contains((*k)[page], va) {
		(*k)[page] = append((*k)[page], va)
	}
}

// tlbKeysOf is the keys of the pages of items.
func tlbKeysOf[T any](k tlbKeys, items []T, page func(T) uint64) []uint64 {
	var out []uint64
	for _, it := range items {
		out = append(out, k[page(it)]...)
	}
	return out
}
