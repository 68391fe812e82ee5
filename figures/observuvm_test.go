package figures

import (
	"strconv"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/sweep"
)

// TestObservUVMFigures: each figure runs Table II's fourteen applications
// in its configurations; every ObservUVM run carries budgets scaled to its
// footprint (at least 1, at most the paper's); Fig. 9 divides UVM's time
// by each configuration's, Fig. 12 their faults by UVM's, Fig. 11 their
// evictions by LRM's; and the summary groups by preferred eviction.
func TestObservUVMFigures(t *testing.T) {
	wantRuns := map[string]int{"observuvm-fig9": 14 * 4, "observuvm-fig12": 14 * 4, "observuvm-fig10": 14 * 5, "observuvm-fig11": 14 * 5,
		"observuvm-fig13": 14 * 4}
	speed := map[string]float64{"lrm": 1, "tournament": 2, "lru": 4, "lfu": 5, "cp": 8}
	simTime := func(r sweep.Run) float64 {
		switch {
		case r.Policy == "access-counter":
			if r.Sets["policy.ac_group"] != "2MB" || r.Sets["policy.ac_threshold"] != "256" ||
				r.Sets["policy.ac_host"] != "migrate" || r.Sets["policy.ac_evict"] != "remote" || r.Sets["gpu.ac_counters"] != "256" {
				t.Errorf("ACBM sets %v", r.Sets)
			}
			return 125
		case r.Sets["uvm.prefetch_control"] == "early-adaptor":
			if r.Sets["uvm.ea.long_window_ns"] == "" || r.Sets["uvm.ea.long_window_ns"] == "1000000000" {
				t.Errorf("EA windows not scaled: %v", r.Sets)
			}
			return 80
		case r.Sets["uvm.adaptive"] != "observuvm":
			return 100
		}
		n, err := strconv.Atoi(r.Sets["uvm.observuvm.observed_regions"])
		if err != nil || n < 1 || n > 100 {
			t.Errorf("%s: observed_regions %q", r.Workload, r.Sets["uvm.observuvm.observed_regions"])
		}
		x := speed[r.Sets["uvm.observuvm.policy"]]
		if r.Sets["uvm.observuvm.shallow"] == "fdp" {
			x *= 1.5
		}
		if r.Sets["uvm.observuvm.deep"] == "rgp" {
			x *= 2
		}
		return 100 / x
	}
	counters := func(r sweep.Run) stats.Counters {
		f := uint64(100 / simTime(r) * 10)
		return stats.Counters{PageFaults: 1000 / f, Evictions: 1000 / f}
	}
	for name, want := range map[string][]float64{
		"observuvm-fig9":  {2, 3, 6},
		"observuvm-fig12": {0.5, 1.0 / 3, 1.0 / 6},
		"observuvm-fig10": {4, 5, 8, 2},
		"observuvm-fig11": {0.25, 0.2, 0.125, 0.5},
		"observuvm-fig13": {6, 0.8, 1.25},
	} {
		f := mustLookup(t, name)
		runs := mustRuns(t, f)
		if len(runs) != wantRuns[name] {
			t.Errorf("%s: %d runs, want %d", name, len(runs), wantRuns[name])
		}
		tab := f.Reduce(fakeResults(t, runs, simTime, counters))
		for _, app := range []string{"mm-tiled", "rbfs", "avg prefers lfu", "geomean"} {
			r := row(t, tab, app)
			for i, w := range want {
				if d := r[i] - w; d > 0.02 || d < -0.02 {
					t.Errorf("%s %s: %v, want %v", name, app, r, want)
					break
				}
			}
		}
	}
}

// The budget rule: 100 observed regions at Table II's footprint, scaled,
// at the similar size too.
func TestObservBudgets(t *testing.T) {
	gb := uint64(1 << 30)
	for _, c := range []struct {
		fp   uint64
		want string
	}{{10*gb + gb/10, "100"}, {gb, "10"}, {observSimilarFootprint, "4"}, {gb / 10, "1"}, {gb / 1000, "1"}} {
		if got := observBudgets("mm-tiled", c.fp)["uvm.observuvm.observed_regions"]; got != c.want {
			t.Errorf("footprint %d: %s regions, want %s", c.fp, got, c.want)
		}
	}
}

// TestObservUVMSimilarScales: each scale is the smallest, to a hundredth,
// whose footprint holds observSimilarRegions at observSimilarOver.
func TestObservUVMSimilarScales(t *testing.T) {
	fullOnly(t) // sets up 28 workloads at up to 57 times their default, 45 s
	if len(ObservUVMSimilarScales) != len(ObservUVMWorkloads) {
		t.Fatalf("%d similar scales for %d workloads", len(ObservUVMSimilarScales), len(ObservUVMWorkloads))
	}
	for _, w := range ObservUVMWorkloads {
		s := ObservUVMSimilarScales[w]
		fp, err := footprintAt(w, s)
		if err != nil {
			t.Fatal(err)
		}
		below, err := footprintAt(w, s-0.01)
		if err != nil {
			t.Fatal(err)
		}
		if fp < observSimilarFootprint || below >= observSimilarFootprint {
			t.Errorf("%s: scale %.2f gives %d bytes and %.2f gives %d; the similar footprint is %d",
				w, s, fp, s-0.01, below, observSimilarFootprint)
		}
	}
}

// TestObservUVMSimilarRuns: at --size similar every ObservUVM run is at
// its workload's similar scale with its budgets scaled to its footprint,
// and exactly the observSampled workloads are truncated, in every
// configuration, their baselines included.
func TestObservUVMSimilarRuns(t *testing.T) {
	f, err := Lookup("observuvm-fig9")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.RunsAt(nil, SizeSimilar, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4*len(ObservUVMWorkloads) {
		t.Fatalf("%d runs, want %d", len(runs), 4*len(ObservUVMWorkloads))
	}
	fps := map[string]uint64{}
	for _, r := range runs {
		if r.Scale != ObservUVMSimilarScales[r.Workload] {
			t.Errorf("%s: scale %v, want %v", r.Label(), r.Scale, ObservUVMSimilarScales[r.Workload])
		}
		if n, ok := observSampled[r.Workload]; r.Sets["sample_workgroups"] != map[bool]string{true: strconv.Itoa(n)}[ok] {
			t.Errorf("%s: sample_workgroups %q", r.Label(), r.Sets["sample_workgroups"])
		}
		fp, ok := fps[r.Workload]
		if !ok {
			if fp, err = footprintAt(r.Workload, r.Scale); err != nil {
				t.Fatal(err)
			}
			fps[r.Workload] = fp
		}
		if want := strconv.Itoa(observScaled(r.Workload, fp, 100)); r.Sets["uvm.adaptive"] == "observuvm" && r.Sets["uvm.observuvm.observed_regions"] != want {
			t.Errorf("%s: observes %q regions, want %s", r.Label(), r.Sets["uvm.observuvm.observed_regions"], want)
		}
	}
}

// TestObservUVMSampledBudget: each truncation is the smallest power of two
// that brings its workload at the similar size under observSampledBudget
// memory instructions (halving it would not).
func TestObservUVMSampledBudget(t *testing.T) {
	fullOnly(t) // counts 300 M instructions, 20 s
	for w, n := range observSampled {
		_, ks, err := setupAt(w, ObservUVMSimilarScales[w])
		if err != nil {
			t.Fatal(err)
		}
		// Every workgroup of these kernels issues as many instructions, so
		// one in n/2 issues twice one in n's, to a workgroup.
		got := countInstructions(benchmarks.SampleWorkgroups(ks, n))
		if float64(got) > observSampledBudget || 2*float64(got) <= observSampledBudget {
			t.Errorf("%s: one workgroup in %d issues %d instructions, in %d about twice; the budget is %.0f", w, n, got, n/2, observSampledBudget)
		}
	}
}

// countInstructions counts ks' wavefront instructions without simulating.
func countInstructions(ks []benchmarks.Kernel) int {
	n := 0
	benchmarks.EachInstruction(ks, func(*benchmarks.Instruction) { n++ })
	return n
}

// TestVictimShare: Fig. 5's two values from a victim histogram.
func TestVictimShare(t *testing.T) {
	for _, c := range []struct {
		hist          []uint64
		whole, blocks float64
	}{
		{[]uint64{0, 0, 0, 4}, 1, 1},
		{[]uint64{1, 0, 0, 3}, 0.75, 0.75},
		{[]uint64{0, 2, 2, 0}, 0, 0.5},
	} {
		if w, b := victimShare(c.hist, true), victimShare(c.hist, false); w != c.whole || b != c.blocks {
			t.Errorf("%v: whole %v, blocks %v; want %v, %v", c.hist, w, b, c.whole, c.blocks)
		}
	}
	if v := victimShare([]uint64{0, 0}, true); v == v {
		t.Errorf("no victims: %v, want NaN", v)
	}
}

// TestObservFig5: one census run of the stock driver per application, and
// its table reads the runs' histograms.
func TestObservFig5(t *testing.T) {
	f, err := Lookup("observuvm-fig5")
	if err != nil {
		t.Fatal(err)
	}
	runs := mustRuns(t, f)
	if len(runs) != len(ObservUVMWorkloads) {
		t.Fatalf("%d runs, want %d", len(runs), len(ObservUVMWorkloads))
	}
	var res []*platform.Result
	for _, r := range runs {
		if r.Sets["uvm.eviction_census"] != "true" || r.Sets["uvm.adaptive"] != "" {
			t.Errorf("%s: not the stock driver with the census", r.Label())
		}
		res = append(res, &platform.Result{Workload: r.Workload, Policy: r.Policy, GPUs: r.GPUs, Sets: r.Sets,
			Config: r.Config, EvictedChunkBlocks: []uint64{1, 0, 3}})
	}
	if got := row(t, f.Reduce(res), "mm-tiled"); got[0] != 0.75 || got[1] != 0.75 {
		t.Errorf("mm-tiled: %v, want [0.75 0.75]", got)
	}
}
