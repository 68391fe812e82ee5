package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

// toy is a model of partitions that talk: each worker runs a chain of
// steps, some at the same instants as the others', and at each step defers
// a report to the host; the host answers some reports with a reply into the
// worker's queue one lookahead later, and a launch every so often starts a
// burst of work in every worker. Every event and action appends to one
// shared trace (partition 0's) or to its worker's, so the order is visible.
type toy struct {
	e       *Engine
	workers []*worker
	host    *hostPart
}

type toyEvent struct {
	t    sim.VTimeInSec
	o    Order
	h    sim.Handler
	what string
}

func (e *toyEvent) Time() sim.VTimeInSec { return e.t }
func (e *toyEvent) Handler() sim.Handler { return e.h }
func (e *toyEvent) IsSecondary() bool    { return false }
func (e *toyEvent) Order() Order         { return e.o }

type worker struct {
	t      *toy
	p      *Partition
	src    Source
	id     int
	trace  []string
	n      int
	report func(a uint64, m sim.Msg)
}

type hostPart struct {
	t     *toy
	p     *Partition
	src   Source
	trace []string
	// recency is shared state the workers reach only through Defer.
	recency []uint64
}

const toyLookahead = 10e-9

func newToy(workers int) *toy {
	e := New()
	t := &toy{e: e}
	t.host = &hostPart{t: t, p: e.Part(0)}
	t.host.src = NewSource(t.host.p)
	for i := range workers {
		w := &worker{t: t, p: e.Part(i + 1), id: i}
		w.src = NewSource(w.p)
		w.report = func(a uint64, _ sim.Msg) { t.host.got(w, a) }
		t.workers = append(t.workers, w)
	}
	t.host.p.Schedule(&toyEvent{t: 0, o: t.host.src.Next(RankLaunch), h: t.host, what: "launch"})
	return t
}

func (h *hostPart) Handle(e sim.Event) error {
	ev := e.(*toyEvent)
	now := h.p.CurrentTime()
	h.trace = append(h.trace, fmt.Sprintf("%.1f %s", now*1e9, ev.what))
	switch ev.what {
	case "launch":
		for _, w := range h.t.workers {
			w.n = 0
			w.p.Schedule(&toyEvent{t: now, o: w.src.Next(RankWavefront), h: w, what: "step"})
		}
		if now < 200e-9 {
			h.p.Schedule(&toyEvent{t: now + 97e-9, o: h.src.Next(RankLaunch), h: h, what: "launch"})
		}
	case "tick":
		if now < 150e-9 {
			h.p.Schedule(&toyEvent{t: now + 3e-9, o: h.src.Next(RankDriver), h: h, what: "tick"})
		}
	}
	return nil
}

// got takes a worker's report, at the report's instant.
func (h *hostPart) got(w *worker, a uint64) {
	now := h.p.CurrentTime()
	h.recency = append(h.recency, a)
	h.trace = append(h.trace, fmt.Sprintf("%.1f report %d/%d (recency %d)", now*1e9, w.id, a, len(h.recency)))
	if a%3 == 0 { // a reply, a lookahead later, in the worker's queue
		w.p.Engine().Part(0).Schedule(&toyEvent{t: now + toyLookahead, o: w.src.Next(RankGPU), h: w,
			what: fmt.Sprintf("reply to %d", a)})
	}
	if a == 4 {
		h.p.Schedule(&toyEvent{t: now, o: h.src.Next(RankDriver), h: h, what: "tick"})
	}
}

func (w *worker) Handle(e sim.Event) error {
	ev := e.(*toyEvent)
	now := w.p.CurrentTime()
	w.trace = append(w.trace, fmt.Sprintf("%.1f %s", now*1e9, ev.what))
	if ev.what != "step" {
		return nil
	}
	w.n++
	w.p.Defer(w.report, uint64(w.n), nil)
	if w.n < 12 {
		// Workers step at the same instants (1 ns apart) and some at
		// their own (worker 1 every 1.5 ns).
		d := sim.VTimeInSec(1e-9) * (1 + 0.5*sim.VTimeInSec(w.id%2))
		w.p.Schedule(&toyEvent{t: now + d, o: w.src.Next(RankWavefront), h: w, what: "step"})
	}
	return nil
}

func (t *toy) traces() []string {
	out := slices.Clone(t.host.trace)
	for _, w := range t.workers {
		out = append(out, "--")
		out = append(out, w.trace...)
	}
	return out
}

// A parallel run gives every partition the trace of the serial run, event
// for event, whatever the thread count; the deferred reports reach the
// host at their instants and in the serial order.
func TestParallelMatchesSerial(t *testing.T) {
	serial := newToy(3)
	if err := serial.e.Run(); err != nil {
		t.Fatal(err)
	}
	want := serial.traces()
	if len(serial.host.recency) == 0 || !slices.Contains(want, "-- ") && len(want) < 50 {
		t.Fatalf("the toy did little: %v", want)
	}
	for _, threads := range []int{2, 3, 4} {
		par := newToy(3)
		if err := par.e.RunParallel(threads, toyLookahead); err != nil {
			t.Fatal(err)
		}
		if got := par.traces(); !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("%d threads: line %d: %q, serially %q", threads, i, got[i], want[i])
				}
			}
			t.Fatalf("%d threads: %d lines, serially %d", threads, len(got), len(want))
		}
		if par.e.CurrentTime() != serial.e.CurrentTime() {
			t.Errorf("%d threads: ends at %v, serially %v", threads, par.e.CurrentTime(), serial.e.CurrentTime())
		}
	}
}

// A reply faster than the lookahead reaches a worker in its past: the run
// says so instead of running it out of order.
func TestParallelRefusesWhatBeatsTheLookahead(t *testing.T) {
	par := newToy(2)
	if err := par.e.RunParallel(2, 50e-9); err == nil {
		t.Fatal("a 10 ns reply under a 50 ns lookahead ran")
	}
}
