package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/figures"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/sweep"
)

// cmdSweep: mgpu sweep spec.yaml [--jobs N] [--emit slurm|list] [--task i --tasks T]
func cmdSweep(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mgpu sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs in parallel")
	emit := fs.String("emit", "", "instead of running: 'slurm' (sbatch job-array script) or 'list' (one mgpu run command per line)")
	tasks := fs.Int("tasks", 0, "split the sweep into this many slices (slurm array size; 0 = one run per task)")
	task := fs.Int("task", -1, "run only this slice (0 .. tasks-1), as a job-array task does")
	results := fs.String("results", "", "results directory (overrides the spec's 'results', default results)")
	csvOut := fs.String("csv", "", "merged CSV path (default <results>/<spec name>.csv)")
	noCSV := fs.Bool("no-csv", false, "do not write the merged CSV (array tasks; run mgpu collect after)")
	mgpu := fs.String("mgpu", "mgpu", "the mgpu binary the emitted commands call")
	specPath, rest := splitPositional(args)
	if err := fs.Parse(rest); err != nil {
		return inputError{err}
	}
	if specPath == "" && fs.NArg() > 0 {
		specPath = fs.Arg(0)
	}
	if specPath == "" {
		return badInput("usage: mgpu sweep spec.yaml [--jobs N] [--emit slurm|list]")
	}
	spec, err := sweep.Load(specPath)
	if err != nil {
		return inputError{err}
	}
	runs, err := spec.Expand()
	if err != nil {
		return inputError{err}
	}
	dir := firstNonEmpty(*results, spec.Results, "results")
	if *jobs < 1 {
		return badInput("--jobs %d: must be >= 1", *jobs)
	}
	switch *emit {
	case "slurm":
		abs, _ := filepath.Abs(specPath)
		n := *tasks
		if n == 0 {
			n = len(runs)
		}
		return sweep.EmitSlurm(stdout, *mgpu, abs, dir, len(runs), n)
	case "list":
		return sweep.EmitList(stdout, *mgpu, dir, runs)
	case "":
	default:
		return badInput("--emit %q: valid values are slurm, list", *emit)
	}
	if *task >= 0 || *tasks > 0 {
		if runs, err = sweep.Slice(runs, *task, max(*tasks, 1)); err != nil {
			return inputError{err}
		}
	}
	if err := sweep.CheckDir(dir); err != nil {
		return inputError{err}
	}
	sum, err := sweep.Execute(runs, dir, *jobs, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sweep: %d runs, %d done now, %d already done, %d failed, in %s\n",
		sum.Total, sum.Done, sum.Skipped, sum.Failed, sum.Wall.Round(1e9))
	if !*noCSV {
		name := firstNonEmpty(*csvOut, filepath.Join(dir, firstNonEmpty(spec.Name, "sweep")+".csv"))
		if err := writeCollected(dir, name, runs); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged CSV: %s\n", name)
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%d runs failed; their errors are in %s/*.failed.json", sum.Failed, dir)
	}
	return nil
}

// writeCollected merges the results of runs, read from dir, into a CSV.
func writeCollected(dir, path string, runs []sweep.Run) error {
	return atomicfile.Write(path, func(w io.Writer) error { return sweep.WriteCSV(w, resultsOf(runs, dir)) })
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// splitPositional pulls a leading non-flag argument out, so the spec may
// come before or after the flags.
func splitPositional(args []string) (string, []string) {
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		return args[0], args[1:]
	}
	return "", args
}

// cmdCollect: mgpu collect DIR [--csv out.csv]
func cmdCollect(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mgpu collect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("csv", "", "output CSV (default <DIR>/collected.csv)")
	dir, rest := splitPositional(args)
	if err := fs.Parse(rest); err != nil {
		return inputError{err}
	}
	if dir == "" {
		return badInput("usage: mgpu collect DIR [--csv out.csv]")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return badInput("collect: %s is not a directory", dir)
	}
	res, fails, err := sweep.Collect(dir)
	if err != nil {
		return inputError{err}
	}
	path := firstNonEmpty(*out, filepath.Join(dir, "collected.csv"))
	if err := atomicfile.Write(path, func(w io.Writer) error { return sweep.WriteCSV(w, res) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "collected %d results (%d failed runs) into %s\n", len(res), len(fails), path)
	for _, f := range fails {
		fmt.Fprintf(stdout, "  failed: %s: %s\n", f.Run, f.Error)
	}
	return nil
}

// quickScale sizes a --quick figure: small enough for seconds, large enough
// that greedy dispatch still spreads mm's workgroups over 4 GPUs.
const quickScale = 0.2

// cmdFigure: mgpu figure NAME [--quick] [--jobs N] [--out DIR]
func cmdFigure(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mgpu figure", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "smoke run at --scale 0.2")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs in parallel")
	out := fs.String("out", filepath.Join("results", "figures"), "directory for the figure's CSV, PNG and SVG")
	results := fs.String("results", "results", "per-run results directory (shared across figures, so runs are reused)")
	name, rest := splitPositional(args)
	if err := fs.Parse(rest); err != nil {
		return inputError{err}
	}
	fig, err := figures.Lookup(name)
	if err != nil {
		return inputError{err}
	}
	if *jobs < 1 {
		return badInput("--jobs %d: must be >= 1", *jobs)
	}
	scale := 1.0
	if *quick {
		scale = quickScale
	}
	runs, err := fig.Runs(figures.Available(), scale)
	if err != nil {
		return inputError{err}
	}
	if err := sweep.CheckDir(*results); err != nil {
		return inputError{err}
	}
	sum, err := sweep.Execute(runs, *results, *jobs, stderr)
	if err != nil {
		return err
	}
	res := resultsOf(runs, *results)
	table := fig.Reduce(res)
	base := filepath.Join(*out, fig.Name)
	if *quick {
		base += "-quick"
	}
	if err := atomicfile.Write(base+".csv", table.WriteCSV); err != nil {
		return err
	}
	if err := table.Plot(fig.Title, fig.YLabel, fig.Stacked, base); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d runs (%d reused, %d failed) in %s\n", fig.Name, sum.Total, sum.Skipped, sum.Failed, sum.Wall.Round(1e9))
	fmt.Fprintf(stdout, "wrote %s.csv, %s.png, %s.svg\n", base, base, base)
	if err := table.WriteCSV(stdout); err != nil {
		return err
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%d runs failed; their errors are in %s/*.failed.json", sum.Failed, *results)
	}
	return nil
}

// resultsOf returns the results of exactly these runs that exist in dir.
func resultsOf(runs []sweep.Run, dir string) []*platform.Result {
	var out []*platform.Result
	for _, r := range runs {
		data, err := os.ReadFile(sweep.ResultPath(dir, r))
		if err != nil {
			continue
		}
		var res platform.Result
		if json.Unmarshal(data, &res) == nil {
			out = append(out, &res)
		}
	}
	return out
}

// cmdPlot: mgpu plot data.csv --kind bars|stacked [--title T] [--ylabel Y] [--out base]
func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mgpu plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "bars", "bars (grouped, normalised) or stacked (shares)")
	title := fs.String("title", "", "plot title")
	ylabel := fs.String("ylabel", "", "y axis label")
	out := fs.String("out", "", "output path without extension (default: the CSV's)")
	path, rest := splitPositional(args)
	if err := fs.Parse(rest); err != nil {
		return inputError{err}
	}
	if path == "" {
		return badInput("usage: mgpu plot data.csv --kind bars|stacked")
	}
	if *kind != "bars" && *kind != "stacked" {
		return badInput("--kind %q: valid kinds are bars, stacked", *kind)
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
	base := firstNonEmpty(*out, path[:len(path)-len(filepath.Ext(path))])
	if err := t.Plot(*title, *ylabel, *kind == "stacked", base); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s.png, %s.svg\n", base, base)
	return nil
}
