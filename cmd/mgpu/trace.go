package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/replay"
)

// cmdTrace is 'mgpu trace record': a workload's recording, for
// 'mgpu run --trace'.
func cmdTrace(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "record" && args[0] != "--help" && args[0] != "-h" && args[0] != "help") {
		return badInput("mgpu trace: give a subcommand: record (see 'mgpu trace --help')")
	}
	if args[0] != "record" {
		args = []string{"--help"}
	} else {
		args = args[1:]
	}
	f := &runFlags{}
	fs := newFlagSet("trace")
	f.register(fs, "record")
	fs.StringVar(&f.policy, "policy", "on-touch", "the policy the recording will be replayed under: it sets the pointer tags (all but oasis-inmem share them)")
	fs.StringVar(&f.out, "out", "", "the recording's file (required)")
	if err := noArgs(fs, args, stdout); err != nil {
		return err
	}
	if f.out == "" {
		return badInput("--out is required: the file to write the recording to")
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
	if err := platform.Check(opts); err != nil {
		return inputError{err}
	}
	if err := atomicfile.Write(f.out, func(w io.Writer) error { return platform.Record(opts, w) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recorded %s (%d GPUs, scale %g, seed %d) to %s\n", f.workload, cfg.GPUs, f.scale, f.seed, f.out)
	return nil
}

// replayFlags are the flags a recording fixes: its workload and sizing.
var replayFlags = []string{"workload", "scale", "size", "iterations", "seed"}

// openTrace opens --trace and points opts at it: the recording replaces
// --workload and its sizing flags, and gives the GPU count unless --gpus
// does (a count other than the recording's is refused when the run is
// built).
func (f *runFlags) openTrace(fs *flag.FlagSet, opts *platform.Options) (*replay.Program, error) {
	for _, name := range replayFlags {
		if visited(fs, name) {
			return nil, badInput("--%s with --trace: the recording fixes the workload and its size; leave --%s out", name, name)
		}
	}
	p, err := replay.Open(f.trace)
	if err != nil {
		return nil, inputError{err}
	}
	pr := p.Params()
	opts.Program, opts.Workload = p, ""
	opts.Seed, opts.Scale, opts.Size, opts.Iterations = pr.Seed, pr.Scale, pr.Size, pr.Iterations
	if !visited(fs, "gpus") {
		opts.Config.GPUs = pr.GPUs
	}
	return p, nil
}
