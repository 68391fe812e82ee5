package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/mgpu-sim/mgpu/characterize"
	"github.com/mgpu-sim/mgpu/sweep"
)

// Each command's outputs and inputs, for refuseClobber: every command
// that writes a file names them here, before it does any work.

// runClobber: run writes --out, --csv and --cpuprofile; it reads --config
// and --trace.
func runClobber(f *runFlags) error {
	return refuseClobber(
		[]ioPath{ioFile("--out", f.out), ioFile("--csv", f.csv), ioFile("--cpuprofile", f.cpuProfile)},
		[]ioPath{ioFile("the --config file", f.config), ioFile("the --trace file", f.trace)})
}

// traceClobber: trace record and convert write --out; they read --config,
// and convert the kernel list and every kernel trace it names.
func traceClobber(f *runFlags, kernelList string) error {
	ins := []ioPath{ioFile("the --config file", f.config), ioFile("the kernel list (--accelsim)", kernelList)}
	for _, k := range kernelTraces(kernelList) {
		ins = append(ins, ioFile("the kernel trace", k))
	}
	return refuseClobber([]ioPath{ioFile("--out", f.out)}, ins)
}

// kernelTraces lists the kernel-N.traceg files a kernelslist.g names, as
// the Accel-Sim reader finds them (a line starting "kernel", beside the
// list). An unreadable list names none: the conversion reports it.
func kernelTraces(list string) []string {
	if list == "" {
		return nil
	}
	f, err := os.Open(list)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "kernel") {
			out = append(out, filepath.Join(filepath.Dir(list), line))
		}
	}
	return out
}

// runFilesFix is what to do when a kept result would be overwritten.
const runFilesFix = "choose another --results directory"

// sweepClobber: a sweep writes the merged CSV (unless --no-csv) and its
// runs' files in the results directory, which it also reads; it reads the
// spec. With --emit it writes only to stdout.
func sweepClobber(spec *sweep.Spec, specPath, results, csv string, noCSV bool, emit string) error {
	if emit != "" {
		return nil
	}
	dir := firstNonEmpty(results, spec.Results, "results")
	csvWhat := "--csv"
	if csv == "" {
		csv, csvWhat = filepath.Join(dir, firstNonEmpty(spec.Name, "sweep")+".csv"), "the merged CSV"
	}
	if noCSV {
		csv = ""
	}
	return refuseClobber(
		[]ioPath{ioFile(csvWhat, csv), ioFiles("the sweep's kept result", dir, sweep.IsRunFile, false, runFilesFix)},
		[]ioPath{ioFile("the sweep spec", specPath)})
}

// collectClobber: collect writes its CSV and reads every result in dir
// (sweep.Collect: each .json file not hidden).
func collectClobber(dir, csv string) error {
	csvWhat := "--csv"
	if csv == "" {
		csv, csvWhat = filepath.Join(dir, "collected.csv"), "the collected CSV"
	}
	collected := func(name string) bool { return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") }
	return refuseClobber([]ioPath{ioFile(csvWhat, csv)},
		[]ioPath{ioFiles("the result file", dir, collected, true, "")})
}

// figureClobber: a figure writes base.csv, .png and .svg, and its runs'
// files in results, which it also reads.
func figureClobber(base, results string) error {
	return refuseClobber([]ioPath{
		ioFile("--out", base+".csv"), ioFile("--out", base+".png"), ioFile("--out", base+".svg"),
		ioFiles("the figure's kept result", results, sweep.IsRunFile, false, runFilesFix),
	}, nil)
}

// plotClobber: plot writes base.png and .svg and reads the CSV it draws.
func plotClobber(table, base string) error {
	const fix = "give --out another base name"
	return refuseClobber(
		[]ioPath{{what: "the plot", path: base + ".png", fix: fix}, {what: "the plot", path: base + ".svg", fix: fix}},
		[]ioPath{ioFile("the plotted CSV", table)})
}

// characterizeClobber: characterize writes its CSV files in out and reads
// --config.
func characterizeClobber(config, out string) error {
	var outs []ioPath
	for _, c := range characterize.CSVFiles {
		outs = append(outs, ioPath{what: "--out's", path: filepath.Join(out, c.Name), fix: "choose another --out directory"})
	}
	return refuseClobber(outs, []ioPath{ioFile("the --config file", config)})
}
