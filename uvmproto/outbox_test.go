package uvmproto

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
)

// wire is a connection that records when each message reached it and the
// SendTime it carried.
type wire struct {
	sim.HookableBase
	eng  *engine.Engine
	seen [][2]sim.VTimeInSec // (arrival, SendTime)
}

func (w *wire) CanSend(sim.Port) bool { return true }
func (w *wire) Send(m sim.Msg) *sim.SendError {
	w.seen = append(w.seen, [2]sim.VTimeInSec{w.eng.CurrentTime(), m.Meta().SendTime})
	return nil
}
func (w *wire) PlugIn(sim.Port, int)                     {}
func (w *wire) Unplug(sim.Port)                          {}
func (w *wire) NotifyAvailable(sim.VTimeInSec, sim.Port) {}

type sender struct{ *sim.ComponentBase }

// note is a message without an Akita ID: making one would pick Akita's ID
// generator, which TestImportLeavesAkitaIDsAlone must find unpicked.
type note struct{ meta sim.MsgMeta }

func (n *note) Meta() *sim.MsgMeta { return &n.meta }

func (sender) Handle(sim.Event) error                  { return nil }
func (sender) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (sender) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// A message sent for later reaches the connection when it is due, never
// before with a future SendTime (Akita's DirectConnection would deliver it
// at once); SendEarly hands it over at once, as the links' reserve mode
// expects.
func TestOutboxHoldsDatedSends(t *testing.T) {
	for _, early := range []bool{false, true} {
		eng := engine.New()
		w := &wire{eng: eng}
		c := sender{sim.NewComponentBase("Sender")}
		port := sim.NewLimitNumMsgPort(c, 1, "Sender.Out")
		port.SetConnection(w)
		o := NewOutbox(port, eng)
		o.SendEarly(early)
		o.Send(&note{}, port, 2e-6)
		o.Send(&note{}, port, 0)
		if err := eng.Run(); err != nil {
			t.Fatal(err)
		}
		want := [][2]sim.VTimeInSec{{0, 0}, {2e-6, 2e-6}} // the message due now first
		if early {
			want = [][2]sim.VTimeInSec{{0, 2e-6}, {0, 0}}
		}
		if len(w.seen) != 2 || w.seen[0] != want[0] || w.seen[1] != want[1] {
			t.Errorf("early=%v: the connection saw (arrival, SendTime) %v, want %v", early, w.seen, want)
		}
	}
}
