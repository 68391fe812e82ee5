// Package benchmarks is what a workload is to mgpu: the Workload
// contract (Info and Setup), the kernels and instruction streams Setup
// returns, the facts a workload declares (Info, and Access per launch),
// the registry that names workloads, and the helpers several suites'
// workloads share (paper sizing, lanes and blocks, the dense
// linear-algebra skeleton, R-MAT graphs, workgroup distribution).
//
// The workloads themselves live one package per benchmark suite, as
// MGPUSim keeps them: polybench, rodinia, shoc, amdappsdk, heteromark,
// dnn (DNN-Mark and Tango), hecbench, cuda (CUDA samples and NVIDIA's
// libraries), hpcc, papers (programs a paper brought) and synthetic. Each
// registers its workloads when imported; benchmarks/all imports them all.
//
// A workload is Go code, not a trace. Setup allocates its objects through
// objtable's MallocManaged and returns its kernels. A kernel is a grid of
// workgroups; a workgroup is a set of wavefronts; a wavefront is a lazy
// stream of instructions that the GPU model pulls one at a time. Nothing
// here materialises the accesses of a whole run.
package benchmarks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/trace"
)

// The instruction stream lives in package trace, so that GPU models can
// consume it without importing the workloads; these aliases keep the
// workload code short.
type (
	// Instruction is one wavefront memory instruction.
	Instruction = trace.Instruction
	// Loop is a Stream of N instructions generated on demand.
	Loop = trace.Loop
)

// WavefrontSize is the number of lanes in a wavefront.
const WavefrontSize = trace.WavefrontSize

// Stream yields a wavefront's instructions in program order. Next fills in
// and reports false when the wavefront has finished. The GPU reuses one
// Instruction per wavefront, so Next must overwrite every field it relies on.
type Stream interface {
	Next(in *Instruction) bool
}

// Kernel is one kernel launch (an explicit phase, OASIS §IV-C) or, when
// Barrier is set, the continuation of the previous launch after a grid-wide
// barrier (an implicit phase inside one kernel, as in SHOC Stencil2D).
type Kernel struct {
	Name string
	// Args lists the IDs of the objects passed to the kernel. OASIS resets
	// the O-Table entries of these objects at launch.
	Args []int
	// Frees lists the IDs of the objects the program frees (cudaFree)
	// just before this launch, after every earlier kernel has finished.
	// The policy sees the frees, then the launch. A Barrier entry is not
	// a launch and must not free.
	Frees                  []int
	Workgroups             int
	WavefrontsPerWorkgroup int
	// Wavefront returns the instruction stream of wavefront wf of
	// workgroup wg running on GPU gpu. It is called when the workgroup is
	// dispatched. Paper workloads ignore gpu; synthetic ones use it the way
	// a per-device CUDA program uses its device ID.
	Wavefront func(wg, wf, gpu int) Stream
	Barrier   bool
	// PerDevice marks a kernel launched once per GPU, as a multi-GPU CUDA
	// program does after cudaSetDevice: each GPU runs an equal contiguous
	// share of the workgroups whatever the distribution scheme, since
	// the kernel's work is keyed on the device ID.
	PerDevice bool
	// Access is what the workload declares about how the launch touches
	// its objects (Access), at most one per argument; nil when it
	// declares none. It describes the whole grid's work, even when
	// SampleWorkgroups has truncated it: SUV plans from the program.
	Access []Access
	// OneIn is SampleWorkgroups' n: one workgroup in OneIn runs in full,
	// the others their Outline; 0 when the kernel is not truncated.
	OneIn int
}

// Params carry the run-level knobs a workload sizes itself from.
type Params struct {
	GPUs int
	// Scale multiplies the footprint (1 = the paper's size).
	Scale float64
	// Size picks the paper table to size from: "auto" follows the GPU count
	// (Table II at 4 GPUs, Table III at 8 and 16), "4gpu", "8gpu", "16gpu"
	// force one column.
	Size string
	// Iterations is the number of alternations or phases for workloads that
	// have them (pingpong, prodcons); 0 takes the workload's default.
	Iterations int
	Seed       uint64
	// Im2col is the im2col kernel of the DNN-Mark workloads:
	// Im2colMGPUSim (the default; "" means it), Im2colPerElement or
	// Im2colColumn.
	Im2col string
}

// The im2col kernels of Params.Im2col (the DNN-Mark workloads read it).
const (
	// Im2colMGPUSim is the kernel MGPUSim's gputensor Im2Col launches,
	// which the OASIS lineage runs: im2col_2d (gputensor/native/im2col.cl),
	// one work-item per column-matrix element in 8x8 workgroups, column
	// fastest, each reading one input element and writing one.
	Im2colMGPUSim = "mgpusim"
	// Im2colPerElement runs one work-item per column element in 1-D
	// workgroups of 256, row-major (MIOpen's Im2Col shape).
	Im2colPerElement = "per-element"
	// Im2colColumn is the 1-D im2col kernel of MGPUSim's im2col.cl, which
	// its operator never loads: one work-item per column, 64 per
	// workgroup, looping over the C*k*k rows. It was mgpu's kernel before
	// 2026-11-29, when mgpu took it for MGPUSim's.
	Im2colColumn = "column"
)

// Im2colKernels lists the valid Params.Im2col values.
func Im2colKernels() []string { return []string{Im2colMGPUSim, Im2colPerElement, Im2colColumn} }

// Workload is a named application.
type Workload interface {
	// Info is what the workload declares about itself.
	Info() Info
	// Setup allocates the objects and returns the kernels in launch order.
	Setup(alloc *objtable.Allocator, p Params) ([]Kernel, error)
}

// Info is the static facts a workload declares: what `mgpu list`, the
// figures and the platform read about it without running it. Only Name,
// Description and Suite are always set; a zero field means the workload
// does not declare that fact (no paper label, no class, not sized from a
// paper, no preferred eviction, no access facts).
type Info struct {
	// Name is the registered name, which --workload takes.
	Name string
	// Description is one line for `mgpu list`.
	Description string
	// Suite is where the program comes from: the benchmark suite or
	// library it models ("Rodinia", "PolyBench/GPU", "DNN-Mark", ...), a
	// paper's own program ("ObservUVM", "SUV"), or "synthetic" for the
	// patterns written here.
	Suite string
	// Aliases are the papers' labels for the workload (MM, GMM, SRK,
	// ...), each unique across the registry. `mgpu list` shows them and
	// New accepts them, so a command line can follow a paper's figure
	// labels.
	Aliases []string
	// Class is the Early-Adaptor access-pattern class (ClassRegular,
	// ClassIrregular, ClassMixed); "" for the workloads Early-Adaptor's
	// sorting does not cover (the OASIS, synthetic and countercap ones). Each
	// workload's doc comment says whether its class is Early-Adaptor's own
	// or assigned here from its access pattern.
	Class string
	// PaperSize is the footprint in each paper column the workload sizes
	// itself from; zero when it does not size from a paper table. Every
	// workload has a smallest shape (one tile, one vertex block, one
	// layer's weights), so a tiny --scale silently runs that shape; the
	// declared size lets the platform say so (ClampNote).
	PaperSize PaperSize
	// PreferredEviction is the eviction policy a paper names for the
	// workload (ObservUVM Table II: LRU, LFU or CP); zero when none does.
	PreferredEviction EvictionPreference
	// DeclaresAccess says the kernels Setup returns declare how they
	// touch their objects (Kernel.Access); the doc comment of each such
	// workload says how its declarations follow from its kernels' code.
	DeclaresAccess bool
}

// EvictionPreference is a paper's eviction policy of choice for a
// workload and where the paper says so.
type EvictionPreference struct {
	// Policy is the paper's name for it: "lru", "lfu" or "cp".
	Policy string
	// Source is the paper and table, e.g. "ObservUVM Table II".
	Source string
}

// Suites of more than one workload, as Info.Suite names them.
const (
	SuitePolyBench   = "PolyBench/GPU"
	SuiteRodinia     = "Rodinia"
	SuiteSHOC        = "SHOC"
	SuiteAMDAPPSDK   = "AMDAPPSDK"
	SuiteDNNMark     = "DNN-Mark"
	SuiteTango       = "Tango"
	SuiteHeCBench    = "HeCBench"
	SuiteCUDASamples = "CUDA samples"
	SuiteSynthetic   = "synthetic"
)

var registry = map[string]func() Workload{}

// Register makes a workload available by name. It is called from the
// init functions of the suite packages.
func Register(name string, make func() Workload) {
	if _, dup := registry[name]; dup {
		panic("benchmarks: workload registered twice: " + name)
	}
	registry[name] = make
}

// Names lists the registered workloads in sorted order.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a fresh instance of the named workload, or an error that names
// the valid choices.
func New(name string) (Workload, error) {
	mk, ok := registry[name]
	if !ok {
		if n, alias := resolveAlias(name); alias {
			return registry[n](), nil
		}
		return nil, fmt.Errorf("unknown workload %q: valid workloads are %s", name, strings.Join(Names(), ", "))
	}
	return mk(), nil
}
