package main

// mgpu plot: a figure redrawn from its CSV, without simulating.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/plots"
)

// cmdPlot: mgpu plot data.csv --kind bars|stacked [--title T] [--ylabel Y] [--out base]
func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot")
	kind := fs.String("kind", "bars", "bars (grouped, one per series, values as given, with a dashed line at 1 for ratios) or stacked (one bar per row, series stacked, for shares)")
	title := fs.String("title", "", "plot title")
	ylabel := fs.String("ylabel", "", "y axis label")
	out := fs.String("out", "", "output path without extension (default: the CSV's)")
	path, err := parsePositional(fs, args, stdout)
	if err != nil {
		return err
	}
	if path == "" {
		return usageError{"plot", errors.New("no CSV file: mgpu plot data.csv --kind bars|stacked")}
	}
	if *kind != "bars" && *kind != "stacked" {
		return badInput("--kind %q: valid kinds are bars, stacked", *kind)
	}
	base := firstNonEmpty(*out, path[:len(path)-len(filepath.Ext(path))])
	if err := plotClobber(path, base); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return inputError{err}
	}
	defer f.Close()
	t, err := plots.ReadCSV(f)
	if err != nil {
		return inputError{fmt.Errorf("%s: %w", path, err)}
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := atomicfile.CheckFile(base + ext); err != nil {
			return badInput("--out: %v", err)
		}
	}
	if err := t.Plot(*title, *ylabel, *kind == "stacked", base); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s.png, %s.svg\n", base, base)
	return nil
}
