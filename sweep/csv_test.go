package sweep

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/platform"
)

// csvTable is a merged CSV as encoding/csv reads it, cells looked up by
// column name as pandas or R would.
type csvTable struct {
	header []string
	rows   [][]string
}

func readCSV(t *testing.T, data []byte) csvTable {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll() // also checks every row has the header's width
	if err != nil || len(recs) == 0 {
		t.Fatalf("merged CSV does not parse: %v\n%s", err, data)
	}
	seen := map[string]bool{}
	for _, h := range recs[0] {
		if seen[h] {
			t.Errorf("column %q appears twice in %v", h, recs[0])
		}
		seen[h] = true
	}
	for _, packed := range []string{"sets", "policy_stats"} {
		if seen[packed] {
			t.Errorf("packed column %q is back: %v", packed, recs[0])
		}
	}
	return csvTable{header: recs[0], rows: recs[1:]}
}

func (c csvTable) col(name string) int { return slices.Index(c.header, name) }

func (c csvTable) cell(row int, name string) string {
	i := c.col(name)
	if i < 0 {
		return "<no column " + name + ">"
	}
	return c.rows[row][i]
}

// TestCollectCSVOneColumnPerKey runs two small sweeps that set different
// keys into one results directory, as two specs sharing a directory do,
// and reads the collected CSV: each set key and each policy stat has its
// own column; a set-key cell holds the run's effective value even where
// the run did not set it (runs are cached without their sets), a stat cell
// is empty where the run has no such stat, and a set key named like a
// fixed column (page_size) gets set.page_size.
func TestCollectCSVOneColumnPerKey(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{
		"workloads: [private]\npolicies: [oasis]\ngpus: [2]\nscale: 0.05\nsets: {policy.reset_threshold: ['4', '32']}\n",
		"workloads: [private]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.05\nsets: {page_size: [2MB]}\n",
	} {
		s, err := Load(writeSpec(t, body))
		if err != nil {
			t.Fatal(err)
		}
		runs, err := s.Expand()
		if err != nil {
			t.Fatal(err)
		}
		if sum, err := Execute(runs, dir, 2, nil); err != nil || sum.Failed != 0 {
			t.Fatalf("%+v %v", sum, err)
		}
	}
	col, err := Collect(dir)
	if err != nil || len(col.Results) != 3 {
		t.Fatalf("collect: %d results, %v", len(col.Results), err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, col.Results); err != nil {
		t.Fatal(err)
	}
	tab := readCSV(t, b.Bytes())
	// The set keys follow the fixed columns, sorted by key (page_size before
	// policy.reset_threshold); the policy stats come last.
	i, j, k := tab.col("policy.reset_threshold"), tab.col("set.page_size"), tab.col("policy_stats.shared_faults")
	if i < 0 || j < 0 || k < 0 || tab.col("page_size") < 0 || !(tab.col("oversubscribe") < j && j < i && i < k) {
		t.Fatalf("columns: %v", tab.header)
	}
	got := map[string][3]string{}
	for r := range tab.rows {
		key := tab.cell(r, "policy") + "/" + tab.cell(r, "policy.reset_threshold")
		got[key] = [3]string{tab.cell(r, "set.page_size"), tab.cell(r, "page_size"), tab.cell(r, "policy_stats.otable_hits")}
		if tab.cell(r, "workload") != "private" || tab.cell(r, "gpus") != "2" {
			t.Errorf("row %d: %v", r, tab.rows[r])
		}
	}
	for key, want := range map[string][2]string{"oasis/4": {"4KB", "4096"}, "oasis/32": {"4KB", "4096"}, "on-touch/8": {"2MB", "2097152"}} {
		g, ok := got[key]
		if !ok || g[0] != want[0] || g[1] != want[1] {
			t.Errorf("row %s: set.page_size, page_size = %q, %q; want %q, %q (rows %v)", key, g[0], g[1], want[0], want[1], got)
		}
		if stat := g[2]; (key == "on-touch/8") != (stat == "") {
			t.Errorf("row %s: policy_stats.otable_hits = %q", key, stat)
		}
	}
}

// TestWriteCSVQuotesValues: set values holding commas, quotes or line
// breaks come back intact; a row that did not set a key shows its effective
// value, and a row without a stat has an empty cell.
func TestWriteCSVQuotesValues(t *testing.T) {
	odd := []string{"a,b", `say "hi"`, "two\nlines", " padded ", ""}
	var results []*platform.Result
	for i, v := range odd {
		cfg := config.DefaultConfig()
		cfg.UVM.Eviction, cfg.GPUs = v, 2 // not valid values: this only tests quoting
		results = append(results, &platform.Result{Workload: "w", Policy: "p", GPUs: 2, Config: cfg,
			Sets: map[string]string{"uvm.eviction": v, "gpus": "2"}, PolicyStats: map[string]float64{"ratio": float64(i) / 4}})
	}
	results = append(results, &platform.Result{Workload: "x,y", Policy: "p", Config: config.DefaultConfig()})
	var b bytes.Buffer
	if err := WriteCSV(&b, results); err != nil {
		t.Fatal(err)
	}
	tab := readCSV(t, b.Bytes())
	if len(tab.rows) != len(results) {
		t.Fatalf("%d rows, want %d:\n%s", len(tab.rows), len(results), b.String())
	}
	if tab.col("gpus") < 0 || tab.col("set.gpus") < 0 {
		t.Fatalf("set key gpus should get column set.gpus next to gpus: %v", tab.header)
	}
	for i, v := range odd {
		if got := tab.cell(i, "uvm.eviction"); got != v {
			t.Errorf("row %d: uvm.eviction = %q, want %q", i, got, v)
		}
		if got, want := tab.cell(i, "policy_stats.ratio"), []string{"0", "0.25", "0.5", "0.75", "1"}[i]; got != want {
			t.Errorf("row %d: policy_stats.ratio = %q, want %q", i, got, want)
		}
	}
	last := len(results) - 1
	if tab.cell(last, "workload") != "x,y" || tab.cell(last, "uvm.eviction") != "lrm-2mb" || tab.cell(last, "set.gpus") != "4" || tab.cell(last, "policy_stats.ratio") != "" {
		t.Errorf("last row: %v", tab.rows[last])
	}
}

// TestCSVCoreColumns: CSVHeader and CSVRow (the core columns) stay the
// leading columns of the merged table.
func TestCSVCoreColumns(t *testing.T) {
	cfg := config.DefaultConfig()
	if err := cfg.Set("gpu.memory=8GB"); err != nil {
		t.Fatal(err)
	}
	r := &platform.Result{Workload: "w", Policy: "p", GPUs: 2, Config: cfg, Sets: map[string]string{"gpu.memory": "8GB"}}
	var b bytes.Buffer
	if err := WriteCSV(&b, []*platform.Result{r}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[0], platform.CSVHeader()+",") || !strings.HasPrefix(lines[1], r.CSVRow()+",") {
		t.Errorf("merged CSV does not start with CSVHeader/CSVRow:\n%s\n%s\n%s", b.String(), platform.CSVHeader(), r.CSVRow())
	}
	if !strings.HasSuffix(lines[0], ",gpu.memory") || !strings.HasSuffix(lines[1], ",8GB") {
		t.Errorf("set key column missing:\n%s", b.String())
	}
}
