package platform

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	uvmmurt "github.com/mgpu-sim/mgpu/runtimes/uvmmu"
	uvmsmartrt "github.com/mgpu-sim/mgpu/runtimes/uvmsmart"
)

// TestOversubscriptionWorkloadsCoherent runs every oversubscription
// workload (the ones with an Early-Adaptor class) on 1 and 2 GPUs at 100%
// and 150%, with the driver's tree prefetcher, under on-touch and
// access-counter (zero-copy), under UVMSmart (on-touch with tree eviction
// and zero-copy turned on mid-run; 150% only, as at 100% it is on-touch),
// and under UVMMU's hardware handling (on-touch, swaps, recalls between
// GPUs), with the checker on: no page is
// lost or stale across evictions, prefetches, swaps and zero-copy
// accesses. make test runs each workload in one of these setups, the
// setups taken in turn; make test-full runs them all.
func TestOversubscriptionWorkloadsCoherent(t *testing.T) {
	if testing.Short() {
		t.Skip("oversubscription workloads: skipped in -short")
	}
	type setup struct {
		gpus int
		over float64
		p    string
	}
	var setups []setup
	for _, gpus := range []int{1, 2} {
		for _, over := range []float64{0, 1.5} {
			for _, p := range []string{"on-touch", "access-counter", "uvmsmart", "hardware"} {
				if p == "uvmsmart" && over == 0 {
					continue
				}
				setups = append(setups, setup{gpus, over, p})
			}
		}
	}
	k := 0 // the workload's index among the oversubscription workloads
	for _, w := range benchmarks.Names() {
		wl, err := benchmarks.New(w)
		if err != nil {
			t.Fatal(err)
		}
		if wl.Info().Class == "" {
			continue
		}
		for i, su := range setups {
			gpus, over, p := su.gpus, su.over, su.p
			quick := i == k%len(setups)
			t.Run(fmt.Sprintf("%s/%dgpu/over%g/%s", w, gpus, over, p), func(t *testing.T) {
				if !quick {
					fullOnly(t)
				}
				t.Parallel()
				c := small(gpus)
				spreadAll(&c)
				c.Oversubscribe = over
				c.UVM.Prefetch.Policy = "tbn"
				scale := 0.01
				if p == "uvmsmart" {
					c.UVM.Adaptive, p = uvmsmartrt.Name, "on-touch"
				}
				if p == "hardware" {
					c = hardwareConfig(gpus, over, "linear-random")
					p = "on-touch"
					scale = framesScale(t, w, c, 4)
				}
				r := mustRun(t, Options{Workload: w, Policy: p, Scale: scale, Seed: 1, Config: c})
				// Zero-copy may leave pages on the host, so only on-touch
				// must fill memory.
				if over > 0 && p == "on-touch" && r.Totals.Evictions == 0 {
					t.Errorf("no eviction at %v of %v", r.GPUCapacity, r.Footprint)
				}
			})
		}
		k++
	}
}

// framesScale is the smallest scale from 0.01 up (doubling) at which each
// GPU's memory under c holds at least n UVMMU frame-groups.
func framesScale(t *testing.T, w string, c config.Config, n int) float64 {
	t.Helper()
	soft := c
	soft.UVM.FaultHandling = "software"
	for scale := 0.01; scale < 10; scale *= 2 {
		s, err := Build(Options{Workload: w, Policy: "on-touch", Scale: scale, Seed: 1, Config: soft})
		if err != nil {
			t.Fatal(err)
		}
		if s.capacity == 0 || s.capacity >= n*uvmmurt.Config.Of(c.UVM).PagesPerGroup() {
			return scale
		}
	}
	t.Fatalf("%s: no scale below 10 gives %d frame-groups per GPU", w, n)
	return 0
}

// TestThreshold100IsOff: the tree at threshold 100 never prefetches (no
// subtree holds strictly more than all of its pages), so a run at 100 is
// prefetch off's in every measure; the Early-Adaptor figures rely on it to
// run threshold 100 once, as off. Checked with and without oversubscription
// on a regular and an irregular workload, two GPUs included.
func TestThreshold100IsOff(t *testing.T) {
	for _, w := range []string{"hotspot", "atax"} {
		for _, over := range []float64{0, 1.5} {
			for _, gpus := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/over%g/%dgpu", w, over, gpus), func(t *testing.T) {
					t.Parallel()
					run := func(policy string) *Result {
						c := small(gpus)
						c.Oversubscribe = over
						c.UVM.Prefetch.Policy = policy
						if policy == "tbn" { // off has no threshold
							c.UVM.Prefetch.Threshold = 100
						}
						return mustRun(t, Options{Workload: w, Policy: "on-touch", Scale: 0.01, Seed: 1, Config: c})
					}
					tree, off := run("tbn"), run("off")
					if tree.Totals.MigrationsH2D == 0 {
						t.Fatal("nothing migrated")
					}
					tree.Config, off.Config = config.Config{}, config.Config{}
					var a, b bytes.Buffer
					if err := tree.WriteJSON(&a); err != nil {
						t.Fatal(err)
					}
					if err := off.WriteJSON(&b); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(a.Bytes(), b.Bytes()) {
						t.Errorf("tbn at 100 and off differ:\n%s\n%s", a.Bytes(), b.Bytes())
					}
				})
			}
		}
	}
}
