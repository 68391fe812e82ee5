package platform_test

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/uvm"
)

// vetoOdd is a runtime registered from outside mgpu's packages, as in the
// walkthrough of docs/design.md: it keeps the prefetcher off odd pages.
type vetoOdd struct {
	uvm.Stages
	vetoed uint64
}

func (r *vetoOdd) Prefetchable(_ int, p uint64) bool {
	if p%2 == 1 {
		r.vetoed++
		return false
	}
	return true
}

func (r *vetoOdd) Report(m map[string]float64) { m["toy_vetoed"] = float64(r.vetoed) }

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, "toy", uvm.RuntimeSpec{
		New:      func(uvm.RuntimeEnv) (uvm.Runtime, error) { return &vetoOdd{}, nil },
		Requires: []uvm.Requirement{{Key: "uvm.prefetch.policy", Value: "tbn", Why: "vetoes prefetches"}},
	})
}

// The config selects a registered runtime by name, validation applies its
// requirement, and its counts reach the result, with the coherence checker
// on.
func TestRegisteredRuntimeRuns(t *testing.T) {
	c := config.DefaultConfig()
	c.GPUs, c.Check = 2, true
	for _, kv := range []string{"uvm.adaptive=toy", "uvm.prefetch.policy=tbn", "uvm.prefetch.threshold=1"} {
		if err := c.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	o := platform.Options{Workload: "private", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c}
	r, err := platform.Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if r.PolicyStats["toy_vetoed"] == 0 || r.Totals.Prefetches == 0 {
		t.Fatalf("vetoed %v, prefetched %d: the runtime did not act", r.PolicyStats["toy_vetoed"], r.Totals.Prefetches)
	}
	o.Config.UVM.Prefetch.Policy = "off"
	o.Config.UVM.Prefetch.Threshold = config.DefaultConfig().UVM.Prefetch.Threshold
	if _, err := platform.Run(o); err == nil || !strings.Contains(err.Error(), `uvm.adaptive = "toy": vetoes prefetches: set uvm.prefetch.policy=tbn`) {
		t.Fatalf("without its prefetcher: %v", err)
	}
}
