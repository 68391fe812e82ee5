package main

// What the experiment commands (sweep, collect, figure) share: run
// counts, threads, interrupts, failed runs and positional arguments.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mgpu-sim/mgpu/sweep"
)

// failedRuns is the error of a sweep or figure some of whose runs failed.
func failedRuns(sum sweep.Summary, dir string) error {
	if sum.Failed > 0 {
		return fmt.Errorf("%d runs failed; their errors are in %s/*.failed.json", sum.Failed, dir)
	}
	return nil
}

// count is "1 run", "2 runs", "3 policies".
func count(n int, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "y"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// addThreadsFlag is --threads of sweep and figure: each run's GPUs on up
// to N threads (platform.Options.Threads), beside --jobs runs at a time,
// so a sweep takes up to jobs x threads cores.
func addThreadsFlag(fs *flag.FlagSet) *int {
	return intFlag(fs, "threads", 1, "run each run's GPUs on up to N threads (as 'mgpu run --threads'); a sweep then takes up to jobs x threads cores, and the results are the same")
}

// withThreads sets every run's thread count.
func withThreads(runs []sweep.Run, n int) {
	for i := range runs {
		runs[i].Threads = n
	}
}

// interrupts delivers SIGINT and SIGTERM to a sweep until stop is called;
// meanwhile stopOnSignal leaves them to it.
func interrupts() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 2)
	release := takeSignals()
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch); release() }
}

// executeInterruptibly is sweep.ExecuteUntil on the process's interrupts:
// an interrupted sweep says how much it kept and exits 130, as a shell
// reports SIGINT.
func executeInterruptibly(runs []sweep.Run, dir string, jobs int, stderr io.Writer) (sweep.Summary, error) {
	ch, stop := interrupts()
	defer stop()
	sum, err := sweep.ExecuteUntil(ch, runs, dir, jobs, stderr)
	if errors.Is(err, sweep.ErrInterrupted) {
		abandoned := ""
		if sum.Abandoned > 0 {
			abandoned = fmt.Sprintf(" (%d in flight abandoned)", sum.Abandoned)
		}
		return sum, exitError{130, fmt.Errorf("interrupted: kept %d/%d results%s; rerun to resume", sum.Kept(), sum.Total, abandoned)}
	}
	return sum, err
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

// checkParallel rejects a --jobs or --threads below 1.
func checkParallel(jobs, threads int) error {
	if jobs < 1 {
		return badInput("--jobs %d: must be >= 1", jobs)
	}
	if threads < 1 {
		return badInput("--threads %d: must be >= 1", threads)
	}
	return nil
}
