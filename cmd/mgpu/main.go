// Command mgpu runs multi-GPU unified-memory simulations.
//
//	mgpu run --workload mm --gpus 4 --policy on-touch
//	mgpu list
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"
)

// inputError marks bad user input: the process exits with status 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(format string, a ...any) error { return inputError{fmt.Errorf(format, a...)} }

const usage = `mgpu: a multi-GPU unified-virtual-memory simulator

Usage:
  mgpu run   --workload NAME --policy NAME [--gpus N] [--config f.yaml] [--set key=value]...
             [--seed N] [--scale F] [--size auto|4gpu|8gpu|16gpu] [--out r.json] [--csv r.csv]
  mgpu list  workloads, policies, and every config key with its default and source
  mgpu sweep spec.yaml [--jobs N] [--emit slurm|list] [--tasks T --task i]
  mgpu collect DIR [--csv out.csv]
  mgpu figure NAME [--quick] [--size S] [--scale F] [--seeds N] [--jobs N] [--out results/figures]   ('mgpu figure --help' lists the names)
  mgpu plot data.csv --kind bars|stacked
  mgpu characterize --workload NAME [--gpus N] [--scale F] [--size S] [--seed N] [--distribution D] [--out DIR]
  mgpu trace record --workload NAME --out w.mgputrace [--gpus N] [--scale F] [--seed N]
  mgpu trace convert --accelsim DIR/kernelslist.g --out w.mgputrace [--gpus N]
             (then 'mgpu run --trace w.mgputrace --policy NAME' replays either)
  mgpu version   (or mgpu --version)

run, sweep, figure and characterize take --log-level trace|debug|info|warn|error (default warn;
debug logs kernel launches, policy and phase changes and SUV's placements, trace also fault
batches). A run longer than 2 s shows its progress on stderr when that is a terminal
(--progress auto|on|off).

Run 'mgpu <command> --help' for a command's flags and an example.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commandLine names the command args run, as a signal's message says
// what it stopped: "run", "trace record".
func commandLine(args []string) string {
	if args[0] == "trace" && len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		return "trace " + args[1]
	}
	return args[0]
}

// exitError ends the process with its own status, e.g. 130 after an
// interrupt, as shells report SIGINT.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// run is main without the exit, for tests.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mgpu: internal error: %v\n", r)
			code = 3
		}
	}()
	// Every command writes stderr through one terminal, which keeps log
	// lines and progress lines apart; commands with --log-level lower
	// the level from this default.
	term := newTerminal(stderr)
	installLogger(zerolog.WarnLevel, term)
	stderr = term
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	defer stopOnSignal(commandLine(args), stderr)()
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "list":
		err = cmdList(args[1:], stdout)
	case "sweep":
		err = cmdSweep(args[1:], stdout, stderr)
	case "collect":
		err = cmdCollect(args[1:], stdout, stderr)
	case "figure":
		err = cmdFigure(args[1:], stdout, stderr)
	case "plot":
		err = cmdPlot(args[1:], stdout, stderr)
	case "characterize":
		err = cmdCharacterize(args[1:], stdout, stderr)
	case "trace":
		err = cmdTrace(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		err = cmdVersion(args[1:], stdout)
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && helps[args[1]].usage != "" {
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = badInput("unknown command %q: valid commands are run, list, sweep, collect, figure, plot, characterize, trace, version", args[0])
	}
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "mgpu: %v\n", err)
	var ue usageError
	var ie inputError
	var ee exitError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "Run 'mgpu %s --help' for usage.\n", ue.cmd)
		return 2
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ie):
		return 2
	}
	return 1
}
