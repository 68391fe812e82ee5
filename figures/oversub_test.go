package figures

import (
	"github.com/mgpu-sim/mgpu/config"
	earlyadaptorrt "github.com/mgpu-sim/mgpu/runtimes/earlyadaptor"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/sweep"
	"github.com/mgpu-sim/mgpu/units"
)

const testScale = 0.2 // mgpu figure --quick

func mustLookup(t *testing.T, name string) Figure {
	t.Helper()
	f, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustRuns(t *testing.T, f Figure) []sweep.Run {
	t.Helper()
	// The figures run their own workloads, whatever the command passes.
	runs, err := f.Runs([]string{"mm"}, testScale)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// fakeResults makes one result per run, as the run would record it, with
// the sim time and counters the test gives.
func fakeResults(t *testing.T, runs []sweep.Run, simTime func(sweep.Run) float64, counters func(sweep.Run) stats.Counters) []*platform.Result {
	t.Helper()
	var out []*platform.Result
	fps := map[string]uint64{}
	for _, r := range runs {
		fp, ok := fps[r.Workload]
		if !ok {
			var err error
			if fp, err = footprintAt(r.Workload, r.Scale); err != nil {
				t.Fatal(err)
			}
			fps[r.Workload] = fp
		}
		res := &platform.Result{Workload: r.Workload, Policy: r.Policy, GPUs: r.GPUs, Seed: r.Seed, Scale: r.Scale,
			Config: r.Config, Sets: r.Sets, SimTimeNs: simTime(r), Footprint: units.Bytes(fp)}
		if counters != nil {
			res.Totals = counters(r)
		}
		out = append(out, res)
	}
	return out
}

func row(t *testing.T, tab plots.Table, app string) []float64 {
	t.Helper()
	i := slices.Index(tab.Apps, app)
	if i < 0 {
		t.Fatalf("no row %q in %v", app, tab.Apps)
	}
	return tab.Values[i]
}

func col(t *testing.T, tab plots.Table, label string) int {
	t.Helper()
	i := slices.Index(tab.Series, label)
	if i < 0 {
		t.Fatalf("no column %q in %v", label, tab.Series)
	}
	return i
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestOversubFiguresExpand: each figure looks up and expands to its runs,
// one GPU each, on its own workloads; the EA figures' static runs are the
// threshold sweep's (the cache reuses them) and only Early-Adaptor runs
// carry windows, scaled to the run's footprint.
func TestOversubFiguresExpand(t *testing.T) {
	want := map[string]int{
		"ea-threshold": len(EAWorkloads) * 2 * len(EAThresholds),   // {off = 100, 6 thresholds} x {100%, 150%}
		"ea-fig13":     len(EAWorkloads) * (len(EAThresholds) + 1), // 7 thresholds + EA at 150%
		"ea-fig13a":    len(EAWorkloads) * (len(EAThresholds) + 1), // the same at 100%
		"ea-fig14":     len(EAWorkloads) * (len(EAThresholds) + 1),
		"uvmmu-fig1":   len(UVMMUWorkloads) * 3 * 3, // {50, 20, 0 us} x {100, 125, 150%}
		"uvmmu-fig4":   len(UVMMUWorkloads) * 3 * 3, // {UM, UVMSmart, UVMMU} x {100, 125, 150%}
		"uvmmu-fig5":   len(UVMMUWorkloads) * 4 * 2, // 4 victim choices x {125, 150%}
		"uvmmu-fig6":   len(UVMMUWorkloads) * 3 * 5, // {UM, UVMSmart, UVMMU} x {100 .. 200%}
	}
	hashes := map[string]map[string]bool{}
	for name, n := range want {
		f := mustLookup(t, name)
		runs := mustRuns(t, f)
		if len(runs) != n {
			t.Errorf("%s: %d runs, want %d", name, len(runs), n)
		}
		hashes[name] = map[string]bool{}
		for _, r := range runs {
			hashes[name][r.Hash()] = true
			if r.GPUs != 1 || r.Policy != oversubPolicy || !slices.Contains(f.Workloads, r.Workload) || r.Scale != testScale {
				t.Errorf("%s: run %s", name, r.Label())
			}
			_, windowed := r.Sets["uvm.ea.short_window_ns"]
			if ea := r.Sets["uvm.prefetch_control"] == "early-adaptor"; ea != windowed {
				t.Errorf("%s: %s: Early-Adaptor %v but windows %v", name, r.Label(), ea, windowed)
			}
		}
	}
	for h := range hashes["ea-fig13"] {
		if !hashes["ea-fig14"][h] {
			t.Error("ea-fig13 and ea-fig14 must share their runs")
		}
	}
	shared := 0
	for h := range hashes["ea-fig13"] {
		if hashes["ea-threshold"][h] {
			shared++
		}
	}
	if shared != len(EAWorkloads)*len(EAThresholds) {
		t.Errorf("ea-fig13 reuses %d of ea-threshold's runs, want every static run at 150%% (%d)", shared, len(EAWorkloads)*len(EAThresholds))
	}
	// The windows follow the footprint: EA's 20 ms / 1 s times footprint / EA's.
	f := mustLookup(t, "ea-fig13")
	for _, r := range mustRuns(t, f) {
		if r.Workload != "hotspot" || r.Sets["uvm.prefetch_control"] != "early-adaptor" {
			continue
		}
		fp, _ := footprintAt("hotspot", testScale)
		scale := float64(fp) / float64(8445<<20)
		if got := earlyadaptorrt.Config.Of(r.Config.UVM).LongWindowNs; math.Abs(got-1e9*scale) > 1 || math.Abs(earlyadaptorrt.Config.Of(r.Config.UVM).ShortWindowNs-20e6*scale) > 1 {
			t.Errorf("hotspot windows %v / %v at footprint %d", earlyadaptorrt.Config.Of(r.Config.UVM).ShortWindowNs, got, fp)
		}
	}
}

// TestPresetSets: the figures' GPU keys are the presets' files.
func TestPresetSets(t *testing.T) {
	for file, kv := range map[string][]string{"../configs/rtx3090.yaml": rtx3090, "../configs/gtx1080ti.yaml": gtx1080ti} {
		want, err := config.LoadConfig(file)
		if err != nil {
			t.Fatal(err)
		}
		got := config.DefaultConfig()
		got.GPUs = 1
		for i := 0; i+1 < len(kv); i += 2 {
			if err := got.Set(kv[i] + "=" + kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		g, w := configValues(got), configValues(want)
		for k := range w {
			if g[k] != w[k] {
				t.Errorf("%s: %s = %s in the file, %s in the figure's sets", file, k, w[k], g[k])
			}
		}
	}
}

// TestEAThresholdNormalisation: each threshold over prefetch off at the
// same oversubscription.
func TestEAThresholdNormalisation(t *testing.T) {
	f := mustLookup(t, "ea-threshold")
	tab := f.Reduce(fakeResults(t, mustRuns(t, f), func(r sweep.Run) float64 {
		k := 1.0
		if r.Sets["oversubscribe"] == over150 {
			k = 3
		}
		switch r.Sets["uvm.prefetch.policy"] {
		case "off": // and threshold 100
			return 100 * k
		default: // threshold T: 100% twice as fast as off; 150% (1 + T/100) x
			th := float64(r.Config.UVM.Prefetch.Threshold)
			if th == 100 {
				t.Errorf("%s: threshold 100 runs the tree; its run is off's", r.Label())
			}
			if k == 1 {
				return 50
			}
			return 300 / (1 + th/100)
		}
	}, nil))
	if len(tab.Series) != 2*len(EAThresholds) {
		t.Fatalf("series %v", tab.Series)
	}
	wantApps := append(slices.Clone(EAWorkloads), "avg regular", "avg irregular", "avg mixed", "average", "geomean")
	if !slices.Equal(tab.Apps, wantApps) {
		t.Fatalf("rows %v, want %v", tab.Apps, wantApps)
	}
	for _, app := range []string{"hotspot", "rbfs", "average", "geomean", "avg irregular"} {
		r := row(t, tab, app)
		for _, th := range EAThresholds {
			w100, w150 := 2.0, 1+float64(th)/100
			if th == 100 { // off's own run
				w100, w150 = 1, 1
			}
			if v := r[col(t, tab, "thr "+itoa(th)+" @100%")]; !near(v, w100) {
				t.Errorf("%s thr %d @100%%: %v, want %v (over off at 100%%)", app, th, v, w100)
			}
			if v := r[col(t, tab, "thr "+itoa(th)+" @150%")]; !near(v, w150) {
				t.Errorf("%s thr %d @150%%: %v, want %v (over off at 150%%)", app, th, v, w150)
			}
		}
	}
}

func itoa(i int) string { return staticLabel(i)[len("static ") : len(staticLabel(i))-1] }

// eaTimes: the 51% baseline takes 100. Regular: 2dconv 4x at 1% and 2x at
// 11%, fdtd2d 0.5x at 1% and 2x at 11% (the geometric mean picks 11, the
// arithmetic mean would pick 1); irregular 4x at 100%; mixed 1.25x at 71%.
// Early-Adaptor 2.5x everywhere.
func eaTimes(r sweep.Run) float64 {
	if r.Sets["uvm.prefetch_control"] == "early-adaptor" {
		return 40
	}
	th := staticThreshold(r)
	switch {
	case r.Workload == "2dconv" && th == 1:
		return 25
	case r.Workload == "fdtd2d" && th == 1:
		return 200
	case (r.Workload == "2dconv" || r.Workload == "fdtd2d") && th == 11:
		return 50
	case classOf(r.Workload) == "irregular" && th == 100:
		return 25
	case classOf(r.Workload) == "mixed" && th == 71:
		return 80
	}
	return 100
}

// staticThreshold is a static run's threshold: prefetch off's run is
// threshold 100's.
func staticThreshold(r sweep.Run) int {
	if r.Config.UVM.Prefetch.Policy == "off" {
		return 100
	}
	return r.Config.UVM.Prefetch.Threshold
}

// TestEAFig13OPT: every series over static 51% at 150%, and OPT is each
// class's best threshold by geometric mean, applied per application.
func TestEAFig13OPT(t *testing.T) {
	f := mustLookup(t, "ea-fig13")
	tab := f.Reduce(fakeResults(t, mustRuns(t, f), eaTimes, nil))
	opt := "OPT regular=11% irregular=100% mixed=71%"
	wantCols := []string{"EA", "static 1%", "static 11%", "static 31%", "static 51%", "static 71%", "static 91%", "static 100%", opt}
	if !slices.Equal(tab.Series, wantCols) {
		t.Fatalf("columns %v, want %v", tab.Series, wantCols)
	}
	for app, want := range map[string][]float64{
		"2dconv":  {2.5, 4, 2, 1, 1, 1, 1, 1, 2},
		"fdtd2d":  {2.5, 0.5, 2, 1, 1, 1, 1, 1, 2},
		"hotspot": {2.5, 1, 1, 1, 1, 1, 1, 1, 1},
		"nw":      {2.5, 1, 1, 1, 1, 1, 1, 4, 4},
		"rbfs":    {2.5, 1, 1, 1, 1, 1.25, 1, 1, 1.25},
	} {
		got := row(t, tab, app)
		for i := range want {
			if !near(got[i], want[i]) {
				t.Errorf("%s: %v, want %v", app, got, want)
				break
			}
		}
	}
	if v := row(t, tab, "avg regular")[col(t, tab, opt)]; !near(v, 1.5) {
		t.Errorf("regular OPT mean %v, want (2+2+1+1)/4", v)
	}
	if v := row(t, tab, "average")[col(t, tab, "EA")]; !near(v, 2.5) {
		t.Errorf("EA average %v", v)
	}
}

// TestEAFig14Ratios: the counters over static 51%, OPT at fig13's pick.
func TestEAFig14Ratios(t *testing.T) {
	f := mustLookup(t, "ea-fig14")
	tab := f.Reduce(fakeResults(t, mustRuns(t, f), eaTimes, func(r sweep.Run) stats.Counters {
		k := uint64(2) // static 51% and the other thresholds
		switch {
		case r.Sets["uvm.prefetch_control"] == "early-adaptor":
			k = 1
		case staticThreshold(r) == 100:
			k = 4
		}
		return stats.Counters{MigrationsH2D: 500 * k, Prefetches: 250 * k, BytesPCIe: 2 << 20 * k, Evictions: 50 * k}
	}))
	opt := "OPT regular=11% irregular=100% mixed=71%"
	for _, m := range eaFig14Metrics {
		for cfg, want := range map[string]map[string]float64{
			"EA":          {"2dconv": 0.5, "nw": 0.5, "average": 0.5},
			"static 1%":   {"2dconv": 1, "nw": 1},
			"static 100%": {"2dconv": 2, "nw": 2},
			opt:           {"2dconv": 1, "nw": 2, "rbfs": 1},
		} {
			c := col(t, tab, m.Label+": "+cfg)
			for app, w := range want {
				if v := row(t, tab, app)[c]; !near(v, w) {
					t.Errorf("%s %s: %v, want %v", m.Label+": "+cfg, app, v, w)
				}
			}
		}
	}
	for _, s := range tab.Series {
		if strings.HasPrefix(s, "speedup") {
			t.Errorf("hidden column %q shown", s)
		}
	}
	if len(tab.Series) != 4*len(eaFig14Metrics) {
		t.Errorf("columns %v", tab.Series)
	}
}

// TestUVMMUFig1Normalisation: 20 and 0 us over 50 us at the same
// oversubscription.
func TestUVMMUFig1Normalisation(t *testing.T) {
	f := mustLookup(t, "uvmmu-fig1")
	tab := f.Reduce(fakeResults(t, mustRuns(t, f), func(r sweep.Run) float64 {
		k := map[string]float64{over100: 1, over125: 3, over150: 7}[r.Sets["oversubscribe"]]
		return k * map[string]float64{"50000": 100, "20000": 80, "0": 50}[r.Sets[uvmmuLatencyKey]]
	}, nil))
	want := []string{"20us @100%", "0us @100%", "20us @125%", "0us @125%", "20us @150%", "0us @150%"}
	if !slices.Equal(tab.Series, want) {
		t.Fatalf("series %v, want %v", tab.Series, want)
	}
	for _, app := range []string{"uvmsmart-ra", "2dconv", "average", "geomean"} {
		r := row(t, tab, app)
		for i, w := range []float64{1.25, 2, 1.25, 2, 1.25, 2} {
			if !near(r[i], w) {
				t.Errorf("%s: %v", app, r)
				break
			}
		}
	}
	if slices.Contains(tab.Apps, "bicg") || len(tab.Apps) != len(UVMMUWorkloads)+5 {
		t.Errorf("rows %v", tab.Apps)
	}
}

// TestClassRowsMeans: class means, the mean and the geometric mean skip
// missing values.
func TestClassRowsMeans(t *testing.T) {
	tab := classRows(plots.Table{Series: []string{"x"}, Apps: []string{"2dconv", "hotspot", "nw", "mm", "average"},
		Values: [][]float64{{1}, {4}, {nan}, {16}, {99}}})
	want := map[string]float64{"avg regular": 2.5, "average": 7, "geomean": 4}
	for app, w := range want {
		if v := row(t, tab, app)[0]; !near(v, w) {
			t.Errorf("%s: %v, want %v", app, v, w)
		}
	}
	if v := row(t, tab, "avg irregular")[0]; !math.IsNaN(v) {
		t.Errorf("avg irregular %v: nw has no value", v)
	}
	if slices.Contains(tab.Apps, "avg mixed") || tab.Apps[3] != "mm" {
		t.Errorf("rows %v: no mixed application; mm, classless, stays", tab.Apps)
	}
}

// TestUVMMUFigureNormalisation: Fig. 4 divides UM's time by UVMSmart's and
// UVMMU's at the same ratio, and UVMSmart's by UVMMU's, Fig. 5 Linear-Random's by each choice's, Fig. 6 each
// ratio's time by the same system's at 100%; and each figure runs
// hardware handling exactly where it says.
func TestUVMMUFigureNormalisation(t *testing.T) {
	over := map[string]float64{over100: 1, over125: 2, over150: 3, over175: 4, over200: 5}
	ev := map[string]float64{"linear-random": 1, "sequential-local": 2, "tbn": 4, "nru": 8}
	simTime := func(r sweep.Run) float64 {
		if r.Sets["uvm.fault_handling"] == "hardware" {
			return 10 * over[r.Sets["oversubscribe"]] * ev[r.Sets["uvm.eviction"]]
		}
		if r.Sets[uvmmuLatencyKey] != uvmmuBaselineLatency || r.Sets["uvm.per_fault_charge"] != "new-pages" {
			t.Errorf("UM run at %s ns, charge %q", r.Sets[uvmmuLatencyKey], r.Sets["uvm.per_fault_charge"])
		}
		if r.Sets["uvm.adaptive"] == "uvmsmart" {
			return 35 * over[r.Sets["oversubscribe"]] * over[r.Sets["oversubscribe"]]
		}
		return 70 * over[r.Sets["oversubscribe"]] * over[r.Sets["oversubscribe"]]
	}
	for _, tc := range []struct {
		fig   string
		want  []float64
		label string
	}{
		// UVMSmart and UVMMU over UM at each ratio, then UVMMU over UVMSmart.
		{"uvmmu-fig4", []float64{2, 7, 2, 14, 2, 21, 3.5, 7, 10.5}, "UVMSmart @100%"},
		{"uvmmu-fig5", []float64{0.5, 0.25, 0.125, 0.5, 0.25, 0.125}, "sequential-local @125%"},
		{"uvmmu-fig6", []float64{2, 3, 4, 5, 4, 9, 16, 25}, "UVMMU @125%"},
	} {
		f := mustLookup(t, tc.fig)
		tab := f.Reduce(fakeResults(t, mustRuns(t, f), simTime, nil))
		if tab.Series[0] != tc.label {
			t.Errorf("%s: series %v", tc.fig, tab.Series)
		}
		for _, app := range []string{"uvmsmart-ra", "nw", "geomean"} {
			r := row(t, tab, app)
			for i, w := range tc.want {
				if !near(r[i], w) {
					t.Errorf("%s %s: %v, want %v", tc.fig, app, r, tc.want)
					break
				}
			}
		}
	}
}

// UVMMU's paper size is UVMSmart's own input: each workload's managed
// bytes at its paper scale are those of UVMSmart's program (the sums of
// its cudaMallocManaged calls at the input its run script gives), or the
// nearest the workload's shape allows where it says so.
func TestUVMMUPaperScalesAreUVMSmartInputs(t *testing.T) {
	want := map[string]uint64{
		"2dconv": 8388608, "hotspot": 12582912, "pathfinder": 40200000, "backprop": 27784580,
		"nw": 8405000, "srad": 25165824, // all six of srad's arrays (UVMSmart manages one)
		"atax": 5929216, "fdtd2d": 16831764, // n = 1216 and 1184, the nearest to UVMSmart's 1200
		"uvmsmart-ra": 12 << 20, "rbfs": 10205969, // 261,632 nodes for 261,444
	}
	for _, w := range UVMMUWorkloads {
		alloc, _, err := setupAt(w, UVMMUPaperScales[w])
		if err != nil {
			t.Fatal(err)
		}
		if got := alloc.Footprint(); got != want[w] {
			t.Errorf("%s at scale %v: %d bytes, UVMSmart's input is %d", w, UVMMUPaperScales[w], got, want[w])
		}
	}
}

// TestEASimilarRuns: at --size similar every Early-Adaptor figure run is
// at its workload's similar scale (a power of two from 1 to 4), and the
// Early-Adaptor runs' windows are scaled by that footprint.
func TestEASimilarRuns(t *testing.T) {
	f, err := Lookup("ea-fig13")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.RunsAt(nil, SizeSimilar, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 8*len(EAWorkloads) {
		t.Fatalf("%d runs, want %d", len(runs), 8*len(EAWorkloads))
	}
	for _, r := range runs {
		want := EASimilarScales[r.Workload]
		if want != 1 && want != 2 && want != 4 {
			t.Errorf("%s: similar scale %g is not a power of two up to 4", r.Workload, want)
		}
		if r.Scale != want {
			t.Errorf("%s at scale %g, want %g", r.Workload, r.Scale, want)
		}
		w, ok := r.Sets["uvm.ea.long_window_ns"]
		if !ok {
			continue
		}
		fp, err := footprintAt(r.Workload, r.Scale)
		if err != nil {
			t.Fatal(err)
		}
		if want := eaWindows(r.Workload, fp)["uvm.ea.long_window_ns"]; w != want {
			t.Errorf("%s: long window %s ns, want %s for its footprint %d", r.Workload, w, want, fp)
		}
	}
	if p := EAPaperScales(); p["rbfs"] != 256 || p["2dconv"] != 32 {
		t.Errorf("paper scales %v: want EA's Table II (rbfs 256, the others 32)", p)
	}
}
