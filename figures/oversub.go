package figures

// The single-GPU oversubscription figures of Early-Adaptor (Go et al.,
// "Early-Adaptor: An Adaptive Framework for Proactive UVM Memory
// Management", ISPASS 2023: its setup in "Evaluation and Results" and
// Table II, its threshold sweep, Fig. 13 and Fig. 14) and UVMMU (Park,
// Jeong, Kim, "UVMMU: Hardware-Offloaded Page Migration for Heterogeneous
// Computing", DATE 2023: its setup in §V-A1 and Table I, Fig. 1, Fig. 4,
// Fig. 5 and Fig. 6).

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/earlyadaptor"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/sweep"
)

// EAWorkloads are Early-Adaptor's Table II benchmarks, by class: regular
// (2DC, FDT, HS, PF), irregular (ATA, BIC, NW), mixed (BFS, here rbfs).
var EAWorkloads = []string{"2dconv", "fdtd2d", "hotspot", "pathfinder", "atax", "bicg", "nw", "rbfs"}

// UVMMUWorkloads are UVMSmart's Rodinia and PolyBench ports UVMMU
// evaluates (§V-A1: nine workloads from Rodinia and PolyBench, of which
// §V-A2 names only RA, NW and BFS; which nine is not stated in the paper,
// so UVMSmart's: backprop, bfs, hotspot, nw, pathfinder, srad_v2, 2DCONV,
// ATAX, FDTD-2D) and RA, ordered by EA class as EAWorkloads. RA is
// UVMSmart's own (uvmsmart-ra, benchmarks/Managed/ra), the program UVMMU's
// simulator ran, not HPCC's RandomAccess (ra).
var UVMMUWorkloads = []string{"2dconv", "fdtd2d", "hotspot", "pathfinder", "backprop", "srad", "atax", "nw", "uvmsmart-ra", "rbfs"}

// UVMMUPaperScales are the scales at which each UVMMU workload runs
// UVMSmart's own input (github.com/DebashisGanguly/gpgpu-sim_UVMSmart,
// benchmarks/Managed: each program's #defines and run script, checked
// against its simulation logs), which UVMMU simulated on its GTX 1080 Ti:
// 2dconv NI = NJ = 1024; fdtd2d NX = NY = 1200, 5 steps (n must be a
// multiple of 32: 1184, the nearest in bytes); hotspot 1024 x 1024;
// pathfinder 50000 columns, 200 rows; backprop 131056 inputs; srad
// 1024 x 1024 (UVMSmart manages only J of its six arrays, mgpu all six);
// atax NX = NY = 1200 (a multiple of 64: 1216); nw 1024; bfs graph256k,
// 261,444 nodes (a multiple of 512: 261,632, mgpu's own random graph of
// about 6 edges per node, as graphgen's); and uvmsmart-ra, N = 2^20, its
// 12 MiB (scale 1).
var UVMMUPaperScales = map[string]float64{
	"2dconv": 0.030314, "fdtd2d": 0.062479, "hotspot": 0.045471, "pathfinder": 0.149812,
	"backprop": 1, "srad": 1, "atax": 0.021858, "nw": 0.029920, "uvmsmart-ra": 1, "rbfs": 0.2946,
}

// EAPaperScales are the scales of EA's Table II footprints
// (benchmarks.EAScales).
func EAPaperScales() map[string]float64 {
	out := map[string]float64{}
	for _, w := range EAWorkloads {
		out[w] = float64(benchmarks.EAScales[w])
	}
	return out
}

// EASimilarScales are Early-Adaptor's similar size: for each workload the
// smallest power of two, up to 4, at which its Early-Adaptor run at 150%,
// with the windows scaled by footprint (eaWindows), has more than
// ShortFactor (10) VA blocks faulting in the short window per analysis,
// on average (ea_short_blocks / ea_evaluations). With G.Avg over the
// faulting blocks, Fig. 12's "VFR > 10 x G.Avg" can pass only when more
// than 10 blocks fault in the window
// (earlyadaptor.TestShortTestNeedsElevenBlocks), and at the default size
// 1-9 do. nw and rbfs do not reach it by 4 (3.6 and 2.6; nw 9.5 at 8,
// rbfs 3.6 at 8): their faults spread over time, the poster's irregular
// pattern, and they run at 4, where the figures already take about an
// hour. The long windows a run spans do not depend on its size under the
// footprint rule (2dconv: 0.45-0.47 at scales 1-4, and 0.46 at EA's own
// size with EA's own 20 ms and 1 s), so no size gives the ten per run the
// issue asked for; docs/early-adaptor.md has the counts.
var EASimilarScales = map[string]float64{
	"2dconv": 4, "fdtd2d": 4, "hotspot": 4, "pathfinder": 2, "atax": 4, "bicg": 4, "nw": 4, "rbfs": 4,
}

// EAThresholds are the static tree-prefetch thresholds the EA figures
// sweep: EA's characterisation points 1, 11, 31, 51, 71, 91 (the poster's
// "Performances of GPUs under different prefetch threshold" and Fig. 7)
// and 100 (no tree prefetch, Fig. 13's legend). 51 is the driver default,
// EA's baseline.
var EAThresholds = []int{1, 11, 31, 51, 71, 91, 100}

// The oversubscription points. "0" is 100%: capacity is gpu.memory, far
// above every footprint. Factor 1 is not 100% once the tree prefetcher is
// on: capacity is then footprint / page size, but a whole-VA-block
// prefetch also brings the pages between an object's end and its 2 MB
// aligned slot's, so a run at factor 1 evicts (hotspot at scale 0.2 on
// the default GPU, threshold 1: 42k evictions, 4x slower than at 0).
const (
	over100 = "0"
	over125 = "1.25"
	over150 = "1.5"
	over175 = "1.75"
	over200 = "2"
)

func overLabel(o string) string {
	switch o {
	case over100:
		return "100%"
	case over125:
		return "125%"
	case over150:
		return "150%"
	case over175:
		return "175%"
	case over200:
		return "200%"
	}
	return o
}

// rtx3090 and gtx1080ti are configs/rtx3090.yaml (EA's GPU) and
// configs/gtx1080ti.yaml (UVMMU's Table I) as sets: sweep specs take no
// config file. Both presets' gpus: 1 is the specs' GPU count.
// TestPresetSets checks them against the files.
var (
	rtx3090 = []string{
		"gpu.cus", "82", "gpu.freq_mhz", "1695", "gpu.wavefronts_per_cu", "24",
		"gpu.l1v_size", "128KB", "gpu.remote_l1v", "false", "gpu.l2_size", "6MB", "gpu.memory", "24GB", "gpu.dram_gbps", "936", "gmmu.walkers", "64",
		"gmmu.big_page", "64KB", "gmmu.huge_page", "2MB", "gpu.shootdown_flush_all", "false", "gpu.drain_cycles", "0",
		"link.pcie_topology", "pairs",
	}
	gtx1080ti = []string{
		"gpu.cus", "28", "gpu.freq_mhz", "1481", "gpu.wavefronts_per_cu", "32",
		"gpu.l1tlb_entries", "128", "gpu.l1tlb_ways", "128", "gpu.line_size", "128B",
		"gpu.l1v_size", "48KB", "gpu.l1v_ways", "6", "gpu.l2_size", "3MB",
		"gpu.memory", "11GB", "gpu.dram_gbps", "484", "gmmu.walkers", "64",
		"gpu.shootdown_flush_all", "false", "gpu.drain_cycles", "0",
		"link.pcie_model", "rtt", "link.pcie_gbps", "16", "link.pcie_topology", "pairs",
		"kernel_launch_ns", "150000",
	}
)

// oversubPolicy is the page policy of the single-GPU figures: on-touch is
// the stock driver's fault-and-migrate (one GPU has no sharing to manage).
const oversubPolicy = "on-touch"

// join concatenates key-value lists into a new one.
func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// fixed turns key-value pairs into spec sets of one value each.
func fixed(kv []string) map[string][]string {
	out := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = []string{kv[i+1]}
	}
	return out
}

// withSweep adds a swept key to sets.
func withSweep(sets map[string][]string, key string, values ...string) map[string][]string {
	sets[key] = values
	return sets
}

// tbnThresholds are the EAThresholds that need a run of their own: all
// but 100, whose run is prefetch off's (eaStatic).
func tbnThresholds() []string {
	var out []string
	for _, t := range EAThresholds {
		if t != prefetch.MaxThreshold {
			out = append(out, strconv.Itoa(t))
		}
	}
	return out
}

// EA's configurations: prefetch off (the threshold sweep's reference), a
// static threshold (51 = the baseline), and Early-Adaptor.
func eaOff(over string) []string {
	return join(rtx3090, []string{"oversubscribe", over, "uvm.prefetch.policy", "off"})
}

// eaStatic is the static threshold t. Threshold 100 never prefetches (no
// subtree holds more than all of its pages), which makes its run prefetch
// off's in every result; the figures run it once, as off, and
// TestThreshold100IsOff (platform) checks the equivalence.
func eaStatic(over string, t int) []string {
	if t == prefetch.MaxThreshold {
		return eaOff(over)
	}
	return join(rtx3090, []string{"oversubscribe", over, "uvm.prefetch.policy", "tbn", "uvm.prefetch.threshold", strconv.Itoa(t)})
}

func eaAdaptive(over string) []string {
	return join(rtx3090, []string{"oversubscribe", over, "uvm.prefetch.policy", "tbn", "uvm.prefetch_control", "early-adaptor"})
}

func eaSel(kv []string) Selector { return sel(oversubPolicy, 1, kv...) }

// eaAdaptiveSel picks the Early-Adaptor run, whose windows depend on its
// footprint (eaWindows).
func eaAdaptiveSel(over string) Selector {
	s := eaSel(eaAdaptive(over))
	s.PerRun = func(r *platform.Result) map[string]string {
		return eaWindows(r.Workload, uint64(r.Footprint)/uint64(max(r.GPUs, 1)))
	}
	return s
}

// eaWindows are Early-Adaptor's time constants for a run of workload with
// footprint bytes per GPU: EA's 20 ms, 1 s and 20 ms scaled by footprint /
// EA's Table II footprint (earlyadaptor.ScaledWindows, the package's rule).
// mgpu does not scale them itself yet; unscaled, a run at 1/32 of EA's
// size ends before the first analysis (60 ms of warm-up), so Early-Adaptor
// would be "1% until the first eviction, then 100%". When the platform
// scales them, drop these sets and Selector.PerRun here.
func eaWindows(workload string, footprint uint64) map[string]string {
	return eaWindowsAt(footprint, benchmarks.EAFootprints[workload])
}

// eaWindowsAt are EA's time constants scaled by footprint / paper bytes
// (0: earlyadaptor.PaperFootprintBytes).
func eaWindowsAt(footprint, paper uint64) map[string]string {
	c := earlyadaptor.ScaledWindows(earlyadaptor.DefaultConfig(), earlyadaptor.FootprintScale(footprint, paper))
	ns := func(v float64) string { return strconv.FormatFloat(max(1, math.Round(v)), 'f', 0, 64) }
	return map[string]string{
		"uvm.ea.short_window_ns": ns(c.ShortWindowNs),
		"uvm.ea.long_window_ns":  ns(c.LongWindowNs),
		"uvm.ea.eval_period_ns":  ns(c.EvalPeriodNs),
	}
}

// footprintAt is the footprint of workload on one GPU at scale (seed 1,
// the specs' seed), from its set-up alone.
func footprintAt(workload string, scale float64) (uint64, error) {
	alloc, _, err := setupAt(workload, scale)
	if err != nil {
		return 0, err
	}
	return alloc.Footprint(), nil
}

// setupAt sets workload up on one GPU at scale (0: 1) with the specs'
// seed, without simulating it.
func setupAt(workload string, scale float64) (*objtable.Allocator, []benchmarks.Kernel, error) {
	return setupOn(workload, scale, 1)
}

// setupOn sets workload up for gpus GPUs at scale (0: 1) with the specs'
// seed, without simulating it.
func setupOn(workload string, scale float64, gpus int) (*objtable.Allocator, []benchmarks.Kernel, error) {
	w, err := benchmarks.New(workload)
	if err != nil {
		return nil, nil, err
	}
	alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits}, 2<<20)
	if err != nil {
		return nil, nil, err
	}
	if scale == 0 {
		scale = 1
	}
	ks, err := w.Setup(alloc, benchmarks.Params{GPUs: gpus, Scale: scale, Size: benchmarks.SizeAuto, Seed: 1})
	if err != nil {
		return nil, nil, fmt.Errorf("workload %s: %w", workload, err)
	}
	return alloc, ks, nil
}

// eaAdaptiveSpecs are the Early-Adaptor runs at the given points, one spec
// per workload for its windows.
func eaAdaptiveSpecs(w []string, scale float64, overs ...string) ([]sweep.Spec, error) {
	var out []sweep.Spec
	for _, wl := range w {
		fp, err := footprintAt(wl, scale)
		if err != nil {
			return nil, err
		}
		sets := fixed(eaAdaptive(over150))
		for k, v := range eaWindows(wl, fp) {
			sets[k] = []string{v}
		}
		out = append(out, spec([]string{wl}, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", overs...)))
	}
	return out, nil
}

// eaStaticSpecs are every static threshold at the given points: the tree
// at each threshold below 100, and prefetch off for 100 (eaStatic).
func eaStaticSpecs(w []string, overs ...string) []sweep.Spec {
	sets := withSweep(fixed(eaStatic(over150, 51)), "uvm.prefetch.threshold", tbnThresholds()...)
	off := withSweep(fixed(eaOff(over150)), "oversubscribe", overs...)
	return []sweep.Spec{
		spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", overs...)),
		spec(w, []string{oversubPolicy}, []int{1}, "", off),
	}
}

func staticLabel(t int) string { return fmt.Sprintf("static %d%%", t) }

// eaThreshold is EA's threshold sweep (the poster's "Performances of GPUs
// under different prefetch threshold", a figure whose number is lost in
// the extracted text): the speedup of every static threshold over
// prefetching disabled, at 100% and 150%.
func eaThreshold() Figure {
	var series []Series
	for _, o := range []string{over100, over150} {
		base := eaSel(eaOff(o))
		for _, t := range EAThresholds {
			series = append(series, Series{Label: fmt.Sprintf("thr %d @%s", t, overLabel(o)), Run: eaSel(eaStatic(o, t)), Base: base, Metric: Speedup})
		}
	}
	return Figure{Name: "ea-threshold", Title: "Early-Adaptor threshold sweep: static TBN thresholds over prefetch off (RTX 3090) at 100% and 150%",
		YLabel: "speedup over prefetch off", Workloads: EAWorkloads,
		Specs:  func(w []string) []sweep.Spec { return eaStaticSpecs(w, over100, over150) },
		Series: series, Summary: classRows}
}

// eaFig13 is EA Fig. 13(b): each static threshold and Early-Adaptor over
// the static 51% threshold at 150%, with OPT the best static threshold per
// class.
func eaFig13() Figure {
	return eaFig13At(over150, "ea-fig13", "Early-Adaptor Fig. 13(b): speedup over the static 51% threshold at 150% (RTX 3090)")
}

// eaFig13a is EA Fig. 13(a): the same without oversubscription, where no
// eviction ever sets Early-Adaptor's blocks to 100%.
func eaFig13a() Figure {
	return eaFig13At(over100, "ea-fig13a", "Early-Adaptor Fig. 13(a): speedup over the static 51% threshold without oversubscription (RTX 3090)")
}

func eaFig13At(over, name, title string) Figure {
	base := eaSel(eaStatic(over, 51))
	var series []Series
	for _, t := range EAThresholds {
		series = append(series, Series{Label: staticLabel(t), Run: eaSel(eaStatic(over, t)), Base: base, Metric: Speedup})
	}
	series = append(series, Series{Label: "EA", Run: eaAdaptiveSel(over), Base: base, Metric: Speedup})
	keep := []string{"EA"}
	for _, t := range EAThresholds {
		keep = append(keep, staticLabel(t))
	}
	return Figure{Name: name, Title: title, YLabel: "speedup over static 51%", Workloads: EAWorkloads, SpecsAt: eaSpecsAt(over),
		Series: series, Summary: func(t plots.Table) plots.Table { return eaOPT(t, "", []string{""}, keep) }}
}

// eaFig14Metrics are the migration measures of EA Fig. 14 (count and size)
// and of its characterisation (eviction size).
var eaFig14Metrics = []struct {
	Label  string
	Metric Metric
}{{"pages migrated", MigratedPages}, {"pages prefetched", PrefetchedPages}, {"PCIe bytes", PCIeBytes}, {"pages evicted", EvictedPages}}

// eaFig14 is EA Fig. 14: how much Early-Adaptor, static 1% and 100% and
// OPT migrate at 150%, over the static 51% baseline. OPT is the threshold
// eaFig13 picks (best speedup per class), so the figure carries the
// speedups as hidden columns.
func eaFig14() Figure {
	base := eaSel(eaStatic(over150, 51))
	var series []Series
	for _, t := range EAThresholds {
		series = append(series, Series{Label: "speedup: " + staticLabel(t), Run: eaSel(eaStatic(over150, t)), Base: base, Metric: Speedup})
	}
	var groups []string
	for _, m := range eaFig14Metrics {
		groups = append(groups, m.Label)
		series = append(series, Series{Label: m.Label + ": EA", Run: eaAdaptiveSel(over150), Base: base, Metric: m.Metric})
		for _, t := range EAThresholds {
			series = append(series, Series{Label: m.Label + ": " + staticLabel(t), Run: eaSel(eaStatic(over150, t)), Base: base, Metric: m.Metric})
		}
	}
	keep := []string{"EA", staticLabel(1), staticLabel(100)}
	return Figure{Name: "ea-fig14", Title: "Early-Adaptor Fig. 14: migrations at 150% over the static 51% threshold (RTX 3090)",
		YLabel: "ratio to static 51%", Workloads: EAWorkloads, SpecsAt: eaSpecsAt(over150),
		Series: series, Summary: func(t plots.Table) plots.Table { return eaOPT(t, "speedup", groups, keep) }}
}

// eaSpecsAt are the runs of EA Fig. 13 and 14 at over: every static
// threshold (OPT needs them all) and Early-Adaptor.
func eaSpecsAt(over string) func(w []string, scale float64) ([]sweep.Spec, error) {
	return func(w []string, scale float64) ([]sweep.Spec, error) {
		ea, err := eaAdaptiveSpecs(w, scale, over)
		if err != nil {
			return nil, err
		}
		return append(eaStaticSpecs(w, over), ea...), nil
	}
}

// classOf is an application's Early-Adaptor class, "" for none.
func classOf(app string) string {
	w, err := benchmarks.New(app)
	if err != nil {
		return ""
	}
	return benchmarks.ClassOf(w)
}

// OPTThresholds picks, for each Early-Adaptor class, the static threshold
// with the highest geometric mean over the class's applications of
// speedup(app, threshold), the value of column label(threshold) in t's
// application rows (t.Apps without "average"). Only applications with
// every threshold's value count. The geometric mean makes the pick the
// same whatever each application's speedups are normalised to (static
// 51% or prefetch off); ties go to the lower threshold.
func OPTThresholds(t plots.Table, label func(threshold int) string) map[string]int {
	col := map[string]int{}
	for i, l := range t.Series {
		col[l] = i
	}
	sum, n := map[string][]float64{}, map[string]int{}
	for i, app := range t.Apps {
		class := classOf(app)
		if class == "" {
			continue
		}
		logs := make([]float64, len(EAThresholds))
		complete := true
		for j, th := range EAThresholds {
			c, ok := col[label(th)]
			if !ok || !(t.Values[i][c] > 0) || math.IsInf(t.Values[i][c], 0) {
				complete = false
				break
			}
			logs[j] = math.Log(t.Values[i][c])
		}
		if !complete {
			continue
		}
		if sum[class] == nil {
			sum[class] = make([]float64, len(EAThresholds))
		}
		for j := range logs {
			sum[class][j] += logs[j]
		}
		n[class]++
	}
	best := map[string]int{}
	for class, s := range sum {
		j := 0
		for k := range s {
			if s[k] > s[j] {
				j = k
			}
		}
		best[class] = EAThresholds[j]
	}
	return best
}

// eaOPT rebuilds an EA table: for each group (a column prefix "group: ",
// or "" for none), the keep columns and an OPT column, each application's
// value at its class's OPT threshold (OPTThresholds over the by group's
// static columns, the speedups over static 51%); then classRows. OPT's
// label names the threshold of each class.
func eaOPT(t plots.Table, by string, groups, keep []string) plots.Table {
	label := func(g, c string) string {
		if g == "" {
			return c
		}
		return g + ": " + c
	}
	apps := t.Apps
	if n := len(apps); n > 0 && apps[n-1] == "average" {
		apps = apps[:n-1]
	}
	rows := plots.Table{Series: t.Series, Apps: apps, Values: t.Values[:len(apps)]}
	best := OPTThresholds(rows, func(th int) string { return label(by, staticLabel(th)) })
	opt := "OPT"
	for _, class := range benchmarks.Classes() {
		if th, ok := best[class]; ok {
			opt += fmt.Sprintf(" %s=%d%%", class, th)
		}
	}
	col := map[string]int{}
	for i, l := range t.Series {
		col[l] = i
	}
	out := plots.Table{Apps: slices.Clone(apps)}
	for _, g := range groups {
		for _, c := range keep {
			out.Series = append(out.Series, label(g, c))
		}
		out.Series = append(out.Series, label(g, opt))
	}
	for i, app := range apps {
		var row []float64
		for _, g := range groups {
			for _, c := range keep {
				row = append(row, cell(rows, i, col, label(g, c)))
			}
			v := nan
			if th, ok := best[classOf(app)]; ok {
				v = cell(rows, i, col, label(g, staticLabel(th)))
			}
			row = append(row, v)
		}
		out.Values = append(out.Values, row)
	}
	return classRows(out)
}

func cell(t plots.Table, row int, col map[string]int, label string) float64 {
	if c, ok := col[label]; ok {
		return t.Values[row][c]
	}
	return nan
}

// classRows ends a table of application rows (an "average" row, as Reduce
// writes, is dropped and recomputed) with one arithmetic mean per
// Early-Adaptor class present ("avg regular", ...), the arithmetic mean
// over the applications ("average", as every figure has) and their
// geometric mean ("geomean", as UVMMU and EA average speedups). Each mean
// skips missing values; a geometric mean over a value <= 0 is missing.
func classRows(t plots.Table) plots.Table {
	return groupRows(t, classOf, benchmarks.Classes())
}

// groupRows is classRows over any grouping of the applications: groupOf
// names an application's group ("" for none), groups are listed in order.
func groupRows(t plots.Table, groupOf func(app string) string, groups []string) plots.Table {
	if n := len(t.Apps); n > 0 && t.Apps[n-1] == "average" {
		t.Apps, t.Values = t.Apps[:n-1], t.Values[:n-1]
	}
	out := plots.Table{Series: t.Series, Apps: slices.Clone(t.Apps), Values: slices.Clone(t.Values)}
	mean := func(rows []int, geo bool) []float64 {
		m := make([]float64, len(t.Series))
		for c := range m {
			sum, n := 0.0, 0
			for _, r := range rows {
				v := t.Values[r][c]
				if v != v {
					continue
				}
				if geo {
					if !(v > 0) {
						sum, n = nan, 1
						break
					}
					v = math.Log(v)
				}
				sum += v
				n++
			}
			m[c] = nan
			if n > 0 {
				m[c] = sum / float64(n)
				if geo {
					m[c] = math.Exp(m[c])
				}
			}
		}
		return m
	}
	var all []int
	byClass := map[string][]int{}
	for i, app := range t.Apps {
		all = append(all, i)
		if c := groupOf(app); c != "" {
			byClass[c] = append(byClass[c], i)
		}
	}
	for _, c := range groups {
		if rows := byClass[c]; len(rows) > 0 {
			out.Apps = append(out.Apps, "avg "+c)
			out.Values = append(out.Values, mean(rows, false))
		}
	}
	out.Apps = append(out.Apps, "average", "geomean")
	out.Values = append(out.Values, mean(all, false), mean(all, true))
	return out
}

// UVMMUFaultLatencies are UVMMU Fig. 1's software fault-handling
// latencies in ns: 50, 20 and 0 us.
var UVMMUFaultLatencies = []string{"50000", "20000", "0"}

// uvmmuUM is UVMMU's "NVIDIA UM" baseline as UVMSmart's GPGPU-Sim models it
// (UVMMU §II-B and §V-A1; the 2 MB LRU eviction is that simulator's
// default, not stated in the paper): the GTX 1080 Ti, the tree prefetcher
// with the "more than half" rule (threshold 50) over 64 KB leaves
// (big-page fill on, the default), LRU eviction of 2 MB (-eviction_policy
// 0), one fault batch at a time. The handling latency is charged as that
// simulator charges it, per distinct newly faulting page, serially
// (uvm.per_fault_charge=new-pages, whose doc gives the source), on
// uvmmuLatencyKey; no fixed time per batch. mgpu's default charges a
// batch (the multi-GPU lineage's); docs/uvmmu.md compares the two.
func uvmmuUM() []string {
	return join(gtx1080ti, []string{"uvm.host_threads", "0", "uvm.fault_service_ns", "0", "uvm.per_fault_charge", "new-pages",
		"uvm.prefetch.policy", "tbn", "uvm.prefetch.threshold", "50", "uvm.eviction", "lru-2mb"})
}

// uvmmuLatencyKey carries the UM baseline's handling latency: per new
// page, as UVMSmart's simulator charges it.
const uvmmuLatencyKey = "uvm.per_fault_ns"

func uvmmuSel(latency, over string) Selector {
	return sel(oversubPolicy, 1, join(uvmmuUM(), []string{uvmmuLatencyKey, latency, "oversubscribe", over})...)
}

// uvmmuFig1 is UVMMU Fig. 1: the speedup of 20 us and 0 us fault handling
// over 50 us, at 100%, 125% and 150% (each over 50 us at the same point).
func uvmmuFig1() Figure {
	var series []Series
	for _, o := range []string{over100, over125, over150} {
		base := uvmmuSel(UVMMUFaultLatencies[0], o)
		for _, l := range UVMMUFaultLatencies[1:] {
			us, _ := strconv.Atoi(l)
			series = append(series, Series{Label: fmt.Sprintf("%dus @%s", us/1000, overLabel(o)), Run: uvmmuSel(l, o), Base: base, Metric: Speedup})
		}
	}
	return Figure{Name: "uvmmu-fig1", Title: "UVMMU Fig. 1: fault latency 20 and 0 us over 50 us (GTX 1080 Ti, NVIDIA UM) at 100/125/150%",
		YLabel: "speedup over 50 us faults", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs: func(w []string) []sweep.Spec {
			sets := withSweep(fixed(uvmmuUM()), uvmmuLatencyKey, UVMMUFaultLatencies...)
			return []sweep.Spec{spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", over100, over125, over150))}
		},
		Series: series, Summary: classRows}
}

// UVMMUEvictions are UVMMU Fig. 5's victim choices under hardware
// handling: the paper's Linear-Random first, then Sequential-local, Tree-
// based and NRU.
var UVMMUEvictions = []string{"linear-random", "sequential-local", "tbn", "nru"}

// uvmmuHW is UVMMU on the GTX 1080 Ti: hardware fault handling, no
// prefetcher, victims chosen by ev.
func uvmmuHW(ev string) []string {
	return join(gtx1080ti, []string{"uvm.fault_handling", "hardware", "uvm.eviction", ev})
}

func uvmmuHWSel(ev, over string) Selector {
	return sel(oversubPolicy, 1, join(uvmmuHW(ev), []string{"oversubscribe", over})...)
}

// uvmmuBaselineLatency is the NVIDIA UM baseline's software handling,
// 45 us (UVMMU Table I; UVMSmart's page_fault_latency).
const uvmmuBaselineLatency = "45000"

func uvmmuHWSpec(w []string, evs []string, overs ...string) sweep.Spec {
	sets := withSweep(fixed(uvmmuHW(evs[0])), "uvm.eviction", evs...)
	return spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", overs...))
}

func uvmmuUMSpec(w []string, overs ...string) sweep.Spec {
	sets := withSweep(fixed(uvmmuUM()), uvmmuLatencyKey, uvmmuBaselineLatency)
	return spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", overs...))
}

// uvmmuSmart is UVMSmart (DATE'21) as UVMMU Fig. 4's middle bar: the
// NVIDIA UM baseline with UVMSmart's runtime, which at the first eviction
// may turn on zero-copy and tree eviction (package uvmsmart).
func uvmmuSmart() []string {
	return join(uvmmuUM(), []string{uvmmuLatencyKey, uvmmuBaselineLatency, "uvm.adaptive", "uvmsmart"})
}

func uvmmuSmartSel(over string) Selector {
	return sel(oversubPolicy, 1, join(uvmmuSmart(), []string{"oversubscribe", over})...)
}

func uvmmuSmartSpec(w []string, overs ...string) sweep.Spec {
	return spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(fixed(uvmmuSmart()), "oversubscribe", overs...))
}

// uvmmuFig4 is UVMMU Fig. 4: UVMSmart's and UVMMU's speedups over NVIDIA
// UM (45 us software handling, tree prefetch, LRU 2 MB) at 100, 125 and
// 150%, and UVMMU's over UVMSmart (the paper's 2.21x and 2.40x).
func uvmmuFig4() Figure {
	overs := []string{over100, over125, over150}
	var series []Series
	for _, o := range overs {
		um := uvmmuSel(uvmmuBaselineLatency, o)
		series = append(series,
			Series{Label: "UVMSmart @" + overLabel(o), Run: uvmmuSmartSel(o), Base: um, Metric: Speedup},
			Series{Label: "UVMMU @" + overLabel(o), Run: uvmmuHWSel("linear-random", o), Base: um, Metric: Speedup})
	}
	for _, o := range overs {
		series = append(series, Series{Label: "UVMMU/UVMSmart @" + overLabel(o), Run: uvmmuHWSel("linear-random", o),
			Base: uvmmuSmartSel(o), Metric: Speedup})
	}
	return Figure{Name: "uvmmu-fig4", Title: "UVMMU Fig. 4: UVMSmart and UVMMU over NVIDIA UM (GTX 1080 Ti) at 100/125/150%",
		YLabel: "speedup over NVIDIA UM", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{uvmmuUMSpec(w, overs...), uvmmuSmartSpec(w, overs...), uvmmuHWSpec(w, UVMMUEvictions[:1], overs...)}
		},
		Series: series, Summary: classRows}
}

// uvmmuFig5 is UVMMU Fig. 5: each victim choice under UVMMU, as a speedup
// over Linear-Random at 125% and 150%.
func uvmmuFig5() Figure {
	overs := []string{over125, over150}
	var series []Series
	for _, o := range overs {
		for _, ev := range UVMMUEvictions[1:] {
			series = append(series, Series{Label: ev + " @" + overLabel(o), Run: uvmmuHWSel(ev, o),
				Base: uvmmuHWSel(UVMMUEvictions[0], o), Metric: Speedup})
		}
	}
	return Figure{Name: "uvmmu-fig5", Title: "UVMMU Fig. 5: victim choice under UVMMU, speedup over Linear-Random at 125/150%",
		YLabel: "speedup over linear-random", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs:  func(w []string) []sweep.Spec { return []sweep.Spec{uvmmuHWSpec(w, UVMMUEvictions, overs...)} },
		Series: series, Summary: classRows}
}

// uvmmuFig6 is UVMMU Fig. 6: execution time from 100% to 200%, over the
// same system's at 100%, for UVMMU, NVIDIA UM and UVMSmart (the paper's
// third curve, which it reports failing beyond 150%).
func uvmmuFig6() Figure {
	overs := []string{over100, over125, over150, over175, over200}
	var series []Series
	for _, o := range overs[1:] {
		series = append(series, Series{Label: "UVMMU @" + overLabel(o), Run: uvmmuHWSel("linear-random", o),
			Base: uvmmuHWSel("linear-random", over100), Metric: Slowdown})
	}
	for _, o := range overs[1:] {
		series = append(series, Series{Label: "UM @" + overLabel(o), Run: uvmmuSel(uvmmuBaselineLatency, o),
			Base: uvmmuSel(uvmmuBaselineLatency, over100), Metric: Slowdown})
	}
	for _, o := range overs[1:] {
		series = append(series, Series{Label: "UVMSmart @" + overLabel(o), Run: uvmmuSmartSel(o),
			Base: uvmmuSmartSel(over100), Metric: Slowdown})
	}
	return Figure{Name: "uvmmu-fig6", Title: "UVMMU Fig. 6: execution time at 125-200% over 100% (UVMMU, NVIDIA UM and UVMSmart)",
		YLabel: "time over 100%", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{uvmmuUMSpec(w, overs...), uvmmuSmartSpec(w, overs...), uvmmuHWSpec(w, UVMMUEvictions[:1], overs...)}
		},
		Series: series, Summary: classRows}
}

// oversubFigures are the single-GPU oversubscription figures.
func oversubFigures() []Figure {
	return append(sized(EAWorkloads, EAPaperScales(), EASimilarScales, []Figure{eaThreshold(), eaFig13(), eaFig13a(), eaFig14()}),
		uvmmuFig1(), uvmmuFig4(), uvmmuFig5(), uvmmuFig6())
}
