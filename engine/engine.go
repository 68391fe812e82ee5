// Package engine is Akita's serial engine with one difference: it stops
// at the first error a handler returns and Run reports it, with the time
// and the handler's name. Another Akita model that embeds mgpu's
// components can run them on it, so that a component's error ends the
// run instead of being dropped.
package engine

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"
)

// Engine is Akita's serial engine that stops at the first handler error
// (see the package doc). Akita's SerialEngine
// discards handler errors, so a component's failure used to surface only
// later, as a misleading "simulation stalled". Events run in exactly the
// order Akita's engine runs them (queues that sift as Akita's do, primary
// events first at equal times), so results are the same.
type Engine struct {
	sim.HookableBase
	now       sim.VTimeInSec
	primary   eventQueue
	secondary eventQueue
	endings   []sim.SimulationEndHandler
	stopped   error
}

// Stop ends the run after the current event, with err as its error: how a
// part that is not a component (mgpu's coherence checker) stops the engine.
func (e *Engine) Stop(err error) {
	if e.stopped == nil {
		e.stopped = err
	}
}

// New returns an engine with no events.
func New() *Engine {
	return &Engine{}
}

// Schedule implements sim.Engine.
func (e *Engine) Schedule(evt sim.Event) {
	t := evt.Time()
	if t < e.now {
		panic(fmt.Sprintf("engine: %T scheduled at %v, before now %v", evt, t, e.now))
	}
	if evt.IsSecondary() {
		e.secondary.push(evt, t)
		return
	}
	e.primary.push(evt, t)
}

// Run implements sim.Engine: it runs every event, or stops at the first
// handler error and returns it with the time and the handler.
func (e *Engine) Run() error {
	for e.primary.Len() > 0 || e.secondary.Len() > 0 {
		evt, t := e.next()
		e.now = t
		ctx := sim.HookCtx{Domain: e, Pos: sim.HookPosBeforeEvent, Item: evt}
		e.InvokeHook(ctx)
		h := evt.Handler()
		if err := h.Handle(evt); err != nil {
			name := fmt.Sprintf("%T", h)
			if n, ok := h.(sim.Named); ok {
				name = n.Name()
			}
			return fmt.Errorf("%s at %.0f ns: %w", name, float64(e.now)*1e9, err)
		}
		ctx.Pos = sim.HookPosAfterEvent
		e.InvokeHook(ctx)
		if e.stopped != nil {
			return fmt.Errorf("at %.0f ns: %w", float64(e.now)*1e9, e.stopped)
		}
	}
	return nil
}

// next pops the earliest event and returns it with its time, which the
// queue holds: asking the event would read it from its owner's memory,
// cold in a large run.
func (e *Engine) next() (sim.Event, sim.VTimeInSec) {
	switch {
	case e.primary.Len() == 0:
		return e.secondary.pop()
	case e.secondary.Len() == 0:
		return e.primary.pop()
	case e.primary.PeekTime() <= e.secondary.PeekTime():
		return e.primary.pop()
	}
	return e.secondary.pop()
}

// CurrentTime implements sim.Engine.
func (e *Engine) CurrentTime() sim.VTimeInSec { return e.now }

// Pause and Continue implement sim.Engine; the platform runs one engine
// from one goroutine and never pauses it.
func (e *Engine) Pause() {}

// Continue implements sim.Engine.
func (e *Engine) Continue() {}

// RegisterSimulationEndHandler implements sim.Engine.
func (e *Engine) RegisterSimulationEndHandler(h sim.SimulationEndHandler) {
	e.endings = append(e.endings, h)
}

// Finished implements sim.Engine.
func (e *Engine) Finished() {
	for _, h := range e.endings {
		h.Handle(e.now)
	}
}
