package polybench

import "github.com/mgpu-sim/mgpu/benchmarks"

// SYRK is the symmetric rank-k update C = alpha A A^T + beta C as
// ObservUVM's SRK. ObservUVM calls cuBLAS ssyrk, whose kernels are
// closed; this models PolyBench/GPU's syrk_kernel (syrk.cu), which
// computes the whole of C, both triangles, one thread per element.
//
// Shape: A is n x m and C n x n float32 with m = n (NI = NJ), a multiple
// of 32, the two arrays coming closest to the footprint (SYRKSize times
// Params.Scale): n = 1120 at scale 1 (9.6 MiB), scale 1024 is
// ObservUVM's 9.6 GB (n = 35904).
//
// Objects, in allocation (ID) order (A_gpu, C_gpu):
//
//	0 "A" n*m float32, read only
//	1 "C" n*n float32, read and written
//
// One launch, syrk_kernel, of (n/32) x (n/8) blocks of 32x8 threads,
// mapped as gemm's (see GEMM): thread (tx, ty) computes C[i][j], i = 8by
// + ty, j = 32bx + tx. A wavefront issues 2m + 2 instructions: the load of
// C[i][j]; for each k the load of A[i][k] (two addresses) and of A[j][k]
// (32 addresses a row apart: 32 lines, and 32 pages once a row is a page);
// the store of C[i][j].
//
// That is n*n/64 x (2m + 2) = 43.9M instructions at scale 1. Each
// wavefront walks 32 rows of A column by column while its block row
// reuses two rows throughout; ObservUVM prefers LFU. The sum stays in a
// register (see innerLoop).
//
// Class: irregular, assigned here from the access pattern (each A[j][k]
// load spreads over 32 rows, as atax's row walk, which Early-Adaptor
// classes irregular); Early-Adaptor does not run it.
type SYRK struct{ benchmarks.DenseLinalg }

// syrkDense is syrk's Info, shape and kernel.
var syrkDense = benchmarks.DenseLinalg{
	Facts: benchmarks.Info{
		Name:              "syrk",
		Description:       "PolyBench/GPU syrk (ObservUVM SRK): C = aAA^T + bC, one thread per element, A read along rows and down columns",
		Suite:             benchmarks.SuitePolyBench,
		Aliases:           []string{"SRK"},
		Class:             benchmarks.ClassIrregular,
		PaperSize:         SYRKSize,
		PreferredEviction: benchmarks.ObservUVMLFU,
	},
	Mult:     convBlockX,
	Matrices: []string{"A", "C"},
	Kernels:  syrkKernels,
}

// SYRKSize is syrk's scale-1 footprint: its reference footprint over
// LinalgScales.
var SYRKSize = benchmarks.LinalgSize("syrk")

func init() {
	benchmarks.Register(syrkDense.Facts.Name, func() benchmarks.Workload { return SYRK{syrkDense} })
}

// SYRKSide returns the side n (= m) syrk uses for p.
func SYRKSide(p benchmarks.Params) (int, error) { return syrkDense.Side(p) }

// syrkKernels is syrk_kernel over A and C.
func syrkKernels(m benchmarks.DenseObjects) []benchmarks.Kernel {
	n, a := m.N, m.Base[0]
	l := innerLoop{c: m.Base[1], ni: n, nj: n, nk: n, loads: []kAccess{{a, n, atIK}, {a, n, atJK}}}
	return []benchmarks.Kernel{l.kernel("syrk_kernel", m.IDs)}
}
