package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mgpu-sim/mgpu/sweep"
)

// parts are the flags that split a sweep or a figure into slices of its
// runs: one slice per --task, or a Slurm array or a command list emitted
// to run them elsewhere. A figure of hours then runs as parts of minutes,
// each resumable, on one machine or a cluster.
type parts struct {
	emit, mgpu  *string
	tasks, task *int
}

func addPartFlags(fs *flag.FlagSet, what string) parts {
	return parts{
		emit:  fs.String("emit", "", "instead of running: 'slurm' (sbatch job-array script) or 'list' (one mgpu run command per line)"),
		mgpu:  fs.String("mgpu", "mgpu", "the mgpu binary the emitted commands call"),
		tasks: intFlag(fs, "tasks", 0, "split the "+what+" into this many slices, task i running every tasks-th run from run i (the slurm array size; 0 = one task per run, at most 1000)"),
		task:  intFlag(fs, "task", -1, "run only this slice (0 .. tasks-1), as a job-array task does"),
	}
}

// check refuses an unknown --emit and a negative --tasks, which would
// otherwise run as one task.
func (p parts) check() error {
	if *p.emit != "" && *p.emit != "slurm" && *p.emit != "list" {
		return badInput("--emit %q: valid values are slurm, list", *p.emit)
	}
	if *p.tasks < 0 {
		return badInput("--tasks %d: must be >= 1 (a task count), or 0 for one task per run, up to %d", *p.tasks, sweep.MaxArrayTasks)
	}
	if tasks := max(*p.tasks, 1); *p.task < -1 || p.slicing() && (*p.task < 0 || *p.task >= tasks) {
		return badInput("--task %d of %d: need 0 <= --task < --tasks", *p.task, tasks)
	}
	return nil
}

// given is whether any of the flags was given.
func (p parts) given() bool { return *p.emit != "" || *p.task >= 0 || *p.tasks > 0 }

// slicing is whether runs are to be cut to one task's slice here.
func (p parts) slicing() bool { return *p.emit == "" && p.given() }

// slice is task's slice of runs when slicing, else runs.
func (p parts) slice(runs []sweep.Run) ([]sweep.Run, error) {
	if !p.slicing() {
		return runs, nil
	}
	out, err := sweep.Slice(runs, *p.task, max(*p.tasks, 1))
	if err != nil {
		return nil, inputError{err}
	}
	return out, nil
}

// keeps is whether run i is one this process runs or emits: every run,
// but only task's slice when slicing (as sweep.Slice cuts it).
func (p parts) keeps(i int) bool {
	return !p.slicing() || i%max(*p.tasks, 1) == *p.task
}

// held is how many of n runs this process holds in memory at once: none
// when it emits them, its slice's when slicing, else all.
func (p parts) held(n int) int {
	switch {
	case *p.emit != "":
		return 0
	case p.slicing():
		tasks := max(*p.tasks, 1)
		return (n + tasks - 1) / tasks
	}
	return n
}

// emitted writes the script or list --emit asks for and reports whether it
// did: n runs, which each calls f on in turn (the list streams them).
// job's paths must already be absolute; the results directory is made
// now, as Slurm does not create the directory of a job's --output file.
func (p parts) emitted(stdout io.Writer, job sweep.ArrayJob, n int, each func(f func(sweep.Run) error) error) (bool, error) {
	switch *p.emit {
	case "slurm":
		bin, err := binPath(*p.mgpu)
		if err != nil {
			return true, inputError{err}
		}
		script, err := job.Script(bin, n, *p.tasks)
		if err != nil {
			return true, badInput("--emit slurm: %v", err)
		}
		if err := sweep.CheckDir(job.Results); err != nil {
			return true, inputError{err}
		}
		_, err = io.WriteString(stdout, script)
		return true, err
	case "list":
		w := bufio.NewWriterSize(stdout, 1<<16)
		err := each(func(r sweep.Run) error { return sweep.EmitCommand(w, *p.mgpu, job.Results, r) })
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		return true, err
	}
	return false, nil
}

// listOf is each of emitted over runs held in memory.
func listOf(runs []sweep.Run) func(f func(sweep.Run) error) error {
	return func(f func(sweep.Run) error) error {
		for _, r := range runs {
			if err := f(r); err != nil {
				return err
			}
		}
		return nil
	}
}

// binPath makes a binary given as a path absolute: the array tasks may
// start in another directory. A bare name is left to PATH.
func binPath(bin string) (string, error) {
	if filepath.Base(bin) == bin {
		return bin, nil
	}
	return filepath.Abs(bin)
}

// absPaths makes each path absolute, for the commands an emitted script
// runs elsewhere.
func absPaths(paths ...*string) error {
	for _, p := range paths {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return inputError{fmt.Errorf("%s: %w", *p, err)}
		}
		*p = abs
	}
	return nil
}

// figureJob is `mgpu figure` of name as an array job: each task runs its
// slice of the figure's runs into results; the figure is drawn from them
// when all have run.
func figureJob(name, size string, scale float64, quick bool, seeds int, results, out string) sweep.ArrayJob {
	args := []string{"figure", name, "--size", size}
	switch {
	case quick:
		args = append(args, "--quick")
	case scale != 1:
		args = append(args, "--scale", fmt.Sprint(scale))
	}
	if seeds > 1 {
		args = append(args, "--seeds", fmt.Sprint(seeds))
	}
	args = append(args, "--results", results)
	return sweep.ArrayJob{
		Name: "mgpu-figure", What: "mgpu figure " + name,
		Args: append(append([]string(nil), args...), "--jobs", "1"), Results: results,
		Then: append(append([]string(nil), args...), "--out", out),
	}
}

// figurePart runs one task's slice of a figure's runs and says how to draw
// the figure once every slice has run; it draws nothing itself.
func figurePart(p parts, name, size string, runs []sweep.Run, results string, jobs int, stdout, stderr io.Writer) error {
	all := len(runs)
	runs, err := p.slice(runs)
	if err != nil {
		return err
	}
	sum, err := executeFigure(name, size, runs, results, jobs, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: task %d of %d: %d of the figure's %d runs (%d reused, %d failed) in %s; when every task has run, the same command without --tasks and --task draws the figure from %s\n",
		name, *p.task, max(*p.tasks, 1), sum.Total, all, sum.Skipped, sum.Failed, sum.Wall.Round(1e9), results)
	return failedRuns(sum, results)
}
