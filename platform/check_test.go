package platform

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
)

// Check answers what Build answers, without building: the same error for
// a run Build refuses, none for a run Build accepts. A Checker that has
// seen other runs answers the same (its caches are keyed by everything the
// checks read).
func TestCheckAgreesWithBuild(t *testing.T) {
	opts := func(workload, policy string, sets ...string) Options {
		c := configWith(t, sets...)
		c.GPUs = 2
		return Options{Workload: workload, Policy: policy, Seed: 1, Scale: 0.05, Config: c}
	}
	cases := []struct {
		name string
		o    Options
		want string // "" for a run Build accepts
	}{
		{"plain", opts("private", "on-touch"), ""},
		{"oasis", opts("mm", "oasis"), ""},
		{"hardware, on-touch", opts("mm", "on-touch", "uvm.fault_handling=hardware"), ""},
		{"hardware, oasis", opts("mm", "oasis", "uvm.fault_handling=hardware"), "--policy oasis cannot apply"},
		{"uvmsmart, oasis", opts("mm", "oasis", "uvm.adaptive=uvmsmart"), "use --policy on-touch"},
		{"observuvm, grit", opts("mm", "grit", "uvm.adaptive=observuvm", "uvm.prefetch.policy=tbn"), "use --policy on-touch"},
		{"griffin-dpc, access-counter", opts("mm", "access-counter", "uvm.adaptive=griffin-dpc", "policy.ac_host=migrate", "uvm.griffin.epoch_ns=50000"), ""},
		{"griffin-dpc, grit", opts("mm", "grit", "uvm.adaptive=griffin-dpc"), "use --policy access-counter"},
		{"griffin-dpc, bad epoch", opts("mm", "access-counter", "uvm.adaptive=griffin-dpc", "uvm.griffin.epoch_ns=0"), "uvm.griffin.epoch_ns"},
		{"griffin key, off", opts("mm", "access-counter", "uvm.griffin.share=0.6"), "has no effect"},
		{"suv, no hints", opts("mm", "on-touch", "uvm.adaptive=suv", "oversubscribe=1.5"), "declares none"},
		{"suv, hints", opts("gmm", "on-touch", "uvm.adaptive=suv", "oversubscribe=1.5"), ""},
		{"footprint over memory", opts("mm", "on-touch", "gpu.memory=256KB"), "exceeds the total GPU memory"},
		{"dependent key", opts("mm", "on-touch", "uvm.prefetch.threshold=75"), "has no effect"},
		{"unknown workload", Options{Workload: "nope", Policy: "on-touch", Config: config.DefaultConfig()}, "valid workloads"},
		{"unknown policy", Options{Workload: "mm", Policy: "nope", Config: config.DefaultConfig()}, "valid policies"},
		{"unknown size", Options{Workload: "mm", Policy: "on-touch", Size: "32gpu", Scale: 0.05, Config: config.DefaultConfig()}, "unknown size"},
		{"workgroups wider than a CU", opts("srad", "on-touch", "gpu.wavefronts_per_cu=2"), "workgroups of 4 wavefronts, more than a CU holds (gpu.wavefronts_per_cu = 2): raise gpu.wavefronts_per_cu to at least 4"},
	}
	shared := NewChecker()
	for _, round := range []string{"first", "again"} {
		for _, tc := range cases {
			_, berr := Build(tc.o)
			for _, k := range []struct {
				name string
				err  error
			}{{"Check", Check(tc.o)}, {"shared Checker", shared.Check(tc.o)}} {
				if (k.err == nil) != (berr == nil) || k.err != nil && k.err.Error() != berr.Error() {
					t.Errorf("%s %s: %s says %v, Build %v", round, tc.name, k.name, k.err, berr)
				}
			}
			if tc.want == "" && berr != nil || tc.want != "" && (berr == nil || !strings.Contains(berr.Error(), tc.want)) {
				t.Errorf("%s: Build says %v, want %q", tc.name, berr, tc.want)
			}
		}
	}
}

// configWith is the default config with sets applied, as --set applies
// them.
func configWith(t *testing.T, sets ...string) config.Config {
	t.Helper()
	c := config.DefaultConfig()
	for _, kv := range sets {
		if err := c.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
