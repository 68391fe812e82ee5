package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mgpu-sim/mgpu/accelsim"
	"github.com/mgpu-sim/mgpu/config"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/replay"
)

// cmdTrace is 'mgpu trace record': a workload's recording, for
// 'mgpu run --trace'.
func cmdTrace(args []string, stdout, stderr io.Writer) error {
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch sub {
	case "record", "convert":
		args = args[1:]
	case "--help", "-h", "help":
		args, sub = []string{"--help"}, "record"
	default:
		return badInput("mgpu trace: give a subcommand: record or convert (see 'mgpu trace --help')")
	}
	f := &runFlags{}
	fs := newFlagSet("trace")
	f.register(fs, "record")
	fs.StringVar(&f.policy, "policy", "on-touch", "the policy the recording will be replayed under: it sets the pointer tags (all but oasis-inmem share them)")
	fs.StringVar(&f.out, "out", "", "the recording's file (required)")
	accel := fs.String("accelsim", "", "convert: the `kernelslist.g` of an Accel-Sim (NVBit tracer) trace, its kernel-N.traceg files beside it")
	name := fs.String("name", "", "convert: the recording's workload name (default: the trace's directory)")
	if err := noArgs(fs, args, stdout); err != nil {
		return err
	}
	if f.out == "" {
		return badInput("--out is required: the file to write the recording to")
	}
	if (sub == "convert") != (*accel != "") {
		return badInput("--accelsim goes with 'mgpu trace convert', and convert needs it")
	}
	if err := ignoredTraceFlags(fs, sub); err != nil {
		return err
	}
	if err := traceClobber(f, *accel); err != nil {
		return err
	}
	cfg, err := f.buildConfig(fs)
	if err != nil {
		return err
	}
	if err := atomicfile.CheckFile(f.out); err != nil {
		return inputError{err}
	}
	opts := platform.Options{Workload: f.workload, Policy: f.policy, Seed: f.seed, Scale: f.scale,
		Size: f.size, Iterations: f.iterations, Config: cfg}
	if sub == "convert" {
		return convertAccelSim(*accel, *name, opts, f.out, stdout, stderr)
	}
	if err := platform.Check(opts); err != nil {
		return inputError{err}
	}
	if err := atomicfile.Write(f.out, func(w io.Writer) error { return platform.Record(opts, w) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recorded %s (%d GPUs, scale %g, seed %d) to %s\n", f.workload, cfg.GPUs, f.scale, f.seed, f.out)
	return nil
}

// ignoredTraceFlags refuses the flags the subcommand would ignore: an
// Accel-Sim trace is its own workload, and a recording is named after its
// workload.
func ignoredTraceFlags(fs *flag.FlagSet, sub string) error {
	if sub == "record" && visited(fs, "name") {
		return badInput("--name goes with 'mgpu trace convert': a recording is named after its --workload")
	}
	for _, n := range []string{"workload", "iterations"} {
		if sub == "convert" && visited(fs, n) {
			return badInput("--%s with 'mgpu trace convert': the Accel-Sim trace is the workload (--name names it); leave --%s out", n, n)
		}
	}
	return nil
}

// convertAccelSim writes an Accel-Sim trace as a recording for runs like
// opts. The trace is read and checked whole first, so a bad one exits 2
// before --out is touched; what the conversion inferred (its objects)
// goes to stdout, what a user should know of it (blocks left out, a grid
// too small to reach every GPU) to stderr.
func convertAccelSim(list, name string, opts platform.Options, out string, stdout, stderr io.Writer) error {
	p, tag, align, err := platform.RecordingFor(opts)
	if err != nil {
		return inputError{err}
	}
	if err := checkKernelsList(list); err != nil {
		return err
	}
	if name == "" {
		// The trace's directory, named: a relative list's Dir is ".".
		dir, err := filepath.Abs(filepath.Dir(list))
		if err != nil {
			return err
		}
		name = filepath.Base(dir)
	}
	t, err := accelsim.Read(list, accelsim.Options{Name: name, Params: p, Tagging: tag, Align: align})
	var ae *accelsim.Error
	if errors.As(err, &ae) || errors.Is(err, fs.ErrNotExist) {
		return inputError{err}
	}
	if err != nil {
		return err
	}
	// A fault of the trace found while writing is the input's, not --out's.
	var readErr error
	err = atomicfile.Write(out, func(w io.Writer) error {
		err := t.Write(w)
		if errors.As(err, &ae) {
			readErr = err
		}
		return err
	})
	if readErr != nil {
		return inputError{readErr}
	}
	if err != nil {
		return err
	}
	for _, n := range t.Notes() {
		fmt.Fprintln(stderr, "note:", n)
	}
	if n := benchmarks.SpreadNote(t.Workgroups(), opts.Config.Distribution, p.GPUs, opts.Config.GPU.CUs); n != "" {
		fmt.Fprintln(stderr, "warning:", n)
	}
	fmt.Fprintf(stdout, "converted %s (%d GPUs) to %s\n", list, p.GPUs, out)
	for i, o := range t.Objects() {
		fmt.Fprintf(stdout, "  object %d %s, %d bytes: %s\n", i, o.Name, o.Bytes, o.Inferred)
	}
	return nil
}

// checkKernelsList refuses an --accelsim that is not a kernel list a
// conversion reads, saying what to give: a directory's kernelslist.g,
// or the post-processing step a raw trace still needs.
func checkKernelsList(list string) error {
	st, err := os.Stat(list)
	if err != nil {
		return badInput("--accelsim %s: %v", list, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(list, "kernelslist.g")); err == nil {
		return badInput("--accelsim %s is a directory: give the kernel list in it, --accelsim %s", list, filepath.Join(list, "kernelslist.g"))
	}
	if _, err := os.Stat(filepath.Join(list, "kernelslist")); err == nil {
		return badInput("--accelsim %s is a directory of the tracer's raw output (kernelslist, kernel-N.trace): %s", list, accelsim.RawHint)
	}
	return badInput("--accelsim %s is a directory with no kernelslist.g: give the kernelslist.g of an Accel-Sim trace, its kernel-N.traceg files beside it", list)
}

// replayFlags are the flags a recording fixes: its workload and sizing.
var replayFlags = []string{"workload", "scale", "size", "iterations", "seed"}

// openTrace refuses the flags a recording fixes, then opens --trace,
// checked whole (platform.OpenTrace), and makes its GPU count and im2col
// kernel what --config and --set apply over, so that a key they leave
// out is the recording's and one they set otherwise can be refused.
func (f *runFlags) openTrace(fs *flag.FlagSet) (*replay.Program, error) {
	for _, name := range replayFlags {
		if visited(fs, name) {
			return nil, badInput("--%s with --trace: the recording fixes the workload and its size; leave --%s out", name, name)
		}
	}
	p, err := platform.OpenTrace(f.trace)
	if err != nil {
		return nil, inputError{err}
	}
	over := config.DefaultConfig()
	over.GPUs, over.Im2col = p.Params().GPUs, p.Params().Im2col
	f.over = &over
	return p, nil
}

// replayOptions points opts at the recording p, after refusing a config
// that conflicts with it: a run of other parameters would replay streams
// recorded for these and record one value beside another's counters.
func (f *runFlags) replayOptions(fs *flag.FlagSet, p *replay.Program, opts *platform.Options) error {
	pr := p.Params()
	for _, c := range []struct{ key, got, want string }{
		{"gpus", strconv.Itoa(opts.Config.GPUs), strconv.Itoa(pr.GPUs)},
		{"im2col", opts.Config.Im2col, pr.Im2col},
	} {
		if c.got != c.want {
			return badInput("%s sets %s = %s, and the recording %s was made with %s = %s: leave it out (the recording sets it) or give %s",
				f.setter(fs, c.key), c.key, c.got, f.trace, c.key, c.want, c.want)
		}
	}
	opts.Program, opts.Workload = p, p.Info().Name
	opts.Seed, opts.Scale, opts.Size, opts.Iterations = pr.Seed, pr.Scale, pr.Size, pr.Iterations
	return nil
}

// setter names the flag that set key: --gpus, the last --set of it, or
// else the --config file (the rest apply over the recording's values).
func (f *runFlags) setter(fs *flag.FlagSet, key string) string {
	if key == "gpus" && visited(fs, "gpus") {
		return fmt.Sprintf("--gpus %d", f.gpus)
	}
	for i := len(f.sets) - 1; i >= 0; i-- {
		if k, _, _ := strings.Cut(f.sets[i], "="); strings.TrimSpace(k) == key {
			return "--set " + f.sets[i]
		}
	}
	return "--config " + f.config
}
