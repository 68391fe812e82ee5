package platform

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/units"
)

// Version is mgpu's release; the VCS revision is appended when the binary
// was built from a checkout.
const Version = "0.1.0"

// BuildInfo identifies the binary that produced a result. Results are
// cached across sweeps, so a result from another build must never pass for
// this one's: the version string names the commit and, when the commit
// alone does not pin the code (a dirty tree, or no VCS data), the
// executable's own digest.
type BuildInfo struct {
	Release       string // Version
	Module        string // module path
	ModuleVersion string // as the go command stamped it, "(devel)" if not
	Revision      string // full VCS revision, "" if unknown
	Time          string // VCS commit time, "" if unknown
	Dirty         bool   // built from a tree with uncommitted changes
	GoVersion     string
	Digest        string // 12 hex digits of the executable's SHA-256, "" if unreadable
}

// BuildOf reads info (nil when the binary has none) and digest, the
// executable's digest, into a BuildInfo.
func BuildOf(info *debug.BuildInfo, digest string) BuildInfo {
	b := BuildInfo{Release: Version, GoVersion: runtime.Version(), Digest: digest}
	if info == nil {
		return b
	}
	b.Module, b.ModuleVersion = info.Main.Path, info.Main.Version
	if info.GoVersion != "" {
		b.GoVersion = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	return b
}

// String is the version recorded in every result and compared by the
// sweep cache: Version+rev[-dirty.digest], Version+moduleversion for a
// released module, else Version+exe.digest.
func (b BuildInfo) String() string {
	rev := b.Revision
	switch {
	case rev != "":
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b.Dirty {
			rev += "-dirty"
			if b.Digest != "" {
				rev += "." + b.Digest
			}
		}
		return b.Release + "+" + rev
	case b.ModuleVersion != "" && b.ModuleVersion != "(devel)" && !strings.Contains(b.ModuleVersion, "+dirty"):
		return b.Release + "+" + strings.ReplaceAll(b.ModuleVersion, "+", ".")
	case b.Digest != "":
		return b.Release + "+exe." + b.Digest
	}
	return b.Release
}

var (
	buildOnce sync.Once
	build     BuildInfo
)

// ThisBuild is this binary's BuildInfo, read once.
func ThisBuild() BuildInfo {
	buildOnce.Do(func() {
		info, ok := debug.ReadBuildInfo()
		if !ok {
			info = nil
		}
		build = BuildOf(info, exeDigest())
	})
	return build
}

// exeDigest hashes the running executable, so that two builds of a dirty
// tree (same revision, different code) have different versions while
// reruns of one binary keep theirs. Go builds are reproducible, so the
// same source gives the same digest.
func exeDigest() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// FullVersion is the build's version string (ThisBuild().String()).
func FullVersion() string { return ThisBuild().String() }

// ObjectInfo describes one allocated object.
type ObjectInfo struct {
	ID    int         `json:"id"`
	Name  string      `json:"name"`
	Size  units.Bytes `json:"size"`
	Pages uint64      `json:"pages"`
}

// Result is everything a run reports. It holds no wall-clock data, so the
// same seed and config give a byte-identical JSON file.
type Result struct {
	Workload string  `json:"workload"`
	Policy   string  `json:"policy"`
	GPUs     int     `json:"gpus"`
	Seed     uint64  `json:"seed"`
	Scale    float64 `json:"scale"`
	Size     string  `json:"size"`
	// Iterations is --iterations as given; absent (0) means the
	// workload's default count.
	Iterations int               `json:"iterations,omitempty"`
	Version    string            `json:"version"`
	Config     config.Config     `json:"config"`
	Sets       map[string]string `json:"sets,omitempty"`
	SimTimeNs  float64           `json:"sim_time_ns"`
	Footprint  units.Bytes       `json:"footprint"`
	// GPUCapacity is the memory each GPU may use: gpu.memory, or less
	// under oversubscription.
	GPUCapacity units.Bytes            `json:"gpu_capacity"`
	Kernels     int                    `json:"kernel_launches"`
	Barriers    int                    `json:"grid_barriers"`
	Totals      stats.Counters         `json:"totals"`
	PerGPU      []stats.Counters       `json:"per_gpu"`
	Stalls      stats.Stalls           `json:"stalls_ns"`
	PerGPUStal  []stats.Stalls         `json:"per_gpu_stalls_ns"`
	Links       []interconnect.Traffic `json:"links"`
	Objects     []ObjectInfo           `json:"objects"`
	// PolicyStats are the policy's own counters (O-Table, PA-Cache, phase
	// changes, shadow-map size).
	PolicyStats map[string]float64 `json:"policy_stats,omitempty"`
	// PolicyHistory lists every change of an object's policy, in time
	// order (OASIS).
	PolicyHistory []pagepolicy.PolicyChange `json:"policy_history,omitempty"`
	// EvictedChunkBlocks counts victim chunks by how many of their 64 KB
	// blocks were accessed, 0 to all (uvm.eviction_census; ObservUVM
	// Fig. 5).
	EvictedChunkBlocks []uint64 `json:"evicted_chunk_blocks,omitempty"`

	wall time.Duration
}

// Wall is the wall-clock time of the run (not part of the JSON).
func (r *Result) Wall() time.Duration { return r.wall }

func (s *System) result() *Result {
	c := s.opts.Config
	r := &Result{
		Workload: s.opts.Workload, Policy: s.driver.Policy().Name(), GPUs: c.GPUs,
		Seed: s.opts.Seed, Scale: s.opts.Scale, Size: s.opts.Size, Iterations: s.opts.Iterations, Version: FullVersion(), Config: c, Sets: s.opts.Sets,
		SimTimeNs: float64(s.runner.end) * 1e9, Footprint: units.Bytes(s.alloc.Footprint()),
		GPUCapacity: units.Bytes(uint64(s.capacity) * uint64(c.PageSize)),
		Kernels:     s.runner.launches, Barriers: s.runner.barriers,
	}
	for i := range s.perGPU {
		r.PerGPU = append(r.PerGPU, s.perGPU[i].counters)
		r.PerGPUStal = append(r.PerGPUStal, s.perGPU[i].stalls)
	}
	rep := s.driver.Policy().Report()
	r.PolicyStats, r.PolicyHistory = rep.Stats, rep.History
	if c, ok := s.driver.Evictor().(*eviction.Census); ok {
		r.EvictedChunkBlocks = c.Histogram()
	}
	for k, v := range s.driver.Service().Report() {
		if r.PolicyStats == nil {
			r.PolicyStats = map[string]float64{}
		}
		r.PolicyStats[k] += v
	}
	for i, g := range s.gpus {
		pc := &r.PerGPU[i]
		pc.BytesNVLink = s.nvlink.BytesFrom(g.Port())
		gm, hp := s.gmmus[i].Port().Name(), g.HostPort().Name()
		for _, t := range s.pcie.Traffic() {
			// The GMMU's faults and pages, and the GPU's zero-copy lines.
			if t.From == gm || t.To == gm || t.From == hp || t.To == hp {
				pc.BytesPCIe += t.Bytes
			}
		}
		r.Totals.Add(pc)
		r.Stalls.Add(&r.PerGPUStal[i])
	}
	r.Links = append(s.pcie.Traffic(), s.nvlink.Traffic()...)
	for _, o := range s.alloc.Objects() {
		r.Objects = append(r.Objects, ObjectInfo{ID: o.ID, Name: o.Name, Size: units.Bytes(o.Size), Pages: o.Pages(uint64(c.PageSize))})
	}
	return r
}

// WriteJSON writes the result, indented.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// The CSV form of results is one row per result and one column per value,
// so that pandas and R read it without parsing any cell: first the fixed
// columns (csvFixedHeader), then one column per config key any row sets
// (Result.Sets: --set, a sweep's sets), then one per policy stat any row
// has. A set-key cell holds the row's effective value of that key; a row
// lacking a policy stat leaves its cell empty.

// stallNames are the stall columns, in Stalls' order.
var stallNames = []string{"stall_local_walk_ns", "stall_host_fault_ns", "stall_migration_ns", "stall_remote_access_ns", "stall_duplication_ns", "stall_write_collapse_ns"}

// csvCoreHeader is the run's identity, sim time, totals and stalls.
func csvCoreHeader() []string {
	h := []string{"workload", "policy", "gpus", "seed", "scale", "version", "sim_time_ns"}
	return append(append(h, counterNames()...), stallNames...)
}

func (r *Result) csvCoreRow() []string {
	row := []string{r.Workload, r.Policy, strconv.Itoa(r.GPUs), strconv.FormatUint(r.Seed, 10), fmt.Sprintf("%g", r.Scale), r.Version, fmt.Sprintf("%.0f", r.SimTimeNs)}
	for _, v := range counterValues(&r.Totals) {
		row = append(row, strconv.FormatUint(v, 10))
	}
	s := r.Stalls
	for _, v := range []float64{s.LocalWalk, s.HostFault, s.Migration, s.RemoteAccess, s.Duplication, s.WriteCollapse} {
		row = append(row, fmt.Sprintf("%.0f", v))
	}
	return row
}

// csvFixedHeader is every column a row always has: the core columns and
// the settings the paper's figures vary, as effective values (page_size in
// bytes).
func csvFixedHeader() []string {
	return append(csvCoreHeader(), "size", "iterations", "page_size", "placement", "oversubscribe")
}

func (r *Result) csvFixedRow() []string {
	return append(r.csvCoreRow(), r.Size, strconv.Itoa(r.Iterations), strconv.FormatUint(uint64(r.Config.PageSize), 10),
		r.Config.Placement, fmt.Sprintf("%g", r.Config.Oversubscribe))
}

// CSVHeader and CSVRow give a result's core columns (identity, sim time,
// totals and stalls) as one CSV line each, without the settings, set-key
// and policy-stat columns WriteCSV adds.
func CSVHeader() string { return csvLine(csvCoreHeader()) }

// CSVRow is the row matching CSVHeader.
func (r *Result) CSVRow() string { return csvLine(r.csvCoreRow()) }

// csvLine is one CSV record, quoted as encoding/csv quotes it, without
// the line end.
func csvLine(fields []string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(fields) // a strings.Builder does not fail
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// csvColumns names WriteCSV's columns for these results: the fixed ones,
// then each set key (sorted), then each policy stat (sorted, as
// policy_stats.<name>). A set key's column is the key itself
// ("policy.reset_threshold"), or set.<key> when that names a column
// already ("set.page_size": the page_size column is the effective value);
// setCols and statCols map each key and stat to its column index.
func csvColumns(results []*Result) (header []string, setCols, statCols map[string]int) {
	header = csvFixedHeader()
	taken := map[string]bool{}
	for _, h := range header {
		taken[h] = true
	}
	add := func(name, prefix string) int {
		for taken[name] {
			name = prefix + name
		}
		taken[name] = true
		header = append(header, name)
		return len(header) - 1
	}
	setCols, statCols = map[string]int{}, map[string]int{}
	var sets, stats []string
	for _, r := range results {
		for k := range r.Sets {
			if _, ok := setCols[k]; !ok {
				setCols[k] = -1
				sets = append(sets, k)
			}
		}
		for k := range r.PolicyStats {
			if _, ok := statCols[k]; !ok {
				statCols[k] = -1
				stats = append(stats, k)
			}
		}
	}
	slices.Sort(sets)
	slices.Sort(stats)
	for _, k := range sets {
		setCols[k] = add(k, "set.")
	}
	for _, k := range stats {
		statCols[k] = add("policy_stats."+k, "stat.")
	}
	return header, setCols, statCols
}

// WriteCSV writes results as one CSV table (see csvColumns), one row per
// result in the given order. Every cell holds one value; encoding/csv
// quotes any that holds a comma, quote or line break.
func WriteCSV(w io.Writer, results []*Result) error {
	header, setCols, statCols := csvColumns(results)
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range results {
		row := make([]string, len(header))
		copy(row, r.csvFixedRow())
		// A set key's cell is the run's effective value, not the text it
		// was given: runs are cached without their Sets, so a row may come
		// from a run that reached the same config another way.
		for k, col := range setCols {
			if v, err := r.Config.Get(k); err == nil {
				row[col] = v
			} else {
				row[col] = r.Sets[k]
			}
		}
		for k, v := range r.PolicyStats {
			row[statCols[k]] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// counterNames and counterValues walk stats.Counters by its JSON tags so the
// CSV never drifts from the JSON.
func counterNames() []string {
	m := counterMap(&stats.Counters{})
	names := make([]string, len(m))
	for i, kv := range m {
		names[i] = kv.name
	}
	return names
}

func counterValues(c *stats.Counters) []uint64 {
	m := counterMap(c)
	v := make([]uint64, len(m))
	for i, kv := range m {
		v[i] = kv.value
	}
	return v
}
