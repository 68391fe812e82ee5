package amdappsdk

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// SimpleConvolution is the AMD APP SDK's SimpleConvolution as MGPUSim runs
// it (amd/benchmarks/amdappsdk/simpleconvolution:
// simpleNonSeparableConvolution and simpleconvolution.go), GRIT's SC
// ("GRIT: Enhancing Multi-GPU Performance with Fine-Grained Dynamic Page
// Placement", HPCA 2024, Table II: adjacent, 131 MB).
//
// Shape: a 3x3 mask (MGPUSim's default) over a square W x W uint32 image
// padded by 2 in each dimension; W fitted so that input and output fill
// the footprint (W 4,140 at 131 MB).
//
// Objects, in MGPUSim's allocation (ID) order under unified memory:
//
//	0     "input"    uint32 (W+2) x (W+2) (read only)
//	1     "output"   int32 W x W (written once)
//	2..   "mask"     float32 3 x 3, one per GPU, each read by its GPU's launch
//	last  "kernarg"  the kernel arguments (see benchmarks.AllocKernarg)
//
// One launch per GPU (a PerDevice kernel) over (W+2)^2 work-items in all,
// as MGPUSim sizes the grid, in workgroups of 64 (one wavefront); a
// work-item tid works on output pixel (tid mod W, tid / W), and those
// with tid >= W*W return at once. A wavefront issues the kernel-argument
// load, then for each of the 9 mask taps the load of its lanes' input
// pixels (one row of the window, shifted) and of the tap's coefficient
// (a uniform address: one lane), and last the store of output[tid].
type SimpleConvolution struct{}

// scMask is MGPUSim's default mask size.
const scMask = 3

// SCSize is SimpleConvolution's footprint in GRIT Table II.
var SCSize = benchmarks.FlatSize(131 * benchmarks.MiB)

func init() {
	benchmarks.Register("sc", func() benchmarks.Workload { return SimpleConvolution{} })
}

// Info implements Workload.
func (SimpleConvolution) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "sc",
		Description: "AMDAPPSDK SimpleConvolution (GRIT's SC): a 3x3 non-separable convolution, one launch per GPU on its contiguous share",
		Suite:       benchmarks.SuiteAMDAPPSDK,
		Aliases:     []string{"SC"},
		PaperSize:   SCSize,
	}
}

// Setup implements Workload.
func (SimpleConvolution) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	fp, err := SCSize.Footprint(p)
	if err != nil {
		return nil, err
	}
	gpus := max(p.GPUs, 1)
	const pad = scMask - 1
	w := benchmarks.FitSide(fp, 1, func(n int) uint64 { return uint64((n+pad)*(n+pad)+n*n)*4 + uint64(scMask*scMask*4*gpus) })
	ex := w + pad
	input, err := alloc.MallocManaged(uint64(ex*ex)*4, "input")
	if err != nil {
		return nil, err
	}
	output := alloc.MustMalloc(uint64(w*w)*4, "output")
	masks := make([]uint64, gpus)
	for g := range masks {
		masks[g] = alloc.MustMalloc(scMask*scMask*4, "mask")
	}
	karg := alloc.MustMalloc(64, "kernarg")
	args := benchmarks.LastObjects(alloc, 3+gpus)
	return []benchmarks.Kernel{{
		Name: "simpleNonSeparableConvolution", Args: args, Workgroups: benchmarks.CeilDiv(ex*ex, benchmarks.WavefrontSize),
		WavefrontsPerWorkgroup: 1, PerDevice: true,
		Wavefront: func(wg, _, gpu int) benchmarks.Stream {
			tid0 := wg * benchmarks.WavefrontSize
			lanes := min(benchmarks.WavefrontSize, w*w-tid0)
			if lanes <= 0 {
				return benchmarks.IdleStream()
			}
			mask := masks[gpu%gpus]
			return benchmarks.Filter{Kernarg: karg, Taps: scMask * scMask, Lanes: lanes,
				Coeff: func(tap int) uint64 { return benchmarks.Elem(mask, tap, 4) },
				Data: func(tap, l int) uint64 {
					x, y := (tid0+l)%w, (tid0+l)/w
					return benchmarks.Elem(input, (y+tap/scMask)*ex+x+tap%scMask, 4)
				},
				Out: func(l int) uint64 { return benchmarks.Elem(output, tid0+l, 4) },
			}.Stream()
		},
	}}, nil
}
