package gpu

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/trace"
	"github.com/mgpu-sim/mgpu/uvm"
)

type wfState uint8

const (
	stNext   wfState = iota // fetch and run the next instruction
	stRaise                 // translation done: raise the recorded faults
	stWait                  // waiting for fault resolutions or remote lines
	stReplay                // faults resolved: run the same instruction again
)

// wavefront is one resident wavefront. It carries its own event, reused for
// every step, so the per-instruction path allocates nothing.
type wavefront struct {
	evt    wfEvent
	wg     *workgroup
	stream Stream
	inst   trace.Instruction
	state  wfState

	// The current instruction, coalesced.
	nLines   int
	lines    [trace.WavefrontSize]uint64
	linePage [trace.WavefrontSize]uint8 // index into pages
	nPages   int
	pages    [trace.WavefrontSize]uint64
	ptr      [trace.WavefrontSize]uint64 // a tagged address in each page
	kind     [trace.WavefrontSize]uvm.MapKind
	owner    [trace.WavefrontSize]int8
	// done marks pages whose lines were accessed. Lanes complete page by
	// page, so a replay only redoes the pages that faulted; this is what
	// guarantees forward progress when GPUs keep taking pages from each
	// other.
	done [trace.WavefrontSize]bool

	// Faults raised by the current instruction.
	nFaults    int
	faultPages [trace.WavefrontSize]uint8
	faultProt  [trace.WavefrontSize]bool
	faultAt    sim.VTimeInSec
	waiting    int
	lastRes    uvm.Resolution

	// Remote lines in flight.
	remoteLeft int
	remoteAt   sim.VTimeInSec
	localDone  sim.VTimeInSec
}

type wfEvent struct {
	t  sim.VTimeInSec
	h  sim.Handler
	wf *wavefront
}

func (e *wfEvent) Time() sim.VTimeInSec { return e.t }
func (e *wfEvent) Handler() sim.Handler { return e.h }
func (e *wfEvent) IsSecondary() bool    { return false }

type workgroup struct {
	cu, left, size int
}

type gpuRecvEvent struct {
	t sim.VTimeInSec
	h sim.Handler
}

func (e *gpuRecvEvent) Time() sim.VTimeInSec { return e.t }
func (e *gpuRecvEvent) Handler() sim.Handler { return e.h }
func (e *gpuRecvEvent) IsSecondary() bool    { return false }

// waiter adapts a wavefront to gmmu.Waiter.
type waiter struct {
	g  *Comp
	wf *wavefront
}

// Resolved is called once per faulting page; the last one replays the
// instruction and charges the stall to its cause.
func (w waiter) Resolved(now sim.VTimeInSec, r uvm.Resolution) {
	wf := w.wf
	wf.waiting--
	if r.ServicedAt > wf.lastRes.ServicedAt {
		wf.lastRes = r
	}
	if wf.waiting > 0 {
		return
	}
	w.g.chargeFault(wf, now)
	wf.lastRes = uvm.Resolution{}
	wf.state = stReplay
	w.g.schedule(wf, now)
}
