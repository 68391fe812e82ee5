package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

type tick struct {
	sim.EventBase
	id int
}

// TestEventQueueMatchesAkita: random pushes and pops, with many equal
// times, leave the queue in Akita's order, event for event.
func TestEventQueueMatchesAkita(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ours, ref := &eventQueue{}, sim.NewEventQueue()
	id := 0
	for step := 0; step < 100000; step++ {
		if ours.Len() != ref.Len() {
			t.Fatalf("step %d: %d events, Akita %d", step, ours.Len(), ref.Len())
		}
		if ours.Len() > 0 && r.IntN(2) == 0 {
			if ours.Peek() != ref.Peek() {
				t.Fatalf("step %d: peeks differ", step)
			}
			a, b := ours.Pop().(*tick), ref.Pop().(*tick)
			if a != b {
				t.Fatalf("step %d: popped event %d at %v, Akita %d at %v", step, a.id, a.Time(), b.id, b.Time())
			}
			continue
		}
		id++
		e := &tick{EventBase: *sim.NewEventBase(sim.VTimeInSec(r.IntN(50)), nil), id: id}
		ours.Push(e)
		ref.Push(e)
	}
}
