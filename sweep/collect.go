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

// Collect reads every result (<hash>.json) and failure (<hash>.failed.json)
// in dir, in a stable order.
func Collect(dir string) ([]*platform.Result, []Failure, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var results []*platform.Result
	var failures []Failure
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, err
		}
		if strings.HasSuffix(name, ".failed.json") {
			var f Failure
			if err := json.Unmarshal(data, &f); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			failures = append(failures, f)
			continue
		}
		var r platform.Result
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, nil, fmt.Errorf("%s: not an mgpu result: %w", name, err)
		}
		if r.Workload == "" {
			continue // some other JSON file
		}
		results = append(results, &r)
	}
	sort.SliceStable(results, func(i, j int) bool { return rowKey(results[i]) < rowKey(results[j]) })
	return results, failures, nil
}

// Sets renders a result's overrides as "k=v;k=v", sorted.
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

// WriteCSV writes one row per result: the run's identity, the settings the
// paper's figures vary, sim time, counters, stalls and the policy's stats.
func WriteCSV(w io.Writer, results []*platform.Result) error {
	if _, err := fmt.Fprintln(w, platform.CSVHeader()+",size,page_size,placement,oversubscribe,sets,policy_stats"); err != nil {
		return err
	}
	for _, r := range results {
		var ps []string
		for k, v := range r.PolicyStats {
			ps = append(ps, fmt.Sprintf("%s=%g", k, v))
		}
		sort.Strings(ps)
		if _, err := fmt.Fprintf(w, "%s,%s,%d,%s,%g,%s,%s\n", r.CSVRow(), r.Size, uint64(r.Config.PageSize),
			r.Config.Placement, r.Config.Oversubscribe, Sets(r), strings.Join(ps, ";")); err != nil {
			return err
		}
	}
	return nil
}
