package engine

import "github.com/sarchlab/akita/v3/sim"

// eventQueue is a binary min-heap of events by (time, Order), each event's
// time and place read once, at push. Every queued place is distinct, so
// the heap's shape never decides which of two events runs first.
type eventQueue struct {
	h []queued
}

type queued struct {
	t sim.VTimeInSec
	k Order
	e sim.Event
}

// before reports whether a runs before b.
func (a *queued) before(b *queued) bool {
	return a.t < b.t || a.t == b.t && a.k < b.k
}

func (q *eventQueue) Len() int { return len(q.h) }

// push adds evt, whose time is t and place k.
func (q *eventQueue) push(evt sim.Event, t sim.VTimeInSec, k Order) {
	q.h = append(q.h, queued{t: t, k: k, e: evt})
	q.up(len(q.h) - 1)
}

// pop removes the first event and returns it with its time and place.
func (q *eventQueue) pop() (sim.Event, sim.VTimeInSec, Order) {
	n := len(q.h) - 1
	q.h[0], q.h[n] = q.h[n], q.h[0]
	q.down(0, n)
	last := q.h[n]
	q.h[n] = queued{}
	q.h = q.h[:n]
	return last.e, last.t, last.k
}

func (q *eventQueue) up(j int) {
	for j > 0 {
		i := (j - 1) / 2 // parent
		if !q.h[j].before(&q.h[i]) {
			break
		}
		q.h[i], q.h[j] = q.h[j], q.h[i]
		j = i
	}
}

func (q *eventQueue) down(i, n int) {
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if j2 := j + 1; j2 < n && q.h[j2].before(&q.h[j]) {
			j = j2 // right child
		}
		if !q.h[j].before(&q.h[i]) {
			break
		}
		q.h[i], q.h[j] = q.h[j], q.h[i]
		i = j
	}
}
