package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks/synthetic"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/sweep"
)

func hashes(runs []sweep.Run) map[string]bool {
	out := map[string]bool{}
	for _, r := range runs {
		out[r.Hash()] = true
	}
	return out
}

// subset reports the runs of a missing from b.
func missing(a, b []sweep.Run) []string {
	hb := hashes(b)
	var out []string
	for _, r := range a {
		if !hb[r.Hash()] {
			out = append(out, r.Label())
		}
	}
	return out
}

func isObserv(r sweep.Run) bool { return r.Sets["uvm.adaptive"] == "observuvm" }

// isTMPP: Tournament with FDP and RGP, the tree prefetcher on.
func isTMPP(r sweep.Run) bool {
	return isObserv(r) && r.Sets["uvm.observuvm.policy"] == "tournament" && r.Sets["uvm.observuvm.shallow"] == "fdp" &&
		r.Sets["uvm.observuvm.deep"] == "rgp" && r.Sets["uvm.prefetch.policy"] == "tbn"
}

// isUVM: the stock driver, tree prefetcher at 51.
func isUVM(r sweep.Run) bool {
	return !isObserv(r) && r.Policy == oversubPolicy && r.Sets["uvm.prefetch.policy"] == "tbn" && r.Sets["uvm.prefetch.threshold"] == "51"
}

// isLRUNoPF: Fig. 10's LRU, prefetch off, at 50%.
func isLRUNoPF(r sweep.Run) bool {
	return isObserv(r) && r.Sets["uvm.observuvm.policy"] == "lru" && r.Sets["uvm.observuvm.shallow"] == "off" &&
		r.Sets["uvm.prefetch.policy"] == "off" && r.Sets["oversubscribe"] == over150
}

func overOf(t *testing.T, r sweep.Run) float64 {
	t.Helper()
	o, err := strconv.ParseFloat(r.Sets["oversubscribe"], 64)
	if err != nil {
		t.Fatalf("%s: oversubscribe %q", r.Label(), r.Sets["oversubscribe"])
	}
	return o
}

// appFactor makes every application's times differ, so a value taken
// from the wrong application shows.
func appFactor(w string) float64 { return float64(1 + slices.Index(ObservUVMWorkloads, w)) }

var sensFootprints = map[string]uint64{}

// fpAt is footprintAt, remembered: setting up at scale 1 takes a while.
func fpAt(t *testing.T, w string, scale float64) uint64 {
	t.Helper()
	k := fmt.Sprint(w, scale)
	if fp, ok := sensFootprints[k]; ok {
		return fp
	}
	fp, err := footprintAt(w, scale)
	if err != nil {
		t.Fatal(err)
	}
	sensFootprints[k] = fp
	return fp
}

// observedOf is a run's observed_regions, checked against observBudgets'
// rule for the paper's count.
func observedOf(t *testing.T, r sweep.Run, paper int) int {
	t.Helper()
	fp := fpAt(t, r.Workload, r.Scale)
	n, err := strconv.Atoi(r.Sets["uvm.observuvm.observed_regions"])
	if err != nil || paper > 0 && n != observScaled(r.Workload, fp, paper) {
		t.Errorf("%s: observed_regions %q, want %d (paper %d scaled)", r.Label(), r.Sets["uvm.observuvm.observed_regions"],
			observScaled(r.Workload, fp, paper), paper)
	}
	for _, k := range []string{"uvm.observuvm.feedback_regions", "uvm.observuvm.trigger_regions"} {
		if r.Sets[k] != observBudgets(r.Workload, fp)[k] {
			t.Errorf("%s: %s %q, want observBudgets'", r.Label(), k, r.Sets[k])
		}
	}
	return n
}

func checkRow(t *testing.T, name string, tab plots.Table, app string, want []float64) {
	t.Helper()
	r := row(t, tab, app)
	if len(r) != len(want) {
		t.Fatalf("%s %s: %v, want %v", name, app, r, want)
	}
	for i := range want {
		if math.Abs(r[i]-want[i]) > 1e-6 {
			t.Errorf("%s %s: %v, want %v", name, app, r, want)
			return
		}
	}
}

// TestObservFig14: UVM and TM++ on Table II's fourteen applications at
// 30, 50 and 70% (oversubscribe 1.3, 1.5, 1.7), the 50% runs Fig. 9's;
// each level's TM++ time over UVM's at the same level.
func TestObservFig14(t *testing.T) {
	f := mustLookup(t, "observuvm-fig14")
	runs := mustRuns(t, f)
	if len(runs) != 14*2*3 {
		t.Errorf("%d runs, want %d", len(runs), 14*2*3)
	}
	levels := map[string]int{}
	for _, r := range runs {
		levels[r.Sets["oversubscribe"]]++
		if !isUVM(r) && !isTMPP(r) {
			t.Errorf("%s: neither UVM nor TM++", r.Label())
		}
		if isTMPP(r) {
			observedOf(t, r, 100)
		}
	}
	if !maps2Equal(levels, map[string]int{"1.3": 28, "1.5": 28, "1.7": 28}) {
		t.Errorf("levels %v", levels)
	}
	var at50 []sweep.Run
	for _, r := range runs {
		if r.Sets["oversubscribe"] == over150 {
			at50 = append(at50, r)
		}
	}
	if m := missing(at50, mustRuns(t, mustLookup(t, "observuvm-fig9"))); len(m) > 0 {
		t.Errorf("50%% runs not Fig. 9's: %v", m)
	}
	// UVM's time grows with the level; TM++ takes half of UVM's at its
	// own level. Normalising to any other level would not give 0.5.
	simTime := func(r sweep.Run) float64 {
		t := 100 * appFactor(r.Workload) * overOf(t, r) * overOf(t, r)
		if isTMPP(r) {
			t *= 0.5
		}
		return t
	}
	tab := f.Reduce(fakeResults(t, runs, simTime, nil))
	if !slices.Equal(tab.Series, []string{"TM++ @30%", "TM++ @50%", "TM++ @70%"}) {
		t.Errorf("series %v", tab.Series)
	}
	for _, app := range []string{"mm-tiled", "rbfs", "avg prefers cp", "geomean"} {
		checkRow(t, "fig14", tab, app, []float64{0.5, 0.5, 0.5})
	}
}

func maps2Equal(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestObservFig15: UVM.Zero (no oversubscription) and UVM and TM++ at 10,
// 30, 50 and 70%; a row per level with the geomean over the applications
// of each configuration's time over UVM.Zero's.
func TestObservFig15(t *testing.T) {
	f := mustLookup(t, "observuvm-fig15")
	runs := mustRuns(t, f)
	if len(runs) != 14*(1+2*4) {
		t.Errorf("%d runs, want %d", len(runs), 14*9)
	}
	zero := 0
	for _, r := range runs {
		if r.Sets["oversubscribe"] == "0" {
			zero++
			if !isUVM(r) {
				t.Errorf("UVM.Zero run %s is not UVM", r.Label())
			}
		}
	}
	if zero != 14 {
		t.Errorf("%d UVM.Zero runs", zero)
	}
	if m := missing(mustRuns(t, mustLookup(t, "observuvm-fig14")), runs); len(m) > 0 {
		t.Errorf("Fig. 14's runs not in Fig. 15's: %v", m)
	}
	// UVM takes over x UVM.Zero's time; TM++ 0.5 or 0.8 of UVM's by
	// application: a geomean of sqrt(0.4) (an arithmetic mean would be
	// 0.65).
	tmpp := func(w string) float64 {
		if slices.Index(ObservUVMWorkloads, w)%2 == 0 {
			return 0.5
		}
		return 0.8
	}
	simTime := func(r sweep.Run) float64 {
		o := overOf(t, r)
		if o == 0 {
			return 100 * appFactor(r.Workload)
		}
		x := 100 * appFactor(r.Workload) * o
		if isTMPP(r) {
			x *= tmpp(r.Workload)
		}
		return x
	}
	tab := f.Reduce(fakeResults(t, runs, simTime, nil))
	if !slices.Equal(tab.Series, []string{"UVM", "TM++"}) || !slices.Equal(tab.Apps, []string{"10%", "30%", "50%", "70%"}) {
		t.Fatalf("table %v x %v", tab.Apps, tab.Series)
	}
	for _, l := range ObservLevels {
		o, _ := strconv.ParseFloat(l.Over, 64)
		checkRow(t, "fig15", tab, l.Label, []float64{o, o * math.Sqrt(0.4)})
	}
}

// TestObservFig16: Fig. 10's LRU (prefetch off, 50%) at the paper's 100,
// 50, 25 and 10 observed regions, each scaled to the footprint; runs whose
// budgets scale alike are one; the 100 run is Fig. 10's; each budget's
// time over 100's.
func TestObservFig16(t *testing.T) {
	f := mustLookup(t, "observuvm-fig16")
	// At --quick every budget scales to 1 region: one run per application.
	if runs := mustRuns(t, f); len(runs) != 14 {
		t.Errorf("quick: %d runs, want 14 (all budgets 1)", len(runs))
	}
	// At scale 1 the larger footprints separate some budgets. Sizing every
	// workload at scale 1 is the long part: make test-full runs it.
	t.Run("scale1", func(t *testing.T) {
		fullOnly(t)
		const scale = 1
		runs, err := f.Runs(nil, scale)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		budgets := map[string][]int{} // workload -> scaled budget of each paper budget
		for _, w := range ObservUVMWorkloads {
			fp := fpAt(t, w, scale)
			var distinct []int
			for _, b := range ObservFig16Budgets {
				n := observScaled(w, fp, b)
				budgets[w] = append(budgets[w], n)
				if !slices.Contains(distinct, n) {
					distinct = append(distinct, n)
				}
			}
			want += len(distinct)
		}
		if len(runs) != want || want <= 14 {
			t.Errorf("scale 1: %d runs, want %d (> 14)", len(runs), want)
		}
		for _, r := range runs {
			if !isLRUNoPF(r) {
				t.Errorf("%s: not Fig. 10's LRU", r.Label())
			}
			if n := observedOf(t, r, 0); !slices.Contains(budgets[r.Workload], n) {
				t.Errorf("%s: %d observed regions, not one of %v", r.Label(), n, budgets[r.Workload])
			}
		}
		fig10, err := mustLookup(t, "observuvm-fig10").Runs(nil, scale)
		if err != nil {
			t.Fatal(err)
		}
		var at100 []sweep.Run
		for _, r := range runs {
			fp := fpAt(t, r.Workload, scale)
			if r.Sets["uvm.observuvm.observed_regions"] == strconv.Itoa(observScaled(r.Workload, fp, 100)) {
				at100 = append(at100, r)
			}
		}
		if len(at100) != 14 {
			t.Errorf("%d runs at the 100 budget", len(at100))
		}
		if m := missing(at100, fig10); len(m) > 0 {
			t.Errorf("100-budget runs not Fig. 10's LRU: %v", m)
		}
		simTime := func(r sweep.Run) float64 {
			n, _ := strconv.Atoi(r.Sets["uvm.observuvm.observed_regions"])
			return appFactor(r.Workload) * (100 + 10*float64(n))
		}
		tab := f.Reduce(fakeResults(t, runs, simTime, nil))
		if !slices.Equal(tab.Series, []string{"LRU 50 regions", "LRU 25 regions", "LRU 10 regions"}) {
			t.Errorf("series %v", tab.Series)
		}
		for _, w := range []string{"blackscholes", "spgemm", "gmm"} {
			b := budgets[w]
			var wantRow []float64
			for _, n := range b[1:] {
				wantRow = append(wantRow, (100+10*float64(n))/(100+10*float64(b[0])))
			}
			checkRow(t, "fig16", tab, w, wantRow)
		}
		if b := budgets["blackscholes"]; b[0] <= b[3] {
			t.Errorf("blackscholes at scale 1: budgets %v do not separate", b)
		}
	})
}

// TestObservFig17: Fig. 16's LRU with 75 observed regions (scaled),
// adaptive sampling off and 1, 2, 3 samples; each over 1 sample.
func TestObservFig17(t *testing.T) {
	f := mustLookup(t, "observuvm-fig17")
	runs := mustRuns(t, f)
	if len(runs) != 14*3 {
		t.Errorf("%d runs, want %d", len(runs), 14*3)
	}
	count := map[string]int{}
	for _, r := range runs {
		if !isLRUNoPF(r) || r.Sets["uvm.observuvm.adaptive_samples"] != "false" {
			t.Errorf("%s: not LRU with fixed samples", r.Label())
		}
		observedOf(t, r, observFig17Regions)
		count[r.Sets["uvm.observuvm.samples"]]++
	}
	if !maps2Equal(count, map[string]int{"1": 14, "2": 14, "3": 14}) {
		t.Errorf("samples %v", count)
	}
	simTime := func(r sweep.Run) float64 {
		n, _ := strconv.Atoi(r.Sets["uvm.observuvm.samples"])
		return appFactor(r.Workload) * (100 + float64(n))
	}
	tab := f.Reduce(fakeResults(t, runs, simTime, nil))
	if !slices.Equal(tab.Series, []string{"2 samples", "3 samples"}) {
		t.Errorf("series %v", tab.Series)
	}
	for _, app := range []string{"gmm", "spgemm", "average", "geomean"} {
		checkRow(t, "fig17", tab, app, []float64{102.0 / 101, 103.0 / 101})
	}
}

// TestObservFig3Specs: ACBM-style counting (host pages read remotely, 2
// MB groups, threshold x, one page migrated per notification) and
// on-touch, both without prefetching, on countercap-p for every p.
func TestObservFig3Specs(t *testing.T) {
	f := mustLookup(t, "observuvm-fig3")
	runs := mustRuns(t, f)
	if len(runs) != 2*len(synthetic.CounterCapRegions) {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		if counterCapRegions(r.Workload) == 0 || r.GPUs != 1 || r.Sets["uvm.prefetch.policy"] != "off" {
			t.Errorf("%s", r.Label())
		}
		if r.Policy == "access-counter" && (r.Sets["policy.ac_host"] != "remote" || r.Sets["policy.ac_group"] != "2MB" ||
			r.Sets["policy.ac_migrate"] != "page" || r.Sets["policy.ac_threshold"] != strconv.Itoa(synthetic.CounterCapAccesses)) {
			t.Errorf("%s: not the microbenchmark's counting", r.Label())
		}
	}
	// A simulator with 100 counters would migrate min(p, 100) pages; the
	// table multiplies the ratio to on-touch's p back into a count.
	counters := func(r sweep.Run) stats.Counters {
		p := uint64(counterCapRegions(r.Workload))
		if r.Policy == "access-counter" {
			return stats.Counters{MigrationsH2D: min(p, 100)}
		}
		return stats.Counters{MigrationsH2D: p}
	}
	tab := f.Reduce(fakeResults(t, runs, func(sweep.Run) float64 { return 1 }, counters))
	for _, p := range synthetic.CounterCapRegions {
		checkRow(t, "fig3", tab, fmt.Sprintf("p=%d", p), []float64{float64(min(p, 100)), float64(min(p, 256)), float64(min(p, 256))})
	}
}

// The counter model saturates at its capacity: min(p, counters).
func TestCounterCapModel(t *testing.T) {
	for _, c := range []int{16, 100, 256} {
		for _, p := range synthetic.CounterCapRegions {
			n, err := counterCapModel(synthetic.CounterCapName(p), c)
			if err != nil || n != uint64(min(p, c)) {
				t.Errorf("capacity %d, p %d: %d notifications (%v), want %d", c, p, n, err, min(p, c))
			}
		}
	}
}

func runAll(t *testing.T, runs []sweep.Run) []*platform.Result {
	t.Helper()
	var out []*platform.Result
	for _, r := range runs {
		o := r.Options()
		o.Sets = r.Sets
		res, err := platform.Run(o)
		if err != nil {
			t.Fatalf("%s: %v", r.Label(), err)
		}
		out = append(out, res)
	}
	return out
}

// TestObservFig3Runs runs the microbenchmark: the table's simulator
// column is each run's access-counter notifications (read through its
// migrations), the model's is min(p, 256). The simulator's GPU counters
// have no capacity, so its column is p (logged, not asserted: a counter
// limit in the GPU model would rightly change it).
func TestObservFig3Runs(t *testing.T) {
	f := mustLookup(t, "observuvm-fig3")
	runs := mustRuns(t, f)
	res := runAll(t, runs)
	notif := map[string]uint64{}
	for _, r := range res {
		p := uint64(counterCapRegions(r.Workload))
		switch r.Policy {
		case "access-counter":
			if r.Totals.MigrationsH2D != r.Totals.ACNotifications || r.Totals.ACNotifications > p || r.Totals.ACNotifications == 0 {
				t.Errorf("%s ACBM: %d migrations, %d notifications", r.Workload, r.Totals.MigrationsH2D, r.Totals.ACNotifications)
			}
			notif[r.Workload] = r.Totals.ACNotifications
		default:
			if r.Totals.MigrationsH2D != p {
				t.Errorf("%s on-touch: %d migrations, want p = %d", r.Workload, r.Totals.MigrationsH2D, p)
			}
		}
	}
	tab := f.Reduce(res)
	for _, p := range synthetic.CounterCapRegions {
		name := synthetic.CounterCapName(p)
		r := row(t, tab, fmt.Sprintf("p=%d", p))
		if r[0] != float64(notif[name]) || r[1] != float64(min(p, 256)) {
			t.Errorf("p=%d: %v, want simulator %d, model %d", p, r, notif[name], min(p, 256))
		}
		t.Logf("p=%d: simulator %v, model %v, paper %v", p, r[0], r[1], r[2])
	}
}

// TestObservSensRuns runs Figs. 14-17's runs of one small application at
// a small scale: every configuration is accepted and every value exists.
func TestObservSensRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates")
	}
	const scale = 0.05
	for _, name := range []string{"observuvm-fig14", "observuvm-fig15", "observuvm-fig16", "observuvm-fig17"} {
		f := mustLookup(t, name)
		all, err := f.Runs(nil, scale)
		if err != nil {
			t.Fatal(err)
		}
		var runs []sweep.Run
		for _, r := range all {
			if r.Workload == "rbfs" {
				runs = append(runs, r)
			}
		}
		tab := f.Reduce(runAll(t, runs))
		last := "geomean"
		if name == "observuvm-fig15" {
			last = "70%"
		}
		r := row(t, tab, last)
		for i, v := range r {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s %s: %v", name, tab.Series[i], r)
			}
		}
		t.Logf("%s rbfs at %v: %v %v", name, scale, tab.Series, r)
	}
}
