package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A key given where it has no effect is an error before anything runs,
// naming the key and what would enable it, from --set and from a config
// file alike; the same key where it acts runs.
func TestRunDependentKeysExitTwo(t *testing.T) {
	dir := t.TempDir()
	ea := filepath.Join(dir, "ea.yaml")
	os.WriteFile(ea, []byte("uvm:\n  ea:\n    short_window_ns: 20000\n"), 0o644)
	run := []string{"run", "--workload", "private", "--gpus", "2", "--scale", "0.05", "--progress", "off"}
	for _, c := range []struct {
		name string
		args []string
		want []string // in stderr; nil: the run succeeds
	}{
		{"threshold, prefetch off", []string{"--set", "uvm.prefetch.threshold=75"},
			[]string{"uvm.prefetch.threshold = 75: has no effect while uvm.prefetch.policy = \"off\"; set uvm.prefetch.policy=tbn to use it"}},
		{"EA key, EA off", []string{"--set", "uvm.ea.step=10"},
			[]string{"uvm.ea.step = 10", "uvm.prefetch_control = \"none\"", "uvm.prefetch_control=early-adaptor"}},
		{"EA key from a file", []string{"--config", ea}, []string{"uvm.ea.short_window_ns = 20000: has no effect"}},
		{"UVMMU key, software", []string{"--set", "uvm.uvmmu.handling_cycles=20"}, []string{"uvm.uvmmu.handling_cycles", "uvm.fault_handling=hardware"}},
		{"thrashing key", []string{"--set", "uvm.thrashing_pin_threshold=20"}, []string{"uvm.thrashing=true"}},
		{"topology on one GPU", []string{"--gpus", "1", "--set", "topology=switch"}, []string{"topology = \"switch\": has no effect while gpus = 1"}},
		{"RTT with oneway", []string{"--set", "link.pcie_rtt_ns=500"}, []string{"link.pcie_model=rtt"}},
		{"ObservUVM without tbn", []string{"--set", "uvm.adaptive=observuvm"}, []string{"uvm.observuvm.shallow = \"tbp\"", "set uvm.prefetch.policy=tbn"}},
		{"threshold with tbn", []string{"--set", "uvm.prefetch.policy=tbn", "--set", "uvm.prefetch.threshold=75"}, nil},
		{"threshold at its default", []string{"--set", "uvm.prefetch.threshold=51"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := mgpu(append(append([]string{}, run...), c.args...)...)
			if c.want == nil {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				return
			}
			if code != 2 {
				t.Fatalf("exit %d, want 2: %s", code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}

// A sweep checks every run before the first: one that would fail lists
// the bad runs and exits 2, having run nothing, emitted nothing and made
// no results directory.
func TestSweepChecksEveryRunFirst(t *testing.T) {
	dir := t.TempDir()
	const base = "policies: [on-touch]\ngpus: [2]\nscale: 0.05\n"
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"threshold sweep, prefetch off", "workloads: [private]\n" + base + "sets: {uvm.prefetch.threshold: ['1', '51', '100']}\n",
			[]string{"2 of the sweep's 3 runs would fail", "private/on-touch/2gpu/seed1 uvm.prefetch.threshold=1: uvm.prefetch.threshold = 1: has no effect"}},
		{"size", "workloads: [mm]\n" + base + "size: 32gpu\n", []string{`size "32gpu": valid sizes are auto, 4gpu, 8gpu, 16gpu`}},
		{"SUV without hints", "workloads: [private, gmm]\n" + base + "sets: {uvm.adaptive: [suv], oversubscribe: ['1.5']}\n",
			[]string{"1 of the sweep's 2 runs would fail", "private/on-touch/2gpu/seed1", "declares none"}},
		{"hardware with OASIS", "workloads: [mm]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.05\nsets: {uvm.fault_handling: [hardware]}\n",
			[]string{"1 of the sweep's 2 runs would fail", "mm/oasis/2gpu/seed1 uvm.fault_handling=hardware:", "--policy oasis cannot apply"}},
		{"footprint over memory", "workloads: [mm]\n" + base + "sets: {gpu.memory: ['256KB']}\n", []string{"exceeds the total GPU memory"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec, res := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "res")
			os.WriteFile(spec, []byte(c.body), 0o644)
			for _, emit := range [][]string{nil, {"--emit", "list"}, {"--emit", "slurm"}} {
				code, out, errs := mgpu(append([]string{"sweep", spec, "--results", res}, emit...)...)
				if code != 2 || out != "" {
					t.Errorf("%v: exit %d, stdout %q", emit, code, out)
				}
				for _, w := range c.want {
					if !strings.Contains(errs, w) {
						t.Errorf("%v: stderr lacks %q:\n%s", emit, w, errs)
					}
				}
				if _, err := os.Stat(res); err == nil {
					t.Fatalf("%v: a rejected sweep made its results directory", emit)
				}
			}
		})
	}
}

// A sweep says how many runs its spec expands to, and one of more than
// maxUnconfirmedRuns needs --yes: a million runs are refused at once,
// from the count alone.
func TestSweepCountsAndAsksForYes(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	ten := "['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']"
	os.WriteFile(spec, []byte("workloads: [mm]\npolicies: [on-touch]\ngpus: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nseeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"+
		"sets: {gpu.cus: "+ten+", gpu.l2_cycles: "+ten+", gpu.l1v_cycles: "+ten+", gpu.l2tlb_cycles: "+ten+"}\n"), 0o644)
	for _, emit := range [][]string{nil, {"--emit", "list"}} {
		code, out, errs := mgpu(append([]string{"sweep", spec, "--results", filepath.Join(dir, "res")}, emit...)...)
		if code != 2 || out != "" || !strings.Contains(errs, "expands to 1000000 runs (1 workload x 1 policy x 10 GPU counts x 10 seeds x 10000 sets combinations)") ||
			!strings.Contains(errs, "pass --yes") {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", emit, code, out, errs)
		}
	}

	// Just over the limit: refused without --yes, listed with it.
	seeds := make([]string, maxUnconfirmedRuns+1)
	for i := range seeds {
		seeds[i] = fmt.Sprint(i + 1)
	}
	os.WriteFile(spec, []byte("workloads: [private]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.05\nseeds: ["+strings.Join(seeds, ", ")+"]\n"), 0o644)
	want := fmt.Sprintf("expands to %d runs, more than %d: pass --yes", maxUnconfirmedRuns+1, maxUnconfirmedRuns)
	if code, _, errs := mgpu("sweep", spec, "--emit", "list"); code != 2 || !strings.Contains(errs, want) {
		t.Errorf("without --yes: exit %d, %s", code, errs)
	}
	code, out, errs := mgpu("sweep", spec, "--emit", "list", "--yes")
	if code != 0 || strings.Count(out, "mgpu run ") != maxUnconfirmedRuns+1 {
		t.Errorf("with --yes: exit %d, %d commands, stderr %s", code, strings.Count(out, "mgpu run "), errs)
	}
	// A small sweep says its count too.
	os.WriteFile(spec, []byte("workloads: [private]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.05\n"), 0o644)
	if code, _, errs := mgpu("sweep", spec, "--emit", "list"); code != 0 || !strings.Contains(errs, "expands to 1 run (1 workload x 1 policy x 1 GPU count x 1 seed x 1 sets combination)") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
