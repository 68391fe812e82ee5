// Package engine is a serial engine for Akita components with two
// differences from Akita's: events of equal time run in one documented
// order (order.go) instead of the order a binary heap's history leaves
// them in, and it stops at the first error a handler returns, which Run
// reports with the time and the handler's name. Another Akita model that
// embeds mgpu's components can run them on it, so that a component's error
// ends the run instead of being dropped.
package engine

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"
)

// Engine runs events by time, and events of equal time by their Order
// (see the package doc), and stops at the first handler error. Akita's
// SerialEngine discards handler errors, so a component's failure used to
// surface only later, as a misleading "simulation stalled".
type Engine struct {
	sim.HookableBase
	now     sim.VTimeInSec
	queue   eventQueue
	endings []sim.SimulationEndHandler
	stopped error
	// sources is how many sources are numbered; foreign counts the events
	// scheduled without an Order.
	sources uint32
	foreign uint64
	// mul and add permute the sources (PermuteSources); mul 0 is none.
	mul, add uint32
	// last is the place of the event that ran last: two queued events
	// with one place would run in the queue's order, which is what the
	// Order exists to rule out.
	lastT   sim.VTimeInSec
	lastKey Order
	ran     bool
	// The partitions (partition.go): parts, the partition of each source
	// and port, whether a parallel run is on and inside a window, and the
	// times of the kernel launches queued in partition 0.
	parts    []*Partition
	srcPart  []uint16
	portPart map[sim.Port]int
	parallel bool
	inWindow bool
	launches []sim.VTimeInSec
	windows  uint64
	// watched are asked what they wait for when a run ends
	// (outstanding.go).
	watched []Waiting
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
	if e.parallel {
		e.scheduleParallel(e.parts[0], evt)
		return
	}
	t := evt.Time()
	if t < e.now {
		panic(fmt.Sprintf("engine: %T scheduled at %v, before now %v", evt, t, e.now))
	}
	e.queue.push(evt, t, e.key(evt))
}

// Run implements sim.Engine: it runs every event, or stops at the first
// handler error and returns it with the time and the handler. When every
// event has run, what a watched component still waits for is its error
// (Watch).
func (e *Engine) Run() error {
	for e.queue.Len() > 0 {
		evt, t, k := e.queue.pop()
		if e.ran && t == e.lastT && k == e.lastKey {
			return fmt.Errorf("engine: two events at %.0f ns with one place in the order (%T, rank %d, source %d): a source must number its events", float64(t)*1e9, evt, k.Rank(), k.Source())
		}
		e.ran, e.lastT, e.lastKey = true, t, k
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
	return e.outstanding()
}

// CurrentTime implements sim.Engine: in a parallel run, partition 0's
// clock.
func (e *Engine) CurrentTime() sim.VTimeInSec {
	if e.parallel {
		return e.parts[0].now
	}
	return e.now
}

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
