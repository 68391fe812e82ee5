package uvm_test

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// unmapper maps page 7 of GPU 0 remotely in its first batch and unmaps it
// after the victims of its second, as ObservUVM releases a sample when its
// region leaves.
type unmapper struct {
	uvm.Stages
	env     uvm.RuntimeEnv
	batches int
}

func (r *unmapper) Decided(g int, _ bool, _ []uint64, invals [][]uvmproto.Inval) {
	r.batches++
	if r.batches != 1 {
		return
	}
	plan := r.env.Ops.Plan()
	t := r.env.Ops.Table()
	t.Resolve(g, 7, false, pagepolicy.Decision{Action: pagepolicy.MapRemote, HostRemote: true}, plan)
	r.env.Ops.Carry(g, plan, uvmproto.CauseRemote, invals)
}

func (r *unmapper) Evicted(invals [][]uvmproto.Inval) {
	if r.batches != 2 {
		return
	}
	plan := r.env.Ops.Plan()
	r.env.Ops.Table().Unmap(0, 7, plan)
	r.env.Ops.Carry(0, plan, uvmproto.CauseHost, invals)
}

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, "unmapper", uvm.RuntimeSpec{New: func(env uvm.RuntimeEnv) (uvm.Runtime, error) {
		return &unmapper{env: env}, nil
	}})
}

// A batch installs its mappings after its shootdowns. A fault on a page
// already mapped re-sends the mapping; if a later step of the same batch
// unmaps the page, the mapping the GPU installs must say so, or the GPU
// keeps reading through a mapping the driver no longer has (ObservUVM's
// released samples read over PCIe for the rest of a run).
func TestBatchMappingFollowsLaterShootdown(t *testing.T) {
	c := uvm.DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 0, 0
	c.Prefetch.Policy = "off"
	c.Adaptive = "unmapper"
	s, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 16).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	if got := mappingsOf(t, s, 0, 0)[7]; !got.Remote() {
		t.Fatalf("first batch maps page 7 %v, want remote", got)
	}
	// A fault on page 7 raised before the remote mapping arrived.
	got, ok := mappingsOf(t, s, 0, 7)[7]
	if !ok {
		t.Fatal("second batch sends no mapping for page 7: its fault would never wake")
	}
	if got != uvmproto.Unmapped || s.Table().Page(7).Remote != 0 {
		t.Fatalf("page 7 sent as %v with table remote %b, want unmapped on both", got, s.Table().Page(7).Remote)
	}
}

// mappingsOf runs GPU g's batch of faults on pages, answering every
// request at once, and returns the last mapping it sends for each page.
func mappingsOf(t *testing.T, s *uvm.Service, g int, pages ...uint64) map[uint64]uvmproto.MapKind {
	t.Helper()
	b := uvmproto.MakeBuilder()
	f := make([]uvmproto.FaultEntry, 0, len(pages))
	for _, p := range pages {
		f = append(f, uvmproto.FaultEntry{Page: p})
	}
	if err := s.Receive(0, b.FaultBatch(g, f)); err != nil {
		t.Fatal(err)
	}
	out := map[uint64]uvmproto.MapKind{}
	wake := s.Ready().WakeAt
	s.Advance()
	if err := s.Tick(wake); err != nil {
		t.Fatal(err)
	}
	for now := wake; s.Busy() || len(s.Ready().Send) > 0; now += 1e-6 {
		rd := s.Ready()
		send := append([]uvm.Outgoing(nil), rd.Send...)
		wakeAt, wakes := rd.WakeAt, rd.Wake
		s.Advance()
		if len(send) == 0 && wakes {
			if err := s.Tick(wakeAt); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if len(send) == 0 {
			t.Fatal("the batch stalled")
		}
		for _, o := range send {
			var m *uvmproto.MapMsg
			switch x := o.Msg.(type) {
			case *uvmproto.MapMsg:
				m = x
			case *uvmproto.InvalidateMsg:
				if err := s.Receive(now, b.InvalidateAck(x, o.To)); err != nil {
					t.Fatal(err)
				}
			case *uvmproto.PageDataMsg:
				if err := s.Receive(now, b.TransferDone(o.To, x.Batch)); err != nil {
					t.Fatal(err)
				}
			}
			if m != nil {
				for _, e := range m.Entries {
					out[e.Page] = e.Kind
				}
			}
		}
	}
	return out
}
