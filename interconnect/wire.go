package interconnect

import (
	"sync"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
)

// Wire joins ports on one chip: a message arrives as it is sent, with no
// latency and no bandwidth limit, so the receiver hears it inside the
// sender's Send. It is how mgpu's GPU and GMMU exchange the control
// protocol's messages (uvmproto/control.go), each acting on a message at
// the instant it is sent. A message the receiving port refuses is refused
// to the sender, who is told when that port frees. A message dated later
// than now is held until its date, unless the wire hands dated messages
// over early (DeliverEarly).
type Wire struct {
	sim.HookableBase
	name    string
	engine  sim.Engine
	early   bool
	mu      sync.Mutex
	waiting map[sim.Port][]sim.Port // a full port -> senders it refused
	held    map[sim.Port][]sim.Msg  // a full port -> dated messages it refused
	msgs    uint64
	src     engine.Source
}

var _ sim.Connection = (*Wire)(nil)

// NewWire makes an on-chip wire.
func NewWire(name string, e sim.Engine) *Wire {
	sim.NameMustBeValid(name)
	return &Wire{name: name, engine: e, src: engine.NewSource(e), waiting: map[sim.Port][]sim.Port{}, held: map[sim.Port][]sim.Msg{}}
}

// Messages counts the messages sent over the wire, each once.
func (w *Wire) Messages() uint64 { return w.msgs }

// DeliverEarly makes the wire deliver a message dated later than now at
// once, its SendTime still in the future, for the receiver to act on at
// that date: link.future_sends=reserve, under which a GMMU books the
// acknowledgement of a shootdown on PCIe as the shootdown starts, dated
// when the GPU's drain ends.
func (w *Wire) DeliverEarly(on bool) { w.early = on }

// Name is the wire's name.
func (w *Wire) Name() string { return w.name }

// PlugIn connects port; the wire keeps no buffer of its own.
func (w *Wire) PlugIn(port sim.Port, _ int) { port.SetConnection(w) }

// Unplug is not supported, as for the links.
func (w *Wire) Unplug(sim.Port) { panic("interconnect: Unplug is not supported") }

// CanSend is always true: a refusal comes from the receiving port.
func (w *Wire) CanSend(sim.Port) bool { return true }

// Send hands msg to its destination port at once, or at its date.
func (w *Wire) Send(msg sim.Msg) *sim.SendError {
	m := msg.Meta()
	if now := w.engine.CurrentTime(); m.SendTime > now && !w.early {
		w.mu.Lock()
		o := w.src.Next(engine.RankLink)
		w.mu.Unlock()
		w.engine.Schedule(&wireEvent{t: m.SendTime, o: o, w: w, msg: msg})
		return nil
	}
	return w.deliver(msg)
}

func (w *Wire) deliver(msg sim.Msg) *sim.SendError {
	w.msgs++
	m := msg.Meta()
	m.RecvTime = w.engine.CurrentTime()
	if err := m.Dst.Recv(msg); err != nil {
		w.mu.Lock()
		w.waiting[m.Dst] = append(w.waiting[m.Dst], m.Src)
		w.mu.Unlock()
		return err
	}
	return nil
}

// NotifyAvailable arranges, in an event of its own (Akita's port calls it
// holding the port's lock), to deliver the dated messages the port refused
// and then tell the senders it refused that it has room.
func (w *Wire) NotifyAvailable(now sim.VTimeInSec, port sim.Port) {
	w.mu.Lock()
	o := w.src.Next(engine.RankLink)
	w.mu.Unlock()
	w.engine.Schedule(&wireEvent{t: now, o: o, w: w, freed: port})
}

// Handle delivers a message held until its date (and keeps it if the port
// refuses it), or serves a port that freed.
func (w *Wire) Handle(e sim.Event) error {
	ev := e.(*wireEvent)
	if ev.freed != nil {
		w.freed(ev.t, ev.freed)
		return nil
	}
	w.msgs++
	m := ev.msg.Meta()
	m.RecvTime = ev.t
	if m.Dst.Recv(ev.msg) != nil {
		w.mu.Lock()
		w.held[m.Dst] = append(w.held[m.Dst], ev.msg)
		w.mu.Unlock()
	}
	return nil
}

func (w *Wire) freed(now sim.VTimeInSec, port sim.Port) {
	w.mu.Lock()
	held := w.held[port]
	delete(w.held, port)
	w.mu.Unlock()
	for len(held) > 0 { // unlocked: the receiver may send at once
		held[0].Meta().RecvTime = now
		if port.Recv(held[0]) != nil {
			w.mu.Lock()
			w.held[port] = append(held, w.held[port]...)
			w.mu.Unlock()
			return
		}
		held = held[1:]
	}
	w.mu.Lock()
	srcs := w.waiting[port]
	delete(w.waiting, port)
	w.mu.Unlock()
	for _, s := range srcs {
		s.NotifyAvailable(now)
	}
}

type wireEvent struct {
	t     sim.VTimeInSec
	o     engine.Order
	w     *Wire
	msg   sim.Msg
	freed sim.Port
}

func (e *wireEvent) Time() sim.VTimeInSec { return e.t }
func (e *wireEvent) Order() engine.Order  { return e.o }
func (e *wireEvent) Handler() sim.Handler { return e.w }
func (e *wireEvent) IsSecondary() bool    { return false }
