package polybench

import "github.com/mgpu-sim/mgpu/benchmarks"

// GEMM is a simple (untiled) matrix multiplication, C = alpha A B + beta
// C, as ObservUVM's and SUV's GMM. ObservUVM calls cuBLAS sgemm, whose
// kernels are closed and tiled; this models PolyBench/GPU's gemm_kernel
// (gemm.cu) instead, the simple one-thread-per-element kernel, so its
// accesses are the naive kernel's, not cuBLAS's.
//
// Shape: square float32 matrices of side n (NI = NJ = NK), a multiple of
// 32, whose three arrays come closest to the footprint (GEMMSize times
// Params.Scale): n = 1024 at scale 1 (12 MiB), scale 1024 is ObservUVM's
// 12.0 GB (n = 32768), scale 576 SUV's 6912 MB (n = 24576).
//
// Objects, in allocation (ID) order (A_gpu, B_gpu, C_gpu):
//
//	0 "A" n*n float32, read only
//	1 "B" n*n float32, read only
//	2 "C" n*n float32, read and written
//
// One launch, gemm_kernel, of (n/32) x (n/8) blocks of 32x8 threads
// (DIM_THREAD_BLOCK_X, _Y), workgroup wg = by*(n/32) + bx; thread (tx, ty)
// computes C[i][j], i = 8by + ty, j = 32bx + tx. Wavefront wf holds block
// rows 2wf and 2wf+1 (lane 32*(ty-2wf) + tx) and issues 2n + 2
// instructions:
//
//  1. the load of C[i][j] (c *= beta), two rows of 32 floats;
//  2. for each k: the load of A[i][k] (two addresses, one per row) and of
//     B[k][j] (32 consecutive floats);
//  3. the store of C[i][j].
//
// That is n*n/64 x (2n + 2) = 33.6M instructions at scale 1. Every block
// row streams all of B and the blocks of one row share A's rows;
// ObservUVM prefers LRU. The sum stays in a register (see innerLoop).
//
// Class: regular, assigned here from the access pattern; Early-Adaptor
// does not run it.
//
// Access facts: A, B and C are Analysable, with affine addresses and no
// host loop. Accesses count the n^2 threads (all pass the bounds check),
// as SUV does: C has 2n^2 (load and store), A and B n^3 each (one load a
// thread and k). The stream's lanes are fewer, since the 32 threads of a
// row share A[i][k] (two lanes a wavefront, 32 threads a lane) and the two
// rows of a wavefront share B[k][j] (32 lanes, two threads a lane). One
// block's range: C is 8 rows of 32 floats (7n+32), A its 8 rows whole
// (8n), B a 32-column strip of every row ((n-1)n+32). Whether A and B come
// out Temporal, as in Table I's GMM (D, T), is the simulator's call from
// these ranges.
type GEMM struct{ benchmarks.DenseLinalg }

// gemmDense is gmm's Info, shape and kernel.
var gemmDense = benchmarks.DenseLinalg{
	Facts: benchmarks.Info{
		Name:              "gmm",
		Description:       "PolyBench/GPU gemm (for ObservUVM's cuBLAS sgemm, GMM): C = aAB + bC, one thread per element, no tiling",
		Suite:             benchmarks.SuitePolyBench,
		Aliases:           []string{"GMM"},
		Class:             benchmarks.ClassRegular,
		PaperSize:         GEMMSize,
		PreferredEviction: benchmarks.ObservUVMLRU,
		DeclaresAccess:    true,
	},
	Mult:     convBlockX,
	Matrices: []string{"A", "B", "C"},
	Kernels:  gemmKernels,
}

// GEMMSize is gmm's scale-1 footprint: its reference footprint over
// LinalgScales.
var GEMMSize = benchmarks.LinalgSize("gmm")

func init() {
	benchmarks.Register(gemmDense.Facts.Name, func() benchmarks.Workload { return GEMM{gemmDense} })
}

// GEMMSide returns the matrix side gmm uses for p.
func GEMMSide(p benchmarks.Params) (int, error) { return gemmDense.Side(p) }

// gemmKernels is gemm_kernel over A, B and C.
func gemmKernels(m benchmarks.DenseObjects) []benchmarks.Kernel {
	n, ids := m.N, m.IDs
	l := innerLoop{c: m.Base[2], ni: n, nj: n, nk: n, loads: []kAccess{{m.Base[0], n, atIK}, {m.Base[1], n, atKJ}}}
	k := l.kernel("gemm_kernel", ids)
	k.Access = polyMatmulAccess(ids[0], ids[1], ids[2], n)
	return []benchmarks.Kernel{k}
}

// polyMatmulAccess are the accesses of a square innerLoop kernel of side n
// (gemm's, doitgen_kernel1's) that loads a[i][k] and b[k][j] and loads or
// zeroes, then stores, c[i][j]: each of the n^2 threads (n a multiple of
// 32, so all in range) issues n loads of each and two accesses of c.
// The stream's lanes are 1/32 of a's count (a broadcast down each thread
// row) and 1/2 of b's (a wavefront's two rows share b[k][j]).
func polyMatmulAccess(a, b, c, n int) []benchmarks.Access {
	nn := int64(n)
	threads := nn * nn
	return []benchmarks.Access{
		benchmarks.AnalysableAccess(a, threads*nn, benchmarks.FloatSpan(0, convBlockY*nn-1)),
		benchmarks.AnalysableAccess(b, threads*nn, benchmarks.FloatSpan(0, (nn-1)*nn+convBlockX-1)),
		benchmarks.AnalysableAccess(c, 2*threads, benchmarks.FloatSpan(0, (convBlockY-1)*nn+convBlockX-1)),
	}
}
