package engine

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/sim"
)

// Partition is one part of a model that a parallel run advances on a
// thread of its own: a GPU with its GMMU. Partition 0 is the rest (the
// driver, the runner, the links' deliveries to the host). A component is
// built with its partition as its engine: serially the partition only
// forwards to the Engine, so a model runs the same whichever way it was
// wired, and in parallel (RunParallel) each partition has its own queue and
// clock.
//
// Partitions meet only through what takes at least the lookahead to
// arrive (a message over a link) and through actions a partition defers
// (Defer): a send over a shared link, a workgroup's end, an eviction
// policy's recency. A parallel run advances every partition but 0 through
// a window of one lookahead, then runs partition 0's events of the window
// with the deferred actions merged in by their place in the order, so each
// acts at the instant, and in the order, it would serially.
type Partition struct {
	e     *Engine
	id    int
	now   sim.VTimeInSec
	queue eventQueue
	// cur is the place of the event being handled, sub how many actions it
	// deferred so far: a deferred action's place is (now, cur, sub).
	cur Order
	sub uint32
	log []action
	err error
	// last is the place of the event that ran last (see Engine.lastKey).
	lastT   sim.VTimeInSec
	lastKey Order
	ran     bool
}

// action is a deferred call: do(a, m) at the place (t, k, sub).
type action struct {
	t   sim.VTimeInSec
	k   Order
	sub uint32
	do  func(a uint64, m sim.Msg)
	a   uint64
	m   sim.Msg
}

func (a *action) before(b *action) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.k != b.k {
		return a.k < b.k
	}
	return a.sub < b.sub
}

// Part is partition i of e (0 is the host's), made on first use. Build a
// model's components with their partition so that RunParallel can advance
// them apart; a serial run treats every partition as one.
func (e *Engine) Part(i int) *Partition {
	for len(e.parts) <= i {
		e.parts = append(e.parts, &Partition{e: e, id: len(e.parts)})
	}
	return e.parts[i]
}

// Parts is how many partitions were made.
func (e *Engine) Parts() int { return len(e.parts) }

// ID is the partition's index.
func (p *Partition) ID() int { return p.id }

// Engine is the engine the partition belongs to.
func (p *Partition) Engine() *Engine { return p.e }

// Schedule implements sim.Engine.
func (p *Partition) Schedule(evt sim.Event) {
	if !p.e.parallel {
		p.e.Schedule(evt)
		return
	}
	p.e.scheduleParallel(p, evt)
}

// CurrentTime implements sim.Engine: the partition's clock in a parallel
// run, the engine's otherwise.
func (p *Partition) CurrentTime() sim.VTimeInSec {
	if p.e.parallel {
		return p.now
	}
	return p.e.now
}

// Run is the Engine's Run.
func (p *Partition) Run() error { return p.e.Run() }

// Pause and Continue implement sim.Engine (the Engine never pauses).
func (p *Partition) Pause() {}

// Continue implements sim.Engine.
func (p *Partition) Continue() {}

// RegisterSimulationEndHandler implements sim.Engine.
func (p *Partition) RegisterSimulationEndHandler(h sim.SimulationEndHandler) {
	p.e.RegisterSimulationEndHandler(h)
}

// Finished implements sim.Engine.
func (p *Partition) Finished() { p.e.Finished() }

// AcceptHook implements sim.Hookable: hooks are the engine's.
func (p *Partition) AcceptHook(h sim.Hook) { p.e.AcceptHook(h) }

// NumHooks implements sim.Hookable.
func (p *Partition) NumHooks() int { return p.e.NumHooks() }

// Hooks implements sim.Hookable.
func (p *Partition) Hooks() []sim.Hook { return p.e.Hooks() }

// InvokeHook implements sim.Hookable.
func (p *Partition) InvokeHook(ctx sim.HookCtx) { p.e.InvokeHook(ctx) }

// newSources numbers n sources that belong to p.
func (p *Partition) newSources(n int) (uint32, error) {
	base, err := p.e.newSources(n)
	if err != nil {
		return 0, err
	}
	p.e.assign(base, n, p.id)
	return base, nil
}

// Defer runs do(a, m) at the current instant, in the order of the event
// being handled: at once serially, or in partition 0's thread in a
// parallel run, merged by its place among partition 0's events and the
// other partitions' deferred actions. It is how a partition acts on what
// others share: do must not touch the partition's own state.
func (p *Partition) Defer(do func(a uint64, m sim.Msg), a uint64, m sim.Msg) {
	if !p.e.parallel || p.id == 0 || !p.e.inWindow {
		do(a, m)
		return
	}
	p.log = append(p.log, action{t: p.now, k: p.cur, sub: p.sub, do: do, a: a, m: m})
	p.sub++
}

// DeferPort defers do(0, m) in the partition of port (AssignPort), or
// runs it at once when the port belongs to partition 0 or e is not a
// partitioned engine. It is how a shared link takes a send.
func DeferPort(e any, port sim.Port, do func(a uint64, m sim.Msg), m sim.Msg) {
	var en *Engine
	switch x := e.(type) {
	case *Engine:
		en = x
	case *Partition:
		en = x.e
	default:
		do(0, m)
		return
	}
	if !en.parallel || !en.inWindow {
		do(0, m)
		return
	}
	en.Part(en.portPart[port]).Defer(do, 0, m)
}

// AssignPort records that port belongs to partition i: its sends over a
// shared link are deferred there, and the links' deliveries to it run
// there (PortPart).
func (e *Engine) AssignPort(port sim.Port, i int) {
	if e.portPart == nil {
		e.portPart = map[sim.Port]int{}
	}
	e.portPart[port] = i
}

// PortPart is the partition port belongs to, 0 when it was not assigned
// or e is not this package's engine.
func PortPart(e any, port sim.Port) int {
	switch x := e.(type) {
	case *Engine:
		return x.portPart[port]
	case *Partition:
		return x.e.portPart[port]
	}
	return 0
}

// AssignSource moves source id to partition i: a link's lane belongs to
// the partition of the port it delivers to.
func AssignSource(e any, id uint32, i int) {
	switch x := e.(type) {
	case *Engine:
		x.assign(id, 1, i)
	case *Partition:
		x.e.assign(id, 1, i)
	}
}

func (e *Engine) assign(base uint32, n, i int) {
	for uint32(len(e.srcPart)) < base+uint32(n) {
		e.srcPart = append(e.srcPart, 0)
	}
	for j := range n {
		e.srcPart[base+uint32(j)] = uint16(i)
	}
}

// partOf is the partition of evt's source (by its own Order, before any
// permutation).
func (e *Engine) partOf(evt sim.Event) *Partition {
	if o, ok := evt.(Ordered); ok {
		if s := o.Order().Source(); int(s) < len(e.srcPart) {
			return e.parts[e.srcPart[s]]
		}
	}
	return e.parts[0]
}

// scheduleParallel queues evt in its source's partition. In a window only
// a partition's own thread schedules into it; between windows partition 0
// schedules into any (a link's delivery, a kernel launch's wavefronts).
func (e *Engine) scheduleParallel(from *Partition, evt sim.Event) {
	t := evt.Time()
	k := e.key(evt)
	to := e.partOf(evt)
	switch {
	case to != from && e.inWindow:
		from.fail(fmt.Errorf("engine: partition %d scheduled %T into partition %d within a window: only a deferred action may reach another partition", from.id, evt, to.id))
		return
	case t < to.now:
		from.fail(fmt.Errorf("engine: %T scheduled at %.3f ns, before partition %d's %.3f ns: in a parallel run a kernel launch or a link must take at least the lookahead", evt, float64(t)*1e9, to.id, float64(to.now)*1e9))
		return
	}
	to.queue.push(evt, t, k)
	if to.id == 0 && k.Rank() == RankLaunch {
		e.launches = append(e.launches, t)
	}
}

func (p *Partition) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// handle runs one event of p.
func (p *Partition) handle(evt sim.Event, t sim.VTimeInSec, k Order) error {
	if p.ran && t == p.lastT && k == p.lastKey {
		return fmt.Errorf("engine: two events at %.0f ns with one place in the order (%T, rank %d, source %d): a source must number its events", float64(t)*1e9, evt, k.Rank(), k.Source())
	}
	p.ran, p.lastT, p.lastKey = true, t, k
	p.now, p.cur, p.sub = t, k, 0
	h := evt.Handler()
	if err := h.Handle(evt); err != nil {
		name := fmt.Sprintf("%T", h)
		if n, ok := h.(sim.Named); ok {
			name = n.Name()
		}
		return fmt.Errorf("%s at %.0f ns: %w", name, float64(t)*1e9, err)
	}
	return p.err
}

// advance runs p's events before end.
func (p *Partition) advance(end sim.VTimeInSec) {
	for p.err == nil && p.queue.Len() > 0 && p.queue.peekTime() < end {
		evt, t, k := p.queue.pop()
		if err := p.handle(evt, t, k); err != nil {
			p.fail(err)
		}
	}
}

// RunParallel runs the model as Run does, with partitions 1 and up
// advanced on up to threads threads, a window of lookahead at a time
// (see Partition). lookahead must not exceed the least time in which one
// partition's action reaches another's queue; a kernel launch (RankLaunch)
// ends a window, so that the workgroups it hands out start at their
// instant. Results are those of Run, event for event in every partition.
func (e *Engine) RunParallel(threads int, lookahead sim.VTimeInSec) error {
	if threads < 2 || len(e.parts) < 3 || !(lookahead > 0) || e.foreign > 0 {
		return e.Run()
	}
	e.parallel = true
	defer func() { e.parallel = false }()
	for _, p := range e.parts {
		p.now = e.now
	}
	for e.queue.Len() > 0 { // what was scheduled before the run
		evt, t, k := e.queue.pop()
		to := e.partOf(evt)
		to.queue.push(evt, t, k)
		if to.id == 0 && k.Rank() == RankLaunch {
			e.launches = append(e.launches, t)
		}
	}
	workers := e.parts[1:]
	crew := newCrew(workers, min(threads, len(workers)))
	defer crew.close()
	var end sim.VTimeInSec
	host := e.parts[0]
	for {
		t, ok := e.earliest()
		if !ok {
			break
		}
		if host.queue.Len() > 0 && host.queue.peekTime() == t && host.queue.peekOrder().Rank() == RankLaunch {
			// A launch hands out workgroups to every partition: it runs
			// alone, first at its instant, as it would serially.
			evt, t, k := host.queue.pop()
			e.launches = slices.DeleteFunc(e.launches, func(x sim.VTimeInSec) bool { return x == t })
			if err := e.hostEvent(evt, t, k); err != nil {
				return err
			}
			continue
		}
		end = t + lookahead
		for _, tl := range e.launches {
			end = min(end, tl)
		}
		e.inWindow = true
		e.windows++
		crew.run(end)
		e.inWindow = false
		if err := e.firstError(); err != nil {
			return err
		}
		if err := e.merge(end); err != nil {
			return err
		}
	}
	e.now = host.now
	for _, p := range workers {
		e.now = max(e.now, p.now)
	}
	return e.outstanding()
}

// Windows is how many windows parallel runs of e advanced (0: it ran
// serially).
func (e *Engine) Windows() uint64 { return e.windows }

// crew advances the partitions through a window on threads: the caller's
// and threads-1 goroutines, each taking the next partition not yet taken
// until none is left. A window is tens of microseconds of work, less than
// parking and waking a thread costs, so a worker spins on the window count
// for a while (about a millisecond) before it sleeps.
type crew struct {
	parts   []*Partition
	threads int
	epoch   atomic.Uint64 // windows started
	next    atomic.Int64  // the next partition to take in this window
	done    atomic.Int64  // partitions finished in this window
	end     sim.VTimeInSec
	stop    atomic.Bool
	sleep   []atomic.Bool
	wake    []chan struct{}
}

// crewSpins is how many times a thread looks for its next window, or for
// the others to finish theirs, before it yields or sleeps.
const crewSpins = 1 << 20

func newCrew(parts []*Partition, threads int) *crew {
	c := &crew{parts: parts, threads: threads, sleep: make([]atomic.Bool, threads), wake: make([]chan struct{}, threads)}
	for w := 1; w < threads; w++ {
		c.wake[w] = make(chan struct{}, 1)
		go c.work(w)
	}
	return c
}

// run advances every partition to end.
func (c *crew) run(end sim.VTimeInSec) {
	c.end = end
	// done before next: a thread still in the last window's take() can
	// take a partition the moment next is reset, and its done.Add must
	// not be wiped (the window would never end).
	c.done.Store(0)
	c.next.Store(0)
	c.epoch.Add(1)
	for w := 1; w < c.threads; w++ {
		if c.sleep[w].Load() {
			select {
			case c.wake[w] <- struct{}{}:
			default:
			}
		}
	}
	c.take()
	for spins := 0; c.done.Load() < int64(len(c.parts)); spins++ {
		if spins > crewSpins {
			runtime.Gosched()
		}
	}
}

// take advances partitions until none is left to take in this window.
func (c *crew) take() {
	for {
		i := c.next.Add(1) - 1
		if i >= int64(len(c.parts)) {
			return
		}
		c.parts[i].advance(c.end)
		c.done.Add(1)
	}
}

func (c *crew) work(w int) {
	seen := uint64(0)
	for {
		spins := 0
		for c.epoch.Load() == seen && !c.stop.Load() {
			if spins++; spins < crewSpins {
				continue
			}
			c.sleep[w].Store(true)
			if c.epoch.Load() == seen && !c.stop.Load() { // no window began since
				<-c.wake[w]
			}
			c.sleep[w].Store(false)
			spins = 0
		}
		if c.stop.Load() {
			return
		}
		seen = c.epoch.Load()
		c.take()
	}
}

func (c *crew) close() {
	c.stop.Store(true)
	for w := 1; w < c.threads; w++ {
		select {
		case c.wake[w] <- struct{}{}:
		default:
		}
	}
}

// earliest is the time of the first queued event of any partition.
func (e *Engine) earliest() (sim.VTimeInSec, bool) {
	var t sim.VTimeInSec
	ok := false
	for _, p := range e.parts {
		if p.queue.Len() > 0 && (!ok || p.queue.peekTime() < t) {
			t, ok = p.queue.peekTime(), true
		}
	}
	return t, ok
}

// firstError is the error of the partition whose failing event came first.
func (e *Engine) firstError() error {
	var first *Partition
	for _, p := range e.parts[1:] {
		if p.err != nil && (first == nil || p.lastT < first.lastT || p.lastT == first.lastT && p.lastKey < first.lastKey) {
			first = p
		}
	}
	if first == nil {
		return nil
	}
	return first.err
}

// merge runs partition 0's events before end with every partition's
// deferred actions of the window, each at its place in the order.
func (e *Engine) merge(end sim.VTimeInSec) error {
	host := e.parts[0]
	var logs [][]action
	for _, p := range e.parts[1:] {
		if len(p.log) > 0 {
			logs = append(logs, p.log)
		}
	}
	for {
		li := -1
		for i, l := range logs {
			if len(l) > 0 && (li < 0 || l[0].before(&logs[li][0])) {
				li = i
			}
		}
		hostNext := host.queue.Len() > 0 && host.queue.peekTime() < end
		if li >= 0 && (!hostNext || logs[li][0].beforeEvent(host.queue.peekTime(), host.queue.peekOrder())) {
			a := &logs[li][0]
			host.now = a.t
			a.do(a.a, a.m)
			*a = action{}
			logs[li] = logs[li][1:]
			if host.err != nil {
				return host.err
			}
			continue
		}
		if !hostNext {
			break
		}
		evt, t, k := host.queue.pop()
		if err := e.hostEvent(evt, t, k); err != nil {
			return err
		}
	}
	for _, p := range e.parts[1:] {
		p.log = slices.Delete(p.log, 0, len(p.log))
	}
	return nil
}

// beforeEvent reports whether a comes before an event at (t, k).
func (a *action) beforeEvent(t sim.VTimeInSec, k Order) bool {
	return a.t < t || a.t == t && a.k < k
}

// hostEvent runs one event of partition 0, with the engine's hooks: in a
// parallel run they see partition 0's events only, between windows.
func (e *Engine) hostEvent(evt sim.Event, t sim.VTimeInSec, k Order) error {
	host := e.parts[0]
	e.now = t
	ctx := sim.HookCtx{Domain: e, Pos: sim.HookPosBeforeEvent, Item: evt}
	e.InvokeHook(ctx)
	if err := host.handle(evt, t, k); err != nil {
		return err
	}
	ctx.Pos = sim.HookPosAfterEvent
	e.InvokeHook(ctx)
	if e.stopped != nil {
		return fmt.Errorf("at %.0f ns: %w", float64(t)*1e9, e.stopped)
	}
	return nil
}
