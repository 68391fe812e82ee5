package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/mgpu-sim/mgpu/figures"
	"github.com/mgpu-sim/mgpu/sweep"
)

// A sweep is sized from its spec's counts before any run is made, and its
// runs are then streamed from the spec: checked one at a time, listed one
// at a time, held in memory only when they run here. A million runs take
// minutes to check; Ctrl-C then says what it stopped.

// interruptSource is interrupts, replaceable by tests.
var interruptSource = interrupts

// errStopped ends a streamed expansion at an interrupt.
var errStopped = errors.New("stopped")

// sizeSweep says how many runs the spec expands to, counted without
// expanding it, and refuses a size this process cannot hold or that needs
// --yes.
func sizeSweep(spec *sweep.Spec, specPath string, p parts, yes bool, stderr io.Writer) (int, error) {
	n, err := spec.Count()
	if err != nil {
		return 0, inputError{err}
	}
	fmt.Fprintf(stderr, "sweep: %s expands to %s (%s x %s x %s x %s x %s)\n", specPath, count(n, "run"),
		count(len(spec.Workloads), "workload"), count(len(spec.Policies), "policy"), count(len(spec.GPUs), "GPU count"),
		count(len(spec.Seeds), "seed"), count(spec.SetCombinations(), "sets combination"))
	if all := spec.Product(); n < all {
		fmt.Fprintf(stderr, "sweep: %d fewer: a run whose policy or workload ignores a sets key (policy.* keys, im2col) runs once, at that key's default\n", all-n)
	}
	// An array task (--task) runs its slice of a sweep whose size was
	// accepted when its script was emitted.
	if n > maxUnconfirmedRuns && !yes && *p.task < 0 {
		return 0, badInput("%s expands to %d runs, more than %d: pass --yes to run them all, or narrow the spec's lists", specPath, n, maxUnconfirmedRuns)
	}
	if err := sweep.CheckSize(n, p.held(n)); err != nil {
		return 0, badInput("%s expands to %v", specPath, err)
	}
	return n, nil
}

// checkSweep checks each of the spec's n runs that this process runs or
// emits, as 'mgpu run' would, streaming them from the spec, and returns
// those it is to run here (none for --emit). An interrupt stops it at
// once, saying how far it got.
func checkSweep(spec *sweep.Spec, n int, p parts, threads int, stderr io.Writer) ([]sweep.Run, error) {
	if n > maxUnconfirmedRuns {
		fmt.Fprintf(stderr, "sweep: checking every run before the first starts (Ctrl-C stops)...\n")
	}
	total := n
	if p.slicing() {
		total = p.held(n)
	}
	var runs []sweep.Run
	var checked atomic.Int64
	what := func() string {
		return fmt.Sprintf("checking the sweep's runs before the first starts, after %d of %d", checked.Load(), total)
	}
	err := interruptible(what, func(stop *atomic.Bool) error {
		c := sweep.NewRunChecker()
		err := spec.Each(func(i int, r sweep.Run) error {
			if stop.Load() {
				return errStopped
			}
			if p.keeps(i) {
				r.Threads = threads
				c.Check(r)
				checked.Add(1)
				if *p.emit == "" {
					runs = append(runs, r)
				}
			}
			return nil
		})
		if err == nil {
			err = c.Err()
		}
		if err != nil && !errors.Is(err, errStopped) {
			return inputError{err}
		}
		return err
	})
	if err != nil {
		return nil, err // f may still be running, and writing runs
	}
	return runs, nil
}

// interrupted is whether ch has delivered, without waiting.
func interrupted(ch <-chan os.Signal) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// eachOfSweep is emitted's each over the spec's runs, streamed, with
// threads set; an interrupt stops it, saying how far the list got.
func eachOfSweep(spec *sweep.Spec, n, threads int) func(f func(sweep.Run) error) error {
	return func(f func(sweep.Run) error) error {
		ch, unnotify := interruptSource()
		defer unnotify()
		listed := 0
		err := spec.Each(func(_ int, r sweep.Run) error {
			if interrupted(ch) {
				return errStopped
			}
			r.Threads = threads
			if err := f(r); err != nil {
				return err
			}
			listed++
			return nil
		})
		if errors.Is(err, errStopped) {
			return exitError{130, fmt.Errorf("interrupted after listing %d of the sweep's %d runs: the list is incomplete", listed, n)}
		}
		return err
	}
}

// interruptible runs f, and returns its error; an interrupt returns at
// once, an exit 130 saying that it stopped doing what(), and sets f's
// stop (f returns errStopped when it sees it). A long step of f (a
// workload set up at a paper's size) does not delay the answer.
func interruptible(what func() string, f func(stop *atomic.Bool) error) error {
	var stop atomic.Bool
	ch, unnotify := interruptSource()
	defer unnotify()
	done := make(chan error, 1)
	go func() { done <- f(&stop) }()
	select {
	case err := <-done:
		if !errors.Is(err, errStopped) {
			return err
		}
	case <-ch:
		stop.Store(true)
	}
	return exitError{130, fmt.Errorf("interrupted while %s: nothing was run or emitted", what())}
}

// figureRuns sizes, counts, expands and checks a figure's runs at size
// and scale, as a sweep's: a run that would fail (a scale whose footprint
// exceeds the address space, a key where it has no effect) fails the
// figure before its first run, listed with what is wrong, not in a
// .failed.json after the others ran and an empty figure. Sizing and
// checking can take minutes at a paper's size: Ctrl-C stops them.
func figureRuns(fig figures.Figure, size string, scale float64, split parts, threads int, results string, stderr io.Writer) ([]sweep.Run, error) {
	if size != figures.SizeDefault {
		// Sizing the runs may build workloads at that size (a footprint
		// for Early-Adaptor's windows), minutes of silence at --size paper
		// before the estimate: say what it is.
		fmt.Fprintf(stderr, "%s at --size %s: sizing its runs (a workload built at this size can take minutes)...\n", fig.Name, size)
	}
	var runs []sweep.Run
	what := func() string { return "sizing and checking figure " + fig.Name + "'s runs" }
	err := interruptible(what, func(stop *atomic.Bool) (err error) {
		runs, err = sizeFigure(fig, size, scale, split, threads, results, stop)
		return err
	})
	if err != nil {
		return nil, err // f may still be running, and writing runs
	}
	return runs, nil
}

// sizeFigure is figureRuns' work, stopping between runs once stop is set.
func sizeFigure(fig figures.Figure, size string, scale float64, split parts, threads int, results string, stop *atomic.Bool) ([]sweep.Run, error) {
	specs, err := fig.SizedSpecs(figures.Available(), size, scale)
	if err != nil {
		return nil, inputError{err}
	}
	n, err := figures.Count(specs)
	if err != nil {
		return nil, inputError{err}
	}
	if err := sweep.CheckSize(n, n); err != nil { // a figure holds its runs
		return nil, badInput("figure %s expands to %v", fig.Name, err)
	}
	runs, err := figures.Expand(specs)
	if err != nil {
		return nil, inputError{err}
	}
	withThreads(runs, threads)
	mine, err := split.slice(runs) // an array task checks its own slice
	if err != nil {
		return nil, err
	}
	c := sweep.NewRunChecker()
	for _, r := range mine {
		if stop.Load() {
			return nil, errStopped
		}
		// A run kept from before was checked then, and ran: a figure
		// drawn again from its results sets up no workload again.
		if !sweep.Kept(results, r) {
			c.Check(r)
		}
	}
	if err := c.Err(); err != nil {
		if bad, ok := errors.AsType[*sweep.InvalidRuns](err); ok {
			bad.Whose, bad.Total = "figure "+fig.Name+"'s", len(mine)
		}
		return nil, inputError{err}
	}
	return runs, nil
}
