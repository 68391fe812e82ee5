package polybench

import "github.com/mgpu-sim/mgpu/benchmarks"

// GramSchmidt is PolyBench/GPU's gramschmidt (gramschmidt.cu: the QR
// decomposition A = QR by modified Gram-Schmidt, three kernels per
// column k) as SUV's GRM.
//
// Shape: A, R and Q are n x n float32 (NI = NJ = n), n a multiple of 32,
// coming closest to the footprint (GramSchmidtSize times
// Params.Scale): n = 1024 at scale 1 (12 MiB), scale 256 is SUV's 3072 MB
// (n = 16384).
//
// Objects, in allocation (ID) order (A_gpu, R_gpu, Q_gpu):
//
//	0 "A" n*n float32, its columns right of k rewritten in step k
//	1 "R" n*n float32, row k written in step k
//	2 "Q" n*n float32, column k written in step k
//
// For each k in 0 .. n-1, three launches of 256-thread blocks (4
// wavefronts):
//
//   - gramschmidt_kernel1, one block: thread 0 alone loads A[i][k] for
//     every i (n one-address instructions, each on its own row, so each on
//     its own page once a row is a page) and stores R[k][k]; the block's
//     other three wavefronts issue one compute-only instruction;
//   - gramschmidt_kernel2, ceil(n/256) blocks, thread i: the load of
//     A[i][k] (64 addresses a row apart), of R[k][k] (one address), the
//     store of Q[i][k]: 3 instructions a wavefront;
//   - gramschmidt_kernel3, ceil(n/256) blocks, thread j for k < j < n: the
//     store of R[k][j] = 0; for each i the load of Q[i][k] (one address)
//     and of A[i][j] (consecutive floats); the store of R[k][j]; then for
//     each i the load of Q[i][k] and of A[i][j] and the store of A[i][j]:
//     5n + 2 instructions a wavefront with a thread in range, one
//     compute-only instruction otherwise.
//
// That is 3n launches (3072 at scale 1) and about 5n^3/128 + 3.5n^2 = 45.6M
// instructions at scale 1. The sums stay in registers, as in atax (see
// ATAX): R[k][j] is stored before and after the first loop and not
// reloaded in the second.
//
// Class: mixed, assigned here from the access pattern (Q and column k of
// A are read one element a row, sparsely over all their VA blocks, while
// kernel3 sweeps A densely); Early-Adaptor does not run it, and SUV's
// Table I types it iterative and density, its own classification.
//
// Access facts: the host loop passes k, and an address that uses k makes
// its object HostLoop over n iterations. The spans take the block index
// over the whole grid of G = 256 ceil(n/256) threads and ignore the bounds
// check, as SUV-Host does.
//
//   - A[i][k] (kernel1, kernel2) and Q[i][k] (kernel2, kernel3) are one
//     column: offset 0, stride 4, span (n-1)n+1 floats, or (G-1)n+1 over
//     kernel2's grid. Almost the whole matrix, so a window covers the
//     object and SUV's plan falls back to Density.
//   - R[k][k] (kernel1, kernel2) is one float: stride (n+1) floats.
//   - R[k][j] (kernel3) is row k: stride n floats, span G floats.
//   - A[i][j] in kernel3 ignores k, so A is Analysable there.
//
// The bounds checks (tid == 0, i < n, k < j < n) depend on the indices and
// k only, so the accesses are exact; they count the threads that pass
// them, as SUV does. kernel1 has A n and R 1 (thread 0 alone). kernel2 has
// A, R and Q n each: R[k][k] is one broadcast lane per wavefront in the
// stream but a load by each of the n threads. kernel3 has R 2(n-k-1), A
// 3n(n-k-1) and Q 2n(n-k-1): each of the n-k-1 threads in range loads
// Q[i][k] in both loops, where the stream has one broadcast lane per
// wavefront holding a column in range. kernel3 at k = n-1 has no thread in
// range and so no declaration. One block's range: its 256 rows for
// kernel2, its 256 columns of row k (R) or of every row (A) for kernel3,
// and a whole column for the loops over i.
type GramSchmidt struct{ benchmarks.DenseLinalg }

// gramSchmidtDense is gramschmidt's Info, shape and kernels.
var gramSchmidtDense = benchmarks.DenseLinalg{
	Facts: benchmarks.Info{
		Name:           "gramschmidt",
		Description:    "PolyBench/GPU gramschmidt (SUV GRM): QR by Gram-Schmidt, 3 kernels per column, one of them a single thread",
		Suite:          benchmarks.SuitePolyBench,
		Aliases:        []string{"GRM"},
		Class:          benchmarks.ClassMixed,
		PaperSize:      GramSchmidtSize,
		DeclaresAccess: true,
	},
	Mult:     convBlockX,
	Matrices: []string{"A", "R", "Q"},
	Kernels:  gramSchmidtKernels,
}

// GramSchmidtSize is gramschmidt's scale-1 footprint: its reference footprint over
// LinalgScales.
var GramSchmidtSize = benchmarks.LinalgSize("gramschmidt")

func init() {
	benchmarks.Register(gramSchmidtDense.Facts.Name, func() benchmarks.Workload { return GramSchmidt{gramSchmidtDense} })
}

// GramSchmidtSide returns the matrix side gramschmidt uses for p.
func GramSchmidtSide(p benchmarks.Params) (int, error) { return gramSchmidtDense.Side(p) }

// gramSchmidtKernels are the three kernels of each step k in 0 .. n-1
// over A, R and Q.
func gramSchmidtKernels(m benchmarks.DenseObjects) []benchmarks.Kernel {
	n, args := m.N, m.IDs
	g := gsMatrices{a: m.Base[0], r: m.Base[1], q: m.Base[2], n: n}
	var ks []benchmarks.Kernel
	for k := 0; k < n; k++ {
		k1, k2, k3 := g.kernel1(args, k), g.kernel2(args, k), g.kernel3(args, k)
		k1.Access, k2.Access, k3.Access = gsAccess(args, n, k)
		ks = append(ks, k1, k2, k3)
	}
	return ks
}

// gsAccess are the accesses of the three kernels of step k, args A, R, Q.
func gsAccess(args []int, n, k int) (k1, k2, k3 []benchmarks.Access) {
	a, r, q := args[0], args[1], args[2]
	nn, kk := int64(n), int64(k)
	grid := int64(benchmarks.CeilDiv(n, benchmarks.VecBlock) * benchmarks.VecBlock) // kernel2's and kernel3's threads
	col := benchmarks.FloatSpan(0, (nn-1)*nn)                                       // [i][k] for i in 0 .. n-1
	colIt := func(rows int64) benchmarks.LoopSpan {
		return benchmarks.AffineLoop(k, n, 0, benchmarks.FloatBytes, benchmarks.FloatSpan(0, (rows-1)*nn))
	}
	diag := benchmarks.AffineLoop(k, n, 0, (nn+1)*benchmarks.FloatBytes, benchmarks.FloatBytes)
	k1 = []benchmarks.Access{benchmarks.LoopAccess(a, nn, col, colIt(nn)), benchmarks.LoopAccess(r, 1, benchmarks.FloatBytes, diag)}
	block := benchmarks.FloatSpan(0, (benchmarks.VecBlock-1)*nn) // [i][k] for a block's 256 rows
	k2 = []benchmarks.Access{
		benchmarks.LoopAccess(a, nn, block, colIt(grid)),
		benchmarks.LoopAccess(r, nn, benchmarks.FloatBytes, diag), // a broadcast to the n threads
		benchmarks.LoopAccess(q, nn, block, colIt(grid)),
	}
	cols := nn - kk - 1 // the threads with k < j < n
	if cols > 0 {
		k3 = []benchmarks.Access{
			benchmarks.AnalysableAccess(a, 3*nn*cols, benchmarks.FloatSpan(0, (nn-1)*nn+benchmarks.VecBlock-1)),
			benchmarks.LoopAccess(r, 2*cols, benchmarks.FloatSpan(0, benchmarks.VecBlock-1), benchmarks.AffineLoop(k, n, 0, nn*benchmarks.FloatBytes, grid*benchmarks.FloatBytes)),
			benchmarks.LoopAccess(q, 2*nn*cols, col, colIt(nn)), // a broadcast to the threads in range
		}
	}
	return k1, k2, k3
}

// gsMatrices are gramschmidt's three n x n matrices.
type gsMatrices struct {
	a, r, q uint64
	n       int
}

// gsWavefronts is the wavefronts of a 256-thread block.
const gsWavefronts = benchmarks.VecBlock / benchmarks.WavefrontSize

// kernel1 is the single-thread norm of column k.
func (g gsMatrices) kernel1(args []int, k int) benchmarks.Kernel {
	return benchmarks.Kernel{
		Name: "gramschmidt_kernel1", Args: args,
		Workgroups: 1, WavefrontsPerWorkgroup: gsWavefronts,
		Wavefront: func(_, wf, _ int) benchmarks.Stream {
			if wf > 0 {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: g.n + 1, Gen: func(i int, in *benchmarks.Instruction) {
				in.Compute = benchmarks.FMACycles
				if i == 0 {
					in.Compute = benchmarks.IndexCycles
				}
				if i == g.n {
					in.Write = true
					benchmarks.AddLane(in, benchmarks.Elem(g.r, k*g.n+k, benchmarks.FloatBytes))
					return
				}
				benchmarks.AddLane(in, benchmarks.Elem(g.a, i*g.n+k, benchmarks.FloatBytes))
			}}
		},
	}
}

// kernel2 is q[i][k] = a[i][k] / r[k][k].
func (g gsMatrices) kernel2(args []int, k int) benchmarks.Kernel {
	n := g.n
	return benchmarks.Kernel{
		Name: "gramschmidt_kernel2", Args: args,
		Workgroups: benchmarks.CeilDiv(n, benchmarks.VecBlock), WavefrontsPerWorkgroup: gsWavefronts,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			i0 := wg*benchmarks.VecBlock + wf*benchmarks.WavefrontSize
			if i0 >= n {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: 3, Gen: func(x int, in *benchmarks.Instruction) {
				switch x {
				case 0:
					in.Compute = benchmarks.IndexCycles
					benchmarks.AddBlock(in, g.a, n, i0, benchmarks.WavefrontSize, n, k, 1, n)
				case 1:
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddLane(in, benchmarks.Elem(g.r, k*n+k, benchmarks.FloatBytes))
				default:
					in.Compute = benchmarks.FMACycles
					in.Write = true
					benchmarks.AddBlock(in, g.q, n, i0, benchmarks.WavefrontSize, n, k, 1, n)
				}
			}}
		},
	}
}

// kernel3 projects column k out of the columns right of it.
func (g gsMatrices) kernel3(args []int, k int) benchmarks.Kernel {
	n := g.n
	// Instructions: 0 the zero store of r; 1 .. 2n the first loop; 2n+1
	// the store of r; 2n+2 .. 5n+1 the second loop.
	first, store := 1, 2*n+1
	return benchmarks.Kernel{
		Name: "gramschmidt_kernel3", Args: args,
		Workgroups: benchmarks.CeilDiv(n, benchmarks.VecBlock), WavefrontsPerWorkgroup: gsWavefronts,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			j0 := wg*benchmarks.VecBlock + wf*benchmarks.WavefrontSize
			lo := max(j0, k+1) // the first column in range
			if lo >= min(j0+benchmarks.WavefrontSize, n) {
				return benchmarks.IdleStream()
			}
			cols := j0 + benchmarks.WavefrontSize - lo
			return &benchmarks.Loop{N: 5*n + 2, Gen: func(x int, in *benchmarks.Instruction) {
				switch {
				case x == 0 || x == store: // r[k][j]
					in.Compute = benchmarks.IndexCycles
					if x == store {
						in.Compute = benchmarks.FMACycles
					}
					in.Write = true
					benchmarks.AddBlock(in, g.r, n, k, 1, n, lo, cols, n)
				case x < store: // q[i][k], a[i][j]
					i := (x - first) / 2
					if (x-first)%2 == 0 {
						in.Compute = benchmarks.FMACycles
						benchmarks.AddLane(in, benchmarks.Elem(g.q, i*n+k, benchmarks.FloatBytes))
					} else {
						in.Compute = benchmarks.LoadCycles
						benchmarks.AddBlock(in, g.a, n, i, 1, n, lo, cols, n)
					}
				default: // q[i][k], a[i][j], a[i][j] = ...
					i, op := (x-store-1)/3, (x-store-1)%3
					switch op {
					case 0:
						in.Compute = benchmarks.FMACycles
						benchmarks.AddLane(in, benchmarks.Elem(g.q, i*n+k, benchmarks.FloatBytes))
					case 1:
						in.Compute = benchmarks.LoadCycles
						benchmarks.AddBlock(in, g.a, n, i, 1, n, lo, cols, n)
					default:
						in.Compute = benchmarks.FMACycles
						in.Write = true
						benchmarks.AddBlock(in, g.a, n, i, 1, n, lo, cols, n)
					}
				}
			}}
		},
	}
}
