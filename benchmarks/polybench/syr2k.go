package polybench

import "github.com/mgpu-sim/mgpu/benchmarks"

// SYR2K is the symmetric rank-2k update C = alpha A B^T + alpha B A^T +
// beta C as ObservUVM's SR2. ObservUVM calls cuBLAS ssyr2k, whose kernels
// are closed; this models PolyBench/GPU's syr2k_kernel (syr2k.cu), which
// computes the whole of C, one thread per element.
//
// Shape: A and B are n x m, C n x n float32 with m = n (NI = NJ), a
// multiple of 32, the three arrays coming closest to the footprint
// (SYR2KSize times Params.Scale): n = 864 at scale 1 (8.5 MiB of 8.3),
// scale 1024 is ObservUVM's 8.3 GB (n = 27264).
//
// Objects, in allocation (ID) order (A_gpu, B_gpu, C_gpu):
//
//	0 "A" n*m float32, read only
//	1 "B" n*m float32, read only
//	2 "C" n*n float32, read and written
//
// One launch, syr2k_kernel, of (n/32) x (n/8) blocks of 32x8 threads,
// mapped as gemm's (see GEMM). A wavefront issues 4m + 2 instructions:
// the load of C[i][j]; for each k, in the expression's order, the loads
// of A[i][k] (two addresses), B[j][k] (32 addresses a row apart), B[i][k]
// and A[j][k]; the store of C[i][j].
//
// That is n*n/64 x (4m + 2) = 40.3M instructions at scale 1; ObservUVM
// prefers LFU. The sum stays in a register (see innerLoop).
//
// Class: irregular, assigned here from the access pattern (as syrk's);
// Early-Adaptor does not run it.
type SYR2K struct{ benchmarks.DenseLinalg }

// syr2kDense is syr2k's Info, shape and kernel.
var syr2kDense = benchmarks.DenseLinalg{
	Facts: benchmarks.Info{
		Name:              "syr2k",
		Description:       "PolyBench/GPU syr2k (ObservUVM SR2): C = aAB^T + aBA^T + bC, one thread per element",
		Suite:             benchmarks.SuitePolyBench,
		Aliases:           []string{"SR2"},
		Class:             benchmarks.ClassIrregular,
		PaperSize:         SYR2KSize,
		PreferredEviction: benchmarks.ObservUVMLFU,
	},
	Mult:     convBlockX,
	Matrices: []string{"A", "B", "C"},
	Kernels:  syr2kKernels,
}

// SYR2KSize is syr2k's scale-1 footprint: its reference footprint over
// LinalgScales.
var SYR2KSize = benchmarks.LinalgSize("syr2k")

func init() {
	benchmarks.Register(syr2kDense.Facts.Name, func() benchmarks.Workload { return SYR2K{syr2kDense} })
}

// SYR2KSide returns the side n (= m) syr2k uses for p.
func SYR2KSide(p benchmarks.Params) (int, error) { return syr2kDense.Side(p) }

// syr2kKernels is syr2k_kernel over A, B and C.
func syr2kKernels(m benchmarks.DenseObjects) []benchmarks.Kernel {
	n, a, b := m.N, m.Base[0], m.Base[1]
	l := innerLoop{c: m.Base[2], ni: n, nj: n, nk: n, loads: []kAccess{{a, n, atIK}, {b, n, atJK}, {b, n, atIK}, {a, n, atJK}}}
	return []benchmarks.Kernel{l.kernel("syr2k_kernel", m.IDs)}
}
