package uvmproto

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
)

// Outbox is the one way a component sends. It addresses a message, sends
// it through the component's port, and when the connection refuses (a
// finite buffer is full) keeps it, and everything sent after it, in order
// until the port is free again: the way Akita's own components use a
// buffered sender. mgpu's own links never refuse, so there the outbox is
// only a pass-through and costs no event.
//
// A message sent for a later time (a reply when a drain or a DRAM access
// completes) waits in the outbox, on an event of its own, until it is due:
// no connection sees a SendTime in the future, so Akita's DirectConnection
// delivers it on time. A retried message keeps its SendTime unless that
// has passed.
type Outbox struct {
	port    sim.Port
	engine  Scheduler
	queue   []sim.Msg
	src     engine.Source
	pending bool // a retry event is scheduled
	refused uint64
	// early hands a dated message to the connection at once, SendTime in
	// the future, for mgpu's links to honour (link.future_sends=reserve).
	early bool
}

// Scheduler is the engine an Outbox schedules its retries and dated sends
// on; every sim.Engine is one.
type Scheduler interface {
	sim.EventScheduler
	sim.TimeTeller
}

// NewOutbox makes the outbox of port; e schedules its retries and
// dated sends.
func NewOutbox(port sim.Port, e Scheduler) *Outbox {
	return &Outbox{port: port, engine: e, src: engine.NewSource(e)}
}

// SendEarly makes the outbox hand a dated message to the connection at
// once, SendTime in the future (mgpu's links before link.future_sends=hold
// was the default; a connection that does not honour SendTime delivers it
// early).
func (o *Outbox) SendEarly(on bool) { o.early = on }

// Send addresses msg to dst, leaving at at, and sends it or queues it; a
// message for later waits in the outbox until at.
func (o *Outbox) Send(msg sim.Msg, dst sim.Port, at sim.VTimeInSec) {
	m := msg.Meta()
	m.Src, m.Dst, m.SendTime = o.port, dst, at
	if !o.early && at > o.engine.CurrentTime() {
		o.engine.Schedule(&datedEvent{t: at, k: o.src.Next(engine.RankOutbox), o: o, msg: msg})
		return
	}
	o.send(msg)
}

// send sends msg now, or queues it behind those the port refused.
func (o *Outbox) send(msg sim.Msg) {
	if len(o.queue) == 0 && o.port.Send(msg) == nil {
		return
	}
	o.refused++
	o.queue = append(o.queue, msg)
}

// PortFree schedules a retry of the queued messages. Call it from the
// component's NotifyPortFree. The retry runs as its own event: Akita's
// DirectConnection calls NotifyPortFree in the middle of its delivery and
// clears its busy flag afterwards, so a send refused from inside that call
// would never be announced free again.
func (o *Outbox) PortFree(now sim.VTimeInSec) {
	if o.pending || len(o.queue) == 0 {
		return
	}
	o.pending = true
	o.engine.Schedule(&retryEvent{t: now, k: o.src.Next(engine.RankOutbox), o: o})
}

// Handle sends a dated message that is due, or runs a scheduled retry:
// the queued messages go, oldest first, until the port refuses again.
func (o *Outbox) Handle(e sim.Event) error {
	if d, ok := e.(*datedEvent); ok {
		o.send(d.msg)
		return nil
	}
	o.pending = false
	now := e.Time()
	n := 0
	for _, msg := range o.queue {
		m := msg.Meta()
		m.SendTime = max(m.SendTime, now)
		if o.port.Send(msg) != nil {
			break
		}
		n++
	}
	rest := copy(o.queue, o.queue[n:])
	clear(o.queue[rest:])
	o.queue = o.queue[:rest]
	return nil
}

// Pending is the number of messages waiting for the port.
func (o *Outbox) Pending() int { return len(o.queue) }

// Refused is how many sends the port refused (each was queued and resent).
func (o *Outbox) Refused() uint64 { return o.refused }

type retryEvent struct {
	t sim.VTimeInSec
	k engine.Order
	o *Outbox
}

func (e *retryEvent) Time() sim.VTimeInSec { return e.t }
func (e *retryEvent) Order() engine.Order  { return e.k }
func (e *retryEvent) Handler() sim.Handler { return e.o }
func (e *retryEvent) IsSecondary() bool    { return false }

// datedEvent sends a message held until its SendTime.
type datedEvent struct {
	t   sim.VTimeInSec
	k   engine.Order
	o   *Outbox
	msg sim.Msg
}

func (e *datedEvent) Time() sim.VTimeInSec { return e.t }
func (e *datedEvent) Order() engine.Order  { return e.k }
func (e *datedEvent) Handler() sim.Handler { return e.o }
func (e *datedEvent) IsSecondary() bool    { return false }
