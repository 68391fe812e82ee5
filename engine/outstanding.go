package engine

import (
	"errors"
	"fmt"
)

// Waiting is a component that can say, when a run ends, what it still
// waits for: a batch in service, a fault or a translation unanswered, a
// shootdown whose drain never ended. When the engine has nothing left to
// run, nothing will ever answer it, so the run did not end: it stalled.
type Waiting interface {
	// Outstanding is nil when the component waits for nothing, else an
	// error that names what waits and, where it can, the likely cause.
	Outstanding() error
}

// Watcher is an engine that asks components what they wait for when a
// run ends (Engine and Partition). mgpu's components are built only on
// one: an engine that dropped their errors, or ended with their work
// outstanding, would report a stalled run as a finished one.
type Watcher interface {
	Watch(w Waiting)
}

// Watch makes Run ask w, when it has run every event, what w still waits
// for; anything is Run's error.
func (e *Engine) Watch(w Waiting) { e.watched = append(e.watched, w) }

// Watch is the Engine's Watch.
func (p *Partition) Watch(w Waiting) { p.e.Watch(w) }

// outstanding joins what the watched components still wait for, once the
// queue is empty.
func (e *Engine) outstanding() error {
	var errs []error
	for _, w := range e.watched {
		if err := w.Outstanding(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("engine: the run ran out of events at %.0f ns with work outstanding, which nothing left to run will answer:\n%w",
		float64(e.now)*1e9, errors.Join(errs...))
}
