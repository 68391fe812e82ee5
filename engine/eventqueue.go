package engine

import "github.com/sarchlab/akita/v3/sim"

// eventQueue is Akita's EventQueueImpl without its mutex and with each
// event's time read once, at Push: Akita's heap calls Time() through the
// interface at every comparison, which was a sixth of a run. The sifts are
// container/heap's, step for step, so events of equal time leave in the
// order Akita's queue gives them and results stay the same. An event's
// time must not change while it is queued (Akita's heap assumes it too).
type eventQueue struct {
	h []queued
}

type queued struct {
	t sim.VTimeInSec
	e sim.Event
}

func (q *eventQueue) Len() int { return len(q.h) }

// Peek is the earliest event.
func (q *eventQueue) Peek() sim.Event { return q.h[0].e }

// PeekTime is the earliest event's time.
func (q *eventQueue) PeekTime() sim.VTimeInSec { return q.h[0].t }

// Push adds evt (container/heap.Push).
func (q *eventQueue) Push(evt sim.Event) { q.push(evt, evt.Time()) }

// push adds evt, whose time is t.
func (q *eventQueue) push(evt sim.Event, t sim.VTimeInSec) {
	q.h = append(q.h, queued{t: t, e: evt})
	q.up(len(q.h) - 1)
}

// Pop removes the earliest event (container/heap.Pop).
func (q *eventQueue) Pop() sim.Event {
	e, _ := q.pop()
	return e
}

// pop removes the earliest event and returns it with its time.
func (q *eventQueue) pop() (sim.Event, sim.VTimeInSec) {
	n := len(q.h) - 1
	q.h[0], q.h[n] = q.h[n], q.h[0]
	q.down(0, n)
	last := q.h[n]
	q.h[n] = queued{}
	q.h = q.h[:n]
	return last.e, last.t
}

func (q *eventQueue) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !(q.h[j].t < q.h[i].t) {
			break
		}
		q.h[i], q.h[j] = q.h[j], q.h[i]
		j = i
	}
}

func (q *eventQueue) down(i0, n int) {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && q.h[j2].t < q.h[j1].t {
			j = j2 // right child
		}
		if !(q.h[j].t < q.h[i].t) {
			break
		}
		q.h[i], q.h[j] = q.h[j], q.h[i]
		i = j
	}
}
