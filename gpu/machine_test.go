package gpu

import (
	"math"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

func ns(x float64) sim.VTimeInSec { return sim.VTimeInSec(x * 1e-9) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestMachineCompletes(t *testing.T) {
	for _, c := range []struct {
		name     string
		remote   int // RDMA requests sent
		local    float64
		want     next
		wantWait bool
	}{
		{"local only: next instruction when the lines are done", 0, 30, stepAt(ns(30)), false},
		{"local lines already done: at once", 0, 5, stepAt(ns(10)), false},
		{"remote lines outstanding: wait", 1, 30, wait(), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m machine
			m.issued(ns(10))
			m.localDone = max(m.localDone, ns(c.local))
			for i := 0; i < c.remote; i++ {
				m.sentRemote()
			}
			if got := m.executed(ns(10), 0, 0); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			if (m.phase == phWait) != c.wantWait {
				t.Fatalf("phase %v", m.phase)
			}
		})
	}
}

func TestMachineFaultRoundTrip(t *testing.T) {
	var m machine
	m.issued(0)
	if got := m.executed(0, 2, ns(100)); got != stepAt(ns(100)) || m.phase != phRaise {
		t.Fatalf("faults must be raised when the last walk ends: %+v, phase %v", got, m.phase)
	}
	if got := m.raised(ns(100), 2); got != wait() || m.phase != phWait {
		t.Fatalf("raised faults must wait: %+v", got)
	}
	nx, _, last := m.resolved(ns(500), uvmproto.Resolution{ServicedAt: ns(300), Cause: uvmproto.CauseHost})
	if last || nx != wait() {
		t.Fatal("replayed before every fault was resolved")
	}
	nx, st, last := m.resolved(ns(900), uvmproto.Resolution{ServicedAt: ns(400), Cause: uvmproto.CauseMigration})
	if !last || nx != stepAt(ns(900)) || m.phase != phReplay {
		t.Fatalf("the last resolution must replay now: %+v", nx)
	}
	// 800 ns of stall: 300 until the later service ended, 500 migrating.
	if !near(st.hostNs, 300) || !near(st.restNs, 500) || st.cause != uvmproto.CauseMigration {
		t.Fatalf("stall split %+v", st)
	}
	m.replaying()
	if got := m.executed(ns(900), 0, 0); got != stepAt(ns(900)) || m.phase != phNext {
		t.Fatalf("a clean replay completes: %+v", got)
	}
}

func TestMachineRacedFaultsReplayAtOnce(t *testing.T) {
	var m machine
	m.executed(0, 1, ns(50))
	if got := m.raised(ns(50), 0); got != stepAt(ns(50)) || m.phase != phReplay {
		t.Fatalf("a fault resolved meanwhile must replay at once: %+v", got)
	}
}

func TestMachineRemoteAndFaults(t *testing.T) {
	var m machine
	m.issued(0)
	m.remoteAt = ns(20)
	m.sentRemote()
	m.executed(0, 1, ns(40))
	m.raised(ns(40), 1)
	// The remote lines return while the fault is outstanding: no
	// completion yet, but the remote stall is charged.
	nx, st, last := m.remoteReturned(ns(120))
	if nx != wait() || !last || !near(st, 100) {
		t.Fatalf("got %+v %v %v", nx, st, last)
	}
	nx, _, _ = m.resolved(ns(200), uvmproto.Resolution{ServicedAt: ns(150)})
	if nx != stepAt(ns(200)) {
		t.Fatalf("replay %+v", nx)
	}
	// A replay whose own remote request is still in flight waits for it.
	m.replaying()
	m.sentRemote()
	if got := m.executed(ns(200), 0, 0); got != wait() {
		t.Fatalf("completed with a remote request in flight: %+v", got)
	}
	if got, _, _ := m.remoteReturned(ns(300)); got != stepAt(ns(300)) {
		t.Fatalf("the last remote response must complete the instruction: %+v", got)
	}
}
