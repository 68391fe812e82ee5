package figures

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/characterize"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
)

// The characterization figures of OASIS (HPCA 2025) §IV (Fig. 3 to 7),
// its Fig. 20 (§VI-B4) and its Table II are not sweeps of timed runs: they
// are computed from package characterize's observation of a zero-latency
// run (or, for object sizes and counts, from the workloads' set-up alone),
// and each compares mgpu with every number and class the paper states
// about it. The figure logic (characterization_figs.go) is pure: it reads
// characterize.Result's exported fields and a page-class lookup, so it is
// tested on synthetic results.

// CharGPUs and CharSeed are the system of every characterization figure:
// the paper's 4-GPU baseline, seed 1.
const (
	CharGPUs = 4
	CharSeed = 1
)

// CharIntervals is what a figure needs of a result's page classes over
// time.
type CharIntervals int

// The interval kinds.
const (
	// AnyIntervals: the figure does not read the intervals.
	AnyIntervals CharIntervals = iota
	// EqualIntervals: characterize's 8 equal slices of the access order
	// (Fig. 4).
	EqualIntervals
	// PhaseIntervals: one interval per phase (Fig. 7b's iterations).
	PhaseIntervals
)

func (c CharIntervals) String() string {
	switch c {
	case EqualIntervals:
		return "8 intervals"
	case PhaseIntervals:
		return "per phase"
	}
	return "any intervals"
}

// CharNeed is one characterization a figure reads.
type CharNeed struct {
	Workload  string
	Intervals CharIntervals
}

// AppObjects is a workload's allocations, from its set-up alone.
type AppObjects struct {
	Objects   []ObjectInfo
	Footprint uint64
	// Kernels is the number of kernels the set-up returns: launches plus
	// barrier continuations, the phases characterize sees.
	Kernels, Launches int
	// Live is the most objects allocated and not yet freed at any launch,
	// another reading of Table II's "maximum number of objects allocated"
	// (MGPUSim's DNN operators free their scratch after each call). An
	// object counts from the first launch that uses it or a later-allocated
	// one, since the set-up does not say when it was allocated.
	Live int
}

// ObjectInfo is one allocation.
type ObjectInfo struct {
	Name string
	Size uint64
}

// Pages is the number of 4 KB pages the object spans.
func (o ObjectInfo) Pages() uint64 {
	return (o.Size + characterize.SmallPage - 1) / characterize.SmallPage
}

// CharInput is what a figure's Build reads: the characterizations it
// asked for by workload, and the set-up inventory of its Inventory
// workloads.
type CharInput struct {
	Results map[string]*characterize.Result
	Objects map[string]AppObjects
	// Timed are the timed runs the figure asked for (OASIS, OnTouch).
	Timed
}

// CharFigure is one characterization figure.
type CharFigure struct {
	Name, Title string
	// Needs are the characterizations (4 GPUs, seed 1, the figure's scale)
	// the figure reads.
	Needs []CharNeed
	// Inventory are the workloads whose objects the figure reads from
	// their set-up, without simulating.
	Inventory []string
	// OASIS are the workloads the figure reads a timed OASIS run of (at
	// the defaults, 4 GPUs, seed 1, the figure's scale).
	OASIS []string
	// OnTouch are the workloads the figure reads a timed on-touch run of,
	// with its page moves recorded.
	OnTouch []string
	Build   func(in CharInput) CharOutput
}

// CharOutput is a built figure: plots (each with its CSV), further tables
// (CSV and printed), and the comparison with the paper.
type CharOutput struct {
	Plots  []CharPlot
	Tables []TextTable
	Claims []Claim
	Notes  []string
}

// CharPlot is one plotted table: <base><Suffix>.csv, .png and .svg.
type CharPlot struct {
	Suffix, Title, YLabel string
	Stacked               bool
	Table                 plots.Table
}

// TextTable is a table of strings: <base><Suffix>.csv, and printed
// unless CSVOnly (a long listing).
type TextTable struct {
	Suffix, Title string
	Header        []string
	Rows          [][]string
	CSVOnly       bool
}

// Verdict is how mgpu's measurement compares with a statement of the
// paper.
type Verdict string

// Verdicts.
const (
	Agrees  Verdict = "agrees"
	Partly  Verdict = "partly"
	Differs Verdict = "differs"
	// Info: a measurement reported beside a statement that is not a
	// number or class to compare (e.g. "three main phases").
	Info Verdict = "info"
)

// Claim is one statement of the paper beside mgpu's measurement.
type Claim struct {
	Figure, Claim, Paper, MGPU string
	Verdict                    Verdict
}

// shareTolerance is how far (absolute, as a fraction) a measured share
// may be from the paper's and still agree: the paper gives its shares as
// round numbers read off bar charts ("75%", "80%").
const shareTolerance = 0.10

// CharFigures lists the characterization figures.
func CharFigures() []CharFigure {
	return []CharFigure{fig3(), table2(), fig4(), fig5(), fig6(), fig7(), fig20(), uniformity(), oasisDecisions(), pingpong()}
}

// CharAll is the name that builds every characterization figure, sharing
// their runs.
const CharAll = "characterization"

// CharNames lists the characterization figure names.
func CharNames() []string {
	var n []string
	for _, f := range CharFigures() {
		n = append(n, f.Name)
	}
	return n
}

// LookupChar returns the named characterization figures: one, or all of
// them for CharAll.
func LookupChar(name string) ([]CharFigure, bool) {
	if name == CharAll {
		return CharFigures(), true
	}
	for _, f := range CharFigures() {
		if f.Name == name {
			return []CharFigure{f}, true
		}
	}
	return nil, false
}

// PlanChar turns the needs of some figures into the characterizations to
// run, one per workload unless two figures need different specific
// intervals; a need with AnyIntervals reuses the workload's run (equal
// intervals when nothing else asks). Resolve maps a need to its run.
func PlanChar(needs []CharNeed) (runs []CharNeed, resolve func(CharNeed) CharNeed) {
	kinds := map[string][]CharIntervals{}
	var order []string
	for _, n := range needs {
		if _, ok := kinds[n.Workload]; !ok {
			order = append(order, n.Workload)
			kinds[n.Workload] = nil
		}
		if n.Intervals != AnyIntervals && !slices.Contains(kinds[n.Workload], n.Intervals) {
			kinds[n.Workload] = append(kinds[n.Workload], n.Intervals)
		}
	}
	for _, w := range order {
		ks := kinds[w]
		if len(ks) == 0 {
			ks = []CharIntervals{EqualIntervals}
			kinds[w] = ks
		}
		slices.Sort(ks)
		for _, k := range ks {
			runs = append(runs, CharNeed{w, k})
		}
	}
	return runs, func(n CharNeed) CharNeed {
		if n.Intervals == AnyIntervals {
			return CharNeed{n.Workload, kinds[n.Workload][0]}
		}
		return n
	}
}

// CharRun is one finished characterization.
type CharRun struct {
	Need   CharNeed
	Result *characterize.Result
	Wall   time.Duration
}

// charParams are the parameters of every characterization figure's runs.
func charParams(scale float64) benchmarks.Params {
	return benchmarks.Params{GPUs: CharGPUs, Scale: scale, Size: benchmarks.SizeAuto, Seed: CharSeed}
}

// RunChar characterizes the planned runs at scale on the default
// configuration with 4 GPUs, jobs at a time, logging each as it ends.
func RunChar(runs []CharNeed, scale float64, jobs int, log io.Writer) (map[CharNeed]CharRun, error) {
	out := map[CharNeed]CharRun{}
	var mu sync.Mutex
	err := inParallel(runs, jobs, func(n CharNeed) error {
		cfg := config.DefaultConfig()
		cfg.GPUs = CharGPUs
		start := time.Now()
		res, err := characterize.Run(n.Workload, charParams(scale),
			characterize.Options{Config: cfg, PhaseIntervals: n.Intervals == PhaseIntervals})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		r := CharRun{n, res, time.Since(start)}
		out[n] = r
		if log != nil {
			fmt.Fprintf(log, "characterized %s (%s, scale %g, %d GPUs): %d objects, %d phases, %.2fM page accesses in %.1f s\n",
				n.Workload, n.Intervals, scale, CharGPUs, len(res.Objects), len(res.Phases), float64(res.Accesses)/1e6, r.Wall.Seconds())
			for _, w := range res.Warnings {
				fmt.Fprintf(log, "  warning: %s\n", w)
			}
		}
		return nil
	})
	return out, err
}

// inParallel calls run on every item, jobs at a time, and returns the
// first error (in completion order).
func inParallel[T any](items []T, jobs int, run func(T) error) error {
	var mu sync.Mutex
	var first error
	sem := make(chan struct{}, max(1, jobs))
	var wg sync.WaitGroup
	platform.BeforeConcurrentRuns()
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := run(it); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// Inventory sets workload up at scale on 4 GPUs (seed 1) without
// simulating it and lists its allocations.
func Inventory(workload string, scale float64) (AppObjects, error) {
	w, err := benchmarks.New(workload)
	if err != nil {
		return AppObjects{}, err
	}
	alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits}, characterize.LargePage)
	if err != nil {
		return AppObjects{}, err
	}
	ks, err := w.Setup(alloc, charParams(scale))
	if err != nil {
		return AppObjects{}, fmt.Errorf("workload %s: %w", workload, err)
	}
	a := AppObjects{Footprint: alloc.Footprint(), Kernels: len(ks)}
	for _, k := range ks {
		if !k.Barrier {
			a.Launches++
		}
	}
	order := map[int]int{}
	for i, o := range alloc.Objects() {
		a.Objects = append(a.Objects, ObjectInfo{o.Name, o.Size})
		order[o.ID] = i
	}
	a.Live = liveAtMost(ks, order)
	return a, nil
}

// liveAtMost is AppObjects.Live: at each launch, the objects up to the
// latest-allocated one used so far (order is each ID's allocation index),
// less those freed before it.
func liveAtMost(ks []benchmarks.Kernel, order map[int]int) int {
	allocated, freed, most := 0, 0, 0
	for _, k := range ks {
		freed += len(k.Frees)
		for _, id := range k.Args {
			allocated = max(allocated, order[id]+1)
		}
		most = max(most, allocated-freed)
	}
	return most
}

// BuildChar builds f from finished runs (planned by PlanChar) and
// inventories.
func BuildChar(f CharFigure, runs map[CharNeed]CharRun, resolve func(CharNeed) CharNeed, inv map[string]AppObjects, timed Timed) CharOutput {
	in := CharInput{Results: map[string]*characterize.Result{}, Objects: map[string]AppObjects{}, Timed: timed}
	for _, n := range f.Needs {
		if r, ok := runs[resolve(n)]; ok {
			in.Results[n.Workload] = r.Result
		}
	}
	for _, w := range f.Inventory {
		if a, ok := inv[w]; ok {
			in.Objects[w] = a
		}
	}
	return f.Build(in)
}

// Timed are the timed runs of some figures (RunTimed): under OASIS, and
// under on-touch with their page moves.
type Timed struct {
	OASIS, OnTouch map[string]*platform.Result
	Moves          map[string]*MoveProfile
}

// RunTimedFor runs the timed runs figs ask for.
func RunTimedFor(figs []CharFigure, scale float64, jobs int, log io.Writer) (Timed, error) {
	var oasis, onTouch []string
	for _, f := range figs {
		for _, w := range f.OASIS {
			if !slices.Contains(oasis, w) {
				oasis = append(oasis, w)
			}
		}
		for _, w := range f.OnTouch {
			if !slices.Contains(onTouch, w) {
				onTouch = append(onTouch, w)
			}
		}
	}
	var t Timed
	var err error
	if t.OASIS, _, err = RunTimed(oasis, "oasis", false, scale, jobs, log); err != nil {
		return t, err
	}
	t.OnTouch, t.Moves, err = RunTimed(onTouch, "on-touch", true, scale, jobs, log)
	return t, err
}

// Files lists the files Write writes for base, in order.
func (o CharOutput) Files(base string) []string {
	var fs []string
	for _, p := range o.Plots {
		fs = append(fs, base+p.Suffix+".csv", base+p.Suffix+".png", base+p.Suffix+".svg")
	}
	for _, t := range o.Tables {
		fs = append(fs, base+t.Suffix+".csv")
	}
	return append(fs, base+"-claims.csv")
}

// Write writes the figure's files next to base (see Files), each
// atomically.
func (o CharOutput) Write(base string) error {
	for _, p := range o.Plots {
		if err := atomicfile.Write(base+p.Suffix+".csv", p.Table.WriteCSV); err != nil {
			return err
		}
		pt := plotted(p.Table)
		pt.Apps = make([]string, len(p.Table.Apps))
		for i, a := range p.Table.Apps {
			pt.Apps[i] = twoLines(a)
		}
		if err := pt.Plot(p.Title, p.YLabel, p.Stacked, base+p.Suffix); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(base+p.Suffix), err)
		}
	}
	for _, t := range o.Tables {
		if err := atomicfile.Write(base+t.Suffix+".csv", t.writeCSV); err != nil {
			return err
		}
	}
	claims := TextTable{Header: []string{"figure", "claim", "paper", "mgpu", "verdict"}}
	for _, c := range o.Claims {
		claims.Rows = append(claims.Rows, []string{c.Figure, c.Claim, c.Paper, c.MGPU, string(c.Verdict)})
	}
	return atomicfile.Write(base+"-claims.csv", claims.writeCSV)
}

// plotted is t without its series that are zero or missing in every row:
// the CSV keeps them, the legend does not need them.
func plotted(t plots.Table) plots.Table {
	out := plots.Table{Apps: t.Apps, Values: make([][]float64, len(t.Values))}
	for i, s := range t.Series {
		for _, row := range t.Values {
			if v := row[i]; v == v && v != 0 {
				out.Series = append(out.Series, s)
				for r := range t.Values {
					out.Values[r] = append(out.Values[r], t.Values[r][i])
				}
				break
			}
		}
	}
	if len(out.Series) == 0 {
		return t
	}
	return out
}

// twoLines breaks a row label for the plot's x axis, where long labels
// run into each other: "Im2col_Output @ GEMM" and "bfs 4KB" at the " @ "
// or first space, "I2C_Output" at the first underscore.
func twoLines(label string) string {
	if a, b, ok := strings.Cut(label, " @ "); ok {
		return a + "\n" + b
	}
	if a, b, ok := strings.Cut(label, " "); ok {
		return a + "\n" + b
	}
	if a, b, ok := strings.Cut(label, "_"); ok {
		return a + "\n" + b
	}
	return label
}

func (t TextTable) writeCSV(w io.Writer) error {
	c := csv.NewWriter(w)
	c.Write(t.Header)
	c.WriteAll(t.Rows)
	return c.Error()
}

// Print writes the figure as text: each plotted table, each further table,
// the notes and the claims.
func (o CharOutput) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(cells []string) { fmt.Fprintln(tw, "  "+strings.Join(cells, "\t")) }
	for _, p := range o.Plots {
		fmt.Fprintf(tw, "\n%s (%s)\n", p.Title, p.YLabel)
		row(append([]string{"row"}, p.Table.Series...))
		for i, app := range p.Table.Apps {
			cells := []string{app}
			for _, v := range p.Table.Values[i] {
				cells = append(cells, num(v))
			}
			row(cells)
		}
	}
	for _, t := range o.Tables {
		if t.CSVOnly {
			fmt.Fprintf(tw, "\n%s: %d rows in *%s.csv\n", t.Title, len(t.Rows), t.Suffix)
			continue
		}
		fmt.Fprintf(tw, "\n%s\n", t.Title)
		row(t.Header)
		for _, r := range t.Rows {
			row(r)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range o.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	fmt.Fprintln(w, "\nCLAIMS: the paper beside mgpu")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row([]string{"figure", "claim", "paper", "mgpu", "verdict"})
	for _, c := range o.Claims {
		row([]string{c.Figure, c.Claim, c.Paper, c.MGPU, string(c.Verdict)})
	}
	return tw.Flush()
}

func num(v float64) string {
	if v != v {
		return "-"
	}
	return fmt.Sprintf("%.4g", v)
}

// pct formats a fraction as a percentage.
func pct(f float64) string {
	if f != f {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

func frac(n, d uint64) float64 {
	if d == 0 {
		return nan
	}
	return float64(n) / float64(d)
}

func fraci(n, d int) float64 { return frac(uint64(n), uint64(d)) }

// shareVerdict compares a measured share with the paper's.
func shareVerdict(got, paper float64) Verdict {
	if got == got && got >= paper-shareTolerance && got <= paper+shareTolerance {
		return Agrees
	}
	return Differs
}

func boolVerdict(ok bool) Verdict {
	if ok {
		return Agrees
	}
	return Differs
}

// paperObjectNames are the paper's names of mgpu's objects (OASIS §IV,
// Fig. 4 to 7). Objects not listed are named APP_name.
var paperObjectNames = map[string]map[string]string{
	"mt":  {"input": "MT_Input", "output": "MT_Output"},
	"i2c": {"input": "I2C_Input", "output": "I2C_Output"},
	"mm":  {"A": "MM_A", "B": "MM_B", "C": "MM_C"},
	"st":  {"currData": "ST_currData", "newData": "ST_newData"},
	"c2d": {"input": "Im2col_Input", "conv.col": "Im2col_Output", "conv.gemm": "GEMM_Output", "conv": "MT_Output",
		"conv.weight": "Parameters"},
}

// paperName is the paper's name of object name of workload.
func paperName(workload, name string) string {
	if n, ok := paperObjectNames[workload][name]; ok {
		return n
	}
	return strings.ToUpper(workload) + "_" + name
}

// objectByPaperName finds the object the paper calls name in res.
func objectByPaperName(res *characterize.Result, name string) (int, bool) {
	for i := range res.Objects {
		if paperName(res.Workload, res.Objects[i].Name) == name {
			return res.Objects[i].ID, true
		}
	}
	return 0, false
}

// runEntry is the whole-run entry of object id.
func runEntry(res *characterize.Result, id int) *characterize.ObjectPhase {
	for i := range res.ObjectRun {
		if res.ObjectRun[i].Object == id {
			return &res.ObjectRun[i]
		}
	}
	return nil
}

func sortedStrings(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
