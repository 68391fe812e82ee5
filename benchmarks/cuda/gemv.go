package cuda

import "github.com/mgpu-sim/mgpu/benchmarks"

// GEMV is the matrix-vector product y = alpha A x (beta 0) as ObservUVM's
// GMV. ObservUVM calls cuBLAS sgemv, whose kernels are closed; this
// models a warp-per-row kernel, the coalesced way to multiply a row-major
// matrix: each wavefront reduces one row of A against x.
//
// Shape: A is n x n float32 with n a multiple of 64, x and y n floats,
// coming closest to the footprint (GEMVSize times Params.Scale): n = 7040
// at scale 1 (189.1 MiB of 188.8), scale 128 is ObservUVM's 23.6 GB
// (n = 79616).
//
// Objects, in allocation (ID) order:
//
//	0 "A" n*n float32, read only, streamed once
//	1 "x" n float32, read only, read whole by every wavefront
//	2 "y" n float32, written (beta 0: not read)
//
// One launch, sgemv_rows, of n/4 blocks of 256 threads: wavefront wf of
// workgroup wg handles row r = 4wg + wf. It issues 2n/64 + 1
// instructions: for each chunk c in 0 .. n/64-1 the load of A[r][64c+l]
// and of x[64c+l] (lane l: 64 consecutive floats each), then, after the
// shuffle reduction, the store of y[r] by lane 0.
//
// That is n x (2n/64 + 1) = 1.6M instructions at scale 1. A streams
// through once while x is reused by every row; ObservUVM prefers LFU.
//
// Known simplifications: one call (ObservUVM does not say how many it
// times); a real sgemv splits long rows over several warps or blocks and
// unrolls, which changes the order of the loads within a row, not the
// pages a row touches.
//
// Class: regular, assigned here from the access pattern (each wavefront
// streams one row); Early-Adaptor does not run it.
type GEMV struct{ benchmarks.DenseLinalg }

// gemvDense is gemv's Info, shape and kernel.
var gemvDense = benchmarks.DenseLinalg{
	Facts: benchmarks.Info{
		Name:        "gemv",
		Description: "matrix-vector y = Ax (ObservUVM GMV, for cuBLAS sgemv): one wavefront per row, coalesced",
		// ObservUVM calls cuBLAS sgemv; the kernel is modelled here.
		Suite:             "cuBLAS",
		Aliases:           []string{"GMV"},
		Class:             benchmarks.ClassRegular,
		PaperSize:         GEMVSize,
		PreferredEviction: benchmarks.ObservUVMLFU,
	},
	Mult:     benchmarks.WavefrontSize,
	Matrices: []string{"A"},
	Vectors:  []string{"x", "y"},
	Kernels:  gemvKernels,
}

// gemvReduceCycles is the warp reduction of the partial sums: six
// shuffle-and-add steps.
const gemvReduceCycles = 6 * benchmarks.LoadCycles

// GEMVSize is gemv's scale-1 footprint: its reference footprint over
// LinalgScales.
var GEMVSize = benchmarks.LinalgSize("gemv")

func init() {
	benchmarks.Register(gemvDense.Facts.Name, func() benchmarks.Workload { return GEMV{gemvDense} })
}

// GEMVSide returns the matrix side gemv uses for p.
func GEMVSide(p benchmarks.Params) (int, error) { return gemvDense.Side(p) }

// gemvKernels is sgemv_rows over A, x and y.
func gemvKernels(m benchmarks.DenseObjects) []benchmarks.Kernel {
	n := m.N
	a, x, y := m.Base[0], m.Base[1], m.Base[2]
	rowsPerBlock := benchmarks.VecBlock / benchmarks.WavefrontSize
	chunks := n / benchmarks.WavefrontSize
	return []benchmarks.Kernel{{
		Name: "sgemv_rows", Args: m.IDs,
		Workgroups: benchmarks.CeilDiv(n, rowsPerBlock), WavefrontsPerWorkgroup: rowsPerBlock,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			r := wg*rowsPerBlock + wf
			if r >= n {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: 2*chunks + 1, Gen: func(i int, in *benchmarks.Instruction) {
				c := i / 2
				switch {
				case i == 2*chunks: // y[r], lane 0
					in.Compute = gemvReduceCycles
					in.Write = true
					benchmarks.AddLane(in, benchmarks.Elem(y, r, benchmarks.FloatBytes))
				case i%2 == 0: // A[r][64c .. 64c+63]
					in.Compute = benchmarks.FMACycles
					if i == 0 {
						in.Compute = benchmarks.IndexCycles
					}
					benchmarks.AddBlock(in, a, n, r, 1, n, c*benchmarks.WavefrontSize, benchmarks.WavefrontSize, n)
				default: // x[64c .. 64c+63]
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddBlock(in, x, 0, 0, 1, 1, c*benchmarks.WavefrontSize, benchmarks.WavefrontSize, n)
				}
			}}
		},
	}}
}
