package polybench

import "github.com/mgpu-sim/mgpu/benchmarks"

// MVT is PolyBench/GPU's mvt (mvt.cu: x1 += A y_1, x2 += A^T y_2) as
// SUV's MVT: two matrix-vector kernels over one matrix, the first walking
// its rows, the second its columns, like atax.
//
// Shape: a square float32 matrix of side n, a multiple of 32, plus four
// vectors of n floats, coming closest to the footprint (MVTSize times
// Params.Scale): n = 8192 at scale 1 (256.1 MiB of 256), scale 16 is
// SUV's 4096 MB (n = 32768).
//
// Objects, in allocation (ID) order (a_gpu, x1_gpu, x2_gpu, y_1_gpu,
// y_2_gpu):
//
//	0 "a"   n*n float32, read only
//	1 "x1"  n float32, read and written by mvt_kernel1
//	2 "x2"  n float32, read and written by mvt_kernel2
//	3 "y_1" n float32, read only
//	4 "y_2" n float32, read only
//
// Both kernels are launched, as mvt.cu launches them, with blocks of 32x8
// threads (DIM_THREAD_BLOCK_X, _Y) on a grid of n/32 x 1, and compute i =
// 32bx + tx without threadIdx.y: the eight thread rows of a block all do
// the same 32 rows' work (and race on the same stores). So each of a
// block's 4 wavefronts (two thread rows each) issues the accesses of the
// same 32 threads, 32 distinct addresses an instruction, 2n + 2 of them:
//
//   - mvt_kernel1: the load of x1[i]; for each j the load of a[i][j] (32
//     addresses a row apart: 32 lines, 32 pages once a row is a page) and
//     of y_1[j] (one address); the store of x1[i];
//   - mvt_kernel2: the same with a[j][i] (32 consecutive floats), y_2 and
//     x2.
//
// That is 2 x n/32 x 4 x (2n + 2) = 33.6M instructions at scale 1, four
// times what one thread per row would issue. The sum stays in a register,
// as in atax (see ATAX).
//
// Class: irregular, assigned here from the access pattern (atax's, which
// Early-Adaptor classes irregular); Early-Adaptor does not run it.
//
// Access facts: every object is Analysable in both kernels (SUV's Table I:
// D for MVT). The addresses are affine in i and j, and there is no host
// loop. The accesses count threads, as SUV does: all 8n of them (n/32
// blocks of 256), the duplicate thread rows included, pass i < n. Per
// kernel: a has 8n^2 (n loads a thread; twice the lanes, which hold one
// thread row of the two in a wavefront), x 16n (its load and store; also
// twice the lanes) and y 8n^2 (n loads a thread; 64 times the lanes, one
// per wavefront and j). One block's range: kernel1's a is 32 rows (32n
// floats), kernel2's a is n rows of 32 columns ((n-1)n + 32), x is 32
// floats, y all n.
type MVT struct{ benchmarks.DenseLinalg }

// mvtDense is mvt's Info, shape and kernels.
var mvtDense = benchmarks.DenseLinalg{
	Facts: benchmarks.Info{
		Name:           "mvt",
		Description:    "PolyBench/GPU mvt (SUV MVT): x1 += Ay_1 (row-walking) then x2 += A^Ty_2 (column-walking)",
		Suite:          benchmarks.SuitePolyBench,
		Aliases:        []string{"MVT"},
		Class:          benchmarks.ClassIrregular,
		PaperSize:      MVTSize,
		DeclaresAccess: true,
	},
	Mult:     convBlockX,
	Matrices: []string{"a"},
	Vectors:  []string{"x1", "x2", "y_1", "y_2"},
	Kernels:  mvtKernels,
}

// MVTSize is mvt's scale-1 footprint: its reference footprint over
// LinalgScales.
var MVTSize = benchmarks.LinalgSize("mvt")

func init() {
	benchmarks.Register(mvtDense.Facts.Name, func() benchmarks.Workload { return MVT{mvtDense} })
}

// MVTSide returns the matrix side mvt uses for p.
func MVTSide(p benchmarks.Params) (int, error) { return mvtDense.Side(p) }

// mvtKernels are mvt_kernel1 over a, x1, y_1 and mvt_kernel2 over a, x2,
// y_2.
func mvtKernels(m benchmarks.DenseObjects) []benchmarks.Kernel {
	n, id := m.N, m.IDs
	a, x1, x2, y1, y2 := m.Base[0], m.Base[1], m.Base[2], m.Base[3], m.Base[4]
	ks := []benchmarks.Kernel{
		mvtKernel("mvt_kernel1", []int{id[0], id[1], id[3]}, a, x1, y1, n, true),
		mvtKernel("mvt_kernel2", []int{id[0], id[2], id[4]}, a, x2, y2, n, false),
	}
	for i, k := range ks {
		ks[i].Access = mvtAccess(k.Args, n, i == 0)
	}
	return ks
}

// mvtAccess are the accesses of an mvt kernel with args a, x, y.
func mvtAccess(args []int, n int, rows bool) []benchmarks.Access {
	nn := int64(n)
	threads := int64(benchmarks.CeilDiv(n, convBlockX) * convBlockX * convBlockY) // 8n, all with i < n
	// a[i][j]: 32 rows; a[j][i]: n rows of 32 columns.
	aRange := benchmarks.FloatSpan(0, convBlockX*nn-1)
	if !rows {
		aRange = benchmarks.FloatSpan(0, (nn-1)*nn+convBlockX-1)
	}
	return []benchmarks.Access{
		benchmarks.AnalysableAccess(args[0], threads*nn, aRange),
		benchmarks.AnalysableAccess(args[1], 2*threads, benchmarks.FloatSpan(0, convBlockX-1)),
		benchmarks.AnalysableAccess(args[2], threads*nn, benchmarks.FloatSpan(0, nn-1)),
	}
}

// mvtKernel is one mvt kernel: x[i] += sum_j a[i][j] y[j] (rows) or
// a[j][i] y[j].
func mvtKernel(name string, args []int, a, x, y uint64, n int, rows bool) benchmarks.Kernel {
	last := 1 + 2*n
	return benchmarks.Kernel{
		Name: name, Args: args,
		Workgroups: benchmarks.CeilDiv(n, convBlockX), WavefrontsPerWorkgroup: convBlockX * convBlockY / benchmarks.WavefrontSize,
		Wavefront: func(wg, _, _ int) benchmarks.Stream {
			i0 := wg * convBlockX
			return &benchmarks.Loop{N: last + 1, Gen: func(k int, in *benchmarks.Instruction) {
				switch {
				case k == 0 || k == last: // x[i]
					in.Compute = benchmarks.IndexCycles
					if k == last {
						in.Compute = benchmarks.FMACycles
					}
					in.Write = k == last
					benchmarks.AddBlock(in, x, 0, 0, 1, 1, i0, convBlockX, n)
				case k%2 == 1: // a[i][j] or a[j][i]
					j := (k - 1) / 2
					in.Compute = benchmarks.FMACycles
					if rows {
						benchmarks.AddBlock(in, a, n, i0, convBlockX, n, j, 1, n)
					} else {
						benchmarks.AddBlock(in, a, n, j, 1, n, i0, convBlockX, n)
					}
				default: // y[j], one address
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddLane(in, benchmarks.Elem(y, (k-1)/2, benchmarks.FloatBytes))
				}
			}}
		},
	}
}
