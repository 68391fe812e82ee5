package shoc

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// FFTSize: SHOC FFT, 48 MB and 2 objects in Table II; 96 MB (8 GPUs) and
// 192 MB (16 GPUs) in Table III.
var FFTSize = benchmarks.PaperSize{TableII: 48 * benchmarks.MiB, TableIII8: 96 * benchmarks.MiB, TableIII16: 192 * benchmarks.MiB}

// FFT is SHOC's FFT benchmark (level 1), the forward kernel fft1D_512: many
// independent 512-point single-precision complex FFTs computed in place.
//
// Shape: a buffer of complex float2 values (8 B each), 512 per FFT, so one
// FFT is exactly 4 KB. The FFT count is the one whose buffer comes closest to
// the paper footprint (FFTSize times Params.Scale): 12288 FFTs at Table II
// (48 MB), 24576 at 8 GPUs (96 MB), 49152 at 16 GPUs (192 MB).
//
// Objects, in allocation (ID) order:
//
//	0 "work"    the float2 data, read then overwritten in place: every
//	            element is read once and written once by the same
//	            wavefront, so each of its pages is read-write and private
//	            to the GPU that runs its FFT.
//	1 "kernarg" 32 B: the work pointer and three hidden global offsets;
//	            see benchmarks.AllocKernarg.
//
// SHOC's host program allocates one device buffer for the data (work) and,
// for its separate check kernel chk1D_512, a 4-byte flag (chk). The paper
// counts FFT as one kernel function with 2 objects. We take the second
// object to be the kernel-argument buffer, as mm and mt do (benchmarks.AllocKernarg):
// it is accessed by the one kernel modelled, while chk would be allocated
// but never touched by fft1D_512. Both are a single page, so the choice
// does not move the footprint. An inference, not something the paper says.
//
// One kernel launch, one workgroup of 64 work-items (one wavefront) per FFT.
// Workgroup wg transforms elements [512*wg, 512*wg+512). Work-item t keeps
// 8 elements in registers: it loads element 512*wg + 64*i + t for i = 0..7
// (SHOC's globalLoads8 with stride 64), so load i is 64 consecutive float2,
// 512 B, 8 lines. It then does three radix-8 passes (FFT8) with two twiddle
// multiplications and two transposes through LDS, all charged as Compute
// cycles, and stores back to the same strided addresses (globalStores8,
// which permutes registers, not addresses). A wavefront issues 17 memory
// instructions:
//
//  1. the scalar load of the kernel arguments (1 lane, object 1);
//  2. 8 strided loads of work;
//  3. 8 strided stores to work.
//
// At Table II that is 12288 x 17 = 208,896 memory instructions a pass (see
// FFTInstructions); at 8 and 16 GPUs 417,792 and 835,584.
//
// Passes: MGPUSim's FFT (benchmarks/shoc/fft, v3.0.3) launches fft1D_512
// Passes times on the same buffer, 2 by its sample's default
// (samples/fft: -passes 2), and that is what the paper's simulator ran.
// Params.Iterations overrides it when positive. The paper counts FFT among
// its applications of one explicit phase, "i.e., kernel function" (§IV-B),
// as it does BFS and PR, whose kernels also launch many times: launches of
// one kernel function are one phase. SHOC's inverse and check kernels are
// not in MGPUSim's FFT and not here.
type FFT struct{}

const (
	// fftPoints is the length of one FFT (SHOC's fft1D_512).
	fftPoints = 512
	// fftLanes is the workgroup size: 64 work-items, one wavefront.
	fftLanes = 64
	// fftRegs is the number of elements each work-item keeps (radix 8).
	fftRegs = fftPoints / fftLanes
	// complexBytes is the size of a float2.
	complexBytes = 8
	// fftKernargBytes is fft1D_512's kernel-argument struct: one pointer
	// and three hidden global offsets.
	fftKernargBytes = 32
	// fftInstructions is the memory instructions per wavefront.
	fftInstructions = 1 + 2*fftRegs
	// fftStrideCycles is the address increment between two back-to-back
	// strided loads or stores (one VALU instruction). An estimate.
	fftStrideCycles = 4
	// fftComputeCycles is the work between the last load and the first
	// store: three FFT8 butterflies (about 64 VALU each), two twiddle8
	// steps (7 sincos plus complex multiplications, about 180 VALU each),
	// at 4 cycles per wavefront VALU instruction on GCN, about 2200
	// cycles; plus two transposes through LDS (real and imaginary parts
	// separately: 32 ds_write/ds_read and 4 s_barrier each, about 400
	// cycles with latency). An estimate; the papers give no instruction
	// timing.
	fftComputeCycles = 3000
	// fftPasses is the default number of launches (MGPUSim samples/fft:
	// -passes 2).
	fftPasses = 2
)

func init() {
	benchmarks.Register("fft", func() benchmarks.Workload { return FFT{} })
}

// Info implements Workload.
func (FFT) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "fft",
		Description: "SHOC FFT: in-place 512-point complex FFTs, one wavefront each, 8 strided loads and stores",
		Suite:       benchmarks.SuiteSHOC,
		PaperSize:   FFTSize,
	}
}

// FFTCount returns the number of 512-point FFTs fft computes for p.
func FFTCount(p benchmarks.Params) (int, error) {
	fp, err := FFTSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	n := int((fp + fftPoints*complexBytes/2) / (fftPoints * complexBytes))
	if n < 1 {
		n = 1
	}
	return n, nil
}

// FFTInstructions is the number of memory instructions fft issues for ffts
// FFTs in passes launches (over all wavefronts).
func FFTInstructions(ffts, passes int) uint64 {
	return uint64(ffts) * fftInstructions * uint64(passes)
}

// FFTPasses returns the number of launches fft makes for p.
func FFTPasses(p benchmarks.Params) int {
	if p.Iterations > 0 {
		return p.Iterations
	}
	return fftPasses
}

// Setup implements Workload.
func (FFT) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := FFTCount(p)
	if err != nil {
		return nil, err
	}
	work, err := alloc.MallocManaged(uint64(n)*fftPoints*complexBytes, "work")
	if err != nil {
		return nil, err
	}
	karg, err := benchmarks.AllocKernarg(alloc, fftKernargBytes)
	if err != nil {
		return nil, err
	}
	ids := benchmarks.LastObjects(alloc, 2)
	k := benchmarks.Kernel{
		Name:                   "fft1D_512",
		Args:                   ids,
		Workgroups:             n,
		WavefrontsPerWorkgroup: 1,
		Wavefront: func(wg, _, _ int) benchmarks.Stream {
			base := work + uint64(wg)*fftPoints*complexBytes
			return &benchmarks.Loop{N: fftInstructions, Gen: func(i int, ins *benchmarks.Instruction) {
				if i == 0 {
					benchmarks.GenKernarg(ins, karg)
					return
				}
				r := (i - 1) % fftRegs // register, and stride step
				switch {
				case i == 1:
					ins.Compute = benchmarks.IndexCycles
				case i == 1+fftRegs:
					ins.Compute = fftComputeCycles
				default:
					ins.Compute = fftStrideCycles
				}
				ins.Write = i > fftRegs
				ins.Lanes = fftLanes
				a := base + uint64(r*fftLanes)*complexBytes
				for l := 0; l < fftLanes; l++ {
					ins.Addr[l] = a + uint64(l)*complexBytes
				}
			}}
		},
	}
	ks := make([]benchmarks.Kernel, FFTPasses(p))
	for i := range ks {
		ks[i] = k
	}
	return ks, nil
}
