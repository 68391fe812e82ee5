package platform

import (
	"fmt"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/observuvm"
	observuvmrt "github.com/mgpu-sim/mgpu/runtimes/observuvm"
	suvrt "github.com/mgpu-sim/mgpu/runtimes/suv"
)

// part2Workloads are ObservUVM Table II's and SUV Table I's applications.
var part2Workloads = []string{"mm-tiled", "gmm", "syrk", "syr2k", "hellinger", "2dconv", "gemv", "lu", "blackscholes",
	"spgemm", "alexnet", "squeezenet", "btree", "rbfs", "bicgstab", "doitgen", "fdtd2d", "floyd-warshall", "gramschmidt",
	"mvt", "xsbench"}

// TestPart2WorkloadsCoherent runs every ObservUVM and SUV application at
// 50% oversubscription with the checker on, under ObservUVM's TM++, the
// driver's access-counter migration (ACBM / SUV's AC: 256 over 2 MB, the
// group migrating whole) and, for the applications that declare hints,
// SUV and SC: on one GPU (the papers') and two. No page is lost or stale
// across samples, region prefetches, counter migrations, pins, pools and
// iteration prefetches. make test runs each application on one GPU under
// one of its modes, the modes taken in turn; make test-full runs them all.
func TestPart2WorkloadsCoherent(t *testing.T) {
	if testing.Short() {
		t.Skip("part 2 workloads: skipped in -short")
	}
	for i, w := range part2Workloads {
		wl, err := benchmarks.New(w)
		if err != nil {
			t.Fatal(err)
		}
		modes := []string{"tm++", "acbm"}
		if benchmarks.DeclaresAccess(wl) {
			modes = append(modes, suvrt.Name, suvrt.NameSC)
		}
		for _, gpus := range []int{1, 2} {
			for j, m := range modes {
				quick := gpus == 1 && j == i%len(modes)
				t.Run(fmt.Sprintf("%s/%dgpu/%s", w, gpus, m), func(t *testing.T) {
					if !quick {
						fullOnly(t)
					}
					t.Parallel()
					c := small(gpus)
					spreadAll(&c)
					c.Oversubscribe = 1.5
					c.UVM.Prefetch.Policy = "tbn"
					policy := "on-touch"
					switch m {
					case "tm++":
						pc, err := observuvm.Preset(observuvm.PresetTMPP)
						if err != nil {
							t.Fatal(err)
						}
						c.UVM.Adaptive = observuvmrt.Name
						observuvmrt.Config.Set(&c.UVM, pc)
					case "acbm":
						policy = "access-counter"
						c.Policy.ACThreshold, c.Policy.ACGroup, c.Policy.ACMigrate, c.Policy.ACHost = 256, 2<<20, "group", "remote"
					default:
						c.UVM.Adaptive = m
					}
					r := mustRun(t, Options{Workload: w, Policy: policy, Scale: 0.01, Seed: 1, Config: c})
					if m == suvrt.Name && r.PolicyStats["suv_launches"] == 0 {
						t.Errorf("SUV planned no launch: %v", r.PolicyStats)
					}
				})
			}
		}
	}
}
