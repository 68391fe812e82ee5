// Package uvmtest drives a driver's Service by hand, for tests of page
// policies and runtimes outside package uvm, as net/http/httptest does
// for handlers: no engine, no GMMUs, every message answered at once.
package uvmtest

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Faults is GPU g's fault batch for pages.
func Faults(g int, pages ...uint64) *uvmproto.FaultBatchMsg {
	f := make([]uvmproto.FaultEntry, 0, len(pages))
	for _, p := range pages {
		f = append(f, uvmproto.FaultEntry{Page: p})
	}
	return uvmproto.MakeBuilder().FaultBatch(g, f)
}

// RunBatch sends GPU g's faults on pages at time 0 and answers every
// shootdown, copy and writeback the Service asks for at once (1 µs apart),
// until the batch is done. It fails t if the Service errs or stalls.
func RunBatch(t testing.TB, s *uvm.Service, g int, pages ...uint64) {
	t.Helper()
	Mappings(t, s, g, pages...)
}

// Mappings runs the batch as RunBatch does and returns the mappings the
// Service sent the GPUs, the batch's last message included, in the order
// they would be installed.
func Mappings(t testing.TB, s *uvm.Service, g int, pages ...uint64) []uvmproto.Mapping {
	t.Helper()
	b := uvmproto.MakeBuilder()
	Must(t, s.Receive(0, Faults(g, pages...)))
	rd := Take(s)
	Must(t, s.Tick(rd.WakeAt))
	var maps []uvmproto.Mapping
	for now := rd.WakeAt; s.Busy() || len(s.Ready().Send) > 0; now += 1e-6 {
		rd = Take(s)
		if len(rd.Send) == 0 {
			t.Fatal("uvmtest: the batch stalled")
		}
		for _, o := range rd.Send {
			if m, ok := o.Msg.(*uvmproto.MapMsg); ok {
				maps = append(maps, m.Entries...)
			}
			if m := answer(b, o); m != nil {
				Must(t, s.Receive(now, m))
			}
		}
	}
	return maps
}

// answer is the message that completes o, or nil for one that needs none.
func answer(b uvmproto.Builder, o uvm.Outgoing) sim.Msg {
	switch m := o.Msg.(type) {
	case *uvmproto.InvalidateMsg:
		return b.InvalidateAck(m, o.To)
	case *uvmproto.PageDataMsg:
		return b.TransferDone(o.To, m.Batch)
	case *uvmproto.TransferCmdMsg:
		if m.To == uvm.Host {
			return b.Writeback(o.To, m.Pages, m.Batch)
		}
		return b.TransferDone(m.To, m.Batch)
	}
	return nil
}

// Take returns what the Service wants done, copied, and advances it.
func Take(s *uvm.Service) uvm.ServiceReady {
	rd := s.Ready()
	out := uvm.ServiceReady{WakeAt: rd.WakeAt, Wake: rd.Wake, Send: append([]uvm.Outgoing(nil), rd.Send...)}
	s.Advance()
	return out
}

// Must fails t on err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
