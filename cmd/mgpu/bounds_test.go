package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// seedsSpec is a spec of n runs of the tiny workload, one per seed, with
// more appended.
func seedsSpec(n int, more string) string {
	seeds := make([]string, n)
	for i := range seeds {
		seeds[i] = fmt.Sprint(i + 1)
	}
	return "workloads: [private]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.01\nseeds: [" + strings.Join(seeds, ", ") + "]\n" + more
}

// ten is a sets list of ten values.
const ten = "['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']"

// part3Catalogue is issue 60's cases of sweeps and figures that were not
// bounded and of the last round's remaining cases: each is an exit 2
// naming the bad value and what is valid, before anything runs.
var part3Catalogue = []catalogueRow{
	{name: "sweep --tasks -1", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--tasks", "-1", "--task", "0"}, files: map[string]string{"s.yaml": spec},
		code: 2, want: []string{"--tasks -1: must be >= 1 (a task count), or 0 for one task per run, up to 1000"}},
	{name: "sweep --tasks -1 --emit list", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--tasks", "-1", "--emit", "list"}, files: map[string]string{"s.yaml": spec},
		code: 2, want: []string{"--tasks -1: must be >= 1"}},
	{name: "figure --tasks -1", args: []string{"figure", "fig15", "--results", "$D/res", "--tasks", "-1", "--task", "0"}, code: 2, want: []string{"--tasks -1: must be >= 1"}},
	{name: "sweep --task -5", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--task", "-5"}, files: map[string]string{"s.yaml": spec},
		code: 2, want: []string{"--task -5 of 1: need 0 <= --task < --tasks"}},
	{name: "sweep --tasks 2 without --task", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--tasks", "2"}, files: map[string]string{"s.yaml": spec},
		code: 2, want: []string{"--task -1 of 2"}},
	{name: "sweep of 100 million runs", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--emit", "list", "--yes"},
		files: map[string]string{"s.yaml": "workloads: [mm]\npolicies: [on-touch]\ngpus: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nseeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" +
			"sets: {gpu.cus: " + ten + ", gpu.l2_cycles: " + ten + ", gpu.l1v_cycles: " + ten + ", gpu.l2tlb_cycles: " + ten + ", gpu.l1tlb_cycles: " + ten + ", gpu.issue_cycles: " + ten + "}\n"},
		code: 2, want: []string{"expands to 100000000 runs, more than the 10000000 a sweep may have", "narrow its lists"}},
	{name: "figure at a scale past the address space", args: []string{"figure", "fig25", "--scale", "1e9", "--results", "$D/res", "--out", "$D/out"},
		code: 2, want: []string{"22 of figure fig25's 22 runs would fail, so none was started", "scale 1e+09", "at most 4.194e+06"}},
	{name: "spec seeds: []", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": spec + "seeds: []\n"},
		code: 2, want: []string{"seeds: empty list", "leave seeds out for seed 1"}},
	{name: "results folder a dangling link", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": spec},
		links: map[string]string{"res": "gone/res"}, code: 2, want: []string{"$D/res is a symbolic link to gone/res, which does not exist: create gone/res, or remove the link"}},
	{name: "figure results a dangling link", args: []string{"figure", "fig15", "--quick", "--results", "$D/res"},
		links: map[string]string{"res": "gone/res"}, code: 2, want: []string{"$D/res is a symbolic link to gone/res, which does not exist"}},
	{name: "EA short window longer than long", args: []string{"run", "--workload", "atax", "--gpus", "1", "--set", "uvm.prefetch.policy=tbn",
		"--set", "uvm.prefetch_control=early-adaptor", "--set", "uvm.ea.short_window_ns=2e9"},
		code: 2, want: []string{"short_window_ns 2e+09 is longer than long_window_ns 1e+09", "must be at most the long one"}},
	{name: "EA windows inverted in a config file", args: []string{"run", "--workload", "atax", "--gpus", "1", "--config", "$D/c.yaml"},
		files: map[string]string{"c.yaml": "uvm:\n  prefetch:\n    policy: tbn\n  prefetch_control: early-adaptor\n  ea:\n    short_window_ns: 5e6\n    long_window_ns: 1e6\n"},
		code:  2, want: []string{"short_window_ns 5e+06 is longer than long_window_ns 1e+06"}},
	{name: "collect a stub result", args: []string{"collect", "$D"}, files: map[string]string{"0123456789abcdef.json": `{"workload": "mm", "policy": "oasis", "sim_time_ns": 1}`},
		code: 2, want: []string{"1 result file is not a whole result, so nothing was collected", "$D/0123456789abcdef.json: missing field gpus"}},
	{name: "collect a result cut short", args: []string{"collect", "$D"}, files: map[string]string{"r.json": `{"workload": "mm", "policy": "oa`},
		code: 2, want: []string{"$D/r.json: not valid JSON at byte"}},
	{name: "plot a CSV with a byte-order mark", args: []string{"plot", "$D/t.csv"}, files: map[string]string{"t.csv": "\ufeffapp,oasis\nmm,1.5\n"},
		code: 0, want: []string{"wrote $D/t.png"}},
}

func TestPart3Catalogue(t *testing.T) { runCatalogue(t, part3Catalogue) }

// A figure whose runs would fail emits nothing: no list, no script, no
// results directory.
func TestFigureChecksItsRunsBeforeEmitting(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "res")
	for _, emit := range []string{"list", "slurm"} {
		code, out, errs := mgpu("figure", "fig25", "--scale", "1e9", "--emit", emit, "--results", res, "--out", filepath.Join(dir, "out"))
		if code != 2 || out != "" || !strings.Contains(errs, "22 of figure fig25's 22 runs would fail") {
			t.Errorf("--emit %s: exit %d, stdout %q, stderr %s", emit, code, out, errs)
		}
	}
	if _, err := os.Stat(res); err == nil {
		t.Error("a refused figure made its results directory")
	}
}

// A sweep that runs here holds its runs, and one too large for the memory
// available is refused, naming the limit; streamed (--emit list) or split
// (--tasks) it fits.
func TestSweepRefusesWhatCannotBeHeld(t *testing.T) {
	old := debug.SetMemoryLimit(64 << 20) // half of it holds 4096 runs
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	dir := t.TempDir()
	specPath, res := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "res")
	os.WriteFile(specPath, []byte(seedsSpec(5000, "")), 0o644)
	code, out, errs := mgpu("sweep", specPath, "--results", res, "--yes")
	if code != 2 || out != "" || !strings.Contains(errs, "expands to 5000 runs to hold in memory at once, about 39.06MB at 8.00KB each") ||
		!strings.Contains(errs, "more than half the 64.00MB available (GOMEMLIMIT): at most 4096 can run here") {
		t.Errorf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	if code, out, errs := mgpu("sweep", specPath, "--results", res, "--yes", "--emit", "list"); code != 0 || strings.Count(out, "mgpu run ") != 5000 {
		t.Errorf("--emit list: exit %d, %d commands, stderr %s", code, strings.Count(out, "mgpu run "), errs)
	}
	// A task's slice of 2500 fits; its runs are then checked (and, with
	// no cores to spare, made to fail the check so that none runs).
	os.WriteFile(specPath, []byte(seedsSpec(5000, "sets: {gpu.cus: ['0']}\n")), 0o644)
	code, _, errs = mgpu("sweep", specPath, "--results", res, "--yes", "--tasks", "2", "--task", "0")
	if code != 2 || !strings.Contains(errs, "2500 of the sweep's 2500 runs would fail") {
		t.Errorf("--tasks 2 --task 0: exit %d, stderr %s", code, errs)
	}
}

// Ctrl-C while a sweep's runs are checked, or while they are listed, says
// what it stopped and exits 130.
func TestSweepInterruptSaysWhatItStopped(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "s.yaml")
	os.WriteFile(specPath, []byte(seedsSpec(2000, "")), 0o644)
	// interruptAt makes the n-th call of interruptSource deliver at once.
	interruptAt := func(n int) {
		calls := 0
		old := interruptSource
		t.Cleanup(func() { interruptSource = old })
		interruptSource = func() (<-chan os.Signal, func()) {
			calls++
			ch := make(chan os.Signal, 1)
			if calls == n {
				ch <- os.Interrupt
			}
			return ch, func() {}
		}
	}
	interruptAt(1)
	code, out, errs := mgpu("sweep", specPath, "--results", filepath.Join(dir, "res"), "--yes", "--emit", "list")
	if code != 130 || out != "" || !strings.Contains(errs, "interrupted while checking the sweep's runs before the first starts, after ") ||
		!strings.Contains(errs, " of 2000: nothing was run or emitted") {
		t.Errorf("while checking: exit %d, stdout %d bytes, stderr %s", code, len(out), errs)
	}
	interruptAt(2)
	code, out, errs = mgpu("sweep", specPath, "--results", filepath.Join(dir, "res"), "--yes", "--emit", "list")
	if code != 130 || out != "" || !strings.Contains(errs, "interrupted after listing 0 of the sweep's 2000 runs: the list is incomplete") {
		t.Errorf("while listing: exit %d, stdout %d bytes, stderr %s", code, len(out), errs)
	}
	// A figure's sizing and checking, minutes at a paper's size.
	interruptAt(1)
	code, out, errs = mgpu("figure", "fig15", "--quick", "--emit", "list", "--results", filepath.Join(dir, "res"))
	if code != 130 || out != "" || !strings.Contains(errs, "interrupted while sizing and checking figure fig15's runs: nothing was run or emitted") {
		t.Errorf("figure: exit %d, stdout %d bytes, stderr %s", code, len(out), errs)
	}
}
