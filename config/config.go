// Package config is a run's configuration: the Config type and its
// defaults, the dotted keys of its fields and of the sections runtimes
// register (uvm.RegisterSection), parsing them from YAML and --set,
// writing them back, checking them (Validate, with the rules between
// keys), and the JSON schema of a result's config. It knows no workload
// or policy: what depends on those (a footprint, a key a policy ignores)
// platform checks when it sets a run up.
package config

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/gpu"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	_ "github.com/mgpu-sim/mgpu/runtimes/all" // every runtime's section and rules are part of a config
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

// Config is every parameter of a run. It is the one place a timing or policy
// constant lives; each field names its source. Load it from YAML with
// LoadConfig, override fields with Set, and check it with Validate.
type Config struct {
	GPUs int `yaml:"gpus" doc:"number of GPUs, 1 to 64 (OASIS baseline: 4)"`
	// 4 KB pages (OASIS §III-A); 2MB for the large-page study (§VI-B4).
	PageSize units.Bytes `yaml:"page_size" doc:"page size, a power of two (OASIS: 4KB; 2MB in §VI-B4)"`
	// Pages start on the host (OASIS baseline); spread puts each object's
	// pages in contiguous equal slices over the GPUs (OASIS Fig. 21).
	Placement string `yaml:"placement" doc:"initial page placement: host | spread"`
	// Workgroup-to-GPU scheme: greedy fills one GPU's CUs before the next
	// (MGPUSim's dispatcher as GRIT §III-B describes it).
	Distribution string `yaml:"distribution" doc:"workgroup distribution: greedy | contiguous | round-robin | mgpusim (upstream MGPUSim's static blocks of CUs x ceil(W/total CUs))"`
	// The DNN-Mark workloads' im2col kernel: the one MGPUSim's gputensor
	// Im2Col launches (the OASIS lineage), one work-item per column
	// element, or the column-walking kernel mgpu ran before.
	Im2col string `yaml:"im2col" doc:"im2col kernel of i2c, c2d, lenet, vgg16, resnet18: mgpusim (MGPUSim gputensor Im2Col's im2col_2d: a work-item per column-matrix element in 8x8 workgroups) | per-element (a work-item per column element in 1-D workgroups of 256) | column (the 1-D kernel of MGPUSim's im2col.cl, which its operator never loads: a work-item per column looping over the C*k*k rows; mgpu's kernel before 2026-11-29)"`
	// A truncation for kernels whose work grows faster than their
	// footprint: the oversubscription figures run them at a footprint
	// where the papers' counts hold, simulating one workgroup in N
	// (benchmarks.SampleWorkgroups). No paper does this; 1 runs them all.
	SampleWorkgroups int `yaml:"sample_workgroups" doc:"simulate one workgroup in N of every kernel in full, spread over the grid; the others issue only each wavefront's first and last instruction, which write the truncated kernels' output tiles (1: all; the ObservUVM and SUV figures at --size similar truncate their GEMM-like kernels with it)"`
	// Fully connected NVLink (OASIS/GRIT) or one NVSwitch.
	Topology string `yaml:"topology" doc:"GPU interconnect: full | switch"`
	// Host-side cost of a kernel launch. Not in the OASIS/GRIT papers
	// (UVMSmart uses 150 us, an outlier); 5 us is a typical CUDA launch.
	KernelLaunchNs float64 `yaml:"kernel_launch_ns" doc:"kernel launch overhead in ns (not in papers; 5000)"`
	// GPU memory oversubscription (OASIS §VI-D, Fig. 25: 150%): when > 0,
	// each GPU's capacity is footprint / GPUs / oversubscribe (at most
	// gpu.memory), and a full GPU evicts with uvm.eviction. 0 is off, and
	// then a footprint beyond the GPUs' total memory is an error.
	Oversubscribe float64 `yaml:"oversubscribe" doc:"memory oversubscription factor, 0 = off (OASIS Fig. 25: 1.5)"`
	// No paper's model defines the order of simultaneous events; mgpu's
	// is documented (docs/design.md), and this sweeps it.
	TieOrder int `yaml:"tie_order" doc:"order of simultaneous events: 0 the documented one (by kind, then GPU, CU and wavefront slot); n > 0 the n-th fixed permutation of each kind's sources, to measure how much a result owes to the order (no paper's model defines it)"`
	// Checking mode: per-page versions, every read must see the latest write.
	Check bool `yaml:"check" doc:"coherence checking mode (slower; on in tests)"`

	// The sections' doc tags describe them in the result schema.
	GPU    gpu.Config          `yaml:"gpu" doc:"each GPU's compute units, TLBs, caches, memory and shootdown costs."`
	GMMU   gmmu.Config         `yaml:"gmmu" doc:"each GPU's memory-management unit: page-table walkers and page-walk cache."`
	UVM    uvm.Config          `yaml:"uvm" doc:"the host UVM driver: fault batching and service time, thrashing detection, eviction."`
	Link   interconnect.Config `yaml:"link" doc:"the interconnect: GPU-GPU NVLink (or NVSwitch) and CPU-GPU PCIe."`
	Policy pagepolicy.Config   `yaml:"policy" doc:"parameters of the page-management policies (access counters, duplication, OASIS, OASIS-InMem, GRIT)."`
}

// DefaultConfig returns the OASIS baseline (Table I) on 4 GPUs.
func DefaultConfig() Config {
	return Config{
		GPUs: 4, PageSize: 4 * units.KB, Placement: "host", Distribution: "mgpusim", Im2col: benchmarks.Im2colMGPUSim,
		SampleWorkgroups: 1, Topology: "full", KernelLaunchNs: 5000,
		GPU: gpu.DefaultConfig(), GMMU: gmmu.DefaultConfig(), UVM: uvm.DefaultConfig(),
		Link: interconnect.DefaultConfig(), Policy: pagepolicy.DefaultConfig(),
	}
}

// AllocAlign is the alignment of every object a run allocates: the
// largest page size in use (2 MB at least), so no two objects share a
// page. gmmu.huge_page may not exceed it (Validate).
func (c Config) AllocAlign() uint64 { return max(uint64(c.PageSize), 2<<20) }
