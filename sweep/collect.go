package sweep

import (
	"bytes"
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
// A result that is not whole (a stub, a field missing or wrong, a file cut
// short; ReadResult) is an *IncompleteResults: it would be a row of zeros.
func Collect(dir string) (Collection, error) {
	var c Collection
	entries, err := os.ReadDir(dir)
	if err != nil {
		return c, err
	}
	bad := &IncompleteResults{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			c.Skipped = append(c.Skipped, Skipped{File: path, Reason: fmt.Sprintf("unreadable: %v", err)})
			continue
		}
		c.take(path, data, bad)
	}
	if len(bad.Files) > 0 {
		return c, bad
	}
	sort.SliceStable(c.Results, func(i, j int) bool { return rowKey(c.Results[i]) < rowKey(c.Results[j]) })
	return c, nil
}

// take adds the file at path, holding data, to c as a result or a
// failure record, to c.Skipped when it is neither, or to bad when it is
// meant as a result but is not a whole one.
func (c *Collection) take(path string, data []byte, bad *IncompleteResults) {
	skip := func(reason string) { c.Skipped = append(c.Skipped, Skipped{File: path, Reason: reason}) }
	if strings.HasSuffix(path, ".failed.json") {
		var f Failure
		if err := json.Unmarshal(data, &f); err != nil || f.Run == "" {
			skip("not an mgpu failure record")
			return
		}
		c.Failures = append(c.Failures, f)
		return
	}
	if !meantAsResult(data) {
		skip("not an mgpu result: it has none of a result's fields (workload, policy, version, sim_time_ns)")
		return
	}
	r, err := ReadResult(data)
	if err != nil {
		bad.add(path, err)
		return
	}
	c.Results = append(c.Results, r)
}

// resultKeys are keys only a result has: a JSON file with one of them is
// meant as a result, and must be one whole.
var resultKeys = []string{"workload", "policy", "version", "sim_time_ns"}

// meantAsResult is whether data is meant as a result: an object with one
// of resultKeys, or text that is not JSON but names one (a result cut
// short). Other JSON (notes, a config) is not.
func meantAsResult(data []byte) bool {
	var obj map[string]json.RawMessage
	err := json.Unmarshal(data, &obj)
	for _, k := range resultKeys {
		if _, ok := lookup(obj, k); ok || err != nil && bytes.Contains(data, []byte(`"`+k+`"`)) {
			return true
		}
	}
	return false
}

// IncompleteResults is Collect's error when some files meant as results
// are not whole ones: each with what is wrong.
type IncompleteResults struct {
	Files []Skipped // the first MaxListed, each with its reason
	Count int
}

func (e *IncompleteResults) add(file string, err error) {
	e.Count++
	if len(e.Files) < MaxListed {
		e.Files = append(e.Files, Skipped{File: file, Reason: err.Error()})
	}
}

func (e *IncompleteResults) Error() string {
	var b strings.Builder
	files := fmt.Sprintf("%d result files are not whole results", e.Count)
	if e.Count == 1 {
		files = "1 result file is not a whole result"
	}
	fmt.Fprintf(&b, "%s, so nothing was collected (a missing or wrong field would be a row of zeros); rerun its run, or move it aside:", files)
	for _, f := range e.Files {
		fmt.Fprintf(&b, "\n  %s: %s", f.File, f.Reason)
	}
	if more := e.Count - len(e.Files); more > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", more)
	}
	return b.String()
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
