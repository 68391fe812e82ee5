package main

// mgpu sweep: every combination of a spec's lists, resumably.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/sweep"
)

// cmdSweep: mgpu sweep spec.yaml [--jobs N] [--emit slurm|list] [--task i --tasks T]
func cmdSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep")
	jobs := intFlag(fs, "jobs", runtime.NumCPU(), "runs in parallel")
	threads := addThreadsFlag(fs)
	split := addPartFlags(fs, "sweep")
	results := fs.String("results", "", "results directory (overrides the spec's 'results', default results)")
	csvOut := fs.String("csv", "", "merged CSV path (default <results>/<spec name>.csv)")
	noCSV := boolFlag(fs, "no-csv", false, "do not write the merged CSV (array tasks; run mgpu collect after)")
	yes := boolFlag(fs, "yes", false, fmt.Sprintf("run (or emit) a spec of more than %d runs", maxUnconfirmedRuns))
	var logLevel string
	addLogLevelFlag(fs, &logLevel)
	specPath, err := parsePositional(fs, args, stdout)
	if err != nil {
		return err
	}
	if _, err := setupLogging(logLevel, stderr); err != nil {
		return err
	}
	if specPath == "" {
		return usageError{"sweep", errors.New("no spec file: mgpu sweep spec.yaml [--jobs N] [--emit slurm|list]")}
	}
	spec, err := sweep.Load(specPath)
	if err != nil {
		return inputError{err}
	}
	if err := checkParallel(*jobs, *threads); err != nil {
		return err
	}
	if err := split.check(); err != nil {
		return err
	}
	if err := sweepClobber(spec, specPath, *results, *csvOut, *noCSV, *split.emit); err != nil {
		return err
	}
	// Sized before expanding: a spec of a million runs answers at once.
	n, err := sizeSweep(spec, specPath, split, *yes, stderr)
	if err != nil {
		return err
	}
	dir := firstNonEmpty(*results, spec.Results, "results")
	if *split.emit == "slurm" {
		if err := absPaths(&specPath, &dir); err != nil {
			return err
		}
	}
	// Every run is checked before the first starts: a run that would fail
	// fails the sweep now, not in a .failed.json after the others ran.
	runs, err := checkSweep(spec, n, split, *threads, stderr)
	if err != nil {
		return err
	}
	job := sweep.SweepJob(specPath, dir)
	if done, err := split.emitted(stdout, job, n, eachOfSweep(spec, n, *threads)); done {
		return err
	}
	if err := sweep.CheckDir(dir); err != nil {
		return inputError{err}
	}
	name := firstNonEmpty(*csvOut, filepath.Join(dir, firstNonEmpty(spec.Name, "sweep")+".csv"))
	if !*noCSV {
		if err := atomicfile.CheckFile(name); err != nil {
			return badInput("merged CSV: %v", err)
		}
	}
	sum, err := executeInterruptibly(runs, dir, *jobs, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sweep: %d runs, %d done now (%d from other builds run again), %d already done, %d failed, in %s\n",
		sum.Total, sum.Done, sum.Stale, sum.Skipped, sum.Failed, sum.Wall.Round(1e9))
	if !*noCSV {
		if err := writeCollected(dir, name, runs); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged CSV: %s\n", name)
	}
	return failedRuns(sum, dir)
}

// maxUnconfirmedRuns is the largest sweep that runs without --yes.
const maxUnconfirmedRuns = 1000
