package gpu

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// phase is where a wavefront is in running one instruction.
type phase uint8

const (
	phNext   phase = iota // fetch and run the next instruction
	phRaise               // translation done: raise the recorded faults
	phWait                // waiting for fault resolutions or remote lines
	phReplay              // faults resolved: run the same instruction again
)

// machine is a wavefront's instruction protocol, kept apart from the
// memory system so it can be tested alone: when an instruction may
// complete, when it raises its faults, when it replays, and how a fault
// stall is split by cause. The GPU calls it after each thing that happens
// to the wavefront and does what the returned step says.
//
// An instruction completes only when its local lines are done, no fault is
// outstanding and every remote line has returned. A faulting instruction
// raises its faults when its page walks end, waits for every one of them,
// then replays the pages that faulted (pages already done are not redone,
// which guarantees forward progress when GPUs keep taking pages from each
// other).
type machine struct {
	phase      phase
	nFaults    int // faults recorded by the current execution
	waiting    int // faults raised and not yet resolved
	faultAt    sim.VTimeInSec
	lastRes    uvmproto.Resolution
	remoteLeft int // RDMA requests in flight
	remoteAt   sim.VTimeInSec
	localDone  sim.VTimeInSec
}

// next is what the GPU must do with the wavefront after an input.
type next struct {
	// schedule the wavefront's next step at at; otherwise it waits for an
	// input (a resolution or a remote response).
	schedule bool
	at       sim.VTimeInSec
}

func wait() next                   { return next{} }
func stepAt(t sim.VTimeInSec) next { return next{schedule: true, at: t} }

// issued starts a new memory instruction whose local part starts at t.
func (m *machine) issued(t sim.VTimeInSec) {
	m.localDone = t
}

// executed ends one execution issued at t that recorded nFaults faults,
// the last walk of which ends at faultAt.
func (m *machine) executed(t sim.VTimeInSec, nFaults int, faultAt sim.VTimeInSec) next {
	m.nFaults, m.faultAt = nFaults, faultAt
	if nFaults > 0 {
		m.phase = phRaise
		return stepAt(faultAt)
	}
	return m.complete(t)
}

// raised records that n of the recorded faults were raised at now (the
// others were resolved meanwhile).
func (m *machine) raised(now sim.VTimeInSec, n int) next {
	m.nFaults, m.waiting = n, n
	if n == 0 {
		m.phase = phReplay
		return stepAt(now)
	}
	m.phase = phWait
	return wait()
}

// stall is a fault stall split into the driver's service time and the time
// of the resolving action (GRIT Fig. 3 categories).
type stall struct {
	hostNs, restNs float64
	cause          uvmproto.Cause
}

// resolved takes one fault resolution. The last one schedules the replay
// and returns the stall to charge.
func (m *machine) resolved(now sim.VTimeInSec, r uvmproto.Resolution) (next, stall, bool) {
	m.waiting--
	if r.ServicedAt > m.lastRes.ServicedAt {
		m.lastRes = r
	}
	if m.waiting > 0 {
		return wait(), stall{}, false
	}
	total := float64(now-m.faultAt) * 1e9
	host := min(total, max(0, float64(m.lastRes.ServicedAt-m.faultAt)*1e9))
	s := stall{hostNs: host, restNs: total - host, cause: m.lastRes.Cause}
	m.faultAt = 0
	m.lastRes = uvmproto.Resolution{}
	m.phase = phReplay
	return stepAt(now), s, true
}

// replaying starts a replay: the recorded faults are forgotten.
func (m *machine) replaying() { m.nFaults = 0 }

// sentRemote records an RDMA request sent for lines accessed at t.
func (m *machine) sentRemote() { m.remoteLeft++ }

// remoteReturned takes one RDMA response at now. The last one returns the
// remote stall and, if the instruction was only waiting for it, completes.
func (m *machine) remoteReturned(now sim.VTimeInSec) (next, float64, bool) {
	m.remoteLeft--
	if m.remoteLeft > 0 {
		return wait(), 0, false
	}
	st := float64(now-m.remoteAt) * 1e9
	if m.phase == phWait {
		return m.complete(now), st, true
	}
	return wait(), st, true
}

// complete ends the instruction once nothing is outstanding.
func (m *machine) complete(now sim.VTimeInSec) next {
	if m.remoteLeft > 0 || m.nFaults > 0 {
		m.phase = phWait
		return wait()
	}
	m.phase = phNext
	return stepAt(max(now, m.localDone))
}
