package figures

import (
	"strconv"
	"testing"

	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/sweep"
)

// TestSUVFigures: each figure runs Table I's fifteen applications in its
// configurations, and divides by the paper's reference: Fig. 5 by UVM at
// 0%, Fig. 6 by UVM's faults at 50%, Fig. 7 by SUV's time (SC and AC
// slower when above 1), Fig. 8 SUV's bytes by each baseline's, Fig. 9 UVM's
// time by SUV's, and the density sweep by threshold 5.
func TestSUVFigures(t *testing.T) {
	const apps = 15
	wantRuns := map[string]int{"suv-fig5": apps * 8, "suv-fig6": apps * 2, "suv-fig7": apps * 3, "suv-fig8": apps * 3,
		"suv-fig9": apps * 2, "suv-density": apps * len(SUVDensityThresholds)}
	// A made-up world: oversubscription x costs 1+x, SUV halves the
	// excess, SC is 1.5 times SUV and AC twice; bytes follow time.
	simTime := func(r sweep.Run) float64 {
		over, _ := strconv.ParseFloat(r.Sets["oversubscribe"], 64)
		x := 100 * (1 + over)
		switch {
		case r.Policy == "access-counter":
			if r.Sets["policy.ac_group"] != "2MB" || r.Sets["policy.ac_threshold"] != "256" {
				t.Errorf("AC sets %v", r.Sets)
			}
			return 2 * 100 * (1 + over/2)
		case r.Sets["uvm.adaptive"] == "sc":
			return 1.5 * 100 * (1 + over/2)
		case r.Sets["uvm.adaptive"] == "suv":
			d, err := strconv.ParseFloat(r.Sets["uvm.suv.density_threshold"], 64)
			if err != nil {
				d = 5
			}
			return 100 * (1 + over/2) * d / 5
		}
		if r.Sets["uvm.prefetch.policy"] != "tbn" || r.Sets["uvm.prefetch.threshold"] != "51" {
			t.Errorf("UVM without the tree prefetcher at 51: %v", r.Sets)
		}
		return x
	}
	counters := func(r sweep.Run) stats.Counters {
		v := uint64(simTime(r))
		return stats.Counters{PageFaults: v, BytesPCIe: v}
	}
	for name, want := range map[string][]float64{
		"suv-fig5":    {1, 2.15 / 1, 2.3, 2.5, 1, 1.575, 1.65, 1.75},
		"suv-fig6":    {1.75 / 2.5},
		"suv-fig7":    {1.5, 2},
		"suv-fig8":    {1 / 1.5, 0.5},
		"suv-fig9":    {1},
		"suv-density": {5, 2, 1, 0.5, 0.25},
	} {
		f := mustLookup(t, name)
		runs := mustRuns(t, f)
		if len(runs) != wantRuns[name] {
			t.Errorf("%s: %d runs, want %d", name, len(runs), wantRuns[name])
		}
		tab := f.Reduce(fakeResults(t, runs, simTime, counters))
		for _, app := range []string{"2dconv", "xsbench", "avg iterative", "geomean"} {
			r := row(t, tab, app)
			if len(r) != len(want) {
				t.Fatalf("%s %s: %d values, want %d", name, app, len(r), len(want))
			}
			for i, w := range want {
				if d := r[i] - w; d > 0.01 || d < -0.01 {
					t.Errorf("%s %s: %v, want %v", name, app, r, want)
					break
				}
			}
		}
	}
}
