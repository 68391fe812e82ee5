package sweep

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/platform"
)

// wholeJSON is a result file ReadResult accepts, as a generic JSON tree
// the cases below cut and change.
func wholeJSON(t *testing.T) map[string]any {
	t.Helper()
	cfg := config.DefaultConfig()
	cfg.GPUs = 2
	data, err := json.Marshal(wholeResult(platform.Options{Workload: "mm", Policy: "oasis", Seed: 1, Scale: 1, Size: "auto", Config: cfg}))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func marshal(t *testing.T, m map[string]any) []byte {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A result file is read whole: a stub, a missing field at any depth, a
// wrong type, counts that disagree or a file cut short are each an error
// naming the field, not a result of zeros.
func TestReadResultRefusesPartialFiles(t *testing.T) {
	whole := marshal(t, wholeJSON(t))
	if _, err := ReadResult(whole); err != nil {
		t.Fatalf("a whole result: %v", err)
	}
	edit := func(f func(m map[string]any)) []byte {
		m := wholeJSON(t)
		f(m)
		return marshal(t, m)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"stub", []byte(`{"workload": "mm", "policy": "oasis"}`), "missing field gpus"},
		{"no totals", edit(func(m map[string]any) { delete(m, "totals") }), "missing field totals"},
		{"totals null", edit(func(m map[string]any) { m["totals"] = nil }), "missing field totals"},
		{"a counter missing", edit(func(m map[string]any) { delete(m["totals"].(map[string]any), "page_faults") }), "missing field totals.page_faults"},
		{"a GPU's counter missing", edit(func(m map[string]any) {
			delete(m["per_gpu"].([]any)[1].(map[string]any), "mem_instructions")
		}), "missing field per_gpu[1].mem_instructions"},
		{"a config key missing", edit(func(m map[string]any) { delete(m["config"].(map[string]any)["GPU"].(map[string]any), "CUs") }), "missing field config.GPU.CUs"},
		{"one GPU's counters", edit(func(m map[string]any) { m["per_gpu"] = m["per_gpu"].([]any)[:1] }), "per_gpu: 1 entries for 2 GPUs"},
		{"gpus disagree", edit(func(m map[string]any) { m["gpus"] = 4 }), "config.GPUs: 2, but gpus is 4"},
		{"wrong type", edit(func(m map[string]any) { m["sim_time_ns"] = "fast" }), "field sim_time_ns: a JSON string"},
		{"negative count", edit(func(m map[string]any) { m["kernel_launches"] = -1 }), "kernel_launches"},
		{"scale zero", edit(func(m map[string]any) { m["scale"] = 0 }), "field scale: 0"},
		{"empty workload", edit(func(m map[string]any) { m["workload"] = "" }), "field workload: empty"},
		{"invalid config", edit(func(m map[string]any) { m["config"].(map[string]any)["GPU"].(map[string]any)["CUs"] = 0 }), "field config:"},
		{"cut short", whole[:len(whole)/2], "not valid JSON at byte"},
		{"an array", []byte(`[1]`), "a JSON array where a result is an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadResult(c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// Collect refuses a directory whose result files are not whole, naming
// each file and its fault; it collects nothing rather than rows of zeros.
// Files that are not meant as results are still skipped.
func TestCollectRefusesStubResults(t *testing.T) {
	dir := t.TempDir()
	m := wholeJSON(t)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good.json", marshal(t, m))
	write("notes.json", []byte(`{"author": "me"}`))
	if c, err := Collect(dir); err != nil || len(c.Results) != 1 || len(c.Skipped) != 1 {
		t.Fatalf("%d results, %d skipped, %v", len(c.Results), len(c.Skipped), err)
	}
	write("stub.json", []byte(`{"workload": "mm", "policy": "oasis", "sim_time_ns": 5}`))
	delete(m, "stalls_ns")
	write("partial.json", marshal(t, m))
	write("cut.json", []byte(`{"workload": "mm", "pol`))
	_, err := Collect(dir)
	var bad *IncompleteResults
	if !errors.As(err, &bad) || bad.Count != 3 {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{"3 result files are not whole results, so nothing was collected",
		filepath.Join(dir, "stub.json") + ": missing field gpus", filepath.Join(dir, "partial.json") + ": missing field stalls_ns",
		filepath.Join(dir, "cut.json") + ": not valid JSON at byte"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
