package engine

import (
	"math/bits"

	"github.com/sarchlab/akita/v3/sim"
)

// eventQueue holds events by (time, Order). Every queued place is
// distinct, so any structure that pops the least first runs events in the
// same order; this one is a calendar: a small binary heap of the events of
// the current bucket (a nanosecond, a cycle of the 1 GHz GPUs), a ring of
// unsorted buckets for the next few microseconds, and a heap for what lies
// beyond. A push is an append; a pop sifts a heap of the few events of one
// nanosecond, where a heap of every queued event (ten thousand wavefronts)
// had thirteen levels of cold memory to sift through. The bucket width
// changes only speed, never the order.
type eventQueue struct {
	n    int
	cur  int64  // the current bucket
	now  heapOf // events of buckets <= cur
	ring [ringSize][]queued
	full [ringSize / 64]uint64 // which ring buckets hold events
	far  heapOf                // events of buckets >= cur + ringSize
}

const (
	// bucketsPerSecond sets the bucket width: one nanosecond.
	bucketsPerSecond = 1e9
	ringSize         = 1 << 12
	ringMask         = ringSize - 1
)

type queued struct {
	t sim.VTimeInSec
	k Order
	e sim.Event
}

// before reports whether a runs before b.
func (a *queued) before(b *queued) bool {
	return a.t < b.t || a.t == b.t && a.k < b.k
}

func bucketOf(t sim.VTimeInSec) int64 { return int64(float64(t) * bucketsPerSecond) }

func (q *eventQueue) Len() int { return q.n }

// push adds evt, whose time is t and place k.
func (q *eventQueue) push(evt sim.Event, t sim.VTimeInSec, k Order) {
	q.n++
	e := queued{t: t, k: k, e: evt}
	switch b := bucketOf(t); {
	case b <= q.cur:
		q.now.push(e)
	case b-q.cur < ringSize:
		i := b & ringMask
		q.ring[i] = append(q.ring[i], e)
		q.full[i/64] |= 1 << (i % 64)
	default:
		q.far.push(e)
	}
}

// peek is the first event's time and place; the queue is not empty.
func (q *eventQueue) peek() (sim.VTimeInSec, Order) {
	if len(q.now.h) == 0 {
		q.advance()
	}
	return q.now.h[0].t, q.now.h[0].k
}

func (q *eventQueue) peekTime() sim.VTimeInSec { t, _ := q.peek(); return t }

func (q *eventQueue) peekOrder() Order { _, k := q.peek(); return k }

// pop removes the first event and returns it with its time and place.
func (q *eventQueue) pop() (sim.Event, sim.VTimeInSec, Order) {
	if len(q.now.h) == 0 {
		q.advance()
	}
	q.n--
	e := q.now.pop()
	return e.e, e.t, e.k
}

// advance makes the next bucket that holds events the current one. The
// current heap is empty.
func (q *eventQueue) advance() {
	next, ok := q.nextFull()
	if len(q.far.h) > 0 {
		if fb := bucketOf(q.far.h[0].t); !ok || fb < next {
			next, ok = fb, true
		}
	}
	if !ok {
		return
	}
	q.cur = next
	if i := next & ringMask; q.full[i/64]&(1<<(i%64)) != 0 {
		q.now.h = append(q.now.h, q.ring[i]...)
		clear(q.ring[i])
		q.ring[i] = q.ring[i][:0]
		q.full[i/64] &^= 1 << (i % 64)
	}
	for len(q.far.h) > 0 && bucketOf(q.far.h[0].t) == next {
		q.now.h = append(q.now.h, q.far.pop())
	}
	q.now.init()
}

// nextFull is the first bucket after the current one whose ring slot
// holds events.
func (q *eventQueue) nextFull() (int64, bool) {
	start := (q.cur + 1) & ringMask
	for n := int64(0); n < ringSize; {
		i := (start + n) & ringMask
		w := q.full[i/64] >> (i % 64)
		if w != 0 {
			return q.cur + 1 + n + int64(bits.TrailingZeros64(w)), true
		}
		n += 64 - i%64
	}
	return 0, false
}

// heapOf is a binary min-heap of queued events by (time, place).
type heapOf struct{ h []queued }

func (q *heapOf) push(e queued) {
	q.h = append(q.h, e)
	q.up(len(q.h) - 1)
}

func (q *heapOf) pop() queued {
	n := len(q.h) - 1
	q.h[0], q.h[n] = q.h[n], q.h[0]
	q.down(0, n)
	e := q.h[n]
	q.h[n] = queued{}
	q.h = q.h[:n]
	return e
}

// init orders the heap after appends.
func (q *heapOf) init() {
	n := len(q.h)
	for i := n/2 - 1; i >= 0; i-- {
		q.down(i, n)
	}
}

func (q *heapOf) up(j int) {
	for j > 0 {
		i := (j - 1) / 2 // parent
		if !q.h[j].before(&q.h[i]) {
			break
		}
		q.h[i], q.h[j] = q.h[j], q.h[i]
		j = i
	}
}

func (q *heapOf) down(i, n int) {
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
