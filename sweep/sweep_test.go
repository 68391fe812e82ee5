package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSpec(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSpecErrorsBeforeAnyRun(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"unknown key", "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\nthreads: 3\n", "threads"},
		{"empty product", "workloads: []\npolicies: [on-touch]\ngpus: [4]\n", "empty list"},
		{"empty set values", "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\nsets: {page_size: []}\n", "empty list"},
		{"unknown workload", "workloads: [nope]\npolicies: [on-touch]\ngpus: [4]\n", "unknown workload"},
		{"unknown policy", "workloads: [mm]\npolicies: [nope]\ngpus: [4]\n", "unknown policy"},
		{"bad set key", "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\nsets: {gpu.nope: [1]}\n", "gpu.nope"},
		{"bad gpu count", "workloads: [mm]\npolicies: [on-touch]\ngpus: [0]\n", "gpus"},
		{"empty seeds", "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\nseeds: []\n", "seeds: empty list, so the sweep has no runs; list at least one seed, or leave seeds out for seed 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load(writeSpec(t, c.body))
			if err == nil {
				_, err = s.Expand()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
	if err := CheckDir("/proc/no-such-dir/results"); err == nil {
		t.Fatal("an unwritable results directory was accepted")
	}
}

func smallSpec(t *testing.T) []Run {
	t.Helper()
	s, err := Load(writeSpec(t, "workloads: [private, pingpong]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.05\nsets: {policy.reset_threshold: ['4', '8']}\n"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// The spec is the cartesian product of its lists, but for the runs whose
// policy ignores a sets key: on-touch does not read
// policy.reset_threshold, so it runs once per workload, at the default.
func TestExpandIsTheCartesianProduct(t *testing.T) {
	runs := smallSpec(t)
	if len(runs) != 2*2+2 {
		t.Fatalf("%d runs, want 6", len(runs))
	}
	for _, r := range runs {
		if r.Policy == "on-touch" && (len(r.Sets) > 0 || r.Config.Policy.ResetThreshold != 8) {
			t.Fatalf("on-touch run with the threshold set: %+v", r.Sets)
		}
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.Hash()] {
			t.Fatalf("two runs share hash %s", r.Hash())
		}
		seen[r.Hash()] = true
		if r.Policy != "on-touch" && r.Config.Policy.ResetThreshold != map[string]int{"4": 4, "8": 8}[r.Sets["policy.reset_threshold"]] {
			t.Fatalf("set not applied: %+v", r.Sets)
		}
	}
	if runs[0].Hash() != smallSpec(t)[0].Hash() {
		t.Fatal("hash not stable")
	}
}

func TestExecuteResumesAndCollects(t *testing.T) {
	runs := smallSpec(t)
	dir := t.TempDir()
	var progress bytes.Buffer
	sum, err := Execute(runs[:3], dir, 2, &progress)
	if err != nil || sum.Done != 3 || sum.Failed != 0 {
		t.Fatalf("first part: %+v %v", sum, err)
	}
	if !strings.Contains(progress.String(), "3/3 runs") || !strings.Contains(progress.String(), "ETA") {
		t.Fatalf("no progress bar: %q", progress.String())
	}
	sum, err = Execute(runs, dir, 2, nil) // the "interrupted" sweep resumes
	if err != nil || sum.Skipped != 3 || sum.Done != len(runs)-3 {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	col, err := Collect(dir)
	res, fails := col.Results, col.Failures
	if err != nil || len(res) != len(runs) || len(fails) != 0 || len(col.Skipped) != 0 {
		t.Fatalf("collect: %d results, %d failures, %d skipped, %v", len(res), len(fails), len(col.Skipped), err)
	}
	var csv bytes.Buffer
	if err := WriteCSV(&csv, res); err != nil {
		t.Fatal(err)
	}
	tab := readCSV(t, csv.Bytes())
	if len(tab.rows) != len(runs) {
		t.Fatalf("merged CSV has %d rows, want %d:\n%s", len(tab.rows), len(runs), csv.String())
	}
	thresholds := map[string]int{}
	for i := range tab.rows {
		thresholds[tab.cell(i, "policy.reset_threshold")]++
	}
	// on-touch ignores the threshold: it runs once, at the default 8.
	if thresholds["4"] != 2 || thresholds["8"] != 4 || len(runs) != 6 {
		t.Fatalf("policy.reset_threshold column: %v\n%s", thresholds, csv.String())
	}
}

func TestFailedRunIsRecordedAndOthersGoOn(t *testing.T) {
	runs := smallSpec(t)[:2]
	bad := runs[0]
	bad.Config.GPU.Memory = 4096 // the footprint cannot fit: Build fails
	dir := t.TempDir()
	sum, err := Execute([]Run{bad, runs[1]}, dir, 1, nil)
	if err != nil || sum.Failed != 1 || sum.Done != 1 {
		t.Fatalf("%+v %v", sum, err)
	}
	col, _ := Collect(dir)
	fails := col.Failures
	if len(fails) != 1 || !strings.Contains(fails[0].Error, "exceeds the total GPU memory") {
		t.Fatalf("failure not recorded: %+v", fails)
	}
}

func TestEmitSlurmAndList(t *testing.T) {
	runs := smallSpec(t)
	var b bytes.Buffer
	if err := EmitSlurm(&b, "/opt/mgpu", "/home/u/spec.yaml", "/scratch/res", len(runs), 4); err != nil {
		t.Fatal(err)
	}
	script := b.String()
	for _, want := range []string{"#!/bin/bash", "#SBATCH --array=0-3", "/opt/mgpu sweep /home/u/spec.yaml", "--tasks 4", `--task "$SLURM_ARRAY_TASK_ID"`, "/opt/mgpu collect /scratch/res"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	// The four slices cover every run exactly once.
	seen := map[string]int{}
	for task := 0; task < 4; task++ {
		s, err := Slice(runs, task, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s {
			seen[r.Hash()]++
		}
	}
	if len(seen) != len(runs) {
		t.Fatalf("slices cover %d of %d runs", len(seen), len(runs))
	}
	b.Reset()
	if err := EmitList(&b, "mgpu", "res", runs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != len(runs) || !strings.HasPrefix(lines[0], "mgpu run --workload ") || !strings.Contains(lines[0], "--out res/"+runs[0].Hash()+".json") {
		t.Fatalf("list:\n%s", b.String())
	}
}
