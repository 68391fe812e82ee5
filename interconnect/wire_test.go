package interconnect

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

// notifying records NotifyPortFree, to see a refused sender told.
type notifying struct {
	*agent
	freed int
}

func (n *notifying) NotifyPortFree(sim.VTimeInSec, sim.Port) { n.freed++ }

// TestWireDeliversInsideSend: a message arrives within the sender's Send,
// at the send's instant; a dated one at its date; a full port refuses a
// message to its sender and tells it when it frees, and a dated message it
// refused is delivered then.
func TestWireDeliversInsideSend(t *testing.T) {
	e := sim.NewSerialEngine()
	w := NewWire("OnChip", e)
	a := newAgent(e, 0, 1, true)
	b := newAgent(e, 1, 1, false) // takes messages only on a drainEvent
	src := &notifying{agent: newAgent(e, 2, 1, true)}
	src.port = sim.NewLimitNumMsgPort(src, 1, "Agent[2].Port2")
	for _, p := range []sim.Port{a.port, b.port, src.port} {
		w.PlugIn(p, 1)
	}
	m1 := &testMsg{}
	m1.ID, m1.Src, m1.Dst = "now", src.port, a.port
	if err := src.port.Send(m1); err != nil {
		t.Fatal(err)
	}
	if len(a.got) != 1 || a.got[0].at != 0 || !a.got[0].notified {
		t.Fatalf("a message was not received inside Send at time 0: %+v", a.got)
	}
	fill := &testMsg{}
	fill.ID, fill.Src, fill.Dst = "fill", src.port, b.port
	if err := src.port.Send(fill); err != nil {
		t.Fatal(err)
	}
	refused := &testMsg{}
	refused.ID, refused.Src, refused.Dst = "refused", src.port, b.port
	if err := src.port.Send(refused); err == nil {
		t.Fatal("a full port took a second message")
	}
	dated := &testMsg{}
	dated.ID, dated.Src, dated.Dst, dated.SendTime = "dated", src.port, b.port, 5e-9
	if err := src.port.Send(dated); err != nil {
		t.Fatal(err)
	}
	e.Schedule(&drainEvent{time: 8e-9, a: b})
	run(t, e)
	if len(b.got) != 2 || b.got[0].id != "fill" || b.got[1].id != "dated" || b.got[1].at != 8e-9 {
		t.Fatalf("b got %+v, want fill, then the dated message once b drained at 8 ns", b.got)
	}
	if src.freed != 1 {
		t.Fatalf("the refused sender was told %d times that the port freed, want 1", src.freed)
	}
	if w.Messages() != 4 {
		t.Fatalf("%d messages counted, want the 4 sent", w.Messages())
	}
}

// TestWireDeliversDatedEarly: a wire that delivers early hands a dated
// message over inside Send, before its date, which the message keeps for
// the receiver to act on (link.future_sends=reserve).
func TestWireDeliversDatedEarly(t *testing.T) {
	e := sim.NewSerialEngine()
	w := NewWire("OnChip", e)
	w.DeliverEarly(true)
	a, src := newAgent(e, 0, 1, true), newAgent(e, 1, 1, true)
	w.PlugIn(a.port, 1)
	w.PlugIn(src.port, 1)
	m := &testMsg{}
	m.ID, m.Src, m.Dst, m.SendTime = "dated", src.port, a.port, 5e-9
	if err := src.port.Send(m); err != nil {
		t.Fatal(err)
	}
	if len(a.got) != 1 || a.got[0].now != 0 || m.SendTime != 5e-9 {
		t.Fatalf("got %+v with SendTime %v; want the message inside Send at 0, dated 5 ns", a.got, m.SendTime)
	}
}
