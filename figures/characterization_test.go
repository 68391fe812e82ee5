package figures

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/characterize"
)

// Synthetic characterization results: only the exported fields the
// figures read, and a page-class lookup.

type C = characterize.Census

// one is a census of n pages of class c.
func one(c characterize.Class, n int) C {
	var x C
	x[c] = n
	return x
}

func obj(id int, name string, pages int) characterize.Object {
	return characterize.Object{ID: id, Name: name, Pages: pages, Size: uint64(pages) * characterize.SmallPage}
}

// op is object id in phase ph (-1: the whole run) with a census and one
// GPU's read and write accesses.
func op(ph, id int, c C, reads, writes uint64) characterize.ObjectPhase {
	return characterize.ObjectPhase{Phase: ph, Object: id, Small: c, Reads: []uint64{reads}, Writes: []uint64{writes}}
}

func synth(workload string, objs []characterize.Object, run []characterize.ObjectPhase) *characterize.Result {
	res := &characterize.Result{Workload: workload, GPUs: 4, Objects: objs, ObjectRun: run}
	for i := range run {
		res.Accesses += run[i].Accesses()
	}
	return res
}

// checkClaims checks the verdict and, where given, mgpu's value of each
// claim named by a prefix.
func checkClaims(t *testing.T, cs []Claim, want map[string]Verdict, mgpu map[string]string) {
	t.Helper()
	for p, v := range want {
		if got := claimByPrefix(t, cs, p); got.Verdict != v {
			t.Errorf("%+v, want %s", got, v)
		}
	}
	for p, m := range mgpu {
		if got := claimByPrefix(t, cs, p); got.MGPU != m {
			t.Errorf("%q: %q, want %q", p, got.MGPU, m)
		}
	}
}

func claimByPrefix(t *testing.T, cs []Claim, prefix string) Claim {
	t.Helper()
	for _, c := range cs {
		if strings.HasPrefix(c.Claim, prefix) {
			return c
		}
	}
	t.Fatalf("no claim %q in %+v", prefix, cs)
	return Claim{}
}

func TestPlanChar(t *testing.T) {
	cases := []struct {
		name    string
		needs   []CharNeed
		runs    []CharNeed
		resolve map[CharNeed]CharNeed
	}{
		{"any alone runs equal intervals",
			[]CharNeed{{"mm", AnyIntervals}},
			[]CharNeed{{"mm", EqualIntervals}},
			map[CharNeed]CharNeed{{"mm", AnyIntervals}: {"mm", EqualIntervals}}},
		{"any reuses a specific run",
			[]CharNeed{{"st", AnyIntervals}, {"st", PhaseIntervals}, {"mt", EqualIntervals}, {"mt", AnyIntervals}},
			[]CharNeed{{"st", PhaseIntervals}, {"mt", EqualIntervals}},
			map[CharNeed]CharNeed{{"st", AnyIntervals}: {"st", PhaseIntervals}, {"mt", AnyIntervals}: {"mt", EqualIntervals},
				{"st", PhaseIntervals}: {"st", PhaseIntervals}}},
		{"two specific needs run twice; any takes equal",
			[]CharNeed{{"st", PhaseIntervals}, {"st", EqualIntervals}, {"st", AnyIntervals}, {"st", PhaseIntervals}},
			[]CharNeed{{"st", EqualIntervals}, {"st", PhaseIntervals}},
			map[CharNeed]CharNeed{{"st", AnyIntervals}: {"st", EqualIntervals}}},
		{"nothing", nil, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs, resolve := PlanChar(c.needs)
			if !reflect.DeepEqual(runs, c.runs) {
				t.Errorf("runs %v, want %v", runs, c.runs)
			}
			for n, want := range c.resolve {
				if got := resolve(n); got != want {
					t.Errorf("resolve(%v) = %v, want %v", n, got, want)
				}
			}
		})
	}
}

func TestEveryCharFigureIsNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Names() {
		seen[n] = true
	}
	for _, f := range CharFigures() {
		if seen[f.Name] || f.Title == "" || f.Build == nil || (len(f.Needs) == 0 && len(f.Inventory) == 0 && len(f.OASIS) == 0 && len(f.OnTouch) == 0) {
			t.Errorf("%s: duplicate, untitled, or reads nothing", f.Name)
		}
		seen[f.Name] = true
		if got, ok := LookupChar(f.Name); !ok || len(got) != 1 || got[0].Name != f.Name {
			t.Errorf("LookupChar(%s)", f.Name)
		}
		// An empty input builds without panicking.
		f.Build(CharInput{})
	}
	if all, ok := LookupChar(CharAll); !ok || len(all) != len(CharFigures()) {
		t.Errorf("LookupChar(%s)", CharAll)
	}
	if _, ok := LookupChar("fig15"); ok {
		t.Error("fig15 is a sweep figure")
	}
	if _, err := Lookup("fig99"); err == nil || !strings.Contains(err.Error(), "fig7") || !strings.Contains(err.Error(), CharAll) {
		t.Errorf("Lookup's error does not list the characterization figures: %v", err)
	}
}

func TestObjectSizes(t *testing.T) {
	kb := func(n uint64) uint64 { return n << 10 }
	inv := map[string]AppObjects{
		"mm": {Objects: []ObjectInfo{{"A", kb(8192)}, {"B", kb(8192)}, {"C", kb(8192)}, {"kernarg", 80}}},
		// 4 KB + 1 byte spans 2 pages; 64 KB is 16 pages; 2 MB is 512.
		"zz": {Objects: []ObjectInfo{{"a", kb(4) + 1}, {"b", kb(64)}, {"c", kb(2048)}, {"d", kb(2048) + 1}, {"e", 64 << 20}}},
	}
	o := objectSizes(inv)
	tab := o.Plots[0].Table
	if !reflect.DeepEqual(tab.Apps, []string{"mm", "zz", "all objects", "mean over apps"}) {
		t.Fatalf("rows %v", tab.Apps)
	}
	want := [][]float64{{0.25, 0, 0, 0.75, 0}, {0, 0.4, 0.2, 0.2, 0.2}, {1.0 / 9, 2.0 / 9, 1.0 / 9, 4.0 / 9, 1.0 / 9}, {0.125, 0.2, 0.1, 0.475, 0.1}}
	for r := range want {
		for c := range want[r] {
			if math.Abs(tab.Values[r][c]-want[r][c]) > 1e-12 {
				t.Errorf("%s %s: %g, want %g", tab.Apps[r], tab.Series[c], tab.Values[r][c], want[r][c])
			}
		}
	}
	if c := claimByPrefix(t, o.Claims, "the smallest"); c.Verdict != Agrees || !strings.Contains(c.MGPU, "other than kernarg: 2 page") {
		t.Errorf("%+v", c)
	}
	if c := claimByPrefix(t, o.Claims, "most objects"); c.Verdict != Agrees || !strings.HasPrefix(c.MGPU, "8 of 9 objects") {
		t.Errorf("%+v", c)
	}
	// Mostly single pages: the claim fails.
	o = objectSizes(map[string]AppObjects{"x": {Objects: []ObjectInfo{{"a", 1}, {"b", 1}, {"c", kb(8)}}}})
	if c := claimByPrefix(t, o.Claims, "most objects"); c.Verdict != Differs {
		t.Errorf("%+v", c)
	}
	if o := objectSizes(nil); len(o.Plots) != 0 || len(o.Claims) != 0 {
		t.Errorf("empty inventory: %+v", o)
	}
}

func TestTableII(t *testing.T) {
	obs := func(n int) []ObjectInfo { return make([]ObjectInfo, n) }
	cases := []struct {
		name  string
		inv   AppObjects
		want  Verdict
		ratio []float64
	}{
		{"equal", AppObjects{Objects: obs(4), Footprint: 32 << 20}, Agrees, []float64{1, 1}},
		{"footprint within 5%", AppObjects{Objects: obs(4), Footprint: 33 << 20}, Agrees, []float64{1, 33.0 / 32}},
		{"footprint off", AppObjects{Objects: obs(4), Footprint: 40 << 20}, Partly, []float64{1, 1.25}},
		{"objects off", AppObjects{Objects: obs(3), Footprint: 32 << 20}, Partly, []float64{0.75, 1}},
		{"both off", AppObjects{Objects: obs(5), Footprint: 16 << 20}, Differs, []float64{1.25, 0.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := tableII(map[string]AppObjects{"mm": c.inv})
			if got := o.Claims[0]; got.Verdict != c.want || got.Paper != "4, 32 MB" {
				t.Errorf("%+v, want %s", got, c.want)
			}
			if got := o.Plots[0].Table.Values[0]; math.Abs(got[0]-c.ratio[0]) > 1e-12 || math.Abs(got[1]-c.ratio[1]) > 1e-12 {
				t.Errorf("ratios %v, want %v", got, c.ratio)
			}
		})
	}
}

// TestLiveAtMost: objects count from the launch that uses them (or a
// later-allocated one) until their free.
func TestLiveAtMost(t *testing.T) {
	order := map[int]int{10: 0, 11: 1, 12: 2, 13: 3} // IDs by allocation
	k := func(args []int, frees ...int) benchmarks.Kernel { return benchmarks.Kernel{Args: args, Frees: frees} }
	cases := []struct {
		name string
		ks   []benchmarks.Kernel
		want int
	}{
		{"none", nil, 0},
		{"one launch of all", []benchmarks.Kernel{k([]int{13})}, 4},
		{"scratch freed between calls", []benchmarks.Kernel{k([]int{10, 11}), k([]int{10, 12}, 11), k([]int{10, 13}, 12)}, 2},
		{"frees before the peak", []benchmarks.Kernel{k([]int{10}), k([]int{11}, 10), k([]int{13})}, 3},
	}
	for _, c := range cases {
		if got := liveAtMost(c.ks, order); got != c.want {
			t.Errorf("%s: %d live, want %d", c.name, got, c.want)
		}
	}
}

// mtResult is a synthetic mt: 16 input pages, 16 output pages and the
// kernarg over 8 intervals. Input page i is read in interval i/2 by one
// GPU; every output page is written in every interval by two GPUs. bad,
// if set, changes one cell.
func mtResult(bad func(obj, i, iv int) (characterize.Class, bool, bool)) (*characterize.Result, ClassAt) {
	res := synth("mt", []characterize.Object{obj(0, "input", 16), obj(1, "output", 16), obj(2, "kernarg", 1)},
		[]characterize.ObjectPhase{op(-1, 0, C{characterize.PrivateRO: 16}, 16, 0), op(-1, 1, C{characterize.SharedWO: 16}, 0, 128),
			op(-1, 2, C{characterize.SharedRO: 1}, 8, 0)})
	res.Intervals = make([]characterize.Interval, 8)
	at := func(o, i, iv int) (characterize.Class, bool) {
		if bad != nil {
			if c, ok, hit := bad(o, i, iv); hit {
				return c, ok
			}
		}
		switch o {
		case 0:
			return characterize.PrivateRO, i/2 == iv
		case 1:
			return characterize.SharedWO, true
		}
		return characterize.SharedRO, iv == 0
	}
	return res, at
}

func TestMTPatterns(t *testing.T) {
	res, at := mtResult(nil)
	o := mtPatterns(res, at)
	tab := o.Plots[0].Table
	if len(tab.Apps) != 8 || tab.Apps[0] != "t0" || len(tab.Series) != 6 || tab.Series[0] != "MT_Input read-only" || tab.Series[4] != "MT_Output write-only" {
		t.Fatalf("table %v %v", tab.Apps, tab.Series)
	}
	for iv, row := range tab.Values {
		if !reflect.DeepEqual(row, []float64{2, 0, 0, 0, 16, 0}) {
			t.Errorf("t%d: %v", iv, row)
		}
	}
	for _, c := range o.Claims {
		if c.Verdict != Differs && strings.Contains(c.Claim, "~9,000") {
			t.Errorf("16 pages pass for ~9,000: %+v", c)
		}
		if !strings.Contains(c.Claim, "~9,000") && c.Verdict != Agrees {
			t.Errorf("%+v", c)
		}
	}
	strips := o.Tables[0]
	if strips.Rows[0][1] != "RR.............." || strips.Rows[7][1] != "..............RR" || strips.Rows[3][2] != strings.Repeat("W", 16) {
		t.Errorf("strips %v", strips.Rows)
	}
	runs := o.Tables[1]
	if !runs.CSVOnly || len(runs.Rows) != 16 || !reflect.DeepEqual(runs.Rows[0], []string{"MT_Input", "0", "0", "1", "2", "private-read-only"}) {
		t.Errorf("runs %v", runs.Rows)
	}

	// One input page also written in interval 3: the input is not
	// read-only in every interval, and the strip marks the mixed bucket.
	res, at = mtResult(func(o, i, iv int) (characterize.Class, bool, bool) {
		return characterize.PrivateRW, true, o == 0 && i == 6 && iv == 3
	})
	o = mtPatterns(res, at)
	c := claimByPrefix(t, o.Claims, "MT_Input stays read-only")
	if c.Verdict != Differs || !strings.HasPrefix(c.MGPU, "7 of 8 intervals (touched in 8); 1 of 16") {
		t.Errorf("%+v", c)
	}
	if s := o.Tables[0].Rows[3][1]; s != "......MR........" {
		t.Errorf("strip %q", s)
	}
	if got := strip(at, 0, 16, 3, 4); got != "."+"*"+".." {
		t.Errorf("4 buckets: %q", got)
	}
}

func TestMTPageCount(t *testing.T) {
	for _, c := range []struct {
		pages int
		want  Verdict
	}{{8192, Agrees}, {9000, Agrees}, {7700, Agrees}, {7600, Differs}, {10400, Differs}} {
		res := synth("mt", []characterize.Object{obj(0, "input", c.pages), obj(1, "output", c.pages)}, nil)
		o := mtPatterns(res, func(int, int, int) (characterize.Class, bool) { return 0, false })
		if got := claimByPrefix(t, o.Claims, "MT_Input is the first"); got.Verdict != c.want {
			t.Errorf("%d pages: %+v", c.pages, got)
		}
	}
}

func TestObjectBehaviour(t *testing.T) {
	i2c := func(out uint64) *characterize.Result {
		return synth("i2c", []characterize.Object{obj(0, "input", 10), obj(1, "output", 90), obj(2, "kernarg", 1)},
			[]characterize.ObjectPhase{op(-1, 0, C{characterize.PrivateRO: 10}, 20, 0),
				op(-1, 1, C{characterize.PrivateWO: 90}, 0, out), op(-1, 2, C{characterize.SharedRO: 1}, 20, 0)})
	}
	mm := func(aClass characterize.Class, c uint64) *characterize.Result {
		return synth("mm", []characterize.Object{obj(0, "A", 30), obj(1, "B", 30), obj(2, "C", 30), obj(3, "kernarg", 1)},
			[]characterize.ObjectPhase{op(-1, 0, one(aClass, 30), 40, 0), op(-1, 1, C{characterize.SharedRO: 30}, 40, 0),
				op(-1, 2, C{characterize.PrivateWO: 30}, 0, c), op(-1, 3, C{characterize.SharedRO: 1}, 0, 0)})
	}
	// newData: 19 of 20 pages shared, over 90%.
	st := synth("st", []characterize.Object{obj(0, "currData", 8), obj(1, "newData", 20), obj(2, "kernarg", 1)},
		[]characterize.ObjectPhase{op(-1, 0, C{characterize.SharedRW: 8}, 10, 10), op(-1, 1, C{characterize.SharedRW: 19, characterize.PrivateRO: 1}, 10, 10),
			op(-1, 2, C{characterize.SharedRO: 1}, 1, 0)})
	cases := []struct {
		name string
		in   []*characterize.Result
		want map[string]Verdict // claim prefix -> verdict
		mgpu map[string]string  // claim prefix -> mgpu
	}{
		{"as the paper", []*characterize.Result{i2c(120), mm(characterize.SharedRO, 20), st},
			map[string]Verdict{"I2C_Output is private": Agrees, "I2C_Output has more": Agrees, "I2C_Output's share": Agrees,
				"MM_A is": Agrees, "MM_B is": Agrees, "MM_A and MM_B hold": Agrees, "MM_A and MM_B's share": Agrees,
				"ST_currData is": Agrees, "ST_newData is": Agrees},
			map[string]string{"I2C_Output's share": "75.0% (85.7% without kernarg)", "MM_A and MM_B's share": "80.0% (80.0% without kernarg)",
				"MM_A and MM_B hold": "65.9%"}},
		{"as mgpu at Table II", []*characterize.Result{i2c(20), mm(characterize.PrivateRO, 1), nil},
			map[string]Verdict{"I2C_Output is private": Agrees, "I2C_Output's share": Differs, "MM_A is": Differs, "MM_B is": Agrees,
				"MM_A and MM_B's share": Differs},
			map[string]string{"I2C_Output's share": "33.3% (50.0% without kernarg)", "MM_A is": "private-read-only"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := objectBehaviour(c.in)
			checkClaims(t, o.Claims, c.want, c.mgpu)
			for _, cl := range o.Claims {
				if c.in[2] == nil && strings.HasPrefix(cl.Claim, "ST_") {
					t.Errorf("claim on a missing st: %+v", cl)
				}
			}
		})
	}
	o := objectBehaviour([]*characterize.Result{i2c(120)})
	tab := o.Plots[0].Table
	if !reflect.DeepEqual(tab.Apps, []string{"I2C_Input", "I2C_Output", "I2C_kernarg"}) || tab.Values[1][0] != 90.0/101 || tab.Values[1][1] != 0.75 {
		t.Errorf("table %v %v", tab.Apps, tab.Values)
	}
}

// c2dResult is a synthetic c2d: im2col, gemm, transpose, then a backward
// gemm. col is written privately by im2col and read privately by gemm;
// g is written by gemm and read by transpose; both are shared over the
// run. colGemm is col's census in the forward gemm.
func c2dResult(colGemm C) *characterize.Result {
	objs := []characterize.Object{obj(0, "input", 4), obj(1, "conv.weight", 1), obj(2, "conv.col", 8), obj(3, "conv.gemm", 4),
		obj(4, "conv", 4), obj(5, "kernarg", 1)}
	res := synth("c2d", objs, []characterize.ObjectPhase{
		op(-1, 0, C{characterize.PrivateRO: 4}, 4, 0), op(-1, 1, C{characterize.SharedRO: 1}, 4, 0),
		op(-1, 2, C{characterize.SharedRW: 8}, 8, 8), op(-1, 3, C{characterize.SharedRW: 4}, 8, 4),
		op(-1, 4, C{characterize.PrivateWO: 4}, 0, 4), op(-1, 5, C{characterize.SharedRO: 1}, 4, 0)})
	for i, n := range []string{"im2col", "gemm", "transpose", "gemm"} {
		res.Phases = append(res.Phases, characterize.Phase{Index: i, Name: n, Label: n, Launch: i, Explicit: true})
	}
	res.ObjectPhases = []characterize.ObjectPhase{
		op(0, 0, C{characterize.PrivateRO: 4}, 4, 0), op(0, 2, C{characterize.PrivateWO: 8}, 0, 8),
		op(1, 1, C{characterize.SharedRO: 1}, 4, 0), op(1, 2, colGemm, 8, 0), op(1, 3, C{characterize.PrivateWO: 4}, 0, 4),
		op(2, 3, C{characterize.PrivateRO: 4}, 4, 0), op(2, 4, C{characterize.PrivateWO: 4}, 0, 4),
		op(3, 3, C{characterize.SharedRO: 4}, 4, 0),
	}
	return res
}

func TestPhasePatterns(t *testing.T) {
	cases := []struct {
		name    string
		colGemm C
		want    map[string]Verdict
	}{
		{"as the paper", C{characterize.PrivateRO: 8},
			map[string]Verdict{"Im2col_Output over": Agrees, "Im2col_Output within": Agrees, "Im2col_Output is shared": Agrees,
				"GEMM_Output over": Agrees, "GEMM_Output within": Agrees}},
		// 2 of 8 pages shared in gemm: not over 90% private.
		{"shared in a phase", C{characterize.PrivateRO: 6, characterize.SharedRO: 2},
			map[string]Verdict{"Im2col_Output within": Differs, "Im2col_Output is shared": Differs, "GEMM_Output within": Agrees}},
		// 1 of 11 pages rw-mix: still over 90% read-only.
		{"one rw-mix page of 11", C{characterize.PrivateRO: 10, characterize.PrivateRW: 1},
			map[string]Verdict{"Im2col_Output within": Agrees}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := phasePatterns(c2dResult(c.colGemm))
			checkClaims(t, o.Claims, c.want, nil)
			tab := o.Plots[0].Table
			if len(tab.Apps) != 20 || tab.Apps[5] != "Im2col_Output @ GEMM" || tab.Apps[7] != "Im2col_Output @ overall" {
				t.Fatalf("rows %v", tab.Apps)
			}
			if !math.IsNaN(tab.Values[6][0]) {
				t.Errorf("col untouched in transpose: %v", tab.Values[6])
			}
			cls := o.Tables[0]
			if len(cls.Header) != 6 || cls.Header[4] != "3 gemm" || cls.Rows[2][4] != "shared-read-only" || cls.Rows[2][5] != "shared-rw-mix" {
				t.Errorf("classes %v %v", cls.Header, cls.Rows)
			}
		})
	}
	o := phasePatterns(c2dResult(C{characterize.PrivateRO: 8}))
	if c := claimByPrefix(t, o.Claims, "the five objects"); c.MGPU != "6 of 8 object-phases" {
		t.Errorf("%+v", c)
	}
}

// stResult is a synthetic st over n iterations: grid 0 is read in even
// iterations and written in odd ones, grid 1 the reverse, by two GPUs.
// Its last page (the halo) is read only, in the iterations that read its
// grid. bad, if set, overrides a cell.
func stResult(n int, bad func(obj, i, iv int) (characterize.Class, bool, bool)) (*characterize.Result, ClassAt) {
	res := synth("st", []characterize.Object{obj(0, "currData", 13), obj(1, "newData", 13), obj(2, "kernarg", 1)},
		[]characterize.ObjectPhase{op(-1, 0, C{characterize.SharedRW: 12, characterize.SharedRO: 1}, 10, 10),
			op(-1, 1, C{characterize.SharedRW: 12, characterize.SharedRO: 1}, 10, 10), op(-1, 2, C{characterize.SharedRO: 1}, 1, 0)})
	res.Intervals = make([]characterize.Interval, n)
	res.PhaseIntervals = true
	for i := 0; i < n; i++ {
		res.Phases = append(res.Phases, characterize.Phase{Index: i, Name: "StencilKernel", Step: i, Explicit: i == 0})
		read, write := 0, 1
		if i%2 == 1 {
			read, write = 1, 0
		}
		res.ObjectPhases = append(res.ObjectPhases, op(i, read, C{characterize.SharedRO: 13}, 13, 0), op(i, write, C{characterize.SharedWO: 12}, 0, 12))
	}
	at := func(o, i, iv int) (characterize.Class, bool) {
		if bad != nil {
			if c, ok, hit := bad(o, i, iv); hit {
				return c, ok
			}
		}
		if o == 2 {
			return characterize.SharedRO, iv == 0
		}
		reads := (o == 0) == (iv%2 == 0)
		if reads {
			return characterize.SharedRO, true
		}
		return characterize.SharedWO, i < 12
	}
	return res, at
}

func TestIterationPatterns(t *testing.T) {
	cases := []struct {
		name string
		bad  func(obj, i, iv int) (characterize.Class, bool, bool)
		want map[string]Verdict
		mgpu map[string]string
	}{
		{"as the paper", nil,
			map[string]Verdict{"ST_currData over": Agrees, "ST_currData's pages": Agrees, "ST_newData's pages": Agrees,
				"ST's iterations": Agrees, "within an iteration": Agrees},
			map[string]string{"ST_currData's pages": "sample 6 of 6; 12 of 13 pages over all 4 iterations"}},
		// Page 1 (in the sample) of newData is rw-mix in iteration 2.
		{"a sampled page breaks", func(o, i, iv int) (characterize.Class, bool, bool) {
			return characterize.SharedRW, true, o == 1 && i == 1 && iv == 2
		}, map[string]Verdict{"ST_currData's pages": Agrees, "ST_newData's pages": Partly},
			map[string]string{"ST_newData's pages": "sample 5 of 6; 11 of 13 pages over all 4 iterations"}},
		// Every page of currData read in every iteration.
		{"no alternation", func(o, i, iv int) (characterize.Class, bool, bool) {
			return characterize.SharedRO, true, o == 0
		}, map[string]Verdict{"ST_currData's pages": Differs, "ST_newData's pages": Agrees}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, at := stResult(4, c.bad)
			o := iterationPatterns(res, at)
			checkClaims(t, o.Claims, c.want, c.mgpu)
		})
	}
	res, at := stResult(4, nil)
	o := iterationPatterns(res, at)
	sample := o.Tables[0]
	if len(sample.Rows) != 12 || !reflect.DeepEqual(sample.Rows[0], []string{"ST_currData", "1", "sR", "sW", "sR", "sW"}) ||
		!reflect.DeepEqual(sample.Rows[11], []string{"ST_newData", "11", "sW", "sR", "sW", "sR"}) {
		t.Errorf("sample %v", sample.Rows)
	}
	tab := o.Plots[0].Table
	if tab.Apps[1] != "it1" || !reflect.DeepEqual(tab.Values[1], []float64{0, 12, 0, 13, 0, 0}) {
		t.Errorf("it1: %v", tab.Values[1])
	}
	res.PhaseIntervals = false
	if o := iterationPatterns(res, at); len(o.Notes) == 0 {
		t.Error("no note on intervals that are not phases")
	}
	// Two launches: the iterations are not implicit phases of one kernel.
	res.Phases[2].Explicit = true
	if c := claimByPrefix(t, iterationPatterns(res, at).Claims, "ST's iterations"); c.Verdict != Differs {
		t.Errorf("%+v", c)
	}
}

func TestSamplePages(t *testing.T) {
	for _, c := range []struct {
		n, k int
		want []int
	}{{12, 6, []int{1, 3, 5, 7, 9, 11}}, {4100, 6, []int{341, 1025, 1708, 2391, 3075, 3758}}, {3, 6, []int{0, 0, 1}}, {0, 6, nil}} {
		if got := samplePages(c.n, c.k); !reflect.DeepEqual(got, c.want) {
			t.Errorf("samplePages(%d, %d) = %v, want %v", c.n, c.k, got, c.want)
		}
	}
}

func appResult(w string, small4, large4 C) *characterize.Result {
	return &characterize.Result{Workload: w, App: []characterize.App{
		{PageSize: characterize.SmallPage, Period: "run", Census: small4}, {PageSize: characterize.LargePage, Period: "run", Census: large4},
		{PageSize: characterize.SmallPage, Period: "phase", Census: small4}, {PageSize: characterize.LargePage, Period: "phase", Census: large4}}}
}

func TestPageTypes(t *testing.T) {
	mt := appResult("mt", C{characterize.PrivateRO: 9, characterize.SharedWO: 1}, C{characterize.SharedRO: 1, characterize.SharedWO: 1})
	st := appResult("st", C{characterize.SharedRW: 10}, C{characterize.SharedRW: 1, characterize.SharedRO: 1})
	fft := appResult("fft", C{characterize.PrivateRW: 4}, C{characterize.PrivateRW: 1})
	cases := []struct {
		name           string
		in             map[string]*characterize.Result
		shared, rwmix  Verdict
		sharedM, rwixM string
	}{
		{"shared up, rw-mix down in st", map[string]*characterize.Result{"mt": mt, "st": st, "fft": fft}, Agrees, Differs,
			"average 36.7% at 4 KB, 66.7% at 2 MB; higher in 1 of 3 apps, equal in fft, st",
			"average 66.7% at 4 KB, 50.0% at 2 MB; higher in 0 of 3 apps, equal in fft, mt, lower in st"},
		{"one app lower, the average higher", map[string]*characterize.Result{
			"mt": appResult("mt", C{characterize.PrivateRW: 3, characterize.SharedRW: 1}, C{characterize.SharedRW: 1}),
			"mm": appResult("mm", C{characterize.SharedRO: 1}, C{characterize.SharedRO: 2, characterize.SharedRW: 1, characterize.PrivateRO: 1})},
			Partly, Agrees, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := pageTypes(c.in)
			sh, rw := claimByPrefix(t, o.Claims, "the share of shared"), claimByPrefix(t, o.Claims, "the share of rw-mix")
			if sh.Verdict != c.shared || rw.Verdict != c.rwmix {
				t.Errorf("shared %+v\nrw-mix %+v", sh, rw)
			}
			if c.sharedM != "" && (sh.MGPU != c.sharedM || rw.MGPU != c.rwixM) {
				t.Errorf("shared %q\nrw-mix %q", sh.MGPU, rw.MGPU)
			}
		})
	}
	o := pageTypes(map[string]*characterize.Result{"mt": mt, "st": st, "fft": fft})
	a, b := o.Plots[0].Table, o.Plots[1].Table
	if !reflect.DeepEqual(a.Apps, []string{"fft 4KB", "fft 2MB", "mt 4KB", "mt 2MB", "st 4KB", "st 2MB", "average 4KB", "average 2MB"}) {
		t.Fatalf("rows %v", a.Apps)
	}
	if !reflect.DeepEqual(a.Values[2], []float64{0.9, 0.1, 0}) || !reflect.DeepEqual(b.Values[3], []float64{0, 1}) {
		t.Errorf("mt: %v %v", a.Values[2], b.Values[3])
	}
	if len(o.Claims) != 4 || o.Claims[2].Claim != "the share of shared pages is higher with 2 MB pages (phase)" || o.Claims[2].MGPU != o.Claims[0].MGPU {
		t.Errorf("per-phase claims: %+v", o.Claims)
	}
	if len(o.Tables[0].Rows) != 12 {
		t.Errorf("%d page-type rows", len(o.Tables[0].Rows))
	}
	// The figure plots the per-phase census: ST's grids, rw-mix over the
	// run, are read-only in one phase and write-only in the next.
	st.App[2].Census = C{characterize.SharedRO: 5, characterize.SharedWO: 5}
	o = pageTypes(map[string]*characterize.Result{"st": st})
	if got := o.Plots[0].Table.Values[0]; !reflect.DeepEqual(got, []float64{0.5, 0.5, 0}) {
		t.Errorf("st 4KB plotted %v, want the per-phase census [0.5 0.5 0]", got)
	}
}

func TestUniformity(t *testing.T) {
	cases := []struct {
		c         C
		main      characterize.Class
		both, one int
	}{
		{C{}, 0, 0, 0},
		{C{characterize.PrivateRO: 10}, characterize.PrivateRO, 0, 0},
		// Shared read-only pages differ in one dimension, private
		// write-only in one, shared rw-mix in both.
		{C{characterize.PrivateRO: 10, characterize.SharedRO: 2, characterize.PrivateWO: 3, characterize.SharedRW: 1},
			characterize.PrivateRO, 1, 5},
		{C{characterize.SharedRW: 4096, characterize.SharedRO: 4}, characterize.SharedRW, 0, 4},
		{C{characterize.SharedRW: 4096, characterize.PrivateRO: 4}, characterize.SharedRW, 4, 0},
		// A tie goes to the first class.
		{C{characterize.PrivateWO: 2, characterize.SharedRO: 2}, characterize.PrivateWO, 2, 0},
	}
	for _, c := range cases {
		m, both, one := Uniformity(&c.c)
		if m != c.main || both != c.both || one != c.one {
			t.Errorf("Uniformity(%v) = %v %d %d, want %v %d %d", c.c, m, both, one, c.main, c.both, c.one)
		}
	}
}

func TestNonUniform(t *testing.T) {
	// Seven apps of 26 objects; st's grids each have one private
	// read-only page among shared rw-mix ones.
	counts := map[string]int{"bfs": 5, "fft": 2, "i2c": 3, "mm": 4, "mt": 3, "pr": 6, "st": 3}
	build := func(stOdd int, phases map[string]int, kernels ...string) map[string]*characterize.Result {
		out := map[string]*characterize.Result{}
		for w, n := range counts {
			var objs []characterize.Object
			var run []characterize.ObjectPhase
			for i := 0; i < n; i++ {
				name := "o" + istr(i)
				if w == "st" {
					name = []string{"currData", "newData", "kernarg"}[i]
				}
				objs = append(objs, obj(i, name, 100))
				c := C{characterize.PrivateRO: 100}
				if w == "st" && i < 2 {
					c = C{characterize.SharedRW: 100 - stOdd, characterize.PrivateRO: stOdd}
				}
				run = append(run, op(-1, i, c, 1, 0))
			}
			res := synth(w, objs, run)
			for p := 0; p < max(1, phases[w]); p++ {
				name := "kernel"
				if w == "pr" && p < len(kernels) {
					name = kernels[p]
				}
				res.Phases = append(res.Phases, characterize.Phase{Index: p, Name: name, Explicit: true})
			}
			out[w] = res
		}
		return out
	}
	cases := []struct {
		name string
		in   map[string]*characterize.Result
		want map[string]Verdict
		mgpu map[string]string
	}{
		{"as the paper", build(3, nil),
			map[string]Verdict{"objects of": Agrees, "these apps": Agrees, "non-uniform objects": Agrees, "non-uniform apps": Agrees,
				"non-uniform pages": Agrees},
			map[string]string{"non-uniform objects": "2 of 26 (ST_currData, ST_newData)", "non-uniform apps": "1 of 7 (ST)",
				"non-uniform pages": "0.2% of the 7 apps' touched pages (2.0% of the non-uniform apps'); 0.0% differ in one dimension"}},
		{"uniform, several launches of one kernel", build(0, map[string]int{"bfs": 7, "pr": 2}),
			map[string]Verdict{"these apps": Agrees, "non-uniform objects": Differs, "non-uniform apps": Differs, "non-uniform pages": Agrees},
			map[string]string{"these apps": "1 kernel function each; launches: BFS 7, PR 2, 1 in the others", "non-uniform apps": "0 of 7 (none)",
				"non-uniform pages": "0.0% of the 7 apps' touched pages; 0.0% differ in one dimension"}},
		{"two kernel functions", build(0, map[string]int{"pr": 2}, "a", "b"),
			map[string]Verdict{"these apps": Differs},
			map[string]string{"these apps": "kernel functions: PR 2 (a, b); 1 in the others; launches: PR 2, 1 in the others"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := nonUniform(c.in)
			checkClaims(t, o.Claims, c.want, c.mgpu)
		})
	}
}

func TestCharOutputWriteAndPrint(t *testing.T) {
	res, at := mtResult(nil)
	o := mtPatterns(res, at)
	base := filepath.Join(t.TempDir(), "sub", "fig4")
	if err := o.Write(base); err != nil {
		t.Fatal(err)
	}
	for _, f := range o.Files(base) {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(base + "-claims.csv")
	if !strings.HasPrefix(string(b), "figure,claim,paper,mgpu,verdict\n") || strings.Count(string(b), "\n") != len(o.Claims)+1 {
		t.Errorf("claims.csv:\n%s", b)
	}
	b, _ = os.ReadFile(base + ".csv")
	if !strings.HasPrefix(string(b), "app,MT_Input read-only,MT_Input write-only,") {
		t.Errorf("fig4.csv keeps every series:\n%s", b)
	}
	var out bytes.Buffer
	if err := o.Print(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"MT_Input read-only", "RR....", "16 rows in *-pages.csv", "CLAIMS", "agrees"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("printout lacks %q:\n%s", s, out.String())
		}
	}
	for in, want := range map[string]string{"Im2col_Output @ GEMM": "Im2col_Output\nGEMM", "bfs 4KB": "bfs\n4KB",
		"mean over apps": "mean\nover apps", "I2C_Output": "I2C\nOutput", "t0": "t0"} {
		if got := twoLines(in); got != want {
			t.Errorf("twoLines(%q) = %q, want %q", in, got, want)
		}
	}
	// The plot leaves out series that are zero everywhere.
	p := plotted(o.Plots[0].Table)
	if !reflect.DeepEqual(p.Series, []string{"MT_Input read-only", "MT_Output write-only"}) || !reflect.DeepEqual(p.Values[0], []float64{2, 16}) {
		t.Errorf("plotted %v %v", p.Series, p.Values)
	}
}

// A real run: fig4 built from a characterization of mt at a tiny scale,
// and the set-up inventory agreeing with the run's objects.
func TestCharFigureFromARun(t *testing.T) {
	const scale = 0.01
	fig, _ := LookupChar("fig4")
	runs, resolve := PlanChar(fig[0].Needs)
	done, err := RunChar(runs, scale, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := BuildChar(fig[0], done, resolve, nil, Timed{})
	if len(o.Plots) != 1 || len(o.Plots[0].Table.Apps) != characterize.DefaultIntervals {
		t.Fatalf("%+v", o)
	}
	for _, c := range o.Claims {
		if strings.Contains(c.Claim, "all read-only") || strings.Contains(c.Claim, "all write-only") || strings.Contains(c.Claim, "every interval") {
			if c.Verdict != Agrees {
				t.Errorf("%+v", c)
			}
		}
	}
	inv, err := Inventory("mt", scale)
	if err != nil {
		t.Fatal(err)
	}
	res := done[runs[0]].Result
	if len(inv.Objects) != len(res.Objects) || inv.Footprint != res.Footprint || inv.Kernels != len(res.Phases) || inv.Launches != 1 {
		t.Fatalf("inventory %+v, run %d objects, %d bytes", inv, len(res.Objects), res.Footprint)
	}
	for i, ob := range res.Objects {
		if inv.Objects[i].Name != ob.Name || inv.Objects[i].Size != ob.Size || int(inv.Objects[i].Pages()) != ob.Pages {
			t.Errorf("object %d: %+v, run %+v", i, inv.Objects[i], ob)
		}
	}
}
