package main

// mgpu figure: the runs of one of the papers' figures, its table and its drawing.

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/figures"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/sweep"
)

// maxFigureSeeds bounds --seeds: each seed is a whole figure's runs.
const maxFigureSeeds = 100

// quickScale sizes a --quick figure: small enough for seconds, large enough
// that greedy dispatch still spreads mm's workgroups over 4 GPUs.
const quickScale = 0.2

// cmdFigure: mgpu figure NAME [--quick] [--size S] [--scale F] [--seeds N] [--jobs N] [--out DIR]
func cmdFigure(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("figure")
	quick := boolFlag(fs, "quick", false, "smoke run at --scale 0.2")
	size := fs.String("size", figures.SizeDefault, "default (each workload at scale 1), paper (the paper's own inputs) or similar (where the paper's mechanisms see its counts); which a figure has, an unknown one says")
	var scale float64
	float64Var(fs, &scale, "scale", 1, "multiplies every workload's scale at --size `F`")
	jobs := intFlag(fs, "jobs", runtime.NumCPU(), "runs in parallel")
	threads := addThreadsFlag(fs)
	out := fs.String("out", filepath.Join("results", "figures"), "directory for the figure's CSV, PNG and SVG")
	results := fs.String("results", "results", "per-run results directory (shared across figures, so runs are reused)")
	seeds := intFlag(fs, "seeds", 1, "run every configuration on seeds 1..N: the table holds the means, with each series' min and max, drawn as whiskers")
	split := addPartFlags(fs, "figure's runs")
	var logLevel string
	addLogLevelFlag(fs, &logLevel)
	name, err := parsePositional(fs, args, stdout)
	if err != nil {
		return err
	}
	if _, err := setupLogging(logLevel, stderr); err != nil {
		return err
	}
	if err := split.check(); err != nil {
		return err
	}
	if chars, ok := figures.LookupChar(name); ok {
		if split.given() {
			return badInput("--emit, --tasks and --task split a figure's kept runs; %s is computed from characterizations, which are not kept", name)
		}
		if *jobs < 1 {
			return badInput("--jobs %d: must be >= 1", *jobs)
		}
		if *size != figures.SizeDefault {
			return badInput("--size %s: the characterisation figures run at the OASIS papers' sizes (--scale scales them)", *size)
		}
		if *quick {
			scale = quickScale
		}
		return runCharFigures(chars, scale, *jobs, *out, *quick, stdout, stderr)
	}
	fig, err := figures.Lookup(name)
	if err != nil {
		return inputError{err}
	}
	if err := checkParallel(*jobs, *threads); err != nil {
		return err
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return badInput("--scale %v: must be a positive number", scale)
	}
	if *quick {
		if scale != 1 {
			return badInput("--quick is --scale %g: give one of them", quickScale)
		}
		scale = quickScale
	}
	if *seeds < 1 || *seeds > maxFigureSeeds {
		return badInput("--seeds %d: must be between 1 and %d", *seeds, maxFigureSeeds)
	}
	fig = fig.WithSeeds(*seeds)
	if !split.given() {
		if err := figureClobber(figureBase(*out, fig.Name, *size, *quick, scale, *seeds), *results); err != nil {
			return err
		}
	}
	runs, err := figureRuns(fig, *size, scale, split, *threads, *results, stderr)
	if err != nil {
		return err
	}
	if err := atomicfile.CheckDir(*results); err != nil {
		return badInput("--results: %v", err)
	}
	if *split.emit != "" {
		if *split.emit == "slurm" {
			if err := absPaths(results, out); err != nil {
				return err
			}
		}
		_, err := split.emitted(stdout, figureJob(name, *size, scale, *quick, *seeds, *results, *out), len(runs), listOf(runs))
		return err
	}
	if split.slicing() {
		return figurePart(split, fig.Name, *size, runs, *results, *jobs, stdout, stderr)
	}
	base := figureBase(*out, fig.Name, *size, *quick, scale, *seeds)
	// The figure's files are written after every run: check them first.
	if err := atomicfile.CheckDir(*out); err != nil {
		return badInput("--out: %v", err)
	}
	for _, ext := range []string{".csv", ".png", ".svg"} {
		if err := atomicfile.CheckFile(base + ext); err != nil {
			return badInput("--out: %v", err)
		}
	}
	sum, err := executeFigure(fig.Name, *size, runs, *results, *jobs, stderr)
	if err != nil {
		return err
	}
	res := resultsOf(runs, *results)
	table := fig.Reduce(res)
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
	return failedRuns(sum, *results)
}

// figureBase is the path of a figure's files without their extension.
func figureBase(out, name, size string, quick bool, scale float64, seeds int) string {
	base := filepath.Join(out, name)
	if size != figures.SizeDefault {
		base += "-" + size
	}
	if quick {
		base += "-quick"
	} else if scale != 1 {
		base += fmt.Sprintf("-x%g", scale)
	}
	if seeds > 1 {
		base += fmt.Sprintf("-seeds%d", seeds)
	}
	return base
}

// executeFigure runs a figure's runs not yet kept in results, first
// estimating their time at a paper or similar size.
func executeFigure(name, size string, runs []sweep.Run, results string, jobs int, stderr io.Writer) (sweep.Summary, error) {
	if size != figures.SizeDefault {
		if err := estimateFigure(stderr, name, size, runs, results, jobs); err != nil {
			return sweep.Summary{}, err
		}
	}
	return executeInterruptibly(runs, results, jobs, stderr)
}

// estimatedRate is the simulated memory instructions per CPU-second a
// figure's estimate assumes: the middle of make bench's runs on this
// machine, which range from 0.14 to 0.84 M (docs/performance.md).
// Oversubscribed runs with many evictions are at the slow end.
const estimatedRate = 0.3e6

// estimateFigure says, before a figure at the paper's or a similar size
// starts, how long its runs not yet in dir should take, so that a run of
// hours is not a surprise, and that it resumes.
func estimateFigure(w io.Writer, name, size string, runs []sweep.Run, dir string, jobs int) error {
	type setup struct {
		workload, size string
		scale          float64
		gpus, sample   int
	}
	// Building a large workload (rbfs's graph at the similar size) takes
	// seconds: say what the silence is.
	fmt.Fprintf(w, "%s at --size %s: estimating its runs not yet kept (each workload is built once)...\n", name, size)
	seen := map[setup]float64{}
	todo, instr := 0, 0.0
	for _, r := range runs {
		if _, err := os.Stat(sweep.ResultPath(dir, r)); err == nil {
			continue
		}
		todo++
		k := setup{r.Workload, r.Size, r.Scale, r.Config.GPUs, r.Config.SampleWorkgroups}
		n, ok := seen[k]
		if !ok {
			var err error
			if n, err = platform.EstimateInstructions(r.Options()); err != nil {
				return inputError{fmt.Errorf("%s: %w", r.Label(), err)}
			}
			seen[k] = n
		}
		instr += n
	}
	cpu := instr / estimatedRate
	fmt.Fprintf(w, "%s at --size %s: %d of %d runs to simulate, about %.2g G memory instructions: "+
		"about %s of CPU at %.1f M per CPU-second (this machine's benchmarks: 0.14 to 0.84), "+
		"%s with --jobs %d. Each run is kept in %s as it ends: stopped, the figure resumes there.\n",
		name, size, todo, len(runs), instr/1e9, hours(cpu), estimatedRate/1e6, hours(cpu/float64(max(1, min(jobs, todo)))), jobs, dir)
	return nil
}

// hours prints seconds as minutes or hours.
func hours(sec float64) string {
	if sec < 5400 {
		return fmt.Sprintf("%.0f min", math.Ceil(sec/60))
	}
	return fmt.Sprintf("%.1f h", sec/3600)
}

// resultsOf returns the results of exactly these runs that exist in dir
// as whole results (sweep.ReadResult: a stub would be a row of zeros; the
// sweep has just run again any that were not whole).
func resultsOf(runs []sweep.Run, dir string) []*platform.Result {
	var out []*platform.Result
	for _, r := range runs {
		data, err := os.ReadFile(sweep.ResultPath(dir, r))
		if err != nil {
			continue
		}
		if res, err := sweep.ReadResult(data); err == nil {
			out = append(out, res)
		}
	}
	return out
}
