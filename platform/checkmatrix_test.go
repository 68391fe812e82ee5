package platform

import (
	"fmt"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/earlyadaptor"
	earlyadaptorrt "github.com/mgpu-sim/mgpu/runtimes/earlyadaptor"
	"os"
	"slices"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/units"
)

// checkVariants are the configurations issue 14 asks the coherence checker
// to cover beyond the defaults: 2 MB pages, 16 GPUs, 150% and 300%
// oversubscription under every eviction, spread placement over a switch,
// and the driver's tree prefetcher (at threshold 1, which moves the most,
// and at 51 under oversubscription).
func checkVariants() []struct {
	name string
	set  func(*config.Config)
} {
	type variant = struct {
		name string
		set  func(*config.Config)
	}
	vs := []variant{
		{"page2mb", func(c *config.Config) { c.PageSize = 2 * units.MB }},
		{"gpus16", func(c *config.Config) { c.GPUs = 16 }},
		{"spread-switch", func(c *config.Config) { c.Placement, c.Topology = "spread", "switch" }},
		{"prefetch-tbn1", func(c *config.Config) { c.UVM.Prefetch.Policy, c.UVM.Prefetch.Threshold = "tbn", 1 }},
		{"prefetch-tbn-oversub1.5", func(c *config.Config) { c.UVM.Prefetch.Policy, c.Oversubscribe = "tbn", 1.5 }},
		{"early-adaptor-oversub1.5", func(c *config.Config) {
			c.UVM.Prefetch.Policy, c.UVM.PrefetchControl, c.Oversubscribe = "tbn", "early-adaptor", 1.5
			earlyadaptorrt.Config.Edit(&c.UVM, func(s *earlyadaptor.Config) { s.ShortWindowNs, s.LongWindowNs, s.EvalPeriodNs = 2e4, 1e6, 2e4 }) // scaled to the small runs
		}},
	}
	for _, f := range []float64{1.5, 3} {
		for _, ev := range eviction.Names() {
			vs = append(vs, variant{fmt.Sprintf("oversub%g-%s", f, ev), func(c *config.Config) { c.Oversubscribe, c.UVM.Eviction = f, ev }})
		}
	}
	return vs
}

// TestCheckMatrix runs the coherence checker over workloads x policies x
// checkVariants at a small scale: no stale read, never two writable copies,
// no lost page, and the run finishes. The whole matrix (every workload)
// runs with MGPU_CHECK_MATRIX=1 (make check-matrix); by default a slice of
// workloads that covers every sharing pattern runs with every policy and
// variant (make test-full). make test runs each variant and workload of
// the slice under one policy, the policies taken in turn (on 16 GPUs
// without mt and pr, the longest runs).
func TestCheckMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("check matrix: skipped in -short")
	}
	workloads := []string{"pingpong", "prodcons", "mt", "pr", "lenet"}
	matrix := os.Getenv("MGPU_CHECK_MATRIX") == "1"
	if matrix {
		workloads = benchmarks.Names()
	}
	policies := pagepolicy.Names()
	for i, v := range checkVariants() {
		for k, w := range workloads {
			if !slices.Contains(benchmarks.Names(), w) {
				t.Fatalf("unknown workload %s", w)
			}
			for j, p := range policies {
				quick := matrix || j == (i*len(workloads)+k)%len(policies) && !(v.name == "gpus16" && (w == "mt" || w == "pr"))
				t.Run(v.name+"/"+w+"/"+p, func(t *testing.T) {
					if !quick {
						fullOnly(t)
					}
					t.Parallel()
					c := config.DefaultConfig()
					c.Check = true
					spreadAll(&c)
					v.set(&c)
					r, err := Run(Options{Workload: w, Policy: p, Scale: 0.03, Seed: 1, Config: c})
					if err != nil {
						t.Fatal(err)
					}
					if r.Totals.MemInstructions == 0 {
						t.Fatal("nothing ran")
					}
				})
			}
		}
	}
}
