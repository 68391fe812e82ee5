package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/figures"
)

// runCharFigures builds characterization figures (OASIS §IV, Fig. 20,
// Table II): it characterizes the workloads they need once each, at scale
// on 4 GPUs (seed 1), lists the objects of those they read from the
// set-up alone, then writes each figure's CSVs, plots and claims under
// out and prints them.
func runCharFigures(figs []figures.CharFigure, scale float64, jobs int, out string, quick bool, stdout, stderr io.Writer) error {
	if err := atomicfile.CheckDir(out); err != nil {
		return badInput("--out: %v", err)
	}
	start := time.Now()
	var needs []figures.CharNeed
	var inventory []string
	for _, f := range figs {
		needs = append(needs, f.Needs...)
		for _, w := range f.Inventory {
			if !slices.Contains(inventory, w) {
				inventory = append(inventory, w)
			}
		}
	}
	runs, resolve := figures.PlanChar(needs)
	inv := map[string]figures.AppObjects{}
	for _, w := range inventory {
		a, err := figures.Inventory(w, scale)
		if err != nil {
			return inputError{err}
		}
		inv[w] = a
	}
	done, err := figures.RunChar(runs, scale, jobs, stderr)
	if err != nil {
		return inputError{err}
	}
	timed, err := figures.RunTimedFor(figs, scale, jobs, stderr)
	if err != nil {
		return inputError{err}
	}
	for _, f := range figs {
		o := figures.BuildChar(f, done, resolve, inv, timed)
		base := filepath.Join(out, f.Name)
		if quick {
			base += "-quick"
		}
		if err := o.Write(base); err != nil {
			return err
		}
		var wall time.Duration
		var used []string
		for _, n := range f.Needs {
			r := done[resolve(n)]
			wall += r.Wall
			used = append(used, fmt.Sprintf("%s %.1f s", n.Workload, r.Wall.Seconds()))
		}
		fmt.Fprintf(stdout, "\n==== %s: %s (scale %g, %d GPUs, seed %d)\n", f.Name, f.Title, scale, figures.CharGPUs, figures.CharSeed)
		if len(used) > 0 {
			fmt.Fprintf(stdout, "characterizations: %s (%.1f s of runs)\n", strings.Join(used, ", "), wall.Seconds())
		} else if len(f.OASIS)+len(f.OnTouch) == 0 {
			fmt.Fprintf(stdout, "from the workloads' set-up alone (no run)\n")
		}
		if n := len(f.OASIS) + len(f.OnTouch); n > 0 {
			fmt.Fprintf(stdout, "timed runs: %d under OASIS, %d under on-touch\n", len(f.OASIS), len(f.OnTouch))
		}
		fmt.Fprintf(stdout, "wrote %s\n", strings.Join(o.Files(base), ", "))
		if err := o.Print(stdout); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\n%d figures from %d characterizations in %s\n", len(figs), len(runs), time.Since(start).Round(100*time.Millisecond))
	return nil
}
