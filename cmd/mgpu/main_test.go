package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadInputExitsTwoWithAClearMessage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("gpu:\n  cus: [1, 2\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknown, []byte("gpu:\n  cuss: 4\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want string // part of the message
	}{
		{"unknown workload", []string{"run", "--workload", "nope"}, "valid workloads are"},
		{"unknown policy", []string{"run", "--policy", "nope"}, "valid policies are"},
		{"unknown config key", []string{"run", "--set", "gpu.memroy=1GB"}, "gpu.memory"},
		{"zero GPUs", []string{"run", "--gpus", "0"}, "between 1 and 64"},
		{"too many GPUs", []string{"run", "--gpus", "65"}, "between 1 and 64"},
		{"page size not a power of two", []string{"run", "--set", "page_size=3000"}, "power of two"},
		{"negative latency", []string{"run", "--set", "link.pcie_latency_ns=-1"}, "pcie_latency_ns"},
		{"negative bandwidth", []string{"run", "--set", "link.nvlink_gbps=-5"}, "nvlink_gbps"},
		{"malformed YAML", []string{"run", "--config", bad}, "bad.yaml"},
		{"unknown YAML key", []string{"run", "--config", unknown}, "gpu.cuss"},
		{"missing config file", []string{"run", "--config", filepath.Join(dir, "none.yaml")}, "none.yaml"},
		{"bad scale", []string{"run", "--scale", "-1"}, "--scale"},
		{"unknown command", []string{"frobnicate"}, "valid commands"},
		{"unknown flag", []string{"run", "--wrokload", "mm"}, "wrokload"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", code, errb.String())
			}
			if !strings.Contains(errb.String(), c.want) {
				t.Fatalf("message %q does not mention %q", errb.String(), c.want)
			}
			if strings.Contains(errb.String(), "internal error") || strings.Contains(errb.String(), "goroutine") {
				t.Fatalf("bad input panicked: %s", errb.String())
			}
		})
	}
}

func TestRunWritesJSONAndCSV(t *testing.T) {
	dir := t.TempDir()
	js, csv := filepath.Join(dir, "new", "r.json"), filepath.Join(dir, "r.csv")
	var out, errb bytes.Buffer
	code := run([]string{"run", "--workload", "private", "--gpus", "2", "--seed", "3", "--check", "--out", js, "--csv", csv}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "page faults") {
		t.Errorf("no summary printed: %q", out.String())
	}
	var r map[string]any
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"workload", "policy", "gpus", "seed", "version", "config", "sim_time_ns", "totals", "per_gpu", "stalls_ns"} {
		if _, ok := r[k]; !ok {
			t.Errorf("result lacks top-level %q", k)
		}
	}
	totals := r["totals"].(map[string]any)
	for _, k := range []string{"mem_instructions", "page_faults", "protection_faults", "migrations_h2d", "migrations_d2d", "migrations_d2h",
		"duplications", "collapses", "remote_lines", "invalidations", "bytes_nvlink", "bytes_pcie", "tlb_l1_hits", "tlb_l2_hits", "page_walks"} {
		if _, ok := totals[k]; !ok {
			t.Errorf("totals lack %q", k)
		}
	}
	if r["seed"].(float64) != 3 || r["gpus"].(float64) != 2 {
		t.Errorf("seed/gpus not recorded: %v %v", r["seed"], r["gpus"])
	}
	lines, _ := os.ReadFile(csv)
	if n := strings.Count(string(lines), "\n"); n != 2 {
		t.Errorf("CSV has %d lines, want header and one row", n)
	}
}

func TestListShowsKeysWithSources(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"list"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"mt", "mm", "private", "on-touch", "greedy", "gpu.memory", "OASIS Table I", "uvm.fault_service_ns"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list output lacks %q", want)
		}
	}
}

func TestOversubscribeFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--workload", "mm", "--scale", "0.02", "--oversubscribe", "0.5"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "oversubscribe") {
		t.Fatalf("--oversubscribe 0.5: exit %d, %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"run", "--workload", "mm", "--scale", "0.02", "--oversubscribe", "1.5"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "evictions") {
		t.Fatalf("--oversubscribe 1.5: exit %d, %q %q", code, out.String(), errb.String())
	}
}
