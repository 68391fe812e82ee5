package platform

import (
	"fmt"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
)

// TestOversubscriptionWorkloadsCoherent runs every oversubscription
// workload (the ones with an Early-Adaptor class) on 1 and 2 GPUs at 100%
// and 150%, with the driver's tree prefetcher, under on-touch and
// access-counter (zero-copy), with the checker on: no page is lost or
// stale across evictions, prefetches and zero-copy accesses.
func TestOversubscriptionWorkloadsCoherent(t *testing.T) {
	if testing.Short() {
		t.Skip("oversubscription workloads: skipped in -short")
	}
	for _, w := range benchmarks.Names() {
		wl, err := benchmarks.New(w)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := wl.(benchmarks.Classed); !ok {
			continue
		}
		for _, gpus := range []int{1, 2} {
			for _, over := range []float64{0, 1.5} {
				for _, p := range []string{"on-touch", "access-counter"} {
					t.Run(fmt.Sprintf("%s/%dgpu/over%g/%s", w, gpus, over, p), func(t *testing.T) {
						t.Parallel()
						c := small(gpus)
						c.Oversubscribe = over
						c.UVM.Prefetch.Policy = "tbn"
						r := mustRun(t, Options{Workload: w, Policy: p, Scale: 0.01, Seed: 1, Config: c})
						// Zero-copy may leave pages on the host, so only on-touch
						// must fill memory.
						if over > 0 && p == "on-touch" && r.Totals.Evictions == 0 {
							t.Errorf("no eviction at %v of %v", r.GPUCapacity, r.Footprint)
						}
					})
				}
			}
		}
	}
}
