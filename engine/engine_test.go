package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

type step struct {
	t   sim.VTimeInSec
	h   sim.Handler
	err error
}

func (e *step) Time() sim.VTimeInSec { return e.t }
func (e *step) Handler() sim.Handler { return e.h }
func (e *step) IsSecondary() bool    { return false }

type recorder struct {
	*sim.ComponentBase
	ran []sim.VTimeInSec
}

func (r *recorder) Handle(e sim.Event) error {
	r.ran = append(r.ran, e.Time())
	return e.(*step).err
}

// The engine runs events in time order and stops at the first handler
// error, naming the handler and the time; Akita's SerialEngine discards it.
func TestEngineStopsAtTheFirstError(t *testing.T) {
	e := New()
	r := &recorder{ComponentBase: sim.NewComponentBase("GPU[1].Thing")}
	boom := errors.New("boom")
	e.Schedule(&step{t: 3e-9, h: r})
	e.Schedule(&step{t: 2e-9, h: r, err: boom})
	e.Schedule(&step{t: 1e-9, h: r})
	err := e.Run()
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "GPU[1].Thing at 2 ns") {
		t.Fatalf("got %v", err)
	}
	if len(r.ran) != 2 || e.CurrentTime() != 2e-9 {
		t.Fatalf("ran %v: the event after the error must not run", r.ran)
	}
	e = New()
	e.Schedule(&step{t: 1e-9, h: r})
	e.Stop(boom)
	if err := e.Run(); !errors.Is(err, boom) {
		t.Fatalf("stop: got %v", err)
	}
}

type placed struct {
	t    sim.VTimeInSec
	o    Order
	h    *names
	name string
}

func (e *placed) Time() sim.VTimeInSec { return e.t }
func (e *placed) Handler() sim.Handler { return e.h }
func (e *placed) IsSecondary() bool    { return false }
func (e *placed) Order() Order         { return e.o }

type names struct {
	ran []string
	// then is scheduled by the first event it runs.
	then []sim.Event
	e    *Engine
}

func (n *names) Handle(e sim.Event) error {
	switch ev := e.(type) {
	case *placed:
		n.ran = append(n.ran, ev.name)
	case *tick:
		n.ran = append(n.ran, "foreign")
	}
	for _, s := range n.then {
		n.e.Schedule(s)
	}
	n.then = nil
	return nil
}

// Events of one time run by rank, then source, then the source's sequence,
// in whatever order they were scheduled; events without an Order run
// after them, in the order scheduled; an event scheduled at the current
// time by a handler takes its place among those still queued.
func TestEqualTimesRunInTheDocumentedOrder(t *testing.T) {
	e := New()
	src, err := NewSources(e, 3)
	if err != nil {
		t.Fatal(err)
	}
	h := &names{e: e}
	mk := func(name string, r Rank, s int) *placed {
		return &placed{t: 5e-9, o: src[s].Next(r), h: h, name: name}
	}
	wf2a := mk("wavefront source 2, first", RankWavefront, 2)
	wf2b := mk("wavefront source 2, second", RankWavefront, 2)
	wf0 := mk("wavefront source 0", RankWavefront, 0)
	link1 := mk("link source 1", RankLink, 1)
	drv := mk("driver", RankDriver, 0)
	foreign := &tick{EventBase: *sim.NewEventBase(5e-9, h)}
	early := &placed{t: 1e-9, o: src[0].Next(RankWavefront), h: h, name: "earlier"}
	h.then = []sim.Event{mk("scheduled at now by the first", RankGMMU, 1)}
	for _, ev := range []sim.Event{foreign, wf2b, wf0, drv, wf2a, link1, early} {
		e.Schedule(ev)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"earlier", "link source 1", "driver", "scheduled at now by the first",
		"wavefront source 0", "wavefront source 2, first", "wavefront source 2, second", "foreign"}
	if !slices.Equal(h.ran, want) {
		t.Fatalf("ran %q,\nwant %q", h.ran, want)
	}
}

// Two queued events with one place would run in the heap's order: the
// engine refuses to run them.
func TestOnePlaceTwiceIsAnError(t *testing.T) {
	e := New()
	h := &names{e: e}
	o := MakeOrder(RankGPU, 7, 1)
	e.Schedule(&placed{t: 1e-9, o: o, h: h, name: "a"})
	e.Schedule(&placed{t: 1e-9, o: o, h: h, name: "b"})
	if err := e.Run(); err == nil || !strings.Contains(err.Error(), "one place in the order") {
		t.Fatalf("got %v", err)
	}
}

// Sources are numbered in the order they are asked for; an engine that
// is not this package's numbers none.
func TestSourcesAreNumberedInOrder(t *testing.T) {
	e := New()
	a, _ := NewSources(e, 2)
	b := NewSource(e)
	if a[0].ID() != 0 || a[1].ID() != 1 || b.ID() != 2 {
		t.Fatalf("ids %d %d %d", a[0].ID(), a[1].ID(), b.ID())
	}
	if _, err := NewSourceBlock(e, MaxSources); err == nil {
		t.Fatal("a block past MaxSources was given")
	}
	if s := NewSource(sim.NewSerialEngine()); s.ID() != 0 {
		t.Fatalf("Akita's engine: id %d", s.ID())
	}
	o := MakeOrder(RankDriver, 12345, 1<<40+3)
	if o.Rank() != RankDriver || o.Source() != 12345 {
		t.Fatalf("order %x: rank %d source %d", o, o.Rank(), o.Source())
	}
}

// A permutation keeps ranks and each source's sequence, and orders the
// sources of a rank differently: a bijection, so no two places merge.
func TestPermutedSourcesKeepRanksAndSequences(t *testing.T) {
	e := New()
	e.PermuteSources(3)
	seen := map[uint32]bool{}
	moved := 0
	for s := uint32(0); s < 4096; s++ {
		o := e.permute(MakeOrder(RankGMMU, s, 9))
		if o.Rank() != RankGMMU || o&seqMask != 9 || seen[o.Source()] {
			t.Fatalf("source %d: order %x (rank %d, source %d)", s, o, o.Rank(), o.Source())
		}
		seen[o.Source()] = true
		if o.Source() != s {
			moved++
		}
	}
	if moved < 4000 {
		t.Fatalf("only %d of 4096 sources moved", moved)
	}
	e.PermuteSources(0)
	if o := MakeOrder(RankGPU, 5, 1); e.key(&placed{o: o}) != o {
		t.Fatal("permutation 0 is not the documented order")
	}
}

// waits is a component that waits for what it says.
type waits struct{ what error }

func (w waits) Outstanding() error { return w.what }

// A run that ends with a watched component waiting is an error naming
// every one that waits, at the time the events ran out; serially and in
// parallel.
func TestRunReportsWhatWaits(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		e := New()
		r := &recorder{ComponentBase: sim.NewComponentBase("R")}
		e.Schedule(&step{t: 5e-9, h: r})
		e.Watch(waits{})
		e.Part(1).Watch(waits{errors.New("GPU[0].GMMU: 1 far faults unanswered (page 3)")})
		e.Watch(waits{errors.New("Driver: batch 1 of GPU 0 in service")})
		run := e.Run
		if parallel {
			e.Part(2)
			run = func() error { return e.RunParallel(2, 1e-9) }
		}
		err := run()
		if err == nil {
			t.Fatalf("parallel %v: no error", parallel)
		}
		for _, want := range []string{"at 5 ns", "GPU[0].GMMU: 1 far faults unanswered (page 3)", "Driver: batch 1 of GPU 0 in service"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("parallel %v: %q does not name %q", parallel, err, want)
			}
		}
	}
	e := New()
	e.Watch(waits{})
	if err := e.Run(); err != nil {
		t.Errorf("nothing waits: %v", err)
	}
}
