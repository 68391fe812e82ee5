// Package plots draws figures from their CSV tables only. It knows nothing of
// runs, results or the simulator, so a figure can be redrawn (restyled,
// retitled) from its CSV without simulating anything again: `mgpu figure`
// writes the CSV and then draws it, `mgpu plot` draws an existing one.
package plots

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mgpu-sim/mgpu/atomicfile"
)

// Table is a figure's data as its CSV holds it: Values[app][series], NaN
// where a value is missing (an empty field in the CSV). A series named
// "<s> min" or "<s> max" beside a series <s> is <s>'s spread (a figure run
// on several seeds), which Plot draws as a whisker on <s>'s bar.
type Table struct {
	Series []string
	Apps   []string
	Values [][]float64
}

// The suffixes of a series' spread columns.
const (
	MinSuffix = " min"
	MaxSuffix = " max"
)

// spread splits the series into bars and, for each bar with both spread
// columns, their indices.
func (t Table) spread() (bars []int, lo, hi map[int]int) {
	idx := map[string]int{}
	for i, s := range t.Series {
		idx[s] = i
	}
	lo, hi = map[int]int{}, map[int]int{}
	for i, s := range t.Series {
		l, okl := idx[s+MinSuffix]
		h, okh := idx[s+MaxSuffix]
		if okl && okh {
			lo[i], hi[i] = l, h
		}
	}
	spreadCol := map[int]bool{}
	for i := range lo {
		spreadCol[lo[i]], spreadCol[hi[i]] = true, true
	}
	for i := range t.Series {
		if !spreadCol[i] {
			bars = append(bars, i)
		}
	}
	return bars, lo, hi
}

// WriteCSV writes the table wide: one row per application (and the
// average), one column per series.
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"app"}, t.Series...)); err != nil {
		return err
	}
	for i, app := range t.Apps {
		row := []string{app}
		for _, v := range t.Values[i] {
			if math.IsNaN(v) {
				row = append(row, "")
			} else {
				row = append(row, strconv.FormatFloat(v, 'f', 4, 64))
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads a table written by WriteCSV. An empty field (or NaN) is a
// missing value; an infinite one is an error naming its row and column. A
// UTF-8 byte-order mark, which spreadsheets put before a CSV they save, is
// skipped: it would otherwise be part of the first header, "\ufeffapp".
func ReadCSV(r io.Reader) (Table, error) {
	br := bufio.NewReader(r)
	if bom, err := br.Peek(3); err == nil && string(bom) == "\ufeff" {
		br.Discard(3)
	}
	recs, err := csv.NewReader(br).ReadAll()
	if err != nil {
		return Table{}, err
	}
	if len(recs) < 2 || len(recs[0]) < 2 || recs[0][0] != "app" {
		return Table{}, fmt.Errorf("not a figure table: want a header 'app,<series>...' and at least one row")
	}
	t := Table{Series: recs[0][1:]}
	for n, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			return Table{}, fmt.Errorf("row %q has %d fields, header has %d", rec[0], len(rec), len(recs[0]))
		}
		t.Apps = append(t.Apps, rec[0])
		row := make([]float64, len(rec)-1)
		for i, s := range rec[1:] {
			row[i] = math.NaN()
			if s == "" {
				continue
			}
			// The plotter cannot draw an infinite bar; say where it is
			// rather than fail inside the plotter.
			v, err := strconv.ParseFloat(s, 64)
			if err == nil && math.IsInf(v, 0) || errors.Is(err, strconv.ErrRange) {
				return Table{}, fmt.Errorf("row %d (%q), column %q: %q is not a finite number; a figure table holds finite numbers, and an empty field where a value is missing", n+2, rec[0], recs[0][i+1], s)
			}
			if err != nil {
				return Table{}, fmt.Errorf("row %d (%q), column %q: %q is not a number", n+2, rec[0], recs[0][i+1], s)
			}
			row[i] = v
		}
		t.Values = append(t.Values, row)
	}
	return t, nil
}

// Plot draws the table as grouped bars per application (or stacked bars
// when stacked), in the papers' style, and saves it as PNG and SVG next to
// base (base.png, base.svg).
func (t Table) Plot(title, ylabel string, stacked bool, base string) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.Left = false
	bars, lo, hi := t.spread()
	w := vg.Length(max(6, float64(len(t.Apps))*float64(len(bars))*0.18+2)) * vg.Inch
	group := float64(w) * 0.8 / float64(max(1, len(t.Apps)))
	width := vg.Length(group * 0.8 / float64(max(1, len(bars))))
	if stacked {
		width = vg.Length(group * 0.6)
	}
	column := func(i int) plotter.Values {
		vals := make(plotter.Values, len(t.Apps))
		for a := range t.Apps {
			vals[a] = t.Values[a][i]
			if math.IsNaN(vals[a]) {
				vals[a] = 0
			}
		}
		return vals
	}
	var below *plotter.BarChart
	for n, i := range bars {
		bc, err := plotter.NewBarChart(column(i), width)
		if err != nil {
			return err
		}
		bc.LineStyle.Width = vg.Length(0)
		bc.Color = plotutil.Color(n)
		if stacked {
			if below != nil {
				bc.StackOn(below)
			}
			below = bc
		} else {
			bc.Offset = vg.Length(float64(n)-float64(len(bars)-1)/2) * width
		}
		p.Add(bc)
		if l, ok := lo[i]; ok && !stacked {
			p.Add(whiskers{lo: column(l), hi: column(hi[i]), offset: bc.Offset})
		}
		p.Legend.Add(t.Series[i], bc)
	}
	if !stacked { // figures' bars are usually ratios to a baseline: mark 1
		one := plotter.NewFunction(func(float64) float64 { return 1 })
		one.Color = color.Gray{Y: 96}
		one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(one)
	}
	p.NominalX(t.Apps...)
	// Headroom, so the tallest bar clears the title and the legend.
	p.Y.Max *= 1.15
	// Atomically, as every result: a failed or stopped draw leaves the
	// old image, and a symlink is written through.
	for _, ext := range []string{".png", ".svg"} {
		wt, err := p.WriterTo(w, 4*vg.Inch, ext[1:])
		if err != nil {
			return err
		}
		if err := atomicfile.Write(base+ext, func(out io.Writer) error {
			_, err := wt.WriteTo(out)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// whiskers draws each application's spread, lo to hi, as a line through
// its bar (offset from the application's position, as the bar is).
type whiskers struct {
	lo, hi plotter.Values
	offset vg.Length
}

func (w whiskers) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	style := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	for a := range w.lo {
		if w.lo[a] == 0 && w.hi[a] == 0 {
			continue
		}
		x := trX(float64(a)) + w.offset
		c.StrokeLine2(style, x, trY(w.lo[a]), x, trY(w.hi[a]))
		c.StrokeLine2(style, x-vg.Points(2), trY(w.lo[a]), x+vg.Points(2), trY(w.lo[a]))
		c.StrokeLine2(style, x-vg.Points(2), trY(w.hi[a]), x+vg.Points(2), trY(w.hi[a]))
	}
}

// DataRange makes the axes hold the whiskers.
func (w whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for a := range w.lo {
		ymin, ymax = min(ymin, w.lo[a]), max(ymax, w.hi[a])
	}
	return 0, float64(len(w.lo) - 1), ymin, ymax
}
