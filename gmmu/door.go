package gmmu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// The door for other Akita models: Akita's own translation protocol on the
// Top port. A request is walked like any TLB miss; a mapped page is
// answered when the walk ends; an unmapped one raises a read fault (Akita's
// request carries no access type) and is answered when the driver has
// resolved it. A request may carry an OASIS pointer tag (objtable.Tagging)
// above the 48 address bits: the page is found from the address below it,
// the fault carries the tagged pointer, so that OASIS reads the object ID
// from it, and the answer keeps the tag, so that the requester's TLB finds
// the entry under the address it asked for.

type walkEvent struct {
	t   sim.VTimeInSec
	h   sim.Handler
	req *vm.TranslationReq
}

func (e *walkEvent) Time() sim.VTimeInSec { return e.t }
func (e *walkEvent) Handler() sim.Handler { return e.h }
func (e *walkEvent) IsSecondary() bool    { return false }

func (m *Comp) translate(now sim.VTimeInSec, msg sim.Msg) error {
	req, ok := msg.(*vm.TranslationReq)
	if !ok {
		return fmt.Errorf("unexpected message %T on Top: it takes vm.TranslationReq", msg)
	}
	page, err := m.pageOf(req.VAddr)
	if err != nil {
		return err
	}
	m.engine.Schedule(&walkEvent{t: m.Walk(now, page), h: m, req: req})
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
	if m.table[page].Kind.Readable() {
		m.respond(now, ev.req, page)
		return
	}
	m.Fault(now, uvmproto.FaultEntry{Page: page, Ptr: ev.req.VAddr}, doorWaiter{m: m, req: ev.req, page: page})
}

// doorWaiter answers a translation request once its fault is resolved.
type doorWaiter struct {
	m    *Comp
	req  *vm.TranslationReq
	page uint64
}

func (w doorWaiter) Resolved(now sim.VTimeInSec, _ uvmproto.Resolution) {
	w.m.respond(now, w.req, w.page)
}

// respond answers req. mgpu does not model physical addresses: PAddr is
// the page's virtual address without the tag and DeviceID the GPU whose memory holds it
// (1 + index, Akita's numbering, where 0 would be the host).
func (m *Comp) respond(now sim.VTimeInSec, req *vm.TranslationReq, page uint64) {
	e := m.table[page]
	where := m.id
	if e.Kind.Remote() {
		where = int(e.Owner)
	}
	pa := m.base + page*m.pageSize
	va := req.VAddr - objtable.Strip(req.VAddr) + pa // the request's tag, the page's address
	rsp := vm.TranslationRspBuilder{}.WithSendTime(now).WithRspTo(req.ID).
		WithPage(vm.Page{PID: req.PID, VAddr: va, PAddr: pa, PageSize: m.pageSize,
			Valid: true, DeviceID: uint64(where + 1), Unified: true}).Build()
	m.topOut.Send(rsp, req.Src, now)
}
