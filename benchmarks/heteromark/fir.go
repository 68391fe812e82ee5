package heteromark

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// FIR is Hetero-Mark's finite impulse response filter as MGPUSim runs it
// (amd/benchmarks/heteromark/fir: kernels.cl and fir.go), one of the
// workloads GRIT ("GRIT: Enhancing Multi-GPU Performance with Fine-Grained
// Dynamic Page Placement", HPCA 2024) evaluates, with an "adjacent"
// pattern and a 155 MB footprint (its Table II).
//
// Shape: numTaps 16 (MGPUSim's default) and Length float samples, a
// multiple of 256 work-items per GPU, fitted so that input and output
// fill the footprint (20.3 M samples at 155 MB).
//
// Objects, in MGPUSim's allocation (ID) order under unified memory:
//
//	0     "history"  float32 numTaps (read by the first wavefront only)
//	1     "input"    float32 Length (read only)
//	2     "output"   float32 Length (written once)
//	3..   "filter"   float32 numTaps, one per GPU, each read by its GPU's launch
//	last  "kernarg"  the kernel arguments (see benchmarks.AllocKernarg)
//
// One launch per GPU (a PerDevice kernel): GPU g runs Length/GPUs
// work-items from global offset g*Length/GPUs, in workgroups of 256 (four
// wavefronts). A wavefront issues the kernel-argument load, then per tap
// i the load of coeff[i] (a uniform address: one lane) and of
// input[tid-i] (history[numTaps-(i-tid)] for the lanes with tid < i, in
// the same instruction: only the first wavefront has any), and last the
// store of output[tid].
type FIR struct{}

// firTaps is MGPUSim's default numTaps.
const firTaps = 16

// firWorkgroup is MGPUSim's FIR workgroup size.
const firWorkgroup = 256

// FIRSize is FIR's footprint in GRIT Table II (one size for every GPU count).
var FIRSize = benchmarks.FlatSize(155 * benchmarks.MiB)

func init() {
	benchmarks.Register("fir", func() benchmarks.Workload { return FIR{} })
}

// Info implements Workload.
func (FIR) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "fir",
		Description: "Hetero-Mark FIR (GRIT's FIR): a 16-tap filter over a sample stream, one launch per GPU on its contiguous share",
		Suite:       "Hetero-Mark",
		Aliases:     []string{"FIR"},
		PaperSize:   FIRSize,
	}
}

// Setup implements Workload.
func (FIR) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	fp, err := FIRSize.Footprint(p)
	if err != nil {
		return nil, err
	}
	gpus := max(p.GPUs, 1)
	n := benchmarks.FitSide(fp, firWorkgroup*gpus, func(n int) uint64 { return uint64(n)*8 + uint64(firTaps*4*(gpus+1)) })
	history, err := alloc.MallocManaged(firTaps*4, "history")
	if err != nil {
		return nil, err
	}
	input := alloc.MustMalloc(uint64(n)*4, "input")
	output := alloc.MustMalloc(uint64(n)*4, "output")
	filters := make([]uint64, gpus)
	for g := range filters {
		filters[g] = alloc.MustMalloc(firTaps*4, "filter")
	}
	karg := alloc.MustMalloc(64, "kernarg")
	args := benchmarks.LastObjects(alloc, 4+gpus)
	wavefronts := firWorkgroup / benchmarks.WavefrontSize
	return []benchmarks.Kernel{{
		Name: "FIR", Args: args, Workgroups: n / firWorkgroup, WavefrontsPerWorkgroup: wavefronts, PerDevice: true,
		Wavefront: func(wg, wf, gpu int) benchmarks.Stream {
			tid0 := wg*firWorkgroup + wf*benchmarks.WavefrontSize
			filter := filters[gpu%gpus]
			return benchmarks.Filter{Kernarg: karg, Taps: firTaps, Lanes: benchmarks.WavefrontSize, CoeffFirst: true,
				Coeff: func(tap int) uint64 { return benchmarks.Elem(filter, tap, 4) },
				Data: func(tap, l int) uint64 {
					if tid := tid0 + l; tid >= tap {
						return benchmarks.Elem(input, tid-tap, 4)
					}
					return benchmarks.Elem(history, firTaps-(tap-tid0-l), 4)
				},
				Out: func(l int) uint64 { return benchmarks.Elem(output, tid0+l, 4) },
			}.Stream()
		},
	}}, nil
}
