package figures

// What the single-GPU oversubscription figures share: the oversubscription
// points, the GPU presets as sets, spec helpers, set-up without a
// simulation, and rows grouped by Early-Adaptor's workload classes.

import (
	"fmt"
	"math"
	"slices"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/plots"
)

// The oversubscription points. "0" is 100%: capacity is gpu.memory, far
// above every footprint. Factor 1 is not 100% once the tree prefetcher is
// on: capacity is then footprint / page size, but a whole-VA-block
// prefetch also brings the pages between an object's end and its 2 MB
// aligned slot's, so a run at factor 1 evicts (hotspot at scale 0.2 on
// the default GPU, threshold 1: 42k evictions, 4x slower than at 0).
const (
	over100 = "0"
	over125 = "1.25"
	over150 = "1.5"
	over175 = "1.75"
	over200 = "2"
)

func overLabel(o string) string {
	switch o {
	case over100:
		return "100%"
	case over125:
		return "125%"
	case over150:
		return "150%"
	case over175:
		return "175%"
	case over200:
		return "200%"
	}
	return o
}

// rtx3090 and gtx1080ti are configs/rtx3090.yaml (EA's GPU) and
// configs/gtx1080ti.yaml (UVMMU's Table I) as sets: sweep specs take no
// config file. Both presets' gpus: 1 is the specs' GPU count.
// TestPresetSets checks them against the files.
var (
	rtx3090 = []string{
		"gpu.cus", "82", "gpu.freq_mhz", "1695", "gpu.wavefronts_per_cu", "24",
		"gpu.l1v_size", "128KB", "gpu.remote_l1v", "false", "gpu.l2_size", "6MB", "gpu.memory", "24GB", "gpu.dram_gbps", "936", "gmmu.walkers", "64",
		"gmmu.big_page", "64KB", "gmmu.huge_page", "2MB", "gpu.shootdown_flush_all", "false", "gpu.drain_cycles", "0",
		"link.pcie_topology", "pairs",
	}
	gtx1080ti = []string{
		"gpu.cus", "28", "gpu.freq_mhz", "1481", "gpu.wavefronts_per_cu", "32",
		"gpu.l1tlb_entries", "128", "gpu.l1tlb_ways", "128", "gpu.line_size", "128B",
		"gpu.l1v_size", "48KB", "gpu.l1v_ways", "6", "gpu.l2_size", "3MB",
		"gpu.memory", "11GB", "gpu.dram_gbps", "484", "gmmu.walkers", "64",
		"gpu.shootdown_flush_all", "false", "gpu.drain_cycles", "0",
		"link.pcie_model", "rtt", "link.pcie_gbps", "16", "link.pcie_topology", "pairs",
		"kernel_launch_ns", "150000",
	}
)

// oversubPolicy is the page policy of the single-GPU figures: on-touch is
// the stock driver's fault-and-migrate (one GPU has no sharing to manage).
const oversubPolicy = "on-touch"

// join concatenates key-value lists into a new one.
func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// fixed turns key-value pairs into spec sets of one value each.
func fixed(kv []string) map[string][]string {
	out := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = []string{kv[i+1]}
	}
	return out
}

// withSweep adds a swept key to sets.
func withSweep(sets map[string][]string, key string, values ...string) map[string][]string {
	sets[key] = values
	return sets
}

// footprintAt is the footprint of workload on one GPU at scale (seed 1,
// the specs' seed), from its set-up alone.
func footprintAt(workload string, scale float64) (uint64, error) {
	alloc, _, err := setupAt(workload, scale)
	if err != nil {
		return 0, err
	}
	return alloc.Footprint(), nil
}

// setupAt sets workload up on one GPU at scale (0: 1) with the specs'
// seed, without simulating it.
func setupAt(workload string, scale float64) (*objtable.Allocator, []benchmarks.Kernel, error) {
	return setupOn(workload, scale, 1)
}

// setupOn sets workload up for gpus GPUs at scale (0: 1) with the specs'
// seed, without simulating it.
func setupOn(workload string, scale float64, gpus int) (*objtable.Allocator, []benchmarks.Kernel, error) {
	w, err := benchmarks.New(workload)
	if err != nil {
		return nil, nil, err
	}
	alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits}, 2<<20)
	if err != nil {
		return nil, nil, err
	}
	if scale == 0 {
		scale = 1
	}
	ks, err := w.Setup(alloc, benchmarks.Params{GPUs: gpus, Scale: scale, Size: benchmarks.SizeAuto, Seed: 1})
	if err != nil {
		return nil, nil, fmt.Errorf("workload %s: %w", workload, err)
	}
	return alloc, ks, nil
}

// classOf is an application's Early-Adaptor class, "" for none.
func classOf(app string) string {
	w, err := benchmarks.New(app)
	if err != nil {
		return ""
	}
	return benchmarks.ClassOf(w)
}

func cell(t plots.Table, row int, col map[string]int, label string) float64 {
	if c, ok := col[label]; ok {
		return t.Values[row][c]
	}
	return nan
}

// classRows ends a table of application rows (an "average" row, as Reduce
// writes, is dropped and recomputed) with one arithmetic mean per
// Early-Adaptor class present ("avg regular", ...), the arithmetic mean
// over the applications ("average", as every figure has) and their
// geometric mean ("geomean", as UVMMU and EA average speedups). Each mean
// skips missing values; a geometric mean over a value <= 0 is missing.
func classRows(t plots.Table) plots.Table {
	return groupRows(t, classOf, benchmarks.Classes())
}

// groupRows is classRows over any grouping of the applications: groupOf
// names an application's group ("" for none), groups are listed in order.
func groupRows(t plots.Table, groupOf func(app string) string, groups []string) plots.Table {
	if n := len(t.Apps); n > 0 && t.Apps[n-1] == "average" {
		t.Apps, t.Values = t.Apps[:n-1], t.Values[:n-1]
	}
	out := plots.Table{Series: t.Series, Apps: slices.Clone(t.Apps), Values: slices.Clone(t.Values)}
	mean := func(rows []int, geo bool) []float64 {
		m := make([]float64, len(t.Series))
		for c := range m {
			sum, n := 0.0, 0
			for _, r := range rows {
				v := t.Values[r][c]
				if v != v {
					continue
				}
				if geo {
					if !(v > 0) {
						sum, n = nan, 1
						break
					}
					v = math.Log(v)
				}
				sum += v
				n++
			}
			m[c] = nan
			if n > 0 {
				m[c] = sum / float64(n)
				if geo {
					m[c] = math.Exp(m[c])
				}
			}
		}
		return m
	}
	var all []int
	byClass := map[string][]int{}
	for i, app := range t.Apps {
		all = append(all, i)
		if c := groupOf(app); c != "" {
			byClass[c] = append(byClass[c], i)
		}
	}
	for _, c := range groups {
		if rows := byClass[c]; len(rows) > 0 {
			out.Apps = append(out.Apps, "avg "+c)
			out.Values = append(out.Values, mean(rows, false))
		}
	}
	out.Apps = append(out.Apps, "average", "geomean")
	out.Values = append(out.Values, mean(all, false), mean(all, true))
	return out
}
