package platform

import (
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/units"
)

// oldModel is the cost model before the fidelity defaults, under which
// issue 14's three violations reproduced deterministically: its policy
// keys as far as policy reads them.
func oldModel(c *config.Config, policy string) {
	c.UVM.HostThreads, c.UVM.FaultServiceNs, c.UVM.PerFaultNs = 0, 45000, 400
	c.Distribution = "greedy"
	if Affects("policy.dup_write_first", policy, "") {
		c.Policy.DupWriteFirst = "migrate"
	}
	c.Policy.ACMigrate = "group" // read by every policy of the cases
	c.GPU.RemoteL1V, c.GPU.ShootdownFlushAll = false, false
}

// TestIssue14Violations replays the three reported coherence violations.
// Their cause was one: moving a page to a GPU (an access-counter migration)
// or replicating it there left that GPU's own remote mapping valid, so it
// went on writing the old copy after the copy had been sent. The 16-GPU
// replays, the longest, run in make test-full.
func TestIssue14Violations(t *testing.T) {
	if testing.Short() {
		t.Skip("scale-0.2 runs: skipped in -short")
	}
	cases := []struct {
		name, workload, policy string
		set                    func(*config.Config)
	}{
		{"2 MB pages under access counters", "pingpong", "access-counter", func(c *config.Config) { c.PageSize = 2 * units.MB }},
		{"oasis-inmem at 3x oversubscription with lru-4kb", "mt", "oasis-inmem", func(c *config.Config) {
			c.Oversubscribe, c.UVM.Eviction = 3, "lru-4kb"
		}},
		{"access counters on 16 GPUs", "pr", "access-counter", func(c *config.Config) { c.GPUs = 16 }},
	}
	for _, tc := range cases {
		for _, model := range []string{"old", "new"} {
			long := tc.name == "access counters on 16 GPUs"
			t.Run(tc.name+"/"+model, func(t *testing.T) {
				if long {
					fullOnly(t)
				}
				t.Parallel()
				c := config.DefaultConfig()
				c.Check = true
				if model == "old" {
					oldModel(&c, tc.policy)
				}
				tc.set(&c)
				if _, err := Run(Options{Workload: tc.workload, Policy: tc.policy, Scale: 0.2, Seed: 1, Config: c}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
