package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mgpu-sim/mgpu/characterize"
	"github.com/mgpu-sim/mgpu/plots"
)

// ClassAt is a result's page-class lookup: the class of 4 KB page i of
// object obj in interval iv, false if untouched there
// (characterize.Result.IntervalClass).
type ClassAt func(obj, i, iv int) (characterize.Class, bool)

var accesses = []characterize.Access{characterize.ReadOnly, characterize.WriteOnly, characterize.RWMix}

// ---------------------------------------------------------------- Fig. 3

// sizeBins are Fig. 3's object-size classes, by 4 KB pages. The paper's
// bins are not legible in its text; these are powers of 16 pages around
// the 2 MB large page.
var sizeBins = []struct {
	Label    string
	MaxPages uint64
}{
	{"1 page (4 KB)", 1}, {"2-16 pages (<=64 KB)", 16}, {"17-512 pages (<=2 MB)", 512},
	{"513-8192 pages (<=32 MB)", 8192}, {">32 MB", math.MaxUint64},
}

func sizeBin(pages uint64) int {
	for i, b := range sizeBins {
		if pages <= b.MaxPages {
			return i
		}
	}
	return len(sizeBins) - 1
}

// inventoryOrder lists the inventories' workloads in the paper's order,
// then any others sorted.
func inventoryOrder[V any](m map[string]V) []string {
	var out []string
	rest := map[string]bool{}
	for w := range m {
		rest[w] = true
	}
	for _, w := range PaperWorkloads {
		if rest[w] {
			out = append(out, w)
			delete(rest, w)
		}
	}
	return append(out, sortedStrings(rest)...)
}

func fig3() CharFigure {
	return CharFigure{Name: "fig3", Title: "OASIS Fig. 3: distribution of object sizes", Inventory: Available(),
		Build: func(in CharInput) CharOutput { return objectSizes(in.Objects) }}
}

// objectSizes is Fig. 3: the share of each application's objects in each
// size bin, over all objects, and the mean over applications.
func objectSizes(inv map[string]AppObjects) CharOutput {
	t := plots.Table{}
	for _, b := range sizeBins {
		t.Series = append(t.Series, b.Label)
	}
	tab := TextTable{Suffix: "-objects", Title: "Objects per application (4 KB pages each spans)",
		Header: append([]string{"app", "objects", "smallest pages", "median pages", "largest pages"}, t.Series...)}
	all := make([]int, len(sizeBins))
	mean := make([]float64, len(sizeBins))
	var n, multi, apps, appsMulti, onePage, appsOnePage, kargOnePage int
	minPages, minNonKarg := uint64(math.MaxUint64), uint64(math.MaxUint64)
	for _, w := range inventoryOrder(inv) {
		objs := inv[w].Objects
		if len(objs) == 0 {
			continue
		}
		apps++
		counts := make([]int, len(sizeBins))
		var pages []uint64
		appMulti := 0
		for _, o := range objs {
			p := o.Pages()
			pages = append(pages, p)
			counts[sizeBin(p)]++
			all[sizeBin(p)]++
			n++
			if p > 1 {
				multi++
				appMulti++
			}
			minPages = min(minPages, p)
			if o.Name == "kernarg" {
				if p == 1 {
					kargOnePage++
				}
			} else {
				minNonKarg = min(minNonKarg, p)
			}
		}
		if 2*appMulti > len(objs) {
			appsMulti++
		}
		if appMulti < len(objs) {
			appsOnePage++
		}
		onePage += len(objs) - appMulti
		slices.Sort(pages)
		row := make([]float64, len(sizeBins))
		cells := []string{w, istr(len(objs)), u64(pages[0]), u64(pages[len(pages)/2]), u64(pages[len(pages)-1])}
		for i, c := range counts {
			row[i] = fraci(c, len(objs))
			mean[i] += row[i]
			cells = append(cells, istr(c))
		}
		t.Apps = append(t.Apps, w)
		t.Values = append(t.Values, row)
		tab.Rows = append(tab.Rows, cells)
	}
	out := CharOutput{Tables: []TextTable{tab}}
	if n == 0 {
		return out
	}
	allRow := make([]float64, len(sizeBins))
	for i := range all {
		allRow[i] = fraci(all[i], n)
		mean[i] /= float64(apps)
	}
	t.Apps = append(t.Apps, "all objects", "mean over apps")
	t.Values = append(t.Values, allRow, mean)
	out.Plots = []CharPlot{{Title: "OASIS Fig. 3: distribution of object sizes (4 GPUs, Table II sizes)",
		YLabel: "share of the app's objects", Stacked: true, Table: t}}
	out.Claims = []Claim{
		{"Fig. 3", "the smallest objects are a single 4 KB page", "1 page",
			fmt.Sprintf("%d page; %d one-page objects in %d of %d apps (the kernarg of %d); smallest other than kernarg: %d page(s)",
				minPages, onePage, appsOnePage, apps, kargOnePage, minNonKarg),
			boolVerdict(minPages == 1)},
		{"Fig. 3", "most objects span multiple pages", "most",
			fmt.Sprintf("%d of %d objects (%s) over all apps; over half in %d of %d apps", multi, n, pct(fraci(multi, n)), appsMulti, apps),
			boolVerdict(2*multi > n)},
	}
	out.Notes = []string{"Fig. 3's objects are every allocation of each workload's set-up (Table II's \"maximum number of objects allocated\"), from the set-up alone: no run is needed. Bins are this figure's choice; the paper's are not in its text."}
	return out
}

// -------------------------------------------------------------- Table II

// paperTableII is OASIS Table II: objects and memory footprint (MB).
var paperTableII = map[string]struct {
	Objects     int
	FootprintMB float64
}{
	"bfs": {5, 32}, "c2d": {10, 92}, "fft": {2, 48}, "i2c": {3, 80}, "mm": {4, 32}, "mt": {3, 64},
	"pr": {6, 32}, "st": {3, 32}, "lenet": {115, 24}, "vgg16": {240, 220}, "resnet18": {263, 297},
}

// footprintTolerance is how far a footprint may be from Table II's and
// still agree.
const footprintTolerance = 0.05

func table2() CharFigure {
	return CharFigure{Name: "table2", Title: "OASIS Table II: objects and footprints", Inventory: Available(),
		Build: func(in CharInput) CharOutput { return tableII(in.Objects) }}
}

// tableII compares each workload's object count and footprint with
// Table II's.
func tableII(inv map[string]AppObjects) CharOutput {
	t := plots.Table{Series: []string{"objects mgpu/paper", "footprint mgpu/paper"}}
	tab := TextTable{Suffix: "-table", Title: "Table II: objects and footprint (MB = 2^20 bytes)",
		Header: []string{"app", "objects paper", "objects mgpu", "live at most mgpu", "footprint paper MB", "footprint mgpu MB", "launches", "phases"}}
	var out CharOutput
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, w := range inventoryOrder(inv) {
		a := inv[w]
		mb := float64(a.Footprint) / (1 << 20)
		lo, hi = min(lo, mb), max(hi, mb)
		p, ok := paperTableII[w]
		if !ok {
			continue
		}
		t.Apps = append(t.Apps, w)
		t.Values = append(t.Values, []float64{float64(len(a.Objects)) / float64(p.Objects), mb / p.FootprintMB})
		tab.Rows = append(tab.Rows, []string{w, istr(p.Objects), istr(len(a.Objects)), istr(a.Live), fmt.Sprintf("%g", p.FootprintMB),
			fmt.Sprintf("%.1f", mb), istr(a.Launches), istr(a.Kernels)})
		objOK := len(a.Objects) == p.Objects
		fpOK := math.Abs(mb/p.FootprintMB-1) <= footprintTolerance
		v := Partly
		switch {
		case objOK && fpOK:
			v = Agrees
		case !objOK && !fpOK:
			v = Differs
		}
		out.Claims = append(out.Claims, Claim{"Table II", strings.ToUpper(w) + ": objects, footprint",
			fmt.Sprintf("%d, %g MB", p.Objects, p.FootprintMB), fmt.Sprintf("%d, %.1f MB", len(a.Objects), mb), v})
	}
	if len(t.Apps) > 0 {
		out.Plots = []CharPlot{{Title: "OASIS Table II: objects and footprint, mgpu over the paper", YLabel: "mgpu / paper", Table: t}}
		out.Claims = append(out.Claims, Claim{"Table II", "footprints range from 20 MB to 300 MB", "20-300 MB",
			fmt.Sprintf("%.1f-%.1f MB", lo, hi), boolVerdict(lo >= 20*(1-footprintTolerance) && hi <= 300*(1+footprintTolerance))})
	}
	out.Tables = []TextTable{tab}
	out.Notes = []string{fmt.Sprintf("Object counts and footprints are from each workload's set-up at its Table II size (4 GPUs); an object count agrees only if equal, a footprint within %.0f%%. The verdict reads objects as every allocation; \"live at most\" is the other reading, the most allocated and not yet freed at a launch.", 100*footprintTolerance)}
	return out
}

// ---------------------------------------------------------------- Fig. 4

// intervalCensus counts object obj's pages touched in each interval by
// class.
func intervalCensus(res *characterize.Result, at ClassAt, obj int) []characterize.Census {
	out := make([]characterize.Census, len(res.Intervals))
	for i := 0; i < res.Objects[obj].Pages; i++ {
		for iv := range out {
			if c, ok := at(obj, i, iv); ok {
				out[iv][c]++
			}
		}
	}
	return out
}

// accessLetter is a page's access class as one letter: R, W, M.
func accessLetter(a characterize.Access) byte {
	switch a {
	case characterize.ReadOnly:
		return 'R'
	case characterize.WriteOnly:
		return 'W'
	case characterize.RWMix:
		return 'M'
	}
	return '.'
}

// classCode is a page class as two letters: p or s (private, shared) and
// R, W or M; "." when untouched.
func classCode(c characterize.Class, ok bool) string {
	if !ok {
		return "."
	}
	s := "p"
	if c.Sharing() == characterize.Shared {
		s = "s"
	}
	return s + string(accessLetter(c.Access()))
}

// strip draws object obj's pages in interval iv as width characters, each
// one of width equal buckets of consecutive pages: R, W or M when all its
// touched pages are read-only, write-only or rw-mix, * when they differ, .
// when none is touched. It is the text form of Fig. 4's rows.
func strip(at ClassAt, obj, pages, iv, width int) string {
	width = max(1, min(width, pages))
	b := make([]byte, width)
	for k := range b {
		lo, hi := k*pages/width, (k+1)*pages/width
		ch := byte('.')
		for i := lo; i < hi; i++ {
			c, ok := at(obj, i, iv)
			if !ok {
				continue
			}
			l := accessLetter(c.Access())
			if ch == '.' {
				ch = l
			} else if ch != l {
				ch = '*'
				break
			}
		}
		b[k] = ch
	}
	return string(b)
}

// pageRuns lists object obj's touched pages per interval as runs of
// consecutive pages of one class: the data of a page-by-interval plot.
func pageRuns(res *characterize.Result, at ClassAt, obj int, name string) [][]string {
	var rows [][]string
	for iv := range res.Intervals {
		start, cur, have := 0, characterize.Class(0), false
		flush := func(end int) {
			if have {
				rows = append(rows, []string{name, istr(iv), istr(start), istr(end - 1), istr(end - start), cur.String()})
			}
		}
		for i := 0; i < res.Objects[obj].Pages; i++ {
			c, ok := at(obj, i, iv)
			if ok && have && c == cur {
				continue
			}
			flush(i)
			start, cur, have = i, c, ok
		}
		flush(res.Objects[obj].Pages)
	}
	return rows
}

// stripWidth is the characters per object of a printed page strip.
const stripWidth = 48

func fig4() CharFigure {
	return CharFigure{Name: "fig4", Title: "OASIS Fig. 4: page access patterns of MT's objects over 8 intervals",
		Needs: []CharNeed{{"mt", EqualIntervals}},
		Build: func(in CharInput) CharOutput {
			res := in.Results["mt"]
			if res == nil {
				return CharOutput{Notes: []string{"no mt characterization"}}
			}
			return mtPatterns(res, res.IntervalClass)
		}}
}

// paperMTPages is Fig. 4's "approximately 9,000 pages" per object, and
// mtPagesTolerance how far mgpu's count may be from it and still agree.
const (
	paperMTPages     = 9000
	mtPagesTolerance = 0.15
)

// mtPatterns is Fig. 4: MT_Input's and MT_Output's pages by access class
// in each interval of the run.
func mtPatterns(res *characterize.Result, at ClassAt) CharOutput {
	out := objectIntervals(res, at, []string{"MT_Input", "MT_Output"}, "t",
		"OASIS Fig. 4: MT's pages by access class in 8 equal intervals of the run", "4 KB pages touched")
	for _, c := range []struct {
		name  string
		want  characterize.Access
		place string
	}{{"MT_Input", characterize.ReadOnly, "first"}, {"MT_Output", characterize.WriteOnly, "next"}} {
		id, ok := objectByPaperName(res, c.name)
		if !ok {
			out.Claims = append(out.Claims, Claim{"Fig. 4", c.name, "present", "no such object", Differs})
			continue
		}
		ob := res.Objects[id]
		first := 0
		for _, o := range res.Objects {
			if o.ID < id {
				first += o.Pages
			}
		}
		out.Claims = append(out.Claims, Claim{"Fig. 4", fmt.Sprintf("%s is the %s ~9,000 pages", c.name, c.place),
			"~9,000 pages", fmt.Sprintf("%d pages (pages %d-%d of all objects')", ob.Pages, first, first+ob.Pages-1),
			boolVerdict(math.Abs(float64(ob.Pages)/paperMTPages-1) <= mtPagesTolerance)})
		run := runEntry(res, id)
		want := c.want.String()
		if run != nil {
			n := run.Small.Count(characterize.NoSharing, c.want)
			out.Claims = append(out.Claims, Claim{"Fig. 4", fmt.Sprintf("%s pages are all %s", c.name, want), "all",
				fmt.Sprintf("%d of %d pages %s (%s)", n, ob.Pages, want, characterize.ObjectClass(&run.Small)),
				boolVerdict(n == ob.Pages)})
		}
		// An interval that does not touch the object does not break the
		// pattern; the count of them is reported.
		cs := intervalCensus(res, at, id)
		good, touched, cells, bad := 0, 0, 0, 0
		for _, s := range cs {
			k := s.Count(characterize.NoSharing, c.want)
			cells += s.Pages()
			bad += s.Pages() - k
			if s.Pages() > 0 {
				touched++
				if k == s.Pages() {
					good++
				}
			}
		}
		out.Claims = append(out.Claims, Claim{"Fig. 4", fmt.Sprintf("%s stays %s in every interval", c.name, want),
			fmt.Sprintf("%d of %d intervals", len(cs), len(cs)),
			fmt.Sprintf("%d of %d intervals (touched in %d); %d of %d touched page-intervals not %s", good, len(cs), touched, bad, cells, want),
			boolVerdict(good == touched && touched > 0)})
	}
	return out
}

// objectIntervals is the plot, page runs and strips of the named objects
// over res's intervals (Fig. 4 and 7b): per interval, each object's pages
// by access class.
func objectIntervals(res *characterize.Result, at ClassAt, names []string, prefix, title, ylabel string) CharOutput {
	t := plots.Table{}
	runs := TextTable{Suffix: "-pages", Title: "Page runs per interval (consecutive pages of one class)",
		Header: []string{"object", "interval", "first page", "last page", "pages", "class"}, CSVOnly: true}
	strips := TextTable{Suffix: "-strip",
		Title:  fmt.Sprintf("Pages left to right, %d buckets per object (R read-only, W write-only, M rw-mix, * mixed, . untouched)", stripWidth),
		Header: []string{"interval"}}
	var ids []int
	var census [][]characterize.Census
	for _, n := range names {
		id, ok := objectByPaperName(res, n)
		if !ok {
			continue
		}
		ids = append(ids, id)
		census = append(census, intervalCensus(res, at, id))
		for _, a := range accesses {
			t.Series = append(t.Series, n+" "+a.String())
		}
		strips.Header = append(strips.Header, fmt.Sprintf("%s (%d pages)", n, res.Objects[id].Pages))
		runs.Rows = append(runs.Rows, pageRuns(res, at, id, n)...)
	}
	for iv := range res.Intervals {
		label := fmt.Sprintf("%s%d", prefix, iv)
		row := []float64{}
		srow := []string{label}
		for k, id := range ids {
			for _, a := range accesses {
				row = append(row, float64(census[k][iv].Count(characterize.NoSharing, a)))
			}
			srow = append(srow, strip(at, id, res.Objects[id].Pages, iv, stripWidth))
		}
		t.Apps = append(t.Apps, label)
		t.Values = append(t.Values, row)
		strips.Rows = append(strips.Rows, srow)
	}
	return CharOutput{Plots: []CharPlot{{Title: title, YLabel: ylabel, Stacked: true, Table: t}},
		Tables: []TextTable{strips, runs}}
}

// ---------------------------------------------------------------- Fig. 5

func fig5() CharFigure {
	return CharFigure{Name: "fig5", Title: "OASIS Fig. 5: object behaviour and accesses of I2C, MM, ST",
		Needs: []CharNeed{{"i2c", AnyIntervals}, {"mm", AnyIntervals}, {"st", AnyIntervals}},
		Build: func(in CharInput) CharOutput {
			return objectBehaviour([]*characterize.Result{in.Results["i2c"], in.Results["mm"], in.Results["st"]})
		}}
}

// objInfo is one object's whole-run summary within its application.
type objInfo struct {
	name, class      string
	sharing          characterize.Sharing
	access           characterize.Access
	pages, touched   int
	pageShare, share float64
	shareNoKarg      float64
}

// objectInfos summarises res's objects over the whole run: class at 4 KB,
// share of the app's pages and of its page accesses (also without the
// kernel-argument object's).
func objectInfos(res *characterize.Result) []objInfo {
	var pages int
	var karg uint64
	for i := range res.ObjectRun {
		op := &res.ObjectRun[i]
		pages += res.Objects[op.Object].Pages
		if res.Objects[op.Object].Name == "kernarg" {
			karg += op.Accesses()
		}
	}
	var out []objInfo
	for i := range res.ObjectRun {
		op := &res.ObjectRun[i]
		ob := res.Objects[op.Object]
		in := objInfo{name: paperName(res.Workload, ob.Name), class: characterize.ObjectClass(&op.Small),
			sharing: op.Small.Sharing(), access: op.Small.Access(), pages: ob.Pages, touched: op.Small.Pages(),
			pageShare: fraci(ob.Pages, pages), share: frac(op.Accesses(), res.Accesses)}
		in.shareNoKarg = nan
		if ob.Name != "kernarg" {
			in.shareNoKarg = frac(op.Accesses(), res.Accesses-karg)
		}
		out = append(out, in)
	}
	return out
}

func findInfo(infos []objInfo, name string) (objInfo, bool) {
	for _, in := range infos {
		if in.name == name {
			return in, true
		}
	}
	return objInfo{}, false
}

// objectBehaviour is Fig. 5: (a) the class of each object of I2C, MM and
// ST over the run, (b) its share of the app's page accesses.
func objectBehaviour(results []*characterize.Result) CharOutput {
	t := plots.Table{Series: []string{"share of the app's pages", "share of the app's accesses"}}
	tab := TextTable{Suffix: "-objects", Title: "Fig. 5 objects over the whole run (4 KB pages)",
		Header: []string{"app", "object", "class", "pages", "touched", "share of pages", "share of accesses", "share of accesses without kernarg"}}
	infos := map[string][]objInfo{}
	for _, res := range results {
		if res == nil {
			continue
		}
		in := objectInfos(res)
		infos[res.Workload] = in
		for _, o := range in {
			t.Apps = append(t.Apps, o.name)
			t.Values = append(t.Values, []float64{o.pageShare, o.share})
			tab.Rows = append(tab.Rows, []string{res.Workload, o.name, o.class, istr(o.pages), istr(o.touched),
				pct(o.pageShare), pct(o.share), pct(o.shareNoKarg)})
		}
	}
	out := CharOutput{Tables: []TextTable{tab}}
	if len(t.Apps) > 0 {
		out.Plots = []CharPlot{{Title: "OASIS Fig. 5: pages and page accesses per object (4 GPUs)", YLabel: "share of the app", Table: t}}
	}
	get := func(app, name string) (objInfo, bool) { return findInfo(infos[app], name) }
	classClaim := func(app, name, want string) Claim {
		o, ok := get(app, name)
		if !ok {
			return Claim{"Fig. 5", name + " is " + want, want, "no such object", Differs}
		}
		return Claim{"Fig. 5", name + " is " + want, want, o.class, boolVerdict(o.class == want)}
	}
	if in, ok := get("i2c", "I2C_Output"); ok {
		out.Claims = append(out.Claims, Claim{"Fig. 5", "I2C_Output is private", "private", in.class,
			boolVerdict(in.sharing == characterize.Private)})
		if inp, ok := get("i2c", "I2C_Input"); ok {
			out.Claims = append(out.Claims, Claim{"Fig. 5", "I2C_Output has more pages than I2C_Input", "more",
				fmt.Sprintf("%d against %d pages", in.pages, inp.pages), boolVerdict(in.pages > inp.pages)})
		}
		out.Claims = append(out.Claims, Claim{"Fig. 5", "I2C_Output's share of I2C's accesses", "75%",
			fmt.Sprintf("%s (%s without kernarg)", pct(in.share), pct(in.shareNoKarg)), shareVerdict(in.share, 0.75)})
	} else if infos["i2c"] != nil {
		out.Claims = append(out.Claims, Claim{"Fig. 5", "I2C_Output", "present", "no such object", Differs})
	}
	if infos["mm"] != nil {
		out.Claims = append(out.Claims, classClaim("mm", "MM_A", "shared-read-only"), classClaim("mm", "MM_B", "shared-read-only"))
		a, okA := get("mm", "MM_A")
		b, okB := get("mm", "MM_B")
		if okA && okB {
			pages := a.pageShare + b.pageShare
			out.Claims = append(out.Claims,
				Claim{"Fig. 5", "MM_A and MM_B hold most of MM's pages", "majority", pct(pages), boolVerdict(pages > 0.5)},
				Claim{"Fig. 5", "MM_A and MM_B's share of MM's accesses", "80%",
					fmt.Sprintf("%s (%s without kernarg)", pct(a.share+b.share), pct(a.shareNoKarg+b.shareNoKarg)),
					shareVerdict(a.share+b.share, 0.80)})
		}
	}
	if infos["st"] != nil {
		out.Claims = append(out.Claims, classClaim("st", "ST_currData", "shared-rw-mix"), classClaim("st", "ST_newData", "shared-rw-mix"))
	}
	out.Notes = []string{"An access is one wavefront memory instruction on one 4 KB page (what the GPU translates), counted before the caches; the paper does not say what it counts. Classes are over the whole run at 4 KB (the 90% rule of OASIS §IV-B)."}
	return out
}

// ---------------------------------------------------------------- Fig. 6

// c2dPaperPhases are Fig. 6's three main explicit phases and the kernel
// each is the first launch of after the one before: MGPUSim's Conv2D also
// transposes the bias before its GEMM, so the Matrix-Transpose phase is
// the output's transpose that follows the GEMM.
var c2dPaperPhases = []struct{ Label, Kernel string }{
	{"Image-to-Column", "im2col"}, {"GEMM", "gemm"}, {"Matrix-Transpose", "transpose"},
}

// c2dPaperObjects are Fig. 6's five objects.
var c2dPaperObjects = []string{"Im2col_Input", "Im2col_Output", "GEMM_Output", "MT_Output", "Parameters"}

func fig6() CharFigure {
	return CharFigure{Name: "fig6", Title: "OASIS Fig. 6: C2D's object patterns per explicit phase",
		Needs: []CharNeed{{"c2d", AnyIntervals}},
		Build: func(in CharInput) CharOutput {
			res := in.Results["c2d"]
			if res == nil {
				return CharOutput{Notes: []string{"no c2d characterization"}}
			}
			return phasePatterns(res)
		}}
}

// phaseEntry is object id's entry in phase ph, nil if it was untouched.
func phaseEntry(res *characterize.Result, ph, id int) *characterize.ObjectPhase {
	for i := range res.ObjectPhases {
		if op := &res.ObjectPhases[i]; op.Phase == ph && op.Object == id {
			return op
		}
	}
	return nil
}

func censusClass(c *characterize.Census) string {
	if c == nil || c.Pages() == 0 {
		return "-"
	}
	return characterize.ObjectClass(c)
}

// phaseClean reports a class that is private and read-only or write-only:
// what Fig. 6 finds for C2D's objects within its phases.
func phaseClean(c *characterize.Census) bool {
	return c.Sharing() == characterize.Private && (c.Access() == characterize.ReadOnly || c.Access() == characterize.WriteOnly)
}

// phasePatterns is Fig. 6: the class of C2D's five objects in its three
// main explicit phases and over the whole run.
func phasePatterns(res *characterize.Result) CharOutput {
	t := plots.Table{}
	for c := characterize.Class(0); c < characterize.NumClasses; c++ {
		t.Series = append(t.Series, c.String())
	}
	phaseOf := map[string]int{}
	after := -1
	for _, pp := range c2dPaperPhases {
		phaseOf[pp.Label] = -1
		for _, ph := range res.Phases {
			if ph.Name == pp.Kernel && ph.Index > after {
				phaseOf[pp.Label], after = ph.Index, ph.Index
				break
			}
		}
	}
	shares := func(c *characterize.Census) []float64 {
		row := make([]float64, characterize.NumClasses)
		for i := range row {
			row[i] = nan
			if c != nil && c.Pages() > 0 {
				row[i] = fraci(c[i], c.Pages())
			}
		}
		return row
	}
	tab := TextTable{Suffix: "-classes", Title: "C2D object classes per phase (4 KB pages; - untouched)", Header: []string{"object"}}
	for _, ph := range res.Phases {
		tab.Header = append(tab.Header, fmt.Sprintf("%d %s", ph.Index, ph.Label))
	}
	tab.Header = append(tab.Header, "overall")
	var out CharOutput
	cleanPairs, pairs := 0, 0
	for _, name := range c2dPaperObjects {
		id, ok := objectByPaperName(res, name)
		if !ok {
			out.Claims = append(out.Claims, Claim{"Fig. 6", name, "present", "no such object", Differs})
			continue
		}
		row := []string{name}
		for _, ph := range res.Phases {
			var c *characterize.Census
			if op := phaseEntry(res, ph.Index, id); op != nil {
				c = &op.Small
				pairs++
				if phaseClean(c) {
					cleanPairs++
				}
			}
			row = append(row, censusClass(c))
		}
		run := runEntry(res, id)
		var overall *characterize.Census
		if run != nil {
			overall = &run.Small
		}
		tab.Rows = append(tab.Rows, append(row, censusClass(overall)))
		var inPhases []string
		clean, sharedOverall := true, overall != nil && overall.Sharing() == characterize.Shared
		for _, pp := range c2dPaperPhases {
			var c *characterize.Census
			if ph := phaseOf[pp.Label]; ph >= 0 {
				if op := phaseEntry(res, ph, id); op != nil {
					c = &op.Small
				}
			}
			t.Apps = append(t.Apps, name+" @ "+pp.Label)
			t.Values = append(t.Values, shares(c))
			inPhases = append(inPhases, pp.Label+": "+censusClass(c))
			if c != nil && c.Pages() > 0 && !phaseClean(c) {
				clean = false
			}
		}
		t.Apps = append(t.Apps, name+" @ overall")
		t.Values = append(t.Values, shares(overall))
		if name == "Im2col_Output" || name == "GEMM_Output" {
			out.Claims = append(out.Claims,
				Claim{"Fig. 6", name + " over the whole run", "shared-rw-mix", censusClass(overall),
					boolVerdict(censusClass(overall) == "shared-rw-mix")},
				Claim{"Fig. 6", name + " within each phase: private, read-only or write-only", "private, RO/WO",
					strings.Join(inPhases, "; "), boolVerdict(clean)})
		}
		if name == "Im2col_Output" {
			out.Claims = append(out.Claims, Claim{"Fig. 6", "Im2col_Output is shared over the run but private within phases",
				"shared overall, private per phase", fmt.Sprintf("%s overall", censusClass(overall)), boolVerdict(clean && sharedOverall)})
		}
	}
	var kernels []string
	for _, ph := range res.Phases {
		kernels = append(kernels, ph.Name)
	}
	out.Claims = append(out.Claims,
		Claim{"Fig. 6", "C2D's three main explicit phases", "Image-to-Column, GEMM, Matrix-Transpose",
			fmt.Sprintf("%d launches: %s", len(res.Phases), strings.Join(kernels, ", ")), Info},
		Claim{"Fig. 6", "the five objects over all phases: private and RO or WO", "(not stated)",
			fmt.Sprintf("%d of %d object-phases", cleanPairs, pairs), Info})
	out.Plots = []CharPlot{{Title: "OASIS Fig. 6: C2D object classes in its three main phases and overall",
		YLabel: "share of the object's touched pages", Stacked: true, Table: t}}
	out.Tables = []TextTable{tab}
	out.Notes = []string{"Fig. 6's phases are the first launches of im2col, then gemm, then transpose after it (C2D's forward pass: the output's transpose, not the bias's before the GEMM); the table lists every launch. MT_Output is the layer's NCHW output (conv), Parameters its weights."}
	return out
}

// ---------------------------------------------------------------- Fig. 7

// stSample is how many pages of each grid Fig. 7b shows (12 in all).
const stSample = 6

// samplePages picks k pages of n: the middle page of k equal parts, away
// from the halo pages at the ends.
func samplePages(n, k int) []int {
	var out []int
	for j := 0; j < k && j < n; j++ {
		out = append(out, (2*j+1)*n/(2*k))
	}
	return out
}

// alternates reports page i of obj: touched in every interval, read-only
// in the even ones and write-only in the odd ones (or the reverse when
// startRead is false).
func alternates(at ClassAt, obj, i, intervals int, startRead bool) bool {
	for iv := 0; iv < intervals; iv++ {
		c, ok := at(obj, i, iv)
		want := characterize.WriteOnly
		if (iv%2 == 0) == startRead {
			want = characterize.ReadOnly
		}
		if !ok || c.Access() != want {
			return false
		}
	}
	return intervals > 0
}

func fig7() CharFigure {
	return CharFigure{Name: "fig7", Title: "OASIS Fig. 7b: ST's page access patterns across iterations",
		Needs: []CharNeed{{"st", PhaseIntervals}},
		Build: func(in CharInput) CharOutput {
			res := in.Results["st"]
			if res == nil {
				return CharOutput{Notes: []string{"no st characterization"}}
			}
			return iterationPatterns(res, res.IntervalClass)
		}}
}

// iterationPatterns is Fig. 7b: ST's grids' pages by access class in each
// iteration (res's intervals must be its phases), a 12-page sample, and
// the alternation of every page.
func iterationPatterns(res *characterize.Result, at ClassAt) CharOutput {
	out := objectIntervals(res, at, []string{"ST_currData", "ST_newData"}, "it",
		"OASIS Fig. 7b: ST's pages by access class in each iteration", "4 KB pages touched")
	if !res.PhaseIntervals {
		out.Notes = append(out.Notes, "the intervals are not the phases: the classes are per slice of the run, not per iteration")
	}
	n := len(res.Intervals)
	sample := TextTable{Suffix: "-sample", Title: "Fig. 7b sample: 6 pages of each grid (p/s private/shared, R/W/M, . untouched)",
		Header: []string{"object", "page"}}
	for iv := 0; iv < n; iv++ {
		sample.Header = append(sample.Header, fmt.Sprintf("it%d", iv))
	}
	for _, c := range []struct {
		name      string
		startRead bool
	}{{"ST_currData", true}, {"ST_newData", false}} {
		id, ok := objectByPaperName(res, c.name)
		if !ok {
			out.Claims = append(out.Claims, Claim{"Fig. 7b", c.name, "present", "no such object", Differs})
			continue
		}
		ob := res.Objects[id]
		if run := runEntry(res, id); run != nil {
			cl := characterize.ObjectClass(&run.Small)
			out.Claims = append(out.Claims, Claim{"Fig. 7", c.name + " over the whole run", "shared-rw-mix", cl, boolVerdict(cl == "shared-rw-mix")})
		}
		follow := 0
		for i := 0; i < ob.Pages; i++ {
			if alternates(at, id, i, n, c.startRead) {
				follow++
			}
		}
		sampled := 0
		for _, i := range samplePages(ob.Pages, stSample) {
			row := []string{c.name, istr(i)}
			for iv := 0; iv < n; iv++ {
				row = append(row, classCode(at(id, i, iv)))
			}
			sample.Rows = append(sample.Rows, row)
			if alternates(at, id, i, n, c.startRead) {
				sampled++
			}
		}
		first, then := "read-only", "write-only"
		if !c.startRead {
			first, then = then, first
		}
		v := Differs
		switch {
		case sampled == stSample && 10*follow >= 9*ob.Pages:
			v = Agrees
		case sampled > 0 || follow > 0:
			v = Partly
		}
		out.Claims = append(out.Claims, Claim{"Fig. 7b", fmt.Sprintf("%s's pages start %s, then alternate with %s each iteration", c.name, first, then),
			"6 of 6 pages shown", fmt.Sprintf("sample %d of %d; %d of %d pages over all %d iterations", sampled, min(stSample, ob.Pages), follow, ob.Pages, n), v})
	}
	launches, clean, pairs := 0, 0, 0
	for _, ph := range res.Phases {
		if ph.Explicit {
			launches++
		}
	}
	for i := range res.ObjectPhases {
		op := &res.ObjectPhases[i]
		name := paperName(res.Workload, res.Objects[op.Object].Name)
		if name != "ST_currData" && name != "ST_newData" {
			continue
		}
		pairs++
		if a := op.Small.Access(); a == characterize.ReadOnly || a == characterize.WriteOnly {
			clean++
		}
	}
	out.Claims = append(out.Claims,
		Claim{"Fig. 7", "ST's iterations are implicit phases of one kernel", "one Stencil2D kernel, iterations inside",
			fmt.Sprintf("%d launch, %d phases", launches, len(res.Phases)), boolVerdict(launches == 1 && len(res.Phases) > 1)},
		Claim{"Fig. 7", "within an iteration each grid is read-only or write-only", "consistent within a phase",
			fmt.Sprintf("%d of %d object-iterations", clean, pairs), boolVerdict(pairs > 0 && clean == pairs)})
	out.Tables = append([]TextTable{sample}, out.Tables...)
	return out
}

// --------------------------------------------------------------- Fig. 20

func fig20() CharFigure {
	var needs []CharNeed
	for _, w := range Available() {
		needs = append(needs, CharNeed{w, AnyIntervals})
	}
	return CharFigure{Name: "fig20", Title: "OASIS Fig. 20: page types at 4 KB and 2 MB", Needs: needs,
		Build: func(in CharInput) CharOutput { return pageTypes(in.Results) }}
}

// appCensus is res's app-level census at page size ps over period.
func appCensus(res *characterize.Result, ps uint64, period string) *characterize.Census {
	for i := range res.App {
		if a := &res.App[i]; a.PageSize == ps && a.Period == period {
			return &a.Census
		}
	}
	return nil
}

// pageShares are a census's shares of touched pages: private, shared,
// read-only, write-only, rw-mix.
func pageShares(c *characterize.Census) [5]float64 {
	n := c.Pages()
	return [5]float64{fraci(c.Count(characterize.Private, characterize.NoAccess), n), fraci(c.Count(characterize.Shared, characterize.NoAccess), n),
		fraci(c.Count(characterize.NoSharing, characterize.ReadOnly), n), fraci(c.Count(characterize.NoSharing, characterize.WriteOnly), n),
		fraci(c.Count(characterize.NoSharing, characterize.RWMix), n)}
}

// largerAt2MB compares, per app, one page share at 4 KB (v[w][0]) and
// 2 MB (v[w][1]), at 0.1% resolution (a page more or less is not a
// difference), and their means over the apps: whether the share is higher
// with 2 MB pages, as Fig. 20 finds.
func largerAt2MB(figure, what, period string, apps []string, v map[string][2]float64) Claim {
	var up, eq, down []string
	var mean [2]float64
	for _, w := range apps {
		x := v[w]
		mean[0] += x[0] / float64(len(apps))
		mean[1] += x[1] / float64(len(apps))
		switch d := math.Round(1000*x[1]) - math.Round(1000*x[0]); {
		case d > 0:
			up = append(up, w)
		case d < 0:
			down = append(down, w)
		default:
			eq = append(eq, w)
		}
	}
	v2 := Differs
	if mean[1] > mean[0] {
		v2 = Agrees
		if len(down) > 0 {
			v2 = Partly
		}
	}
	m := fmt.Sprintf("average %s at 4 KB, %s at 2 MB; higher in %d of %d apps", pct(mean[0]), pct(mean[1]), len(up), len(apps))
	if len(eq) > 0 {
		m += fmt.Sprintf(", equal in %s", strings.Join(eq, ", "))
	}
	if len(down) > 0 {
		m += fmt.Sprintf(", lower in %s", strings.Join(down, ", "))
	}
	claim := "the share of " + what + " pages is higher with 2 MB pages"
	if period != "run" {
		claim += " (" + period + ")"
	}
	return Claim{figure, claim, "higher", m, v2}
}

// fig20Period is the census Fig. 20 plots: each page classified once per
// phase it is touched in. OASIS §IV-B defines the page classes "during a
// particular execution period", and ST's read-only half in the figure
// exists only per phase: its two grids swap roles every iteration (§IV,
// Fig. 7), so over the run both are rw-mix.
const fig20Period = "phase"

// pageTypes is Fig. 20: the share of touched pages that are read-only,
// write-only, rw-mix (a) and private, shared (b), at 4 KB and 2 MB, each
// page classified once per phase (fig20Period); the table and the claims
// also give the census over the whole run.
func pageTypes(results map[string]*characterize.Result) CharOutput {
	rw := plots.Table{Series: []string{"read-only", "write-only", "rw-mix"}}
	ps := plots.Table{Series: []string{"private", "shared"}}
	tab := TextTable{Suffix: "-pages", Title: "Page types (run: each page over the whole run; phase: once per phase it is touched in)",
		Header: []string{"app", "page size", "period", "pages", "private", "shared", "read-only", "write-only", "rw-mix"}}
	sizes := []struct {
		label string
		bytes uint64
	}{{"4KB", characterize.SmallPage}, {"2MB", characterize.LargePage}}
	periods := []string{"run", "phase"}
	// shared[period][app] and rwmix[period][app]: the share at 4 KB and
	// 2 MB.
	shared := map[string]map[string][2]float64{"run": {}, "phase": {}}
	rwmix := map[string]map[string][2]float64{"run": {}, "phase": {}}
	var sum [2][5]float64
	var apps []string
	for _, w := range inventoryOrder(results) {
		res := results[w]
		if res == nil || appCensus(res, characterize.SmallPage, "run") == nil {
			continue
		}
		apps = append(apps, w)
		for k, s := range sizes {
			for _, period := range periods {
				c := appCensus(res, s.bytes, period)
				if c == nil {
					continue
				}
				v := pageShares(c)
				tab.Rows = append(tab.Rows, []string{w, s.label, period, istr(c.Pages()), pct(v[0]), pct(v[1]), pct(v[2]), pct(v[3]), pct(v[4])})
				sh, rm := shared[period][w], rwmix[period][w]
				sh[k], rm[k] = v[1], v[4]
				shared[period][w], rwmix[period][w] = sh, rm
				if period != fig20Period {
					continue
				}
				label := w + " " + s.label
				ps.Apps, rw.Apps = append(ps.Apps, label), append(rw.Apps, label)
				ps.Values = append(ps.Values, []float64{v[0], v[1]})
				rw.Values = append(rw.Values, []float64{v[2], v[3], v[4]})
				for i := range v {
					sum[k][i] += v[i]
				}
			}
		}
	}
	out := CharOutput{Tables: []TextTable{tab}}
	if len(apps) == 0 {
		return out
	}
	for k, s := range sizes {
		var avg [5]float64
		for i := range avg {
			avg[i] = sum[k][i] / float64(len(apps))
		}
		label := "average " + s.label
		ps.Apps, rw.Apps = append(ps.Apps, label), append(rw.Apps, label)
		ps.Values = append(ps.Values, []float64{avg[0], avg[1]})
		rw.Values = append(rw.Values, []float64{avg[2], avg[3], avg[4]})
	}
	out.Plots = []CharPlot{
		{Suffix: "a", Title: "OASIS Fig. 20(a): read/write types of pages at 4 KB and 2 MB", YLabel: "share of touched pages", Stacked: true, Table: rw},
		{Suffix: "b", Title: "OASIS Fig. 20(b): private/shared pages at 4 KB and 2 MB", YLabel: "share of touched pages", Stacked: true, Table: ps},
	}
	for _, period := range periods {
		out.Claims = append(out.Claims, largerAt2MB("Fig. 20", "shared", period, apps, shared[period]),
			largerAt2MB("Fig. 20", "rw-mix", period, apps, rwmix[period]))
	}
	out.Notes = []string{"Fig. 20 plots each page classified once per phase it is touched in (period \"phase\"): OASIS defines its page classes \"during a particular execution period\" and does not say which period the figure uses, but ST's read-only half exists only per phase (its two grids swap roles each iteration). The table and the (run) claims give the census over the whole run. A 2 MB page's GPUs and reads/writes are the union of its 4 KB pages'. Every object starts on a 2 MB boundary, so a 2 MB page holds one object and a one-page object (kernarg, a bias) is a 2 MB page of its own."}
	return out
}

// ------------------------------------------------------------ uniformity

// onePhaseApps are the 7 applications OASIS §IV-B evaluates for
// uniformity: those with one explicit phase (kernel function).
var onePhaseApps = []string{"bfs", "fft", "i2c", "mm", "mt", "pr", "st"}

func uniformity() CharFigure {
	var needs []CharNeed
	for _, w := range onePhaseApps {
		needs = append(needs, CharNeed{w, AnyIntervals})
	}
	return CharFigure{Name: "uniformity", Title: "OASIS §IV-B: non-uniform objects and apps", Needs: needs,
		Build: func(in CharInput) CharOutput { return nonUniform(in.Results) }}
}

// mainClass is the most common page class of c (the lowest on a tie);
// ok is false when no page is counted.
func mainClass(c *characterize.Census) (characterize.Class, bool) {
	best := characterize.Class(0)
	for cl := characterize.Class(1); cl < characterize.NumClasses; cl++ {
		if c[cl] > c[best] {
			best = cl
		}
	}
	return best, c[best] > 0
}

// Uniformity counts the pages of an object that differ from its main
// (most common) page class in both dimensions, private/shared and
// read/write (OASIS §IV-B's non-uniform pages), and in exactly one.
func Uniformity(c *characterize.Census) (main characterize.Class, both, one int) {
	main, ok := mainClass(c)
	if !ok {
		return main, 0, 0
	}
	for cl := characterize.Class(0); cl < characterize.NumClasses; cl++ {
		s, a := cl.Sharing() != main.Sharing(), cl.Access() != main.Access()
		switch {
		case s && a:
			both += c[cl]
		case s || a:
			one += c[cl]
		}
	}
	return main, both, one
}

// nonUniform is §IV-B's uniformity study: per object of the one-phase
// apps, its pages that differ from its main class in both dimensions
// (non-uniform: at least one such page) or in one.
func nonUniform(results map[string]*characterize.Result) CharOutput {
	t := plots.Table{Series: []string{"pages differing in both dimensions", "pages differing in one dimension"}}
	tab := TextTable{Suffix: "-objects", Title: "Objects over the whole run (4 KB): main class and pages that differ from it",
		Header: []string{"app", "object", "touched pages", "main class", "differ in both", "differ in one", "non-uniform"}}
	var objects, nonObjects, pages, bothPages, onePages, nonAppPages, nonAppBoth int
	var nonObjNames, nonApps, multiLaunch, multiKernel []string
	apps := 0
	for _, w := range onePhaseApps {
		res := results[w]
		if res == nil {
			continue
		}
		apps++
		var appPages, appBoth, appOne int
		for i := range res.ObjectRun {
			op := &res.ObjectRun[i]
			main, both, one := Uniformity(&op.Small)
			n := op.Small.Pages()
			objects++
			appPages += n
			appBoth += both
			appOne += one
			name := paperName(w, res.Objects[op.Object].Name)
			mc := "-"
			if n > 0 {
				mc = main.String()
			}
			yes := "no"
			if both > 0 {
				yes = "yes"
				nonObjects++
				nonObjNames = append(nonObjNames, name)
			}
			tab.Rows = append(tab.Rows, []string{w, name, istr(n), mc, istr(both), istr(one), yes})
		}
		if appBoth > 0 {
			nonApps = append(nonApps, strings.ToUpper(w))
			nonAppPages += appPages
			nonAppBoth += appBoth
		}
		pages += appPages
		bothPages += appBoth
		onePages += appOne
		t.Apps = append(t.Apps, w)
		t.Values = append(t.Values, []float64{fraci(appBoth, appPages), fraci(appOne, appPages)})
		launches, kernels := 0, map[string]bool{}
		for _, ph := range res.Phases {
			kernels[ph.Name] = true
			if ph.Explicit {
				launches++
			}
		}
		if launches != 1 {
			multiLaunch = append(multiLaunch, fmt.Sprintf("%s %d", strings.ToUpper(w), launches))
		}
		if len(kernels) != 1 {
			multiKernel = append(multiKernel, fmt.Sprintf("%s %d (%s)", strings.ToUpper(w), len(kernels), strings.Join(sortedStrings(kernels), ", ")))
		}
	}
	out := CharOutput{Tables: []TextTable{tab}}
	if apps == 0 {
		return out
	}
	out.Plots = []CharPlot{{Title: "OASIS §IV-B: pages differing from their object's main class (whole run, 4 KB)",
		YLabel: "share of the app's touched pages", Table: t}}
	list := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	phases := "1 kernel function each"
	if len(multiKernel) > 0 {
		phases = "kernel functions: " + strings.Join(multiKernel, ", ") + "; 1 in the others"
	}
	if len(multiLaunch) > 0 {
		phases += "; launches: " + strings.Join(multiLaunch, ", ") + ", 1 in the others"
	}
	inNonUniform := ""
	if nonAppPages > 0 {
		inNonUniform = fmt.Sprintf(" (%s of the non-uniform apps')", pct(fraci(nonAppBoth, nonAppPages)))
	}
	out.Claims = []Claim{
		{"§IV-B", "objects of BFS, FFT, I2C, MM, MT, PR, ST", "26", istr(objects), boolVerdict(objects == 26)},
		{"§IV-B", "these apps have one explicit phase (kernel function)", "1 each", phases, boolVerdict(len(multiKernel) == 0)},
		{"§IV-B", "non-uniform objects", "2 of 26", fmt.Sprintf("%d of %d (%s)", nonObjects, objects, list(nonObjNames)),
			boolVerdict(nonObjects == 2 && objects == 26)},
		{"§IV-B", "non-uniform apps", "1 of 7 (ST)", fmt.Sprintf("%d of %d (%s)", len(nonApps), apps, list(nonApps)),
			boolVerdict(len(nonApps) == 1 && nonApps[0] == "ST")},
		{"§IV-B", "non-uniform pages", "< 5% of the total",
			fmt.Sprintf("%s of the %d apps' touched pages%s; %s differ in one dimension",
				pct(fraci(bothPages, pages)), apps, inNonUniform, pct(fraci(onePages, pages))),
			boolVerdict(20*bothPages < pages)},
	}
	out.Notes = []string{"A page is non-uniform when its class differs from its object's main (most common) page class in both dimensions, private/shared and read/write; an object is non-uniform when it has one (OASIS §IV-B; \"the others\" of the paper's definition read as the main class). Classes are over the whole run, which for these apps is their one kernel function (BFS and PR launch theirs several times)."}
	return out
}

func istr(v int) string   { return strconv.Itoa(v) }
func u64(v uint64) string { return strconv.FormatUint(v, 10) }
