package figures

import (
	"github.com/mgpu-sim/mgpu/config"
	earlyadaptorrt "github.com/mgpu-sim/mgpu/runtimes/earlyadaptor"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/earlyadaptor"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/stats"
)

func res(w, p string, gpus int, ns float64, faults uint64, sets map[string]string) *platform.Result {
	return &platform.Result{Workload: w, Policy: p, GPUs: gpus, SimTimeNs: ns, Sets: sets,
		Totals: stats.Counters{PageFaults: faults, L2MissOnTouch: 1, L2MissDuplication: 3}}
}

func TestReduceNormalisesPerApp(t *testing.T) {
	f, err := Lookup("fig16")
	if err != nil {
		t.Fatal(err)
	}
	th := func(v string) map[string]string { return map[string]string{"policy.reset_threshold": v} }
	rs := []*platform.Result{
		res("mm", "on-touch", 4, 100, 10, nil), res("mm", "oasis", 4, 50, 5, th("4")), res("mm", "oasis", 4, 25, 5, th("8")),
		res("mt", "on-touch", 4, 100, 10, nil), res("mt", "oasis", 4, 100, 5, th("4")),
	}
	tab := f.Reduce(rs)
	if len(tab.Apps) != 3 || tab.Apps[2] != "average" {
		t.Fatalf("apps %v", tab.Apps)
	}
	if tab.Values[0][0] != 2 || tab.Values[0][1] != 4 || !math.IsNaN(tab.Values[0][2]) {
		t.Fatalf("mm row %v", tab.Values[0])
	}
	if tab.Values[2][0] != 1.5 || tab.Values[2][1] != 4 {
		t.Fatalf("average %v: the mean over the apps that have the run", tab.Values[2])
	}
	share, _ := Lookup("fig23")
	st := share.Reduce([]*platform.Result{res("mm", "oasis", 4, 1, 1, nil)})
	if st.Values[0][0] != 0.25 || st.Values[0][2] != 0.75 {
		t.Fatalf("shares %v", st.Values[0])
	}
}

func TestEveryFigureExpands(t *testing.T) {
	for _, f := range All() {
		runs, err := f.Runs([]string{"mm"}, 0.1)
		if err != nil || len(runs) == 0 {
			t.Errorf("%s: %d runs, %v", f.Name, len(runs), err)
		}
		if len(f.Series) == 0 || f.Title == "" {
			t.Errorf("%s: no series or title", f.Name)
		}
	}
	if _, err := Lookup("fig99"); err == nil {
		t.Fatal("unknown figure accepted")
	}
}

// TestSelectorMatchesEffectiveConfig: runs are cached by full config, so
// fig16's threshold-8 series must find fig15's OASIS run (no override,
// default threshold 8), and fig15 must not pick up a threshold-4 run.
func TestSelectorMatchesEffectiveConfig(t *testing.T) {
	plain := res("mm", "oasis", 4, 50, 5, nil)
	plain.Config = config.DefaultConfig()
	four := res("mm", "oasis", 4, 60, 5, map[string]string{"policy.reset_threshold": "4"})
	four.Config = config.DefaultConfig()
	if err := four.Config.Set("policy.reset_threshold=4"); err != nil {
		t.Fatal(err)
	}
	eight := Selector{Policy: "oasis", GPUs: 4, Sets: map[string]string{"policy.reset_threshold": "8"}}
	for _, c := range []struct {
		s    Selector
		r    *platform.Result
		want bool
	}{
		{eight, plain, true},
		{eight, four, false},
		{Selector{Policy: "oasis", GPUs: 4}, four, false},
		{Selector{Policy: "oasis", GPUs: 4}, plain, true},
		{Selector{Policy: "oasis", GPUs: 4, Sets: map[string]string{"policy.reset_threshold": "4"}}, four, true},
	} {
		if got := c.s.match(c.r); got != c.want {
			t.Errorf("%+v on run with sets %v: %v, want %v", c.s, c.r.Sets, got, c.want)
		}
	}
}

// TestLastAblationStepIsTheDefault keeps the fidelity ablation honest: its
// last step, with every earlier step's keys, is the default configuration,
// and its first step differs from it in every key the steps name.
func TestLastAblationStepIsTheDefault(t *testing.T) {
	def := config.DefaultConfig()
	cur := config.DefaultConfig()
	keys := map[string]bool{}
	for _, st := range AblationSteps {
		for i := 0; i+1 < len(st.Sets); i += 2 {
			keys[st.Sets[i]] = true
			if err := cur.Set(st.Sets[i] + "=" + st.Sets[i+1]); err != nil {
				t.Fatalf("step %q: %v", st.Label, err)
			}
		}
	}
	if !reflect.DeepEqual(cur, def) {
		t.Errorf("after the last ablation step %q the config is not the default", AblationSteps[len(AblationSteps)-1].Label)
	}
	first := config.DefaultConfig()
	for i := 0; i+1 < len(AblationSteps[0].Sets); i += 2 {
		if err := first.Set(AblationSteps[0].Sets[i] + "=" + AblationSteps[0].Sets[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	for k := range keys {
		a, _ := first.Get(k)
		b, _ := def.Get(k)
		if a == b && k != "uvm.thrashing" {
			t.Errorf("step 0 leaves %s at its default %s: the ablation does not show that lever", k, b)
		}
	}
}

// At a size with per-workload scales each workload runs at its own scale
// times --scale; a workload without one, or a size the figure lacks, is
// an error.
func TestRunsAtSize(t *testing.T) {
	f, err := Lookup("uvmmu-fig6")
	if err != nil {
		t.Fatal(err)
	}
	f.PaperScales = map[string]float64{}
	for i, w := range f.Workloads {
		f.PaperScales[w] = 0.01 * float64(i+1)
	}
	runs, err := f.RunsAt(nil, SizePaper, 2)
	if err != nil {
		t.Fatal(err)
	}
	perWorkload := map[string]int{}
	for _, r := range runs {
		if want := 2 * f.PaperScales[r.Workload]; r.Scale != want {
			t.Fatalf("%s at scale %v, want %v", r.Workload, r.Scale, want)
		}
		perWorkload[r.Workload]++
	}
	def, err := f.Runs(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(def) || len(perWorkload) != len(f.Workloads) {
		t.Fatalf("%d runs over %d workloads at paper size, %d at default", len(runs), len(perWorkload), len(def))
	}
	delete(f.PaperScales, f.Workloads[0])
	if _, err := f.RunsAt(nil, SizePaper, 1); err == nil || !strings.Contains(err.Error(), "no paper size for workload "+f.Workloads[0]) {
		t.Errorf("a workload without a paper scale: %v", err)
	}
	if _, err := f.RunsAt(nil, SizeSimilar, 1); err == nil || !strings.Contains(err.Error(), "valid sizes are default, paper") {
		t.Errorf("a size the figure lacks: %v", err)
	}
}

// TestGritSpeedupRuns: GRIT's headline runs its applications under the
// three uniform policies, GRIT and Griffin-DPC on 4 GPUs, each GPU at the
// footprint / 4 / 1.43 that puts the GPUs together at 70% of it.
func TestGritSpeedupRuns(t *testing.T) {
	f, err := Lookup("grit-speedup")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.Runs(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 5*len(GritWorkloads) {
		t.Fatalf("%d runs, want %d", len(runs), 5*len(GritWorkloads))
	}
	dpc := 0
	for _, r := range runs {
		if r.GPUs != 4 || r.Config.Oversubscribe != 1.43 || !slices.Contains(GritWorkloads, r.Workload) ||
			!slices.Contains([]string{"on-touch", "access-counter", "duplication", "grit"}, r.Policy) {
			t.Fatalf("run %s/%s on %d GPUs at oversubscribe %g", r.Workload, r.Policy, r.GPUs, r.Config.Oversubscribe)
		}
		if r.Config.UVM.Adaptive == "griffin-dpc" {
			dpc++
			if r.Policy != "access-counter" || r.Config.Policy.ACHost != "migrate" {
				t.Fatalf("Griffin-DPC over %s with ac_host %s: want first-touch access-counter", r.Policy, r.Config.Policy.ACHost)
			}
		}
	}
	if dpc != len(GritWorkloads) {
		t.Fatalf("%d Griffin-DPC runs", dpc)
	}
}

// TestGritThresholdSharesRuns: GRIT Fig. 21 runs GRIT's applications at
// GRIT's memory setting, and its on-touch and threshold-4 runs are
// grit-speedup's own (the same hashes), so the two figures cost 40 + 24
// runs, not 80.
func TestGritThresholdSharesRuns(t *testing.T) {
	hashes := func(name string) map[string]bool {
		f, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := f.Runs(nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, r := range runs {
			if r.Config.Oversubscribe != 1.43 || !slices.Contains(GritWorkloads, r.Workload) {
				t.Fatalf("%s: %s/%s at oversubscribe %g", name, r.Workload, r.Policy, r.Config.Oversubscribe)
			}
			out[r.Hash()] = true
		}
		return out
	}
	speedup, threshold := hashes("grit-speedup"), hashes("grit-threshold")
	shared := 0
	for h := range threshold {
		if speedup[h] {
			shared++
		}
	}
	if len(threshold) != 5*len(GritWorkloads) || shared != 2*len(GritWorkloads) {
		t.Fatalf("%d threshold runs, %d shared with grit-speedup; want %d and %d", len(threshold), shared, 5*len(GritWorkloads), 2*len(GritWorkloads))
	}
}

// TestMultiOversubRuns: every combination the multi-GPU oversubscription
// figure draws is a run the platform accepts, and each run is at 150%.
func TestMultiOversubRuns(t *testing.T) {
	f, err := Lookup("multi-oversub")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.Runs([]string{"mm"}, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 9 || len(f.Series) != 8 {
		t.Fatalf("%d runs and %d series, want 9 and 8", len(runs), len(f.Series))
	}
	for _, r := range runs {
		if r.Config.Oversubscribe != 1.5 || r.GPUs != 4 {
			t.Fatalf("%s at %g on %d GPUs", r.Policy, r.Config.Oversubscribe, r.GPUs)
		}
		if err := platform.Check(platform.Options{Workload: r.Workload, Policy: r.Policy, Seed: 1, Scale: r.Scale, Config: r.Config}); err != nil {
			t.Fatalf("%s with %v: %v", r.Policy, r.Sets, err)
		}
	}
	// Early-Adaptor's windows are scaled to a GPU's share of the
	// footprint, and the figure's selector finds the run they were set for.
	for _, r := range runs {
		if r.Config.UVM.PrefetchControl != "early-adaptor" || r.Policy != "oasis" {
			continue
		}
		if earlyadaptorrt.Config.Of(r.Config.UVM).LongWindowNs >= earlyadaptor.DefaultConfig().LongWindowNs {
			t.Fatalf("long window %v ns, not scaled", earlyadaptorrt.Config.Of(r.Config.UVM).LongWindowNs)
		}
		res, err := platform.Run(r.Options())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range f.Series {
			found = found || s.Label == "oasis oversubscribe=1.5 policy=tbn prefetch_control=early-adaptor" && s.Run.match(res)
		}
		if !found {
			t.Fatalf("no series selects the Early-Adaptor run (footprint %v)", res.Footprint)
		}
	}
}

// TestWithSeeds: a figure on three seeds runs every configuration on each,
// pairs each run with its baseline on the same seed, and tabulates the
// mean with the smallest and largest value beside it.
func TestWithSeeds(t *testing.T) {
	f, err := Lookup("fig16")
	if err != nil {
		t.Fatal(err)
	}
	f3 := f.WithSeeds(3)
	one, _ := f.Runs([]string{"mm"}, 0.1)
	three, _ := f3.Runs([]string{"mm"}, 0.1)
	if len(three) != 3*len(one) {
		t.Fatalf("%d runs on three seeds, %d on one", len(three), len(one))
	}
	th := map[string]string{"policy.reset_threshold": "4"}
	var rs []*platform.Result
	// Seed k: on-touch 100k ns, OASIS 50 ns: speedups 2, 4, 6.
	for k := 1; k <= 3; k++ {
		ot, oa := res("mm", "on-touch", 4, 100*float64(k), 10, nil), res("mm", "oasis", 4, 50, 5, th)
		ot.Seed, oa.Seed = uint64(k), uint64(k)
		rs = append(rs, ot, oa)
	}
	tab := f3.Reduce(rs)
	col := func(name string) int { return slices.Index(tab.Series, name) }
	s := f.Series[0].Label
	if col(s) < 0 || col(s+" min") < 0 || col(s+" max") < 0 {
		t.Fatalf("series %v", tab.Series)
	}
	row := tab.Values[0]
	if row[col(s)] != 4 || row[col(s+" min")] != 2 || row[col(s+" max")] != 6 {
		t.Fatalf("mean, min, max %v, %v, %v; want 4, 2, 6", row[col(s)], row[col(s+" min")], row[col(s+" max")])
	}
	if same := f.Reduce(rs[:2]); len(same.Series) != len(f.Series) {
		t.Fatalf("one seed grew spread columns: %v", same.Series)
	}
}
