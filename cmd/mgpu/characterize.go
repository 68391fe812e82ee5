package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/characterize"
)

// cmdCharacterize reports a workload's page and object access patterns
// (OASIS §IV), observed on a zero-latency run of the platform: a table on
// stdout and CSV files in --out.
func cmdCharacterize(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("characterize")
	var (
		f         workloadFlags
		dist, out string
		logLevel  string
		intervals int
	)
	f.register(fs, "characterize")
	fs.StringVar(&dist, "distribution", "", "workgroup distribution: "+strings.Join(benchmarks.Schemes(), " | ")+" (default: the config's distribution, mgpusim unless set)")
	intVar(fs, &intervals, "intervals", characterize.DefaultIntervals, "equal slices of the access order for the page classes over time (Fig. 4/7)")
	fs.StringVar(&out, "out", "", "output directory (default results/characterize/<workload>-<gpus>gpu)")
	addLogLevelFlag(fs, &logLevel)
	if err := noArgs(fs, args, stdout); err != nil {
		return err
	}
	if _, err := setupLogging(logLevel, stderr); err != nil {
		return err
	}
	if _, err := benchmarks.New(f.workload); err != nil {
		return inputError{err}
	}
	cfg, err := f.baseConfig(fs)
	if err != nil {
		return err
	}
	if dist != "" {
		cfg.Distribution = dist
	}
	if err := cfg.Validate(); err != nil {
		return inputError{err}
	}
	gpus := cfg.GPUs
	if _, err := benchmarks.Column(benchmarks.Params{GPUs: gpus, Size: f.size}); err != nil {
		return badInput("--size: %v", err)
	}
	if intervals < 1 { // Options would take 0 as the default
		return badInput("--intervals %d: must be between 1 and 65536", intervals)
	}
	if out == "" {
		out = characterize.DefaultDir(f.workload, gpus)
	}
	if err := characterizeClobber(f.config, out); err != nil {
		return err
	}
	// Checked before the run, which may be long, not after it.
	if err := atomicfile.CheckDir(out); err != nil {
		return badInput("--out: %v", err)
	}
	for _, c := range characterize.CSVFiles {
		if err := atomicfile.CheckFile(filepath.Join(out, c.Name)); err != nil {
			return badInput("--out: %v", err)
		}
	}
	opts := characterize.Options{Config: cfg, Intervals: intervals}
	params := benchmarks.Params{GPUs: gpus, Scale: f.scale, Size: f.size, Iterations: f.iterations, Seed: f.seed}
	res, err := characterize.Run(f.workload, params, opts)
	if err != nil {
		return inputError{err}
	}
	if err := res.WriteTable(stdout); err != nil {
		return err
	}
	if err := res.WriteCSVs(out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %d CSV files to %s\n", len(characterize.CSVFiles), out)
	return nil
}
