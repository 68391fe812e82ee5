package gpu

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/trace"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// wavefront is one resident wavefront. It carries its own event, reused for
// every step, so the per-instruction path allocates nothing. Its protocol
// state is the machine; the current instruction, coalesced, is in the
// GPU's scratch record while it executes, and the wavefront keeps the
// record only while the instruction waits (a fault, a remote line). The
// GPU's wavefronts are megabytes, so every line of them an instruction
// touches is a host cache miss: the record's 2 KB were three of them.
type wavefront struct {
	evt    wfEvent
	id     uint64 // its slot: the tag RDMA responses carry back
	src    engine.Source
	wg     *workgroup
	stream Stream
	write  bool // the current instruction stores
	m      machine
	// x is the waiting instruction's record, nil when none waits.
	x *inflight
}

// inflight is one instruction, coalesced, and the faults of its last
// execution.
type inflight struct {
	nLines int
	nPages int
	// lines are the instruction's distinct lines grouped by page, in
	// coalescing order within a page: page p's are lines[pg[p].start:
	// pg[p+1].start], so a page's lines are visited without scanning
	// every line (uncoalesced accesses, 64 pages of a line each, were
	// quadratic).
	lines [trace.WavefrontSize]uint64
	// pg are the instruction's pages; pg[nPages].start ends the last
	// page's lines.
	pg [trace.WavefrontSize + 1]wfPage

	// The faults recorded by the current execution.
	faultPages [trace.WavefrontSize]uint8
	faultProt  [trace.WavefrontSize]bool
}

// wfPage is one page of the current instruction.
type wfPage struct {
	page  uint64
	ptr   uint64 // a tagged address in the page
	kind  uvmproto.MapKind
	owner int8
	// done marks a page whose lines were accessed. Lanes complete page
	// by page, so a replay only redoes the pages that faulted.
	done  bool
	start int8 // the page's first line in lines
}

type wfEvent struct {
	t  sim.VTimeInSec
	o  engine.Order
	h  sim.Handler
	wf *wavefront
}

func (e *wfEvent) Time() sim.VTimeInSec { return e.t }
func (e *wfEvent) Order() engine.Order  { return e.o }
func (e *wfEvent) Handler() sim.Handler { return e.h }
func (e *wfEvent) IsSecondary() bool    { return false }

type workgroup struct {
	cu, left int
	wfs      []*wavefront
}

type gpuRecvEvent struct {
	t sim.VTimeInSec
	o engine.Order
	h sim.Handler
}

func (e *gpuRecvEvent) Time() sim.VTimeInSec { return e.t }
func (e *gpuRecvEvent) Order() engine.Order  { return e.o }
func (e *gpuRecvEvent) Handler() sim.Handler { return e.h }
func (e *gpuRecvEvent) IsSecondary() bool    { return false }

// waiter adapts a wavefront to gmmu.Waiter.
type waiter struct {
	g  *Comp
	wf *wavefront
}

// Resolved is called once per faulting page; the last one replays the
// instruction and charges the stall to its cause.
func (w waiter) Resolved(now sim.VTimeInSec, r uvmproto.Resolution) {
	nx, st, last := w.wf.m.resolved(now, r)
	if last {
		w.g.charge(st)
	}
	w.g.do(w.wf, nx)
}
