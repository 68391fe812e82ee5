package uvm_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
	"github.com/mgpu-sim/mgpu/uvmtest"
)

// echoCore is a fault-handling core from outside package uvm: it maps
// every faulting page where the table has it, a tick after the fault.
type echoCore struct {
	ops     uvm.HandlingOps
	pending []uvmproto.FaultEntry
	gpu     int
	faults  uint64
}

func (c *echoCore) Receive(now sim.VTimeInSec, msg sim.Msg) error {
	m := msg.(*uvmproto.FaultBatchMsg)
	c.gpu, c.pending = m.GPU, append(c.pending, m.Faults...)
	c.faults += uint64(len(m.Faults))
	c.ops.Wake(now + 1e-9)
	return nil
}

func (c *echoCore) Tick(now sim.VTimeInSec) error {
	for _, f := range c.pending {
		p := c.ops.Table().Page(f.Page)
		m := uvmproto.Mapping{GPU: c.gpu, Page: f.Page, Owner: p.Owner, Kind: uvm.LocalRW}
		c.ops.Send(c.gpu, c.ops.Messages().Map([]uvmproto.Mapping{m}, []uvmproto.Resolution{{ServicedAt: now}}, false), 0)
	}
	c.pending = c.pending[:0]
	return nil
}

func (c *echoCore) Report(m map[string]float64) {
	uvm.AddCounts(m, map[string]uint64{"echo_faults": c.faults})
}

func (c *echoCore) Outstanding() []string {
	if len(c.pending) == 0 {
		return nil
	}
	return []string{"echo: faults unanswered"}
}

func init() {
	uvm.RegisterHandling("echo", uvm.HandlingSpec{Concurrent: true, New: func(env uvm.HandlingEnv) (uvm.FaultCore, error) {
		return &echoCore{ops: env.Ops}, nil
	}})
}

func buildHandling(t *testing.T, name string) (*uvm.Service, error) {
	t.Helper()
	c := uvm.DefaultConfig()
	c.FaultHandling = name
	return uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(2).WithPages(4096, 16).BuildService()
}

// A core registered from outside the package is selected by
// uvm.fault_handling, sees the GMMUs' messages the driver checked, sends
// and wakes through the Service, and reports into its report.
func TestRegisteredHandling(t *testing.T) {
	if names := uvm.HandlingNames(); names[0] != uvm.HandlingSoftware || !slices.Contains(names, "echo") {
		t.Fatalf("HandlingNames() = %v: want software first, then echo among the cores", names)
	}
	s, err := buildHandling(t, "echo")
	uvmtest.Must(t, err)
	if s.Handler() == nil || s.Core() == uvm.Core(s) {
		t.Fatal("uvm.fault_handling=echo built the batch Service's core")
	}
	if err := s.Core().Receive(0, uvmtest.Faults(2, 3)); err == nil || !strings.Contains(err.Error(), "GPU 2") {
		t.Fatalf("a fault from GPU 2 of 2 reached the core: err %v", err)
	}
	uvmtest.Must(t, s.Core().Receive(0, uvmtest.Faults(1, 3, 5)))
	rd := uvmtest.Take(s)
	if !rd.Wake || rd.WakeAt != 1e-9 || len(rd.Send) != 0 {
		t.Fatalf("after the faults: %+v, want only a wake-up at 1 ns", rd)
	}
	if out := s.Waiting(); !slices.Contains(out, "echo: faults unanswered") {
		t.Fatalf("Waiting() = %v: the core's pending faults are missing", out)
	}
	uvmtest.Must(t, s.Core().Tick(rd.WakeAt))
	rd = uvmtest.Take(s)
	if len(rd.Send) != 2 || rd.Send[0].To != 1 {
		t.Fatalf("after the tick: %+v, want a mapping for each fault to GPU 1", rd.Send)
	}
	if got := s.Core().Report()["echo_faults"]; got != 2 {
		t.Fatalf("echo_faults = %g, want 2", got)
	}
}

// An unregistered name is refused with the valid ones; software is the
// batch Service itself.
func TestHandlingNames(t *testing.T) {
	if _, err := buildHandling(t, "hw"); err == nil || !strings.Contains(err.Error(), "software echo") {
		t.Fatalf("uvm.fault_handling=hw: err %v, want the valid values", err)
	}
	s, err := buildHandling(t, uvm.HandlingSoftware)
	uvmtest.Must(t, err)
	if s.Handler() != nil || s.Core() != uvm.Core(s) {
		t.Fatal("uvm.fault_handling=software built a registered core")
	}
	for _, name := range []string{uvm.HandlingSoftware, "echo", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterHandling(%q) did not panic", name)
				}
			}()
			uvm.RegisterHandling(name, uvm.HandlingSpec{New: func(uvm.HandlingEnv) (uvm.FaultCore, error) { return nil, nil }})
		}()
	}
}
