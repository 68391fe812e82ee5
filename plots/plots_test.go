package plots

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCSVRoundTripAndPlot(t *testing.T) {
	tab := Table{Series: []string{"a", "b"}, Apps: []string{"mm", "average"}, Values: [][]float64{{1.5, math.NaN()}, {1.5, 2}}}
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(bytes.NewReader(b.Bytes()))
	if err != nil || back.Values[1][1] != 2 || !math.IsNaN(back.Values[0][1]) || back.Apps[0] != "mm" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	for _, stacked := range []bool{false, true} {
		base := filepath.Join(t.TempDir(), "fig")
		if err := back.Plot("t", "speedup", stacked, base); err != nil {
			t.Fatal(err)
		}
		for _, ext := range []string{".png", ".svg"} {
			if st, err := os.Stat(base + ext); err != nil || st.Size() == 0 {
				t.Fatalf("stacked=%v: %s not written: %v", stacked, ext, err)
			}
		}
	}
	if _, err := ReadCSV(bytes.NewReader([]byte("x,y\n1,2\n"))); err == nil {
		t.Fatal("a CSV that is not a figure table was accepted")
	}
}

// An infinite value would fail inside the plotter; ReadCSV names its row
// and column instead.
func TestReadCSVRejectsInfiniteValuesNamingRowAndColumn(t *testing.T) {
	for _, v := range []string{"Inf", "-inf", "+Infinity", "1e999"} {
		_, err := ReadCSV(bytes.NewReader([]byte("app,on-touch,oasis\nmm,1,1.2\nst,1," + v + "\n")))
		if err == nil {
			t.Fatalf("%s accepted", v)
		}
		for _, want := range []string{`row 3 ("st")`, `column "oasis"`, "not a finite number"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", v, err, want)
			}
		}
	}
	_, err := ReadCSV(bytes.NewReader([]byte("app,a\nmm,x1\n")))
	if err == nil || !strings.Contains(err.Error(), `column "a"`) {
		t.Fatalf("a non-number: %v", err)
	}
	tab, err := ReadCSV(bytes.NewReader([]byte("app,a\nmm,NaN\n")))
	if err != nil || !math.IsNaN(tab.Values[0][0]) {
		t.Fatalf("NaN is a missing value: %v", err)
	}
}

// TestSpreadColumns: "<s> min" and "<s> max" beside <s> are its whiskers,
// not bars of their own; a lone "x min" stays a bar.
func TestSpreadColumns(t *testing.T) {
	tab := Table{Series: []string{"a", "b", "a min", "a max", "x min"}, Apps: []string{"mm", "average"},
		Values: [][]float64{{2, 1, 1.5, 3, 1}, {2, 1, 1.5, 3, 1}}}
	bars, lo, hi := tab.spread()
	if len(bars) != 3 || bars[0] != 0 || bars[1] != 1 || bars[2] != 4 || lo[0] != 2 || hi[0] != 3 || len(lo) != 1 {
		t.Fatalf("bars %v, lo %v, hi %v", bars, lo, hi)
	}
	base := filepath.Join(t.TempDir(), "fig")
	if err := tab.Plot("t", "speedup", false, base); err != nil {
		t.Fatal(err)
	}
}

// A table saved by a spreadsheet starts with a UTF-8 byte-order mark; it
// reads as the table without it.
func TestReadCSVSkipsAByteOrderMark(t *testing.T) {
	tab, err := ReadCSV(bytes.NewReader([]byte("\ufeffapp,oasis\nmm,1.5\n")))
	if err != nil || len(tab.Apps) != 1 || tab.Apps[0] != "mm" || tab.Series[0] != "oasis" || tab.Values[0][0] != 1.5 {
		t.Fatalf("%+v, %v", tab, err)
	}
	// Only at the start: a mark inside a field is that field's text.
	if tab, err := ReadCSV(bytes.NewReader([]byte("app,oasis\n\ufeffmm,1.5\n"))); err != nil || tab.Apps[0] != "\ufeffmm" {
		t.Fatalf("%q, %v", tab.Apps, err)
	}
}
