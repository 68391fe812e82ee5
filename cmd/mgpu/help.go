package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mgpu-sim/mgpu/figures"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/sweep"
)

// errHelp means the help a user asked for was printed: exit 0, as for
// 'mgpu --help'.
var errHelp = errors.New("help printed")

// usageError is a bad flag or argument: exit 2, with one line pointing to
// the command's --help instead of flag's full usage dump.
type usageError struct {
	cmd string
	err error
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// help is a subcommand's --help text around its flag list.
type help struct {
	usage, about, example, more string
}

var helps = map[string]help{
	"run": {
		usage:   "mgpu run [--workload NAME] [--policy NAME] [--gpus N] [flags]",
		about:   "Simulates one workload under one page-management policy and prints a summary;\n--out and --csv keep the result (checked before the simulation starts).",
		example: "mgpu run --workload mm --policy oasis --gpus 4 --scale 0.2 --out mm-oasis.json",
	},
	"list": {
		usage:   "mgpu list [--yaml]",
		about:   "Lists the workloads, policies, distribution schemes, and every config key\nwith its default and the source of that default. --yaml prints the keys as a\nconfig file (configs/oasis-4gpu.yaml is this output).",
		example: "mgpu list | grep uvm.\n  mgpu list --yaml > my.yaml",
	},
	"sweep": {
		usage:   "mgpu sweep SPEC.yaml [--jobs N] [--results DIR] [--emit slurm|list] [--tasks T --task i] [--yes]",
		about:   "Runs every combination of a spec's lists, resumably: each run's result is cached\nin <results>/<hash>.json and reused by a later sweep of the same build (a result\nfrom another build is run again). Ctrl-C stops starting runs and lets those in\nflight finish; a second Ctrl-C abandons them. Rerun the sweep to resume.\n\nBefore anything runs (or is emitted), the sweep says how many runs the spec\nexpands to, and checks every run as 'mgpu run' would: a run that would fail, such\nas a key set where it has no effect, is listed and nothing runs (exit 2). A spec\nof more than " + fmt.Sprint(maxUnconfirmedRuns) + " runs needs --yes; one of more than " + fmt.Sprint(sweep.MaxRuns) + " is refused, and so\nis one whose runs (about 8 KB each) would take more than half the memory to run\nhere: --emit list streams them, --tasks T --task i holds one slice.",
		example: "mgpu sweep sweeps/fig15.yaml --jobs 8",
		more: `Spec format (YAML; every combination of the lists is one run):
  name: fig15                    # merged CSV <results>/<name>.csv; a plain file name
  workloads: [mm, st]            # required; see 'mgpu list'
  policies: [on-touch, oasis]    # required
  gpus: [4, 8]                   # required, 1 to 64
  seeds: [1, 2]                  # default [1]
  scale: 0.2                     # footprint scale > 0, for every run (default 1)
  size: auto                     # auto, 4gpu, 8gpu or 16gpu (default auto)
  sets:                          # config keys ('mgpu list') and the values to sweep
    page_size: [4KB, 2MB]
    uvm.eviction: [lru-4kb, lru-2mb]
  results: results               # per-run JSON directory (default results)
Each list holds each value once. sets may not name a key the spec sweeps
itself (gpus, seeds, ...): put those values in the spec's own list.
`,
	},
	"collect": {
		usage:   "mgpu collect DIR [--csv out.csv]",
		about:   "Merges every result in DIR into one CSV, e.g. after a Slurm array sweep.\nA .json file that is not a result is skipped with a warning.",
		example: "mgpu collect results --csv all.csv",
	},
	"figure": {
		usage: "mgpu figure NAME [--quick] [--size default|paper|similar] [--scale F] [--seeds N] [--jobs N] [--out DIR] [--results DIR] [--emit slurm|list] [--tasks T --task i]",
		about: "Runs (or reuses) the runs of one of the paper's figures, then writes its table as\nCSV and draws it as PNG and SVG. Names: " + strings.Join(figures.Names(), ", ") + ".\n" +
			"The characterization figures (OASIS §IV and Fig. 20) are computed from zero-latency\n" +
			"characterizations on 4 GPUs, seed 1 (not cached; oasis-decisions and pingpong add\n" +
			"timed OASIS and on-touch runs), and compare mgpu with the paper's\n" +
			"statements in <name>-claims.csv: " + strings.Join(figures.CharNames(), ", ") + "; " + figures.CharAll + " builds them all.\n" +
			"--size paper runs each workload at the paper's own input where it differs from\n" +
			"mgpu's default (UVMMU's figures: UVMSmart's inputs; ObservUVM, SUV, Early-Adaptor:\n" +
			"their tables' footprints, hours; the OASIS figures' default is their paper's size);\n" +
			"--size similar runs each at the smallest size where the paper's mechanisms see its\n" +
			"counts (ObservUVM: 449 MB; SUV: where its structures fall into the paper-size\n" +
			"classes; Early-Adaptor: where more than 10 VA blocks fault per short window; kernels\n" +
			"whose work outgrows their footprint run one workgroup in N). A figure without a\n" +
			"size says which it has. Before a paper or similar run starts, mgpu estimates how\n" +
			"long its runs not yet kept will take; each run is kept as it ends, so an\n" +
			"interrupted figure resumes. A figure of hours splits into parts: --tasks T --task i\n" +
			"runs every T-th of its runs from run i and draws nothing, --emit slurm writes a job\n" +
			"array of those parts and --emit list one 'mgpu run' per run; the figure then draws\n" +
			"from the kept runs.",
		example: "mgpu figure fig15 --quick\n  mgpu figure uvmmu-fig4 --size paper --jobs 2\n  mgpu figure ea-fig13 --size similar --tasks 4 --task 0",
	},
	"plot": {
		usage:   "mgpu plot DATA.csv [--kind bars|stacked] [--title T] [--ylabel Y] [--out BASE]",
		about:   "Draws a figure table (header 'app,<series>...', one row per application) as PNG\nand SVG without simulating anything. Values are plotted as given; an empty\nfield is a missing value.",
		example: "mgpu plot results/figures/fig15.csv --title 'Fig. 15' --ylabel speedup",
	},
	"characterize": {
		usage:   "mgpu characterize [--workload NAME] [--gpus N] [--out DIR] [flags]",
		about:   "Reports a workload's page and object access patterns (OASIS §IV) as a table and\nas CSV files in --out.",
		example: "mgpu characterize --workload st --gpus 4 --scale 0.2",
	},
	"trace": {
		usage:   "mgpu trace record --workload NAME --out FILE [--gpus N] [--scale F] [--seed N] [flags]\n       mgpu trace convert --accelsim DIR/kernelslist.g --out FILE [--gpus N] [--name NAME]",
		about:   "Records a workload, as a run with these flags would set it up, to a trace file:\nits objects, its kernels and every wavefront's memory instructions, compressed.\n'mgpu run --trace FILE' replays it under any policy and config with the same\nGPU count, and gives the result of running the workload itself, byte for byte.\n'convert' makes the same file from an Accel-Sim trace (its NVBit tracer's\nkernelslist.g and kernel-N.traceg): thread blocks become workgroups, warps\nwavefronts of up to 32 lanes, MemcpyHtoD ranges and touched 64 KB runs objects.",
		example: "mgpu trace record --workload mm --gpus 4 --scale 0.2 --out mm.mgputrace\n  mgpu run --trace mm.mgputrace --policy oasis\n  mgpu trace convert --accelsim traces/vecadd/kernelslist.g --gpus 1 --out vecadd.mgputrace",
	},
	"version": {
		usage:   "mgpu version",
		about:   "Prints mgpu's version (recorded in every result), the module version, the VCS\nrevision (-dirty for a tree with uncommitted changes) and the Go version.",
		example: "mgpu version",
	},
}

// commandName is "run" for the flag set "mgpu run".
func commandName(fs *flag.FlagSet) string { return strings.TrimPrefix(fs.Name(), "mgpu ") }

func printHelp(w io.Writer, fs *flag.FlagSet) {
	h := helps[commandName(fs)]
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nExample:\n  %s\n", h.usage, h.about, h.example)
	if h.more != "" {
		fmt.Fprintf(w, "\n%s", h.more)
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if fl := fs.Lookup("iterations"); fl != nil {
		fl.Usage = iterationsUsage()
	}
	if has {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// parse parses flags: -h or --help prints the command's help on stdout and
// returns errHelp; a bad flag returns a usageError, printed as one line
// and a pointer to --help.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, fs)
		return errHelp
	}
	if err != nil {
		return usageError{commandName(fs), err}
	}
	return nil
}

// parsePositional parses a command that takes one positional argument,
// before or after the flags; more than one is an error. name is "" when
// none was given.
func parsePositional(fs *flag.FlagSet, args []string, stdout io.Writer) (name string, err error) {
	name, rest := splitPositional(args)
	if err := parse(fs, rest, stdout); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
		if err := parse(fs, fs.Args()[1:], stdout); err != nil {
			return "", err
		}
	}
	if fs.NArg() > 0 {
		return "", usageError{commandName(fs), fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return name, nil
}

// noArgs parses a command that takes flags only.
func noArgs(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{commandName(fs), fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// cmdVersion: mgpu version
func cmdVersion(args []string, stdout io.Writer) error {
	fs := newFlagSet("version")
	if err := noArgs(fs, args, stdout); err != nil {
		return err
	}
	writeVersion(stdout, platform.ThisBuild())
	return nil
}

func writeVersion(w io.Writer, b platform.BuildInfo) {
	fmt.Fprintf(w, "mgpu %s\n", b)
	mod := b.Module
	if mod == "" {
		mod = "(unknown module)"
	}
	fmt.Fprintf(w, "  module    %s %s\n", mod, b.ModuleVersion)
	switch {
	case b.Revision == "":
		fmt.Fprintln(w, "  revision  unknown (built without VCS data, e.g. -buildvcs=false)")
	case b.Dirty:
		fmt.Fprintf(w, "  revision  %s-dirty (uncommitted changes) %s\n", b.Revision, b.Time)
	default:
		fmt.Fprintf(w, "  revision  %s %s\n", b.Revision, b.Time)
	}
	if b.Digest != "" {
		fmt.Fprintf(w, "  binary    sha256 %s...\n", b.Digest)
	}
	fmt.Fprintf(w, "  go        %s\n", b.GoVersion)
}

func newFlagSet(cmd string) *flag.FlagSet {
	return flag.NewFlagSet("mgpu "+cmd, flag.ContinueOnError)
}
