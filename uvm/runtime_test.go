package uvm_test

import (
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
	"github.com/mgpu-sim/mgpu/uvmtest"
)

// toy is a runtime from outside package uvm, as a researcher would write
// one: it keeps the prefetcher off odd pages and records the stages it is
// called in.
type toy struct {
	uvm.Stages
	stages []string
	moved  map[uvm.MoveCause]int
}

func (r *toy) Prefetchable(_ int, p uint64) bool { return p%2 == 0 }

func (r *toy) Migrated(_ int, _ uint64, _ int, _ bool, c uvm.MoveCause) {
	r.moved[c]++
	r.stage("migrated")
}

func (r *toy) Decided(int, bool, []uint64, [][]uvmproto.Inval) { r.stage("decided") }

func (r *toy) FaultBatchDone(int, []uvmproto.FaultEntry, sim.VTimeInSec) error {
	r.stage("done")
	return nil
}

func (r *toy) Report(m map[string]float64) { m["toy_prefetched"] = float64(r.moved[uvm.MovePrefetch]) }

// stage records s once per run of equal stages.
func (r *toy) stage(s string) {
	if n := len(r.stages); n == 0 || r.stages[n-1] != s {
		r.stages = append(r.stages, s)
	}
}

var built *toy

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, "toy", uvm.RuntimeSpec{New: func(env uvm.RuntimeEnv) (uvm.Runtime, error) {
		built = &toy{moved: map[uvm.MoveCause]int{}}
		return built, nil
	}, Requires: []uvm.Requirement{{Key: "uvm.prefetch.policy", Value: "tbn", Why: "vetoes prefetches"}}})
}

// A runtime registered from outside the package is selected by name, is
// called at its stages in the pipeline's order, can veto prefetches, and
// reports into the Service's report.
func TestRegisteredRuntime(t *testing.T) {
	if names := uvm.RuntimeNames(uvm.KeyAdaptive); !strings.Contains(strings.Join(names, " "), "toy") {
		t.Fatalf("toy is not among %v", names)
	}
	c := uvm.DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	c.Prefetch = prefetch.DefaultConfig()
	c.Prefetch.Threshold = 1 // a fault brings its whole 2 MB VA block
	c.Adaptive = "toy"
	s, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 512).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	uvmtest.RunBatch(t, s, 0, 0)
	if got := strings.Join(built.stages, " "); got != "migrated decided done" {
		t.Fatalf("stages %q, want migrated, then decided, then done", got)
	}
	// The VA block is pages 0-511: the fault brings page 0, the
	// prefetcher the even pages 2-510 only.
	if built.moved[uvm.MoveFault] != 1 || built.moved[uvm.MovePrefetch] != 255 {
		t.Fatalf("moves by cause %v, want 1 fault and 255 prefetches", built.moved)
	}
	for p := uint64(1); p < 512; p += 2 {
		if s.Table().Page(p).Copies != 0 {
			t.Fatalf("odd page %d was prefetched against the runtime's veto", p)
		}
	}
	if got := s.Report()["toy_prefetched"]; got != 255 {
		t.Fatalf("report toy_prefetched = %v, want 255", got)
	}
}

func TestRuntimeErrors(t *testing.T) {
	c := uvm.DefaultConfig()
	c.Adaptive = "nope"
	_, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 16).BuildService()
	if err == nil || !strings.Contains(err.Error(), "toy") || !strings.Contains(err.Error(), "RegisterRuntime") {
		t.Fatalf("unknown runtime: %v", err)
	}
	c.Adaptive = "toy" // its requirement unmet: no prefetcher
	_, err = uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 16).BuildService()
	if want := "uvm.adaptive=toy vetoes prefetches: set uvm.prefetch.policy=tbn"; err == nil || err.Error() != want {
		t.Fatalf("unmet requirement: %v, want %q", err, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering toy twice must panic")
		}
	}()
	uvm.RegisterRuntime(uvm.KeyAdaptive, "toy", uvm.RuntimeSpec{New: func(uvm.RuntimeEnv) (uvm.Runtime, error) { return nil, nil }})
}
