// Package interconnect provides message-level links (NVLink, PCIe, NVSwitch)
// that implement sim.Connection.
//
// Akita's own NoC models links flit by flit: every flit costs events, and its
// NVLink model caps near PCIe speed. Here a link direction is a FIFO with a
// busy-until timestamp: a message reserves the link for
// (TrafficBytes+header)/bandwidth and arrives one latency after its last
// byte leaves. Each message costs O(1) work and one engine event. A link
// built with a TimingFunc (the PCIe models of pcie.go) takes the occupancy
// and latency of each message from it instead.
//
// State is guarded by a mutex, but delivery order per direction is only
// guaranteed FIFO under the serial engine: the parallel engine may run two
// same-time deliveries of one direction concurrently.
package interconnect

import (
	"fmt"
	"sync"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
)

// Traffic is the load carried from one port to another.
type Traffic struct {
	From, To string
	// Bytes counts TrafficBytes plus the header of every message.
	Bytes    uint64
	Messages uint64
}

// event delivers the due messages of one lane (lane != nil), or retries the
// blocked lanes into port dst after it freed buffer space (lane == nil).
// It is not built with sim.NewEventBase, which draws a string ID from a
// global generator for every event.
type event struct {
	time    sim.VTimeInSec
	order   engine.Order
	handler sim.Handler
	lane    *lane
	dst     int
}

func (e *event) Time() sim.VTimeInSec { return e.time }
func (e *event) Order() engine.Order  { return e.order }
func (e *event) Handler() sim.Handler { return e.handler }
func (e *event) IsSecondary() bool    { return false }

func maxTime(a, b sim.VTimeInSec) sim.VTimeInSec {
	if a > b {
		return a
	}
	return b
}

type flight struct {
	msg     sim.Msg
	arrival sim.VTimeInSec
}

// lane is a serialising link direction ending at a port. Its queue holds the
// messages that crossed it but are not yet in the destination buffer, in Send
// order; their arrival times never decrease, so the head is always next.
type lane struct {
	src       engine.Source
	dst       sim.Port
	dstIdx    int
	busyUntil sim.VTimeInSec
	q         []flight
	head      int
}

// reserve books the lane for ser seconds starting no earlier than ready and
// returns when the last byte arrives after lat.
func (l *lane) reserve(ready, ser, lat sim.VTimeInSec) sim.VTimeInSec {
	l.busyUntil = maxTime(ready, l.busyUntil) + ser
	return l.busyUntil + lat
}

func (l *lane) empty() bool { return l.head == len(l.q) }

func (l *lane) push(f flight) {
	if l.head > 0 && len(l.q) == cap(l.q) && l.head >= len(l.q)/2 {
		n := copy(l.q, l.q[l.head:])
		clear(l.q[n:])
		l.q = l.q[:n]
		l.head = 0
	}
	l.q = append(l.q, f)
}

func (l *lane) pop() flight {
	f := l.q[l.head]
	l.q[l.head] = flight{}
	l.head++
	if l.head == len(l.q) {
		l.q = l.q[:0]
		l.head = 0
	}
	return f
}

// unpop puts back a message the destination refused.
func (l *lane) unpop(f flight) {
	if l.head > 0 {
		l.head--
		l.q[l.head] = f
		return
	}
	l.q = append(l.q, flight{})
	copy(l.q[1:], l.q)
	l.q[0] = f
}

type pairStat struct {
	bytes, msgs uint64
}

// base holds what both topologies share: plugged ports, per-pair traffic
// counters, delivery and retry.
type base struct {
	sim.HookableBase

	name    string
	engine  sim.Engine
	handler sim.Handler // the outer connection, handler of its events
	timing  TimingFunc  // occupancy and latency of a message by its size
	header  int
	// send is the outer connection's send, and holdFuture whether a
	// message dated later waits for its date before it joins a lane.
	// sendAction is send as an action a partition of a parallel run
	// defers (engine.DeferPort): the links are shared, so a send from a
	// GPU's thread joins its lane in the host's, at its place in the order.
	send       func(sim.Msg) *sim.SendError
	sendAction func(uint64, sim.Msg)
	holdFuture bool

	mu           sync.Mutex
	ports        []sim.Port
	index        map[sim.Port]int
	stats        []pairStat // srcIdx*n + dstIdx
	into         [][]*lane  // lanes ending at each port
	retryPending []bool
	// sources number the link's events in the engine's order of
	// simultaneous events: a block from base, a source per lane (by its
	// place in the topology's lane table), per port for retries into it,
	// and per port for the messages it sent held until their date.
	sourceBase uint32
	retrySrc   []engine.Source
	heldSrc    []engine.Source
}

// The link's block of sources: lanes first, then a retry and a held source
// per port.
const (
	maxLanes     = 1 << 15
	maxPorts     = 1 << 14
	linkSources  = maxLanes + 2*maxPorts
	retrySources = maxLanes
	heldSources  = maxLanes + maxPorts
)

func (b *base) init(name string, handler sim.Handler, p params) {
	b.name = name
	b.handler = handler
	b.engine = p.engine
	b.timing = p.timing
	if b.timing == nil {
		b.timing = oneWay(p.bandwidthGBps, p.latencyNs)
	}
	b.header = p.headerBytes
	b.holdFuture = p.holdFuture
	b.index = make(map[sim.Port]int)
	if c, ok := handler.(interface{ sendNow(sim.Msg) *sim.SendError }); ok {
		b.send = c.sendNow
		b.sendAction = func(_ uint64, m sim.Msg) { b.send(m) }
	}
	base, err := engine.NewSourceBlock(p.engine, linkSources)
	if err != nil {
		panic(fmt.Sprintf("interconnect: %s: %v", name, err))
	}
	b.sourceBase = base
}

// sendOrDefer sends msg, or defers the send to the host's thread when a
// GPU's partition of a parallel run sends it (engine.DeferPort). The
// links never refuse a message, so a send always succeeds.
func (b *base) sendOrDefer(msg sim.Msg) *sim.SendError {
	engine.DeferPort(b.engine, msg.Meta().Src, b.sendAction, msg)
	return nil
}

// held schedules msg to be sent again at its date, if it is dated later
// than now and the links hold such messages; it reports whether it did.
func (b *base) held(msg sim.Msg, now sim.VTimeInSec) bool {
	t := msg.Meta().SendTime
	if !b.holdFuture || t <= now {
		return false
	}
	b.mu.Lock()
	si, ok := b.index[msg.Meta().Src]
	if !ok {
		b.mu.Unlock()
		panic(fmt.Sprintf("interconnect: %s: Send from unplugged port %v", b.name, msg.Meta().Src))
	}
	o := b.heldSrc[si].Next(engine.RankLink)
	b.mu.Unlock()
	b.engine.Schedule(&heldEvent{t: t, o: o, b: b, msg: msg})
	return true
}

// heldEvent sends a held message when it is due.
type heldEvent struct {
	t   sim.VTimeInSec
	o   engine.Order
	b   *base
	msg sim.Msg
}

func (e *heldEvent) Time() sim.VTimeInSec { return e.t }
func (e *heldEvent) Order() engine.Order  { return e.o }
func (e *heldEvent) Handler() sim.Handler { return heldHandler{e.b} }
func (e *heldEvent) IsSecondary() bool    { return false }

type heldHandler struct{ b *base }

func (h heldHandler) Handle(e sim.Event) error {
	h.b.send(e.(*heldEvent).msg)
	return nil
}

// Name returns the connection name.
func (b *base) Name() string { return b.name }

// CanSend is always true: the source side is unbounded and the back-pressure
// a real link exerts is modelled by busy-until queueing instead.
func (b *base) CanSend(_ sim.Port) bool { return true }

// Unplug is not supported: topologies are fixed for a run.
func (b *base) Unplug(port sim.Port) {
	panic(fmt.Sprintf("interconnect: %s: Unplug(%s) is not supported", b.name, port.Name()))
}

// addPort registers port and returns its index. Caller holds b.mu.
func (b *base) addPort(port sim.Port) int {
	if port == nil {
		panic(fmt.Sprintf("interconnect: %s: PlugIn of a nil port", b.name))
	}
	if _, dup := b.index[port]; dup {
		panic(fmt.Sprintf("interconnect: %s: port %s plugged in twice", b.name, port.Name()))
	}
	n := len(b.ports)
	if n == maxPorts {
		b.mu.Unlock()
		panic(fmt.Sprintf("interconnect: %s: more than %d ports", b.name, maxPorts))
	}
	b.index[port] = n
	b.ports = append(b.ports, port)
	b.retrySrc = append(b.retrySrc, engine.SourceAt(b.sourceBase+retrySources+uint32(n)))
	engine.AssignSource(b.engine, b.retrySrc[n].ID(), engine.PortPart(b.engine, port))
	b.heldSrc = append(b.heldSrc, engine.SourceAt(b.sourceBase+heldSources+uint32(n)))
	b.stats = regrow(b.stats, n)
	b.into = append(b.into, nil)
	b.retryPending = append(b.retryPending, false)
	return n
}

// regrow re-lays an n*n matrix as (n+1)*(n+1), keeping entries in place.
func regrow[T any](old []T, n int) []T {
	m := n + 1
	s := make([]T, m*m)
	for i := 0; i < n; i++ {
		copy(s[i*m:i*m+n], old[i*n:i*n+n])
	}
	return s
}

// endpoints validates msg and returns its source and destination indices.
// Caller holds b.mu; it is released before panicking.
func (b *base) endpoints(msg sim.Msg) (si, di, bytes int) {
	meta := msg.Meta()
	si, okS := b.index[meta.Src]
	di, okD := b.index[meta.Dst]
	bytes = meta.TrafficBytes + b.header
	var problem string
	switch {
	case meta.Src == nil || meta.Dst == nil:
		problem = "message has no src or dst"
	case !okS:
		problem = "src " + meta.Src.Name() + " is not plugged in"
	case !okD:
		problem = "dst " + meta.Dst.Name() + " is not plugged in"
	case si == di:
		problem = "src and dst are the same port " + meta.Src.Name()
	case bytes < 0:
		problem = fmt.Sprintf("negative size %d bytes", bytes)
	default:
		return si, di, bytes
	}
	b.mu.Unlock()
	panic(fmt.Sprintf("interconnect: %s: Send(%T id %q): %s", b.name, msg, meta.ID, problem))
}

// account counts a message and returns its occupancy (serialisation) time
// and latency. Caller holds b.mu.
func (b *base) account(si, di, bytes int) Timing {
	s := &b.stats[si*len(b.ports)+di]
	s.bytes += uint64(bytes)
	s.msgs++
	return b.timing(bytes)
}

// newLane creates a lane ending at port dst, the k-th of the topology's
// lane table. Caller holds b.mu.
func (b *base) newLane(dst, k int) *lane {
	if k >= maxLanes {
		b.mu.Unlock()
		panic(fmt.Sprintf("interconnect: %s: more than %d lanes", b.name, maxLanes))
	}
	l := &lane{src: engine.SourceAt(b.sourceBase + uint32(k)), dst: b.ports[dst], dstIdx: dst}
	engine.AssignSource(b.engine, l.src.ID(), engine.PortPart(b.engine, l.dst)) // delivered in the port's partition
	b.into[dst] = append(b.into[dst], l)
	return l
}

// enqueue puts msg on lane l and schedules its delivery. Caller holds b.mu
// and this releases it.
func (b *base) enqueue(l *lane, msg sim.Msg, arrival sim.VTimeInSec) {
	l.push(flight{msg: msg, arrival: arrival})
	o := l.src.Next(engine.RankLink)
	b.mu.Unlock()
	b.engine.Schedule(&event{time: arrival, order: o, handler: b.handler, lane: l})
	if b.NumHooks() > 0 {
		b.InvokeHook(sim.HookCtx{Domain: b.handler.(sim.Hookable), Pos: sim.HookPosConnStartSend, Item: msg})
	}
}

// Handle delivers due messages (delivery events) or retries a port that
// freed space (retry events).
func (b *base) Handle(e sim.Event) error {
	ev := e.(*event)
	if ev.lane != nil {
		b.deliverDue(ev.lane, ev.time)
		return nil
	}
	b.mu.Lock()
	b.retryPending[ev.dst] = false
	b.mu.Unlock()
	b.retry(ev.dst, ev.time)
	return nil
}

// deliverDue hands the lane's due messages to the destination in order and
// stops at the first refusal; NotifyAvailable resumes it.
func (b *base) deliverDue(l *lane, now sim.VTimeInSec) {
	for {
		b.mu.Lock()
		if l.empty() || l.q[l.head].arrival > now {
			b.mu.Unlock()
			return
		}
		f := l.pop()
		b.mu.Unlock()
		if !b.tryDeliver(l, f, now) {
			return
		}
	}
}

// retry delivers, earliest arrival first, the due messages of all lanes into
// port dst until it refuses one.
func (b *base) retry(dst int, now sim.VTimeInSec) {
	for {
		b.mu.Lock()
		var best *lane
		for _, l := range b.into[dst] {
			if l.empty() || l.q[l.head].arrival > now {
				continue
			}
			if best == nil || l.q[l.head].arrival < best.q[best.head].arrival {
				best = l
			}
		}
		if best == nil {
			b.mu.Unlock()
			return
		}
		f := best.pop()
		b.mu.Unlock()
		if !b.tryDeliver(best, f, now) {
			return
		}
	}
}

// tryDeliver calls Recv without holding b.mu, since the receiver may Send in
// response. The message was popped first so a re-entrant delivery cannot see
// it twice; a refused message goes back to the head of its lane.
func (b *base) tryDeliver(l *lane, f flight, now sim.VTimeInSec) bool {
	// now equals f.arrival unless the destination was full at arrival.
	f.msg.Meta().RecvTime = now
	if err := l.dst.Recv(f.msg); err != nil {
		b.mu.Lock()
		l.unpop(f)
		b.mu.Unlock()
		return false
	}
	if b.NumHooks() > 0 {
		b.InvokeHook(sim.HookCtx{Domain: b.handler.(sim.Hookable), Pos: sim.HookPosConnDeliver, Item: f.msg})
	}
	return true
}

// NotifyAvailable is called by a destination port that freed buffer space.
// Delivery is deferred to an event at now because LimitNumMsgPort calls this
// from Retrieve while holding its buffer lock, so an immediate Recv would
// deadlock.
func (b *base) NotifyAvailable(now sim.VTimeInSec, port sim.Port) {
	b.mu.Lock()
	idx, ok := b.index[port]
	if !ok {
		b.mu.Unlock()
		panic(fmt.Sprintf("interconnect: %s: NotifyAvailable from unplugged port %s", b.name, port.Name()))
	}
	if b.retryPending[idx] {
		b.mu.Unlock()
		return
	}
	b.retryPending[idx] = true
	o := b.retrySrc[idx].Next(engine.RankLink)
	b.mu.Unlock()
	now = maxTime(now, b.engine.CurrentTime())
	b.engine.Schedule(&event{time: now, order: o, handler: b.handler, dst: idx})
}

// Traffic returns one row per ordered port pair that carried messages, in
// plug order of the source, then of the destination.
func (b *base) Traffic() []Traffic {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.ports)
	var rows []Traffic
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := b.stats[i*n+j]
			if s.msgs == 0 {
				continue
			}
			rows = append(rows, Traffic{
				From: b.ports[i].Name(), To: b.ports[j].Name(),
				Bytes: s.bytes, Messages: s.msgs,
			})
		}
	}
	return rows
}

// BytesFrom returns the bytes (payload plus headers) sent by port; 0 if the
// port is not plugged in.
func (b *base) BytesFrom(port sim.Port) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	i, ok := b.index[port]
	if !ok {
		return 0
	}
	n := len(b.ports)
	var sum uint64
	for _, s := range b.stats[i*n : i*n+n] {
		sum += s.bytes
	}
	return sum
}
