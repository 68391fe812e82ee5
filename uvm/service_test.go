package uvm

import (
	"math"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

func newService(t *testing.T, policy string, gpus int, pages uint64) *Service {
	t.Helper()
	c := DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	s, err := MakeBuilder().WithConfig(c).WithPolicy(policy, pagepolicy.DefaultConfig()).
		WithGPUs(gpus).WithPages(4096, pages).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// drain returns the service's Ready and advances it.
func drain(s *Service) ServiceReady {
	rd := s.Ready()
	out := ServiceReady{WakeAt: rd.WakeAt, Wake: rd.Wake, Send: append([]Outgoing(nil), rd.Send...)}
	s.Advance()
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func faults(gpu int, pages ...uint64) *uvmproto.FaultBatchMsg {
	var f []uvmproto.FaultEntry
	for _, p := range pages {
		f = append(f, uvmproto.FaultEntry{Page: p})
	}
	return uvmproto.MakeBuilder().FaultBatch(gpu, f)
}

func TestServiceFirstTouch(t *testing.T) {
	s := newService(t, "on-touch", 2, 8)
	must(t, s.Receive(0, faults(1, 3, 4)))
	rd := drain(s)
	// 1000 ns per batch plus 100 per fault.
	if !rd.Wake || math.Abs(float64(rd.WakeAt)-1200e-9) > 1e-15 || len(rd.Send) != 0 {
		t.Fatalf("a batch must first wait its service time: %+v", rd)
	}
	rdWake := rd.WakeAt
	must(t, s.Tick(rd.WakeAt))
	rd = drain(s)
	if len(rd.Send) != 1 || rd.Wake {
		t.Fatalf("first touch: want one host copy and no wait, got %+v", rd)
	}
	pd, ok := rd.Send[0].Msg.(*uvmproto.PageDataMsg)
	if !ok || rd.Send[0].To != 1 || pd.From != Host || len(pd.Pages) != 2 || pd.TrafficBytes != 8192 {
		t.Fatalf("want both pages copied from the host to GPU 1, got %+v", rd.Send[0])
	}
	must(t, s.Receive(2e-6, uvmproto.MakeBuilder().TransferDone(1, pd.Batch)))
	rd = drain(s)
	m, ok := rd.Send[0].Msg.(*uvmproto.MapMsg)
	if len(rd.Send) != 1 || !ok || !m.EndOfBatch || len(m.Entries) != 2 || m.Entries[0].Kind != LocalRW {
		t.Fatalf("want the PTEs installed on GPU 1 ending its batch, got %+v", rd.Send)
	}
	if m.Resolved[0].ServicedAt != rdWake || m.Resolved[0].Cause != uvmproto.CauseHost {
		t.Fatalf("resolution %+v", m.Resolved[0])
	}
	if s.Busy() || s.counters[1].FaultBatches != 1 || s.counters[1].MigrationsH2D != 2 {
		t.Fatalf("busy %v, counters %+v", s.Busy(), *s.counters[1])
	}
}

func TestServiceOneBatchAtATime(t *testing.T) {
	s := newService(t, "on-touch", 2, 8)
	must(t, s.Receive(0, faults(0, 1)))
	must(t, s.Receive(0, faults(1, 1)))
	rd := drain(s)
	if !rd.Wake {
		t.Fatal("the first batch did not start")
	}
	must(t, s.Tick(rd.WakeAt))
	pd := drain(s).Send[0].Msg.(*uvmproto.PageDataMsg)
	must(t, s.Receive(rd.WakeAt, uvmproto.MakeBuilder().TransferDone(0, pd.Batch)))
	rd = drain(s)
	// The end of batch 1 sends its PTEs, then starts batch 2.
	if len(rd.Send) != 1 || !rd.Wake {
		t.Fatalf("want GPU 0's install and the next batch's service: %+v", rd)
	}
	must(t, s.Tick(rd.WakeAt))
	rd = drain(s)
	// GPU 1 now takes the page from GPU 0: shoot it down there first.
	inv, ok := rd.Send[0].Msg.(*uvmproto.InvalidateMsg)
	if len(rd.Send) != 1 || !ok || rd.Send[0].To != 0 || len(inv.Entries) != 1 {
		t.Fatalf("want a shootdown on GPU 0, got %+v", rd.Send)
	}
	must(t, s.Receive(rd.WakeAt, uvmproto.MakeBuilder().InvalidateAck(inv, 0)))
	rd = drain(s)
	cmd, ok := rd.Send[0].Msg.(*uvmproto.TransferCmdMsg)
	if !ok || rd.Send[0].To != 0 || cmd.To != 1 {
		t.Fatalf("after the ack GPU 0 must send the page to GPU 1: %+v", rd.Send)
	}
	must(t, s.Receive(rd.WakeAt, uvmproto.MakeBuilder().TransferDone(1, cmd.Batch)))
	m := drain(s).Send[0]
	if m.To != 1 || m.Msg.(*uvmproto.MapMsg).Resolved[0].Cause != uvmproto.CauseMigration {
		t.Fatalf("want GPU 1's install charged to migration: %+v", m)
	}
	if s.counters[1].MigrationsD2D != 1 || s.counters[0].Invalidations != 1 {
		t.Fatalf("counters %+v %+v", *s.counters[0], *s.counters[1])
	}
}

func TestServiceCounterBatchEndsWithCounterReply(t *testing.T) {
	s := newService(t, "access-counter", 2, 8)
	s.table.Place(5, 0)
	must(t, s.Receive(0, uvmproto.MakeBuilder().CounterBatch(1, []uint64{5, 6}, 1)))
	must(t, s.Tick(drain(s).WakeAt))
	inv := drain(s).Send[0].Msg.(*uvmproto.InvalidateMsg)
	must(t, s.Receive(1e-6, uvmproto.MakeBuilder().InvalidateAck(inv, 0)))
	cmd := drain(s).Send[0].Msg.(*uvmproto.TransferCmdMsg)
	must(t, s.Receive(2e-6, uvmproto.MakeBuilder().TransferDone(1, cmd.Batch)))
	rd := drain(s)
	r, ok := rd.Send[len(rd.Send)-1].Msg.(*uvmproto.CounterReplyMsg)
	if !ok || len(r.Entries) != 1 || r.Entries[0].Page != 5 {
		t.Fatalf("want a counter reply installing page 5 only (page 6 is on the host): %+v", rd.Send)
	}
	if s.counters[1].ACNotifications != 1 || s.counters[1].FaultBatches != 0 {
		t.Fatalf("counters %+v", *s.counters[1])
	}
}

func TestServiceRejectsOutOfProtocolMessages(t *testing.T) {
	s := newService(t, "on-touch", 2, 8)
	if err := s.Receive(0, uvmproto.MakeBuilder().TransferDone(0, 1)); err == nil {
		t.Error("a transfer completion with no batch in service was accepted")
	}
	if err := s.Tick(0); err == nil {
		t.Error("a wake-up with no batch was accepted")
	}
	if err := s.Receive(0, uvmproto.MakeBuilder().Map(nil, nil, true)); err == nil {
		t.Error("a driver-bound message of the wrong kind was accepted")
	}
	must(t, s.Receive(0, faults(0, 1)))
	inv := uvmproto.MakeBuilder().Invalidate(nil, 1)
	if err := s.Receive(0, uvmproto.MakeBuilder().InvalidateAck(inv, 0)); err == nil {
		t.Error("an acknowledgement during the service time was accepted")
	}
}

func TestServicePolicyLookupsDelayTheBatch(t *testing.T) {
	s := newService(t, "oasis", 2, 8)
	s.table.Place(1, 1) // a shared fault: OASIS consults its O-Table
	must(t, s.Receive(0, faults(0, 1)))
	at := drain(s).WakeAt
	must(t, s.Tick(at))
	rd := drain(s)
	if !rd.Wake || rd.WakeAt <= at || len(rd.Send) != 0 {
		t.Fatalf("OASIS's O-Table lookup must delay the resolution: %+v", rd)
	}
	must(t, s.Tick(rd.WakeAt))
	if rd2 := drain(s); len(rd2.Send) != 1 {
		t.Fatalf("after the lookups the shootdown goes out: %+v", rd2)
	}
}

// With N host threads, faults of batches from different GPUs are serviced
// side by side: each fault takes per_fault_ns of the earliest-free thread,
// so N threads finish n faults in ceil(n/N) x per_fault_ns, and a second
// GPU's batch that arrives meanwhile does not wait for the first batch's
// waves to start its service.
func TestServiceHostThreads(t *testing.T) {
	c := DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 0, 1000, 4
	s, err := MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(2).WithPages(4096, 64).BuildService()
	must(t, err)
	must(t, s.Receive(0, faults(0, 0, 1, 2, 3, 4, 5))) // 6 faults on 4 threads: 2 rounds
	rd := drain(s)
	if math.Abs(float64(rd.WakeAt)-2000e-9) > 1e-15 {
		t.Fatalf("6 faults on 4 threads ready at %v, want 2 us", rd.WakeAt)
	}
	// GPU 1's 2 faults arrive at 0.5 us and take the two threads freed at
	// 1 us: ready at 2 us, not after GPU 0's batch.
	must(t, s.Receive(500e-9, faults(1, 10, 11)))
	if got := s.queue[0].readyAt; math.Abs(float64(got)-2000e-9) > 1e-15 {
		t.Fatalf("GPU 1's batch ready at %v, want 2 us", got)
	}
	must(t, s.Tick(rd.WakeAt))
	pd := drain(s).Send[0].Msg.(*uvmproto.PageDataMsg)
	must(t, s.Receive(3e-6, uvmproto.MakeBuilder().TransferDone(0, pd.Batch)))
	rd = drain(s)
	// Its decisions still wait for GPU 0's batch to finish: at 3 us.
	if !rd.Wake || math.Abs(float64(rd.WakeAt)-3e-6) > 1e-15 {
		t.Fatalf("GPU 1's batch must be decided when GPU 0's waves end (3 us), got %+v", rd)
	}
}

// A GMMU built with more pages than the driver faults past the driver's
// table: an error naming the disagreement, not an index panic (issue 32).
func TestServicePageBeyondTable(t *testing.T) {
	s := newService(t, "on-touch", 2, 8)
	err := s.Receive(0, faults(1, 3, 8))
	if err == nil || !strings.Contains(err.Error(), "page 8, beyond the driver's 8 pages") || !strings.Contains(err.Error(), "WithPages disagree") {
		t.Fatalf("err = %v", err)
	}
	counted := uvmproto.MakeBuilder().CounterBatch(0, []uint64{20}, 1)
	if err := s.Receive(0, counted); err == nil || !strings.Contains(err.Error(), "counted page 20") {
		t.Fatalf("counter batch: err = %v", err)
	}
}

// With one batch at a time, per_fault_ns is charged on every fault of a
// batch, or (new-pages, UVMSmart's simulator) only on those whose page is
// not mapped when the batch starts: a fault on a page an earlier batch
// brought is replayed at no charge.
func TestServicePerFaultCharge(t *testing.T) {
	for _, c := range []struct {
		charge  string
		charged int
	}{{ChargeEvery, 2}, {ChargeNewPages, 1}} {
		s := newService(t, "on-touch", 1, 8)
		s.cfg.PerFaultCharge = c.charge
		must(t, s.Receive(0, faults(0, 1)))
		must(t, s.Receive(0, faults(0, 1, 2))) // page 1 again, queued behind the batch bringing it
		rd := drain(s)
		must(t, s.Tick(rd.WakeAt))
		pd := drain(s).Send[0].Msg.(*uvmproto.PageDataMsg)
		must(t, s.Receive(rd.WakeAt, uvmproto.MakeBuilder().TransferDone(0, pd.Batch)))
		next := drain(s) // batch 1's install, and batch 2 starting
		if !next.Wake {
			t.Fatalf("%s: the second batch did not start", c.charge)
		}
		want := float64(rd.WakeAt) + 1e-9*(1000+100*float64(c.charged))
		if math.Abs(float64(next.WakeAt)-want) > 1e-15 {
			t.Errorf("%s: the second batch is ready at %v, want %v (%d faults charged)", c.charge, next.WakeAt, want, c.charged)
		}
	}
}

// Every message that names its sender is range-checked against the GPUs
// the driver serves (a GMMU built for GPU 2 on a 2-GPU driver panicked in
// startBatch), under batches and under hardware handling.
func TestServiceRangeChecksSenders(t *testing.T) {
	b := uvmproto.MakeBuilder()
	inv := b.Invalidate(nil, 1)
	msgs := map[string]func(g int) sim.Msg{
		"fault batch":   func(g int) sim.Msg { return faults(g, 1) },
		"counter batch": func(g int) sim.Msg { return b.CounterBatch(g, []uint64{1}, 1) },
		"shootdown ack": func(g int) sim.Msg { return b.InvalidateAck(inv, g) },
		"transfer done": func(g int) sim.Msg { return b.TransferDone(g, 1) },
		"write-back":    func(g int) sim.Msg { return b.Writeback(g, []uint64{1}, 1) },
	}
	for name, msg := range msgs {
		for _, g := range []int{-1, 2, 64} {
			s := newService(t, "on-touch", 2, 8)
			err := s.Receive(0, msg(g))
			if err == nil || !strings.Contains(err.Error(), "serves GPUs 0 to 1") {
				t.Errorf("%s from GPU %d: %v; want the range named", name, g, err)
			}
		}
	}
}

// What the service waits for, named: the batch in service and its phase,
// the batches queued behind it; nothing once all is answered.
func TestServiceWaiting(t *testing.T) {
	s := newService(t, "on-touch", 2, 8)
	if w := s.Waiting(); len(w) != 0 {
		t.Fatalf("an idle service waits for %q", w)
	}
	must(t, s.Receive(0, faults(0, 1)))
	must(t, s.Receive(0, faults(1, 2)))
	got := strings.Join(s.Waiting(), "; ")
	if want := "batch 1 of GPU 0 in service, waiting for a wake-up that never came; 1 batches queued behind it"; got != want {
		t.Errorf("waiting: %q, want %q", got, want)
	}
	must(t, s.Tick(drain(s).WakeAt)) // page 1 comes from the host
	got = strings.Join(s.Waiting(), "; ")
	if !strings.HasPrefix(got, "batch 1 of GPU 0 in service, waiting for 1 page transfers") {
		t.Errorf("waiting after the service time: %q", got)
	}
}
