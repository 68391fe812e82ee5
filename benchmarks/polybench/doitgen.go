package polybench

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Doitgen is PolyBench/GPU's doitgen (doitgen.cu, the multiresolution
// analysis kernel: sum[r][q][p] = sum_s A[r][q][s] C4[s][p], then A = sum)
// as SUV's DTG, one launch pair per r.
//
// Shape: a cube NR = NQ = NP = n, a multiple of 32, A and sum n^3 float32
// and C4 n^2, coming closest to the footprint (DoitgenSize times
// Params.Scale): n = 160 at scale 1 (31.4 MiB of 32), scale 256 is SUV's
// 8192 MB (n = 1024).
//
// Objects, in allocation (ID) order (AGpu, C4Gpu, sumGpu):
//
//	0 "A"   n^3 float32, read by kernel1, written by kernel2
//	1 "C4"  n^2 float32, read only, read whole by every launch of kernel1
//	2 "sum" n^3 float32, written by kernel1, read by kernel2
//
// For each r in 0 .. n-1, two launches over (NP/32) x (NR/8) blocks of
// 32x8 threads (doitgen.cu sizes the grid's y from NR, equal to NQ here),
// thread (tx, ty) for p = 32bx + tx, q = 8by + ty, mapped as gemm's (see
// GEMM):
//
//   - doitgen_kernel1: the store of sum[r][q][p] = 0; for each s the load
//     of A[r][q][s] (two addresses) and of C4[s][p] (32 consecutive); the
//     store of sum[r][q][p]: 2n + 2 instructions a wavefront;
//   - doitgen_kernel2: the load of sum[r][q][p] and the store of
//     A[r][q][p]: 2.
//
// That is 2n launches and n x n^2/64 x (2n + 4) = 20.7M instructions at
// scale 1. Each r touches only its own n^2 slice of A and sum, plus C4.
// The sum stays in a register (see innerLoop).
//
// Class: regular, assigned here from the access pattern (Early-Adaptor
// does not run it; SUV's Table I types it iterative and density, its own
// classification).
//
// Access facts: A and sum are HostLoop in both kernels. Their addresses
// add r*n^2 to a pointer the host loop over r passes, so iteration r
// touches slice r: offset 0, stride n^2 floats, span n^2 floats (q and s
// over the grid and the loop). C4, read whole by every kernel1, is
// Analysable. Accesses and ranges are gemm's (see GEMM) with A[r] as a and
// C4 as b, counting the n^2 threads of a launch: kernel1 has sum 2n^2, A
// n^3 (32 times its lanes: a thread row shares A[r][q][s]) and C4 n^3
// (twice its lanes: a wavefront's two rows share C4[s][p]); kernel2 has
// sum and A n^2 each, one lane a thread, over a block's 8 rows of 32.
type Doitgen struct{}

// DoitgenSize is doitgen's scale-1 footprint: its reference footprint over
// LinalgScales.
var DoitgenSize = benchmarks.LinalgSize("doitgen")

func init() {
	benchmarks.Register("doitgen", func() benchmarks.Workload { return Doitgen{} })
}

// Info implements Workload.
func (Doitgen) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:           "doitgen",
		Description:    "PolyBench/GPU doitgen (SUV DTG): per r, sum = A[r] x C4 then A[r] = sum, a launch pair per r",
		Suite:          benchmarks.SuitePolyBench,
		Aliases:        []string{"DTG"},
		Class:          benchmarks.ClassRegular,
		PaperSize:      DoitgenSize,
		DeclaresAccess: true,
	}
}

// DoitgenSide returns the cube side n (NR = NQ = NP) doitgen uses for p.
func DoitgenSide(p benchmarks.Params) (int, error) {
	return benchmarks.LinalgSide(DoitgenSize, p, convBlockX, func(n int) uint64 {
		sq := uint64(n) * uint64(n)
		return benchmarks.FloatBytes * (2*sq*uint64(n) + sq)
	})
}

// Setup implements Workload.
func (Doitgen) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := DoitgenSide(p)
	if err != nil {
		return nil, err
	}
	slice := uint64(n) * uint64(n) * benchmarks.FloatBytes
	a, err := alloc.MallocManaged(slice*uint64(n), "A")
	if err != nil {
		return nil, err
	}
	c4 := alloc.MustMalloc(slice, "C4")
	sum := alloc.MustMalloc(slice*uint64(n), "sum")
	args := benchmarks.LastObjects(alloc, 3)
	var ks []benchmarks.Kernel
	for r := 0; r < n; r++ {
		ar, sr := a+uint64(r)*slice, sum+uint64(r)*slice
		l := innerLoop{c: sr, ni: n, nj: n, nk: n, zero: true, loads: []kAccess{{ar, n, atIK}, {c4, n, atKJ}}}
		k1, k2 := l.kernel("doitgen_kernel1", args), doitgenCopy(args, ar, sr, n)
		k1.Access, k2.Access = doitgenAccess(args, n, r)
		ks = append(ks, k1, k2)
	}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}

// doitgenAccess are the accesses of kernel1 and kernel2 at iteration r, args
// A, C4, sum.
func doitgenAccess(args []int, n, r int) (k1, k2 []benchmarks.Access) {
	nn := int64(n)
	slice := nn * nn * benchmarks.FloatBytes
	it := benchmarks.AffineLoop(r, n, 0, slice, slice)
	k1 = polyMatmulAccess(args[0], args[1], args[2], n)
	for i := range k1 {
		if k1[i].Object != args[1] { // A[r] and sum[r] move with r; C4 does not
			k1[i].Pattern, k1[i].Loop = benchmarks.HostLoop, it
		}
	}
	block := benchmarks.FloatSpan(0, (convBlockY-1)*nn+convBlockX-1)
	k2 = []benchmarks.Access{benchmarks.LoopAccess(args[0], nn*nn, block, it), benchmarks.LoopAccess(args[2], nn*nn, block, it)}
	return k1, k2
}

// doitgenCopy is doitgen_kernel2 for one r: A[r][q][p] = sum[r][q][p],
// over the n x n slices at a and sum.
func doitgenCopy(args []int, a, sum uint64, n int) benchmarks.Kernel {
	gx := benchmarks.CeilDiv(n, convBlockX)
	return benchmarks.Kernel{
		Name: "doitgen_kernel2", Args: args,
		Workgroups: gx * benchmarks.CeilDiv(n, convBlockY), WavefrontsPerWorkgroup: convBlockX * convBlockY / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			i0, j0 := polyWave(wg, wf, gx)
			return &benchmarks.Loop{N: 2, Gen: func(x int, in *benchmarks.Instruction) {
				in.Compute = benchmarks.IndexCycles
				base := sum
				if x == 1 {
					in.Compute, in.Write, base = benchmarks.LoadCycles, true, a
				}
				benchmarks.AddBlock(in, base, n, i0, convRows, n, j0, convBlockX, n)
			}}
		},
	}
}
