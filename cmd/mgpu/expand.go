package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

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
	c := sweep.NewRunChecker()
	var runs []sweep.Run
	var stop atomic.Bool
	var checked atomic.Int64
	ch, unnotify := interruptSource()
	defer unnotify()
	done := make(chan error, 1)
	go func() {
		done <- spec.Each(func(i int, r sweep.Run) error {
			if stop.Load() || interrupted(ch) {
				return errStopped
			}
			if !p.keeps(i) {
				return nil
			}
			r.Threads = threads
			c.Check(r)
			checked.Add(1)
			if *p.emit == "" {
				runs = append(runs, r)
			}
			return nil
		})
	}()
	// A run's check can take a while (a workload set up at a paper's
	// size): an interrupt is answered at once, not after it.
	var err error
	select {
	case err = <-done:
	case <-ch:
		stop.Store(true)
		err = errStopped
	}
	switch {
	case errors.Is(err, errStopped):
		total := n
		if p.slicing() {
			total = p.held(n)
		}
		return nil, exitError{130, fmt.Errorf("interrupted while checking the sweep's runs before the first starts, after %d of %d: none was run or emitted",
			checked.Load(), total)}
	case err == nil:
		err = c.Err()
	}
	if err != nil {
		return nil, inputError{err}
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
