package platform

import (
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/uvmsmart"
	"strings"
	"testing"

	uvmsmartrt "github.com/mgpu-sim/mgpu/runtimes/uvmsmart"
	"github.com/mgpu-sim/mgpu/uvm"
)

// uvmsmartConfig is UVMMU's NVIDIA UM baseline on gpus small GPUs (tree
// prefetch at 50, LRU 2 MB eviction), with or without UVMSmart.
func uvmsmartConfig(gpus int, over float64, adaptive string) config.Config {
	c := small(gpus)
	c.Oversubscribe = over
	c.UVM.Prefetch.Policy, c.UVM.Prefetch.Threshold = "tbn", 50
	c.UVM.Eviction = "lru-2mb"
	c.UVM.Adaptive = adaptive
	return c
}

// TestUVMSmartWithoutOversubscriptionIsUM: UVMSmart adapts only at the
// first eviction, so with memory for everything (oversubscription off, the
// figures' 100%) it is the baseline, run for run (UVMMU §V-B: "the baseline and UVMSmart show the same performance").
func TestUVMSmartWithoutOversubscriptionIsUM(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"atax", "ra"} {
		um := mustRun(t, Options{Workload: w, Policy: "on-touch", Scale: 0.02, Seed: 1, Config: uvmsmartConfig(1, 0, uvm.AdaptiveNone)})
		us := mustRun(t, Options{Workload: w, Policy: "on-touch", Scale: 0.02, Seed: 1, Config: uvmsmartConfig(1, 0, uvmsmartrt.Name)})
		if um.SimTimeNs != us.SimTimeNs || um.Totals != us.Totals {
			t.Errorf("%s at 100%%: UVMSmart %v ns, UM %v ns", w, us.SimTimeNs, um.SimTimeNs)
		}
		if us.PolicyStats["uvmsmart_decisions"] != 0 || us.PolicyStats["uvmsmart_zero_copy"] != 0 {
			t.Errorf("%s at 100%%: stats %v", w, us.PolicyStats)
		}
	}
}

// TestUVMSmartAdapts: RandomAccess's table is updated at random, so at
// 150% UVMSmart classifies it random, turns on zero-copy and tree eviction
// at the first eviction, and reads go to the host; on one and two GPUs,
// with the checker on.
func TestUVMSmartAdapts(t *testing.T) {
	t.Parallel()
	for _, gpus := range []int{1, 2} {
		r := mustRun(t, Options{Workload: "ra", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: uvmsmartConfig(gpus, 1.5, uvmsmartrt.Name)})
		st := r.PolicyStats
		if st["uvmsmart_zero_copy"] != 1 || st["uvmsmart_tbn_eviction"] != 1 || st["uvmsmart_decisions"] == 0 {
			t.Fatalf("%d GPUs: modes not on: %v", gpus, st)
		}
		if st["uvmsmart_allocs_random"]+st["uvmsmart_allocs_random_reuse"]+st["uvmsmart_allocs_mixed"]+st["uvmsmart_allocs_mixed_reuse"] == 0 {
			t.Errorf("%d GPUs: no random allocation: %v", gpus, st)
		}
		if r.Totals.HostLines == 0 || st["uvmsmart_remote_maps"] == 0 {
			t.Errorf("%d GPUs: zero-copy on but %d host lines, %v remote maps", gpus, r.Totals.HostLines, st["uvmsmart_remote_maps"])
		}
		if at := st["uvmsmart_zero_copy_at_ns"]; at <= 0 || at >= r.SimTimeNs {
			t.Errorf("%d GPUs: zero-copy on at %v ns of %v", gpus, at, r.SimTimeNs)
		}
	}
}

func TestUVMSmartRejectsBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name, policy string
		set          func(c *config.Config)
		msg          string
	}{
		{"unknown runtime", "on-touch", func(c *config.Config) { c.UVM.Adaptive = "smart" }, "uvm.adaptive"},
		{"threshold 0", "on-touch", func(c *config.Config) {
			uvmsmartrt.Config.Edit(&c.UVM, func(s *uvmsmart.Config) { s.MigrateThreshold = 0 })
		}, "migrate_threshold"},
		{"hardware handling", "on-touch", func(c *config.Config) { *c = hardwareConfig(1, 1.5, "linear-random"); c.UVM.Adaptive = uvmsmartrt.Name }, "software"},
		{"another policy", "oasis", func(*config.Config) {}, "--policy on-touch"},
	} {
		c := uvmsmartConfig(1, 1.5, uvmsmartrt.Name)
		tc.set(&c)
		_, err := Build(Options{Workload: "ra", Policy: tc.policy, Scale: 0.02, Seed: 1, Config: c})
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
		}
	}
}
