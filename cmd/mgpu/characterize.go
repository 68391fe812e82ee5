package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/characterize"
	"github.com/mgpu-sim/mgpu/platform"
)

// cmdCharacterize runs a workload functionally and reports its page and
// object access patterns (OASIS §IV): a table on stdout and CSV files in
// --out.
func cmdCharacterize(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mgpu characterize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		workload, size, dist, out, config  string
		gpus, iterations, chunk, intervals int
		seed                               uint64
		scale                              float64
		sets                               setFlags
	)
	fs.StringVar(&workload, "workload", "mm", "workload to characterize (see 'mgpu list')")
	fs.IntVar(&gpus, "gpus", 4, "number of GPUs, 1 to 64")
	fs.Float64Var(&scale, "scale", 1, "footprint scale (1 = the paper's size)")
	fs.StringVar(&size, "size", "auto", "paper size column: auto (follows --gpus), 4gpu, 8gpu, 16gpu")
	fs.Uint64Var(&seed, "seed", 1, "random seed")
	fs.IntVar(&iterations, "iterations", 0, "iterations for workloads that have them (0 = the workload default)")
	fs.StringVar(&dist, "distribution", "", "workgroup distribution: "+strings.Join(benchmarks.Schemes(), " | ")+" (default: the config's, greedy)")
	fs.IntVar(&chunk, "greedy-chunk", 0, "under greedy, workgroups a GPU takes in turn after its first fill (0 = its workgroup slots)")
	fs.IntVar(&intervals, "intervals", characterize.DefaultIntervals, "equal slices of the access order for the page classes over time (Fig. 4/7)")
	fs.StringVar(&config, "config", "", "YAML config file: gpu.cus, gpu.wavefronts_per_cu and distribution are used")
	fs.Var(&sets, "set", "override a config key: --set key=value (repeatable)")
	fs.StringVar(&out, "out", "", "output directory (default results/characterize/<workload>-<gpus>gpu)")
	if err := fs.Parse(args); err != nil {
		return inputError{err}
	}
	if fs.NArg() > 0 {
		return badInput("unexpected argument %q", fs.Arg(0))
	}
	w, err := benchmarks.New(workload)
	if err != nil {
		return inputError{err}
	}
	if gpus < 1 || gpus > characterize.MaxGPUs {
		return badInput("--gpus %d: must be between 1 and %d", gpus, characterize.MaxGPUs)
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return badInput("--scale %g: must be a positive number", scale)
	}
	if _, err := benchmarks.Column(benchmarks.Params{GPUs: gpus, Size: size}); err != nil {
		return badInput("--size: %v", err)
	}
	if iterations < 0 {
		return badInput("--iterations %d: must not be negative", iterations)
	}
	if chunk < 0 {
		return badInput("--greedy-chunk %d: must not be negative", chunk)
	}
	if intervals < 1 || intervals > 1<<16 {
		return badInput("--intervals %d: must be between 1 and 65536", intervals)
	}
	cfg := platform.DefaultConfig()
	if config != "" {
		if cfg, err = platform.LoadConfig(config); err != nil {
			return inputError{err}
		}
	}
	for _, kv := range sets {
		if err := cfg.Set(kv); err != nil {
			return inputError{err}
		}
	}
	cfg.GPUs = gpus
	if dist != "" {
		cfg.Distribution = dist
	}
	if err := cfg.Validate(); err != nil {
		return inputError{err}
	}
	opts := characterize.Options{GPUs: gpus, Distribution: cfg.Distribution, CUs: cfg.GPU.CUs,
		WavefrontsPerCU: cfg.GPU.WavefrontsPerCU, Intervals: intervals, GreedyChunk: chunk}
	params := benchmarks.Params{GPUs: gpus, Scale: scale, Size: size, Iterations: iterations, Seed: seed}
	res, err := characterize.Run(w, params, opts)
	if err != nil {
		return inputError{err}
	}
	if err := res.WriteTable(stdout); err != nil {
		return err
	}
	if out == "" {
		out = characterize.DefaultDir(workload, gpus)
	}
	if err := res.WriteCSVs(out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %d CSV files to %s\n", len(characterize.CSVFiles), out)
	return nil
}
