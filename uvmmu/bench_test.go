package uvmmu

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

// steady is a full 256 MB GPU (4096 frame-groups, the paper's DA) where
// every fault swaps, with one fault every 5 us (a 64 KB swap's PCIe time):
// the per-fault path with the AFM refilling behind it.
type steady struct {
	u     *Unit
	now   sim.VTimeInSec
	group uint64
}

func newSteady(tb testing.TB) *steady {
	s := &steady{u: mustNew(tb, DefaultConfig(), Setup{Frames: 4096, ClockMHz: 1481, Seed: 1})}
	for s.group < 4096+1000 { // fill the memory, then swap for a while
		s.fault(tb)
	}
	return s
}

// fault takes one fault, follows its plan and completes it.
func (s *steady) fault(tb testing.TB) {
	s.now += 5e-6
	if err := s.u.Fault(s.now, Fault{Group: s.group, Critical: uint8(s.group % 16), Remote: s.group}); err != nil {
		tb.Fatal(err)
	}
	s.group++
	for {
		rd := s.u.Ready()
		for i := range rd.Plans {
			if err := s.u.Complete(s.now, rd.Plans[i].Frame); err != nil {
				tb.Fatal(err)
			}
		}
		s.u.Advance()
		if !rd.Wake {
			return
		}
		s.now = max(s.now, rd.WakeAt)
		if err := s.u.Tick(s.now); err != nil {
			tb.Fatal(err)
		}
	}
}

func TestFaultPathAllocFree(t *testing.T) {
	s := newSteady(t)
	swaps := s.u.Counters().Swaps
	if n := testing.AllocsPerRun(2000, func() { s.fault(t) }); n != 0 {
		t.Errorf("%v allocations per fault", n)
	}
	if s.u.Counters().Swaps-swaps < 2000 {
		t.Errorf("%d swaps in 2001 faults", s.u.Counters().Swaps-swaps)
	}
}

func BenchmarkFault(b *testing.B) {
	s := newSteady(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.fault(b)
	}
}
