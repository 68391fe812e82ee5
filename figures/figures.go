// Package figures names the OASIS (and GRIT, Early-Adaptor, UVMMU) figures as sweeps plus a
// reduction: which runs a figure needs, and how their results become one
// value per application and series. Drawing is package plots' job: it
// works from the table's CSV alone.
package figures

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mgpu-sim/mgpu/benchmarks"
	_ "github.com/mgpu-sim/mgpu/benchmarks/all" // registers every workload
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/sweep"
)

// PaperWorkloads are the eleven OASIS applications (Table II), in the
// paper's order.
var PaperWorkloads = []string{"bfs", "c2d", "fft", "i2c", "mm", "mt", "pr", "st", "lenet", "vgg16", "resnet18"}

// Available lists the paper workloads this build has.
func Available() []string {
	have := benchmarks.Names()
	var out []string
	for _, w := range PaperWorkloads {
		if slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// Selector picks one run per application: by policy, GPU count and the
// exact set of overrides.
type Selector struct {
	Policy string
	GPUs   int
	Sets   map[string]string
	// PerRun, if set, gives more sets that depend on the run itself
	// (Early-Adaptor's windows scale with the run's footprint); they join
	// Sets when matching r.
	PerRun func(r *platform.Result) map[string]string
}

// match compares the effective values of every overridden key, not the
// override lists: runs are cached by their full config, so a figure that
// sets a key to its default (fig16's threshold 8) reuses a run made
// without the override, and must still find it.
func (s Selector) match(r *platform.Result) bool {
	if r.Policy != s.Policy || s.GPUs != 0 && r.GPUs != s.GPUs {
		return false
	}
	sSets := s.Sets
	if s.PerRun != nil {
		sSets = maps.Clone(s.Sets)
		if sSets == nil {
			sSets = map[string]string{}
		}
		maps.Copy(sSets, s.PerRun(r))
	}
	if maps.Equal(sSets, r.Sets) {
		return true
	}
	// A key the run's policy or workload ignores is not in its sets (the
	// sweep leaves it out): one on-touch run serves every OASIS threshold.
	want := config.DefaultConfig()
	for k, v := range sSets {
		if !platform.Affects(k, r.Policy, r.Workload) {
			continue
		}
		if want.Set(k+"="+v) != nil {
			return false
		}
	}
	have, wanted := configValues(r.Config), configValues(want)
	for _, sets := range []map[string]string{r.Sets, sSets} {
		for k := range sets {
			if platform.Affects(k, r.Policy, r.Workload) && have[k] != wanted[k] {
				return false
			}
		}
	}
	return true
}

func configValues(c config.Config) map[string]string {
	out := map[string]string{}
	for _, k := range config.Keys(c) {
		out[k.Key] = k.Value
	}
	return out
}

// Metric is what a series plots.
type Metric int

// Metrics.
const (
	// Speedup is the baseline's sim time over the run's.
	Speedup Metric = iota
	// Faults is the run's page faults over the baseline's.
	Faults
	// ShareOnTouch, ShareAccessCounter and ShareDuplication are the share
	// of the run's L2 TLB misses under each PTE policy-bit value.
	ShareOnTouch
	ShareAccessCounter
	ShareDuplication
	// MigratedPages, PrefetchedPages, PCIeBytes and EvictedPages are the
	// run's host-to-GPU page migrations (prefetches included), prefetched
	// pages, bytes over PCIe and evicted pages over the baseline's.
	MigratedPages
	PrefetchedPages
	PCIeBytes
	EvictedPages
	// Slowdown is the run's sim time over the baseline's.
	Slowdown
	// VictimsWhole and VictimBlocks are, of the run's victim chunks
	// (uvm.eviction_census), the share with every 64 KB block accessed
	// while resident and the mean share of blocks accessed.
	VictimsWhole
	VictimBlocks
)

// Series is one bar per application.
type Series struct {
	Label  string
	Run    Selector
	Base   Selector
	Metric Metric
}

// Figure is a named experiment.
type Figure struct {
	// Doc names docs/<Doc>.md, which sets the figure beside its paper
	// (set by All from the registration).
	Doc                 string
	Name, Title, YLabel string
	// Stacked draws the series on top of each other (shares).
	Stacked bool
	// Specs are the sweeps the figure needs (their union).
	Specs  func(workloads []string) []sweep.Spec
	Series []Series
	// Summary, if set, replaces the per-application table (the ablation
	// shows one row per step of averages).
	Summary func(plots.Table) plots.Table
	// Workloads, if set, are the figure's own applications, in table
	// order, instead of the paper workloads the command passes (the
	// oversubscription figures run the single-GPU UVMSmart/EA set).
	Workloads []string
	// SpecsAt, if set, replaces Specs when the specs depend on the scale
	// (Early-Adaptor's windows follow the run's footprint).
	SpecsAt func(workloads []string, scale float64) ([]sweep.Spec, error)
	// PaperScales and SimilarScales, if set, are each workload's scale at
	// the paper's own input (SizePaper) and at the smallest size where the
	// paper's mechanisms see the paper's counts (SizeSimilar). The OASIS
	// figures need neither: scale 1 is their paper's Table II or III size.
	PaperScales, SimilarScales map[string]float64
	// seeds, when above 1, runs every configuration on seeds 1..seeds
	// (WithSeeds).
	seeds int
}

// WithSeeds is f run on seeds 1 to n: its table holds each value's mean
// over the seeds, each run paired with its baseline on the same seed,
// and the spread as a "<series> min" and a "<series> max" column, which
// the plot draws as whiskers (a figure with a Summary gets the means
// only). n of 1 or less is f.
func (f Figure) WithSeeds(n int) Figure {
	if n <= 1 {
		return f
	}
	f.seeds = n
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	specs, specsAt := f.Specs, f.SpecsAt
	seeded := func(ss []sweep.Spec) []sweep.Spec {
		out := slices.Clone(ss)
		for i := range out {
			out[i].Seeds = seeds
		}
		return out
	}
	if specs != nil {
		f.Specs = func(w []string) []sweep.Spec { return seeded(specs(w)) }
	}
	if specsAt != nil {
		f.SpecsAt = func(w []string, scale float64) ([]sweep.Spec, error) {
			ss, err := specsAt(w, scale)
			return seeded(ss), err
		}
	}
	return f
}

// sized gives each of figs that runs exactly workloads the paper's and the
// similar size's scales (either may be nil).
func sized(workloads []string, paper, similar map[string]float64, figs []Figure) []Figure {
	for i := range figs {
		if slices.Equal(figs[i].Workloads, workloads) {
			figs[i].PaperScales, figs[i].SimilarScales = paper, similar
		}
	}
	return figs
}

// The sizes a figure runs at (mgpu figure --size).
const (
	// SizeDefault is every workload at scale 1.
	SizeDefault = "default"
	// SizePaper is the paper's own input (Figure.PaperScales).
	SizePaper = "paper"
	// SizeSimilar keeps the quantities that drive the paper's mechanisms
	// at the paper's values (Figure.SimilarScales).
	SizeSimilar = "similar"
)

// Sizes lists the sizes the figure runs at.
func (f Figure) Sizes() []string {
	out := []string{SizeDefault}
	if f.PaperScales != nil || f.Workloads == nil {
		out = append(out, SizePaper)
	}
	if f.SimilarScales != nil {
		out = append(out, SizeSimilar)
	}
	return out
}

// scales is each workload's scale at size, before --scale multiplies it;
// nil means scale 1 for every workload.
func (f Figure) scales(size string) (map[string]float64, error) {
	if !slices.Contains(f.Sizes(), size) {
		return nil, fmt.Errorf("figure %s: size %q: valid sizes are %s", f.Name, size, strings.Join(f.Sizes(), ", "))
	}
	switch size {
	case SizePaper:
		return f.PaperScales, nil
	case SizeSimilar:
		return f.SimilarScales, nil
	}
	return nil, nil
}

func sel(policy string, gpus int, kv ...string) Selector {
	s := Selector{Policy: policy, GPUs: gpus}
	if len(kv) > 0 {
		s.Sets = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			s.Sets[kv[i]] = kv[i+1]
		}
	}
	return s
}

func speedups(base Selector, runs ...Selector) []Series {
	var out []Series
	for _, r := range runs {
		label := r.Policy
		for _, k := range slices.Sorted(maps.Keys(r.Sets)) {
			label += " " + k[strings.LastIndex(k, ".")+1:] + "=" + r.Sets[k]
		}
		if r.GPUs != base.GPUs || r.GPUs != 4 {
			label += fmt.Sprintf(" %dGPU", r.GPUs)
		}
		out = append(out, Series{Label: label, Run: r, Base: base, Metric: Speedup})
	}
	return out
}

func spec(w []string, policies []string, gpus []int, size string, sets map[string][]string) sweep.Spec {
	return sweep.Spec{Workloads: w, Policies: policies, GPUs: gpus, Size: size, Sets: sets}
}

// Names lists the figure names.
func Names() []string {
	var n []string
	for _, f := range All() {
		n = append(n, f.Name)
	}
	return n
}

// Lookup returns the named figure or an error listing the valid names.
func Lookup(name string) (Figure, error) {
	for _, f := range All() {
		if f.Name == name {
			return f, nil
		}
	}
	all := append(append(Names(), CharNames()...), CharAll)
	return Figure{}, fmt.Errorf("unknown figure %q: valid figures are %s", name, strings.Join(all, ", "))
}

// Runs expands the figure's specs for the given workloads at scale,
// without duplicates.
func (f Figure) Runs(workloads []string, scale float64) ([]sweep.Run, error) {
	return f.RunsAt(workloads, SizeDefault, scale)
}

// RunsAt expands the figure's specs at size, each workload's scale there
// times scale, without duplicates.
func (f Figure) RunsAt(workloads []string, size string, scale float64) ([]sweep.Run, error) {
	specs, err := f.SizedSpecs(workloads, size, scale)
	if err != nil {
		return nil, err
	}
	return Expand(specs)
}

// SizedSpecs are the sweeps RunsAt expands: the figure's specs at size,
// each workload's scale there times scale. Sizing them may build
// workloads (Early-Adaptor's windows follow the footprint); expanding them
// builds none, and Count counts their runs without expanding them.
func (f Figure) SizedSpecs(workloads []string, size string, scale float64) ([]sweep.Spec, error) {
	if f.Workloads != nil {
		workloads = f.Workloads
	}
	scales, err := f.scales(size)
	if err != nil {
		return nil, err
	}
	groups := [][]string{workloads} // one expansion at one scale
	if scales != nil {
		groups = groups[:0]
		for _, w := range workloads {
			groups = append(groups, []string{w})
		}
	}
	var out []sweep.Spec
	for _, ws := range groups {
		sc := scale
		if scales != nil {
			s, ok := scales[ws[0]]
			if !ok {
				return nil, fmt.Errorf("figure %s: no %s size for workload %s", f.Name, size, ws[0])
			}
			sc *= s
		}
		specs, err := f.specsAt(ws, sc)
		if err != nil {
			return nil, err
		}
		for _, s := range specs {
			s.Scale = sc
			out = append(out, s)
		}
	}
	return out, nil
}

// Count is how many runs specs expand to at most (a run two specs share
// counts twice), counted without expanding them, or the first spec's
// error. A count beyond the largest int is that int.
func Count(specs []sweep.Spec) (int, error) {
	n := 0
	for i := range specs {
		c, err := specs[i].Count()
		if err != nil {
			return 0, err
		}
		if c > math.MaxInt-n {
			return math.MaxInt, nil
		}
		n += c
	}
	return n, nil
}

// Expand lists the runs of specs in order, each once.
func Expand(specs []sweep.Spec) ([]sweep.Run, error) {
	seen := map[string]bool{}
	var runs []sweep.Run
	for _, s := range specs {
		rs, err := s.Expand()
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if h := r.Hash(); !seen[h] {
				seen[h] = true
				runs = append(runs, r)
			}
		}
	}
	return runs, nil
}

func (f Figure) specsAt(workloads []string, scale float64) ([]sweep.Spec, error) {
	if f.SpecsAt != nil {
		return f.SpecsAt(workloads, scale)
	}
	return f.Specs(workloads), nil
}

// Reduce turns results into the figure's table: one row per application,
// then an "average" row (the arithmetic mean over applications, as the
// paper's averages are), one column per series, NaN where a run is
// missing.
func (f Figure) Reduce(results []*platform.Result) plots.Table {
	t := plots.Table{}
	for _, s := range f.Series {
		t.Series = append(t.Series, s.Label)
	}
	apps := map[string]bool{}
	for _, r := range results {
		apps[r.Workload] = true
	}
	order := PaperWorkloads
	if f.Workloads != nil {
		order = f.Workloads
	}
	for _, w := range order {
		if apps[w] {
			t.Apps = append(t.Apps, w)
			delete(apps, w)
		}
	}
	t.Apps = append(t.Apps, sortedKeys(apps)...)
	// seed 0 takes a run of any seed: a figure on one seed matches the
	// runs cached before seeds were a figure's.
	seeds := []uint64{0}
	if f.seeds > 1 {
		seeds = seeds[:0]
		for k := 1; k <= f.seeds; k++ {
			seeds = append(seeds, uint64(k))
		}
	}
	find := func(app string, s Selector, seed uint64) *platform.Result {
		for _, r := range results {
			if r.Workload == app && (seed == 0 || r.Seed == seed) && s.match(r) {
				return r
			}
		}
		return nil
	}
	// per[k][app][series] is seed k's value; the average row is each
	// seed's mean over the applications it has.
	per := make([][][]float64, len(seeds))
	for k, seed := range seeds {
		for _, app := range t.Apps {
			row := make([]float64, len(f.Series))
			for i, s := range f.Series {
				row[i] = value(s, find(app, s.Run, seed), find(app, s.Base, seed))
			}
			per[k] = append(per[k], row)
		}
		per[k] = append(per[k], columnMeans(per[k], len(f.Series)))
	}
	t.Apps = append(t.Apps, "average")
	for a := range t.Apps {
		row := make([]float64, len(f.Series))
		for i := range row {
			row[i] = meanOf(per, a, i)
		}
		t.Values = append(t.Values, row)
	}
	if f.Summary != nil {
		return f.Summary(t) // of the means: a summary row has no per-seed spread
	}
	if len(seeds) > 1 {
		t = withSpread(t, per)
	}
	return t
}

// columnMeans is each column's mean over rows, NaN ignored (NaN when
// every row's is).
func columnMeans(rows [][]float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		sum, cnt := 0.0, 0
		for _, r := range rows {
			if r[i] == r[i] {
				sum += r[i]
				cnt++
			}
		}
		out[i] = nan
		if cnt > 0 {
			out[i] = sum / float64(cnt)
		}
	}
	return out
}

// meanOf is the mean over seeds of per[k][a][i], NaN ignored.
func meanOf(per [][][]float64, a, i int) float64 {
	rows := make([][]float64, len(per))
	for k := range per {
		rows[k] = []float64{per[k][a][i]}
	}
	return columnMeans(rows, 1)[0]
}

// withSpread adds each series' smallest and largest value over the seeds
// as "<series> min" and "<series> max" columns.
func withSpread(t plots.Table, per [][][]float64) plots.Table {
	n := len(t.Series)
	for i := range n {
		t.Series = append(t.Series, t.Series[i]+plots.MinSuffix, t.Series[i]+plots.MaxSuffix)
	}
	for a := range t.Values {
		for i := range n {
			lo, hi := nan, nan
			for k := range per {
				v := per[k][a][i]
				if v == v && !(v >= lo) {
					lo = v
				}
				if v == v && !(v <= hi) {
					hi = v
				}
			}
			t.Values[a] = append(t.Values[a], lo, hi)
		}
	}
	return t
}

// stepAverages turns a table whose series are labelled "step: policy" into
// one row per step and one column per policy, each the average over the
// applications: the ablation's summary.
func stepAverages(t plots.Table) plots.Table {
	avg := t.Values[len(t.Values)-1]
	return pivot(t.Series, func(label string) (row, col string) {
		step, policy, _ := strings.Cut(label, ": ")
		return step, policy
	}, func(i int) float64 { return avg[i] })
}

// pivot turns one value per series label into a table: split names each
// label's row and column, in order of first appearance; cells no label
// fills are missing.
func pivot(labels []string, split func(label string) (row, col string), value func(i int) float64) plots.Table {
	out := plots.Table{}
	cols, rows := map[string]int{}, map[string]int{}
	for i, label := range labels {
		rk, ck := split(label)
		if _, ok := cols[ck]; !ok {
			cols[ck] = len(out.Series)
			out.Series = append(out.Series, ck)
		}
		if _, ok := rows[rk]; !ok {
			rows[rk] = len(out.Apps)
			out.Apps = append(out.Apps, rk)
			out.Values = append(out.Values, nil)
		}
		r := rows[rk]
		for len(out.Values[r]) <= cols[ck] {
			out.Values[r] = append(out.Values[r], nan)
		}
		out.Values[r][cols[ck]] = value(i)
	}
	for r := range out.Values {
		for len(out.Values[r]) < len(out.Series) {
			out.Values[r] = append(out.Values[r], nan)
		}
	}
	return out
}

var nan = func() float64 { var z float64; return z / z }()

// victimShare is, of the victim chunks in hist (indexed by blocks
// accessed), the share with every block accessed (whole) or the mean share
// of blocks accessed; NaN without victims.
func victimShare(hist []uint64, whole bool) float64 {
	chunks, blocks := 0.0, 0.0
	for k, n := range hist {
		chunks += float64(n)
		blocks += float64(k) * float64(n)
	}
	if chunks == 0 {
		return nan
	}
	if whole {
		return float64(hist[len(hist)-1]) / chunks
	}
	return blocks / chunks / float64(len(hist)-1)
}

func value(s Series, r, base *platform.Result) float64 {
	if r == nil {
		return nan
	}
	misses := float64(r.Totals.L2MissOnTouch + r.Totals.L2MissAccessCounter + r.Totals.L2MissDuplication)
	share := func(x uint64) float64 {
		if misses == 0 {
			return 0
		}
		return float64(x) / misses
	}
	switch s.Metric {
	case ShareOnTouch:
		return share(r.Totals.L2MissOnTouch)
	case ShareAccessCounter:
		return share(r.Totals.L2MissAccessCounter)
	case ShareDuplication:
		return share(r.Totals.L2MissDuplication)
	case VictimsWhole, VictimBlocks:
		return victimShare(r.EvictedChunkBlocks, s.Metric == VictimsWhole)
	}
	if base == nil {
		return nan
	}
	ratio := func(count func(*platform.Result) uint64) float64 {
		if count(base) == 0 {
			return nan
		}
		return float64(count(r)) / float64(count(base))
	}
	switch s.Metric {
	case Faults:
		return ratio(func(x *platform.Result) uint64 { return x.Totals.PageFaults })
	case MigratedPages:
		return ratio(func(x *platform.Result) uint64 { return x.Totals.MigrationsH2D })
	case PrefetchedPages:
		return ratio(func(x *platform.Result) uint64 { return x.Totals.Prefetches })
	case PCIeBytes:
		return ratio(func(x *platform.Result) uint64 { return x.Totals.BytesPCIe })
	case EvictedPages:
		return ratio(func(x *platform.Result) uint64 { return x.Totals.Evictions })
	case Slowdown:
		return r.SimTimeNs / base.SimTimeNs
	}
	return base.SimTimeNs / r.SimTimeNs
}

func sortedKeys(m map[string]bool) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}
