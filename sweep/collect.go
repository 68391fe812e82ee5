package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mgpu-sim/mgpu/platform"
)

// Collection is what Collect found in a directory.
type Collection struct {
	Results  []*platform.Result
	Failures []Failure
	// Skipped lists the .json files that are neither results nor failure
	// records (a stray config or notes file), each with the reason.
	Skipped []Skipped
}

// Skipped is one file Collect passed over.
type Skipped struct{ File, Reason string }

// Collect reads every result (<hash>.json) and failure (<hash>.failed.json)
// in dir, in a stable order. A .json file that is neither is skipped and
// listed, not fatal: one stray file must not lose a whole sweep's table.
func Collect(dir string) (Collection, error) {
	var c Collection
	entries, err := os.ReadDir(dir)
	if err != nil {
		return c, err
	}
	skip := func(name, format string, a ...any) {
		c.Skipped = append(c.Skipped, Skipped{File: filepath.Join(dir, name), Reason: fmt.Sprintf(format, a...)})
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			skip(name, "unreadable: %v", err)
			continue
		}
		if strings.HasSuffix(name, ".failed.json") {
			var f Failure
			if err := json.Unmarshal(data, &f); err != nil || f.Run == "" {
				skip(name, "not an mgpu failure record")
				continue
			}
			c.Failures = append(c.Failures, f)
			continue
		}
		var r platform.Result
		if err := json.Unmarshal(data, &r); err != nil {
			skip(name, "not an mgpu result: %v", err)
			continue
		}
		if r.Workload == "" || r.Policy == "" {
			skip(name, "not an mgpu result: no workload or policy")
			continue
		}
		c.Results = append(c.Results, &r)
	}
	sort.SliceStable(c.Results, func(i, j int) bool { return rowKey(c.Results[i]) < rowKey(c.Results[j]) })
	return c, nil
}

// Sets renders a result's overrides as "k=v;k=v", sorted: Collect's sort
// key. The CSV gives each key its own column instead.
func Sets(r *platform.Result) string {
	var kv []string
	for k, v := range r.Sets {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ";")
}

func rowKey(r *platform.Result) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%04d\x00%020d\x00%g", r.Workload, Sets(r), r.Policy, r.GPUs, r.Seed, r.Scale)
}

// WriteCSV writes the merged table of a sweep, one row per result: the
// run's identity, the settings the paper's figures vary, sim time,
// counters, stalls, then one column per set key and one per policy stat
// (platform.WriteCSV).
func WriteCSV(w io.Writer, results []*platform.Result) error {
	return platform.WriteCSV(w, results)
}
