package platform

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/units"
)

// Version is mgpu's release; the VCS revision is appended when the binary
// was built from a checkout.
const Version = "0.1.0"

// FullVersion is Version plus the build's VCS revision, if known.
func FullVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return Version
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return Version + "+" + rev
}

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
	Workload  string            `json:"workload"`
	Policy    string            `json:"policy"`
	GPUs      int               `json:"gpus"`
	Seed      uint64            `json:"seed"`
	Scale     float64           `json:"scale"`
	Size      string            `json:"size"`
	Version   string            `json:"version"`
	Config    Config            `json:"config"`
	Sets      map[string]string `json:"sets,omitempty"`
	SimTimeNs float64           `json:"sim_time_ns"`
	Footprint units.Bytes       `json:"footprint"`
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

	wall time.Duration
}

// Wall is the wall-clock time of the run (not part of the JSON).
func (r *Result) Wall() time.Duration { return r.wall }

func (s *System) result() *Result {
	c := s.opts.Config
	r := &Result{
		Workload: s.opts.Workload, Policy: s.driver.Policy().Name(), GPUs: c.GPUs,
		Seed: s.opts.Seed, Scale: s.opts.Scale, Size: s.opts.Size, Version: FullVersion(), Config: c, Sets: s.opts.Sets,
		SimTimeNs: float64(s.runner.end) * 1e9, Footprint: units.Bytes(s.alloc.Footprint()),
		GPUCapacity: units.Bytes(uint64(s.capacity) * uint64(c.PageSize)),
		Kernels:     s.runner.launches, Barriers: s.runner.barriers,
		PerGPU: s.counters, PerGPUStal: s.stalls,
	}
	rep := s.driver.Policy().Report()
	r.PolicyStats, r.PolicyHistory = rep.Stats, rep.History
	for i, g := range s.gpus {
		pc := &r.PerGPU[i]
		pc.BytesNVLink = s.nvlink.BytesFrom(g.Port())
		for _, t := range s.pcie.Traffic() {
			gm := s.gmmus[i].Port().Name()
			if t.From == gm || t.To == gm {
				pc.BytesPCIe += t.Bytes
			}
		}
		r.Totals.Add(pc)
		r.Stalls.Add(&s.stalls[i])
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

// CSVHeader and CSVRow give the result as one flat CSV row: identity, sim
// time, totals and stalls.
func CSVHeader() string {
	return "workload,policy,gpus,seed,scale,version,sim_time_ns," + strings.Join(counterNames(), ",") +
		",stall_local_walk_ns,stall_host_fault_ns,stall_migration_ns,stall_remote_access_ns,stall_duplication_ns,stall_write_collapse_ns"
}

// CSVRow is the row matching CSVHeader.
func (r *Result) CSVRow() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s,%s,%d,%d,%g,%s,%.0f", r.Workload, r.Policy, r.GPUs, r.Seed, r.Scale, r.Version, r.SimTimeNs)
	for _, v := range counterValues(&r.Totals) {
		fmt.Fprintf(&b, ",%d", v)
	}
	s := r.Stalls
	fmt.Fprintf(&b, ",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f", s.LocalWalk, s.HostFault, s.Migration, s.RemoteAccess, s.Duplication, s.WriteCollapse)
	return b.String()
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
