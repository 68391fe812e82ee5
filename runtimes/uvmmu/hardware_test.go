package uvmmu

import (
	"math"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
	"github.com/mgpu-sim/mgpu/uvmtest"
)

// newHardware is UVMMU handling over pages 4 KB pages, capacity pages per
// GPU, at 1 GHz (a cycle is 1 ns).
func newHardware(t *testing.T, gpus int, pages uint64, capacity int) *uvm.Service {
	t.Helper()
	c := uvm.DefaultConfig()
	c.FaultHandling, c.Eviction = Name, "linear-random"
	s, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(gpus).WithPages(4096, pages).WithCapacity(capacity).WithClockMHz(1000).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// deliver plays the GMMUs' part for what the service sent: page data lands
// (and is reported), a shootdown with write-back returns its pages. It
// returns the PTEs installed, by page.
func deliver(t *testing.T, s *uvm.Service, now sim.VTimeInSec, sent []uvm.Outgoing) map[uint64]uvmproto.Mapping {
	t.Helper()
	installed := map[uint64]uvmproto.Mapping{}
	b := uvmproto.MakeBuilder()
	for _, o := range sent {
		switch m := o.Msg.(type) {
		case *uvmproto.PageDataMsg:
			for _, e := range m.Entries {
				installed[e.Page] = e
			}
			uvmtest.Must(t, s.Core().Receive(now, b.TransferDone(o.To, m.Batch)))
		case *uvmproto.InvalidateMsg:
			if !m.Writeback {
				t.Fatalf("hardware handling sent a plain shootdown: %+v", m)
			}
			pages := make([]uint64, len(m.Entries))
			for i, e := range m.Entries {
				pages[i] = e.Page
			}
			uvmtest.Must(t, s.Core().Receive(now, b.Writeback(o.To, pages, m.Batch)))
		case *uvmproto.MapMsg:
			for _, e := range m.Entries {
				installed[e.Page] = e
			}
		default:
			t.Fatalf("unexpected %T", o.Msg)
		}
	}
	return installed
}

// TestHardwareCriticalPageFirst: a fault moves its whole 64 KB page-group,
// the faulting page alone first, both leaving 10 cycles after the fault,
// with no driver reply.
func TestHardwareCriticalPageFirst(t *testing.T) {
	s := newHardware(t, 1, 64, 0)
	uvmtest.Must(t, s.Core().Receive(1e-6, uvmtest.Faults(0, 21)))
	rd := uvmtest.Take(s)
	if len(rd.Send) != 2 {
		t.Fatalf("want the critical page and the rest, got %d messages", len(rd.Send))
	}
	crit, rest := rd.Send[0].Msg.(*uvmproto.PageDataMsg), rd.Send[1].Msg.(*uvmproto.PageDataMsg)
	if len(crit.Pages) != 1 || crit.Pages[0] != 21 || len(crit.Entries) != 1 || crit.Entries[0].Kind != uvm.LocalRW {
		t.Fatalf("critical message %+v", crit)
	}
	if len(rest.Pages) != 15 || rest.Pages[0] != 16 || rest.Pages[14] != 31 {
		t.Fatalf("rest of group 1: %v", rest.Pages)
	}
	if want := 1e-6 + 10e-9; math.Abs(float64(rd.Send[0].At)-want) > 1e-15 || rd.Send[1].At != rd.Send[0].At {
		t.Fatalf("sent at %v and %v, want 10 cycles after the fault (%v)", rd.Send[0].At, rd.Send[1].At, want)
	}
	for p := uint64(16); p < 32; p++ {
		if s.Table().Page(p).Owner != 0 {
			t.Fatalf("page %d not moved to GPU 0 in the table", p)
		}
	}
	if s.Table().Used(0) != 16 {
		t.Fatalf("GPU 0 holds %d pages", s.Table().Used(0))
	}
}

// TestHardwareDefersFaultsOnGroupsInFlight: a second fault on a group in
// flight waits for it and is then answered from the table.
func TestHardwareDefersFaultsOnGroupsInFlight(t *testing.T) {
	s := newHardware(t, 1, 64, 0)
	uvmtest.Must(t, s.Core().Receive(1e-6, uvmtest.Faults(0, 3))) // after the AFM's first refill
	first := uvmtest.Take(s)
	uvmtest.Must(t, s.Core().Receive(1.001e-6, uvmtest.Faults(0, 7)))
	if rd := uvmtest.Take(s); len(rd.Send) != 0 {
		t.Fatalf("a fault on a group in flight was answered at once: %+v", rd.Send)
	}
	installed := deliver(t, s, 3e-6, first.Send)
	rd := uvmtest.Take(s)
	if len(installed) != 16 || len(rd.Send) != 1 {
		t.Fatalf("%d PTEs installed, then %d messages", len(installed), len(rd.Send))
	}
	if m, ok := rd.Send[0].Msg.(*uvmproto.MapMsg); !ok || m.Entries[0].Page != 7 {
		t.Fatalf("the deferred fault's answer: %+v", rd.Send[0].Msg)
	}
	if st := s.Report(); st["uvmmu_faults"] != 1 {
		t.Fatalf("%g group migrations for two faults on one group", st["uvmmu_faults"])
	}
}

// TestHardwareSwapKeepsCapacity: with two frame-groups, a third group
// swaps a resident one out; memory never exceeds the frames and the victim
// returns with a write-back.
func TestHardwareSwapKeepsCapacity(t *testing.T) {
	s := newHardware(t, 1, 256, 32)
	now := sim.VTimeInSec(0)
	swaps := 0
	for _, p := range []uint64{0, 16, 32, 48, 0, 64, 80, 16} {
		now += 1e-6
		uvmtest.Must(t, s.Core().Receive(now, uvmtest.Faults(0, p)))
		rd := uvmtest.Take(s)
		for rd.Wake && len(rd.Send) == 0 { // a DCQ-empty stall
			now = max(now, rd.WakeAt)
			uvmtest.Must(t, s.Core().Tick(now))
			rd = uvmtest.Take(s)
		}
		for _, o := range rd.Send {
			if iv, ok := o.Msg.(*uvmproto.InvalidateMsg); ok {
				swaps++
				if len(iv.Entries) != 16 {
					t.Fatalf("swap of %d pages, want a whole group", len(iv.Entries))
				}
			}
		}
		if used := s.Table().Used(0); used > 32 {
			t.Fatalf("GPU 0 holds %d pages in 2 frame-groups", used)
		}
		now += 10e-6
		deliver(t, s, now, rd.Send)
		uvmtest.Take(s)
	}
	if swaps == 0 {
		t.Fatal("eight groups through two frame-groups without a swap")
	}
	if s.Counters(0).MigrationsD2H != uint64(16*swaps) {
		t.Fatalf("%d pages written back for %d swaps", s.Counters(0).MigrationsD2H, swaps)
	}
}

// TestHardwareRecallsFromPeer: a group another GPU holds is shot down
// there and written back first, then migrated to the faulting GPU.
func TestHardwareRecallsFromPeer(t *testing.T) {
	s := newHardware(t, 2, 64, 0)
	uvmtest.Must(t, s.Core().Receive(1e-6, uvmtest.Faults(0, 5)))
	deliver(t, s, 5e-6, uvmtest.Take(s).Send)
	uvmtest.Take(s)
	uvmtest.Must(t, s.Core().Receive(6e-6, uvmtest.Faults(1, 9)))
	rd := uvmtest.Take(s)
	iv, ok := rd.Send[0].Msg.(*uvmproto.InvalidateMsg)
	if len(rd.Send) != 1 || !ok || rd.Send[0].To != 0 || !iv.Writeback || len(iv.Entries) != 16 {
		t.Fatalf("want GPU 0's group shot down and written back, got %+v", rd.Send)
	}
	deliver(t, s, 8e-6, rd.Send)
	rd = uvmtest.Take(s)
	if len(rd.Send) != 2 || rd.Send[0].To != 1 {
		t.Fatalf("after the recall, want GPU 1's migration, got %+v", rd.Send)
	}
	if s.Table().Used(0) != 0 || s.Table().Used(1) != 16 {
		t.Fatalf("GPU 0 holds %d, GPU 1 %d", s.Table().Used(0), s.Table().Used(1))
	}
	for fg := uint32(0); fg < Unit(s.Handler(), 0).Frames(); fg++ {
		if Unit(s.Handler(), 0).Frame(fg).Mapped {
			t.Fatalf("GPU 0's frame-group %d still maps a page-group after the recall", fg)
		}
	}
}

// TestHardwareLandingServesItsGPUFirst: when a migration lands, the faults
// of its own GPU that waited on it are answered from the group it brought
// before another GPU's waiting fault recalls the group, whatever order the
// faults came in.
func TestHardwareLandingServesItsGPUFirst(t *testing.T) {
	s := newHardware(t, 2, 64, 0)
	uvmtest.Must(t, s.Core().Receive(1e-6, uvmtest.Faults(0, 3)))
	first := uvmtest.Take(s)
	uvmtest.Must(t, s.Core().Receive(1.001e-6, uvmtest.Faults(1, 5))) // another GPU, first
	uvmtest.Must(t, s.Core().Receive(1.002e-6, uvmtest.Faults(0, 7))) // then the flight's own
	if rd := uvmtest.Take(s); len(rd.Send) != 0 {
		t.Fatalf("faults on a group in flight were answered at once: %+v", rd.Send)
	}
	deliver(t, s, 3e-6, first.Send)
	rd := uvmtest.Take(s)
	if len(rd.Send) != 2 {
		t.Fatalf("want GPU 0's answer and GPU 1's recall, got %d messages: %+v", len(rd.Send), rd.Send)
	}
	m, ok := rd.Send[0].Msg.(*uvmproto.MapMsg)
	if !ok || rd.Send[0].To != 0 || m.Entries[0].Page != 7 {
		t.Fatalf("first, want GPU 0's waiting fault on page 7 answered, got %+v", rd.Send[0].Msg)
	}
	if iv, ok := rd.Send[1].Msg.(*uvmproto.InvalidateMsg); !ok || rd.Send[1].To != 0 || !iv.Writeback {
		t.Fatalf("then, want the group recalled from GPU 0 for GPU 1, got %+v", rd.Send[1].Msg)
	}
}
