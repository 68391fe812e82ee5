package engine

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

type tick struct {
	sim.EventBase
	id int
}

// TestEventQueuePopsInOrder: random pushes and pops, with many equal
// times, in the current nanosecond, the next microseconds and far beyond
// the calendar's ring, leave the queue in (time, place) order.
func TestEventQueuePopsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	now := sim.VTimeInSec(0)
	q := &eventQueue{}
	var ref []queued // kept sorted
	id := 0
	for step := 0; step < 100000; step++ {
		if q.Len() != len(ref) {
			t.Fatalf("step %d: %d events, want %d", step, q.Len(), len(ref))
		}
		if q.Len() > 0 && r.IntN(2) == 0 {
			e, tm, k := q.pop()
			now = tm
			want := ref[0]
			ref = ref[1:]
			if e != want.e || tm != want.t || k != want.k {
				t.Fatalf("step %d: popped %d at (%v, %x), want %d at (%v, %x)", step, e.(*tick).id, tm, k, want.e.(*tick).id, want.t, want.k)
			}
			continue
		}
		id++
		var tm sim.VTimeInSec
		switch r.IntN(4) {
		case 0: // this nanosecond, often this instant
			tm = now + sim.VTimeInSec(r.IntN(3))*0.25e-9
		case 1: // within the ring, on whole cycles
			tm = now + sim.VTimeInSec(r.IntN(50))*1e-9
		case 2: // within the ring, anywhere
			tm = now + sim.VTimeInSec(r.Float64()*3e-6)
		default: // beyond it
			tm = now + sim.VTimeInSec(r.IntN(20))*3e-6
		}
		e := &tick{EventBase: *sim.NewEventBase(tm, nil), id: id}
		k := MakeOrder(Rank(r.IntN(4)), uint32(r.IntN(8)), uint64(id))
		q.push(e, tm, k)
		ref = append(ref, queued{t: tm, k: k, e: e})
		slices.SortFunc(ref, func(a, b queued) int {
			if c := cmp.Compare(a.t, b.t); c != 0 {
				return c
			}
			return cmp.Compare(a.k, b.k)
		})
	}
}
