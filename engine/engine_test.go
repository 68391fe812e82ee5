package engine

import (
	"errors"
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
