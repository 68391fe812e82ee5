package figures

import (
	"github.com/mgpu-sim/mgpu/config"
	suvrt "github.com/mgpu-sim/mgpu/runtimes/suv"
	"math"
	"strconv"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/suv"
	"github.com/mgpu-sim/mgpu/sweep"
)

// TestSUVFigures: each figure runs Table I's fifteen applications in its
// configurations, and divides by the paper's reference: Fig. 5 by UVM at
// 0%, Fig. 6 by UVM's faults at 50%, Fig. 7 by SUV's time (SC and AC
// slower when above 1), Fig. 8 each baseline's bytes by SUV's, Fig. 9 UVM's
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
			if r.Sets["policy.ac_group"] != "2MB" || r.Sets["policy.ac_threshold"] != "256" ||
				r.Sets["policy.ac_host"] != "migrate" || r.Sets["policy.ac_evict"] != "remote" || r.Sets["gpu.ac_counters"] != "256" {
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
		"suv-fig8":    {1.5, 2},
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

// TestSUVSimilarScales: each SUV workload's similar scale is the smallest
// power of two (or its paper scale, if smaller) at which the shares of
// SUV's classes among its (launch, object) pairs are within
// suvSimilarTolerance of their shares at its paper scale.
func TestSUVSimilarScales(t *testing.T) {
	fullOnly(t) // sets up fifteen workloads at up to their paper size: minutes
	if len(SUVSimilarScales) != len(SUVWorkloads) {
		t.Fatalf("%d similar scales for %d workloads", len(SUVSimilarScales), len(SUVWorkloads))
	}
	for _, w := range SUVWorkloads {
		s, p := SUVSimilarScales[w], SUVPaperScales[w]
		paper, err := suvClassShares(w, p)
		if err != nil {
			t.Fatal(err)
		}
		at, err := suvClassShares(w, s)
		if err != nil {
			t.Fatal(err)
		}
		if !suvSharesClose(at, paper, suvSimilarTolerance) {
			t.Errorf("%s: at scale %g the class shares are %v, at the paper's %g %v", w, s, at, p, paper)
		}
		if s == 1 {
			continue
		}
		below := math.Exp2(math.Ceil(math.Log2(s)) - 1)
		under, err := suvClassShares(w, below)
		if err != nil {
			t.Fatal(err)
		}
		if suvSharesClose(under, paper, suvSimilarTolerance) {
			t.Errorf("%s: scale %g is already within %g of the paper's shares (%v against %v)", w, below, suvSimilarTolerance, under, paper)
		}
	}
}

// TestSUVSampledBudget: at its similar scale every SUV application issues
// at most observSampledBudget memory instructions, and each truncated one
// (suvSampled) is at one workgroup in the smallest power of two that does.
func TestSUVSampledBudget(t *testing.T) {
	fullOnly(t) // counts about 900 M instructions, a minute or two
	for _, w := range SUVWorkloads {
		_, ks, err := setupAt(w, SUVSimilarScales[w])
		if err != nil {
			t.Fatal(err)
		}
		n := max(suvSampled[w], 1)
		if got := countInstructions(benchmarks.SampleWorkgroups(ks, n)); float64(got) > observSampledBudget {
			t.Errorf("%s: one workgroup in %d issues %d instructions; the budget is %.0f", w, n, got, observSampledBudget)
		}
		if n == 1 {
			continue
		}
		if got := countInstructions(benchmarks.SampleWorkgroups(ks, n/2)); float64(got) <= observSampledBudget {
			t.Errorf("%s: one workgroup in %d already issues %d instructions, within the budget %.0f", w, n/2, got, observSampledBudget)
		}
	}
}

// TestSUVSimilarRuns: at --size similar each SUV run is at its workload's
// similar scale, and exactly the suvSampled workloads are truncated, in
// every configuration; at the default size none is.
func TestSUVSimilarRuns(t *testing.T) {
	f, err := Lookup("suv-fig5")
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []string{SizeSimilar, SizeDefault} {
		runs, err := f.RunsAt(nil, size, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 8*len(SUVWorkloads) {
			t.Fatalf("%s: %d runs, want %d", size, len(runs), 8*len(SUVWorkloads))
		}
		for _, r := range runs {
			want, n := 1.0, ""
			if size == SizeSimilar {
				want = SUVSimilarScales[r.Workload]
				if k, ok := suvSampled[r.Workload]; ok {
					n = strconv.Itoa(k)
				}
			}
			if r.Scale != want || r.Sets["sample_workgroups"] != n {
				t.Errorf("%s: %s at scale %g with sample_workgroups %q, want %g and %q", size, r.Workload, r.Scale, r.Sets["sample_workgroups"], want, n)
			}
		}
	}
}

// TestPaperScales: at its paper scale each ObservUVM and SUV workload's
// footprint is its paper's (Table II, Table I) within 2%. rbfs is left
// out: its graph is generated at set-up, gigabytes and minutes at these
// sizes.
func TestPaperScales(t *testing.T) {
	fullOnly(t)
	for _, c := range []struct {
		scales map[string]float64
		bytes  func(w string) float64
	}{
		{ObservUVMPaperScales, func(w string) float64 { return observFootprintGB[w] * (1 << 30) }},
		{SUVPaperScales, func(w string) float64 { return suvTableIMB[w] * (1 << 20) }},
	} {
		for w, s := range c.scales {
			if w == "rbfs" {
				continue
			}
			fp, err := footprintAt(w, s)
			if err != nil {
				t.Fatal(err)
			}
			if r := float64(fp) / c.bytes(w); math.Abs(r-1) > 0.02 {
				t.Errorf("%s at scale %g: %d bytes, %.3f of the paper's", w, s, fp, r)
			}
		}
	}
}

// TestSUVSeriesFindTruncatedRuns: at the similar size every series of
// every SUV figure finds its run and its baseline for every application,
// the truncated ones included (their runs carry sample_workgroups).
func TestSUVSeriesFindTruncatedRuns(t *testing.T) {
	for _, f := range suvFigures() {
		runs, err := f.RunsAt(nil, SizeSimilar, 1)
		if err != nil {
			t.Fatal(err)
		}
		var results []*platform.Result
		for _, r := range runs {
			results = append(results, &platform.Result{Workload: r.Workload, Policy: r.Policy, GPUs: r.GPUs, Scale: r.Scale, Sets: r.Sets})
		}
		for _, s := range f.Series {
			for _, w := range SUVWorkloads {
				for _, sel := range []Selector{s.Run, s.Base} {
					found := false
					for _, r := range results {
						found = found || r.Workload == w && sel.match(r)
					}
					if !found {
						t.Errorf("%s, %s: no run of %s matches %+v", f.Name, s.Label, w, sel.Sets)
					}
				}
			}
		}
	}
}

// suvClassShares are the shares of SUV's classes among the (launch,
// object) pairs of workload's run at scale on SUV's machine (suvBase with
// SUV-Mgmt, no oversubscription: classes do not depend on it), from the
// hints it declares (runtimes/suv.Classes).
func suvClassShares(workload string, scale float64) (map[suv.Class]float64, error) {
	c := config.DefaultConfig()
	kv := join(suvRun("suv", over100), []string{"gpus", "1"})
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i] + "=" + kv[i+1]); err != nil {
			return nil, err
		}
	}
	prog, err := platform.Program(platform.Options{Workload: workload, Policy: oversubPolicy, Seed: 1, Scale: scale, Config: c})
	if err != nil {
		return nil, err
	}
	cl, err := suvrt.Classes(c.UVM, c.PageSize, c.GPUs, prog)
	if err != nil {
		return nil, err
	}
	out, n := map[suv.Class]float64{}, 0
	for _, l := range cl {
		for _, k := range l {
			out[k]++
			n++
		}
	}
	for k := range out {
		out[k] /= float64(max(n, 1))
	}
	return out, nil
}

// suvSharesClose reports whether two runs' class shares are within tol of
// each other in every class.
func suvSharesClose(a, b map[suv.Class]float64, tol float64) bool {
	for _, k := range []suv.Class{suv.Density, suv.Iterative, suv.Unknown, suv.Temporal} {
		if math.Abs(a[k]-b[k]) > tol {
			return false
		}
	}
	return true
}
