package amdappsdk

import (
	"math/bits"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// BitonicSort is the AMD APP SDK's BitonicSort as MGPUSim runs it
// (amd/benchmarks/amdappsdk/bitonicsort: kernels.cl and bitonicsort.go),
// GRIT's BS ("GRIT: Enhancing Multi-GPU Performance with Fine-Grained
// Dynamic Page Placement", HPCA 2024, Table II: bitonic sort, random,
// 30 MB). (MGPUSim has no BlackScholes; GRIT's BS is this sort.)
//
// Shape: Length uint32 keys, a power of two (the sort needs one), the one
// whose footprint is closest to the paper's: 2^23 keys, 32 MiB, at
// 30 MB.
//
// Objects: 0 "array" uint32 Length, sorted in place; 1 "kernarg".
//
// log2(Length) stages of 1 to log2(Length) passes, one launch per pass
// and GPU (a PerDevice kernel): GPU g sorts pairs for its contiguous
// share of the Length/2 work-items, in workgroups of 64. Work-item t of
// a pass at pair distance d compares array[l] and array[l+d], l = t mod d
// + (t / d) * 2d, and writes both back: a wavefront issues the
// kernel-argument load, the two loads and the two stores. Early passes
// (d below 64) keep a wavefront within a few pages; late ones pair
// elements pages apart, and every GPU's share meets every other's.
type BitonicSort struct{}

// BSSize is BitonicSort's footprint in GRIT Table II.
var BSSize = benchmarks.FlatSize(30 * benchmarks.MiB)

func init() {
	benchmarks.Register("bitonicsort", func() benchmarks.Workload { return BitonicSort{} })
}

// Info implements Workload.
func (BitonicSort) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "bitonicsort",
		Description: "AMDAPPSDK BitonicSort (GRIT's BS): one launch per pass and GPU, each work-item compares and swaps one pair",
		Suite:       benchmarks.SuiteAMDAPPSDK,
		Aliases:     []string{"BS"},
		PaperSize:   BSSize,
	}
}

// Setup implements Workload.
func (BitonicSort) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	fp, err := BSSize.Footprint(p)
	if err != nil {
		return nil, err
	}
	gpus := max(p.GPUs, 1)
	// The power of two closest to fp/4 keys, with at least one wavefront
	// of pairs per GPU.
	n := uint64(1) << max(bits.Len64(fp/4)-1, 0)
	if fp/4-n > 2*n-fp/4 {
		n *= 2
	}
	n = max(n, uint64(2*benchmarks.WavefrontSize*gpus))
	for n&(n-1) != 0 {
		n++
	}
	array, err := alloc.MallocManaged(n*4, "array")
	if err != nil {
		return nil, err
	}
	karg := alloc.MustMalloc(64, "kernarg")
	args := benchmarks.LastObjects(alloc, 2)
	stages := bits.Len64(n) - 1
	var ks []benchmarks.Kernel
	for stage := range stages {
		for pass := 0; pass <= stage; pass++ {
			d := 1 << (stage - pass)
			ks = append(ks, benchmarks.Kernel{
				Name: "BitonicSort", Args: args, Workgroups: int(n/2) / benchmarks.WavefrontSize,
				WavefrontsPerWorkgroup: 1, PerDevice: true,
				Wavefront: func(wg, _, _ int) benchmarks.Stream {
					t0 := wg * benchmarks.WavefrontSize
					return &benchmarks.Loop{N: 5, Gen: func(i int, in *benchmarks.Instruction) {
						if i == 0 {
							benchmarks.GenKernarg(in, karg)
							return
						}
						in.Compute = []int{0, benchmarks.IndexCycles, benchmarks.LoadCycles, benchmarks.IndexCycles, benchmarks.LoadCycles}[i]
						in.Write = i >= 3
						right := i%2 == 0
						for l := range benchmarks.WavefrontSize {
							t := t0 + l
							e := t%d + t/d*2*d
							if right {
								e += d
							}
							benchmarks.AddLane(in, benchmarks.Elem(array, e, 4))
						}
					}}
				},
			})
		}
	}
	return ks, nil
}
