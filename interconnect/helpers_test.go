package interconnect

import (
	"fmt"
	"math"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

type testMsg struct {
	sim.MsgMeta
}

func (m *testMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// received is one message as seen by the receiving agent.
type received struct {
	id  string
	src string
	at  sim.VTimeInSec // RecvTime
	now sim.VTimeInSec // engine time when the agent took it
	// notified is set if taken in NotifyRecv, so now must equal at.
	notified bool
}

// agent is a minimal component. With drain set it retrieves every message as
// soon as it is notified; otherwise messages stay in its buffer until a
// drainEvent.
type agent struct {
	*sim.ComponentBase
	engine sim.Engine
	port   *sim.LimitNumMsgPort
	drain  bool
	got    []received
}

func newAgent(e sim.Engine, i, capacity int, drain bool) *agent {
	a := &agent{ComponentBase: sim.NewComponentBase(fmt.Sprintf("Agent[%d]", i)), engine: e, drain: drain}
	a.port = sim.NewLimitNumMsgPort(a, capacity, fmt.Sprintf("Agent[%d].Port", i))
	return a
}

type drainEvent struct {
	time sim.VTimeInSec
	a    *agent
}

func (e *drainEvent) Time() sim.VTimeInSec { return e.time }
func (e *drainEvent) Handler() sim.Handler { return e.a }
func (e *drainEvent) IsSecondary() bool    { return false }

type sendEvent struct {
	time sim.VTimeInSec
	a    *agent
	msg  sim.Msg
}

func (e *sendEvent) Time() sim.VTimeInSec { return e.time }
func (e *sendEvent) Handler() sim.Handler { return e.a }
func (e *sendEvent) IsSecondary() bool    { return false }

func (a *agent) Handle(e sim.Event) error {
	switch e := e.(type) {
	case *drainEvent:
		// From now on take messages as they come: with the buffer freed,
		// the connection re-delivers held messages in a later event.
		a.drain = true
		a.retrieveAll(e.time, false)
	case *sendEvent:
		if err := a.port.Send(e.msg); err != nil {
			panic("send failed")
		}
	}
	return nil
}

func (a *agent) retrieveAll(now sim.VTimeInSec, notified bool) {
	for {
		m := a.port.Retrieve(now)
		if m == nil {
			return
		}
		a.got = append(a.got, received{
			id: m.Meta().ID, src: m.Meta().Src.Name(),
			at: m.Meta().RecvTime, now: a.engine.CurrentTime(), notified: notified,
		})
	}
}

func (a *agent) NotifyRecv(now sim.VTimeInSec, _ sim.Port) {
	if a.drain {
		a.retrieveAll(now, true)
	}
}

func (a *agent) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// link is what the tests need of both topologies.
type link interface {
	sim.Connection
	Traffic() []Traffic
	BytesFrom(sim.Port) uint64
}

const (
	testGBps  = 300.0
	testLatNs = 250.0
	testSwNs  = 100.0
	testHdr   = 16
)

func testBuilder(e sim.Engine) Builder {
	return MakeBuilder().WithEngine(e).WithBandwidthGBps(testGBps).
		WithLatencyNs(testLatNs).WithHeaderBytes(testHdr).WithSwitchLatencyNs(testSwNs)
}

// setup builds a FullyConnected ("fc") or Switch ("switch") with n agents.
func setup(t testing.TB, kind string, n, capacity int, drain bool) (*sim.SerialEngine, link, []*agent) {
	t.Helper()
	e := sim.NewSerialEngine()
	var c link
	var err error
	if kind == "switch" {
		c, err = testBuilder(e).BuildSwitch("NVSwitch")
	} else {
		c, err = testBuilder(e).BuildFullyConnected("NVLink")
	}
	if err != nil {
		t.Fatal(err)
	}
	agents := make([]*agent, n)
	for i := range agents {
		agents[i] = newAgent(e, i, capacity, drain)
		c.PlugIn(agents[i].port, 1)
	}
	return e, c, agents
}

func msg(id string, src, dst *agent, bytes int, sendTime sim.VTimeInSec) *testMsg {
	m := &testMsg{}
	m.ID, m.Src, m.Dst, m.TrafficBytes, m.SendTime = id, src.port, dst.port, bytes, sendTime
	return m
}

func send(t testing.TB, m *testMsg) {
	t.Helper()
	if err := m.Src.Send(m); err != nil {
		t.Fatalf("Send(%s) failed", m.ID)
	}
}

func run(t testing.TB, e sim.Engine) {
	t.Helper()
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
}

func ser(bytes int) sim.VTimeInSec {
	return sim.VTimeInSec(float64(bytes+testHdr) / (testGBps * 1e9))
}

const lat = sim.VTimeInSec(testLatNs * 1e-9)
const swLat = sim.VTimeInSec(testSwNs * 1e-9)

func near(a, b sim.VTimeInSec) bool { return math.Abs(float64(a-b)) <= 1e-15 }

// expectArrivals checks that agent a received exactly the given ids at the
// given times, in that order.
func expectArrivals(t *testing.T, a *agent, ids []string, times []sim.VTimeInSec) {
	t.Helper()
	if len(a.got) != len(ids) {
		t.Fatalf("%s got %d messages %v, want %d", a.Name(), len(a.got), a.got, len(ids))
	}
	for i, r := range a.got {
		if r.id != ids[i] {
			t.Errorf("%s message %d = %s, want %s", a.Name(), i, r.id, ids[i])
		}
		if !near(r.at, times[i]) {
			t.Errorf("%s message %s RecvTime = %.18g, want %.18g", a.Name(), r.id, r.at, times[i])
		}
		if r.notified && !near(r.at, r.now) {
			t.Errorf("%s message %s RecvTime %.18g differs from delivery time %.18g", a.Name(), r.id, r.at, r.now)
		}
	}
}
