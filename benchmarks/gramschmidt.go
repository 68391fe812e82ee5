package benchmarks

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
type GramSchmidt struct{ denseLinalg }

// gramSchmidtDense is gramschmidt's Info, shape and kernels.
var gramSchmidtDense = denseLinalg{
	info: Info{
		Name:           "gramschmidt",
		Description:    "PolyBench/GPU gramschmidt (SUV GRM): QR by Gram-Schmidt, 3 kernels per column, one of them a single thread",
		Suite:          SuitePolyBench,
		Aliases:        []string{"GRM"},
		Class:          ClassMixed,
		PaperSize:      GramSchmidtSize,
		DeclaresAccess: true,
	},
	mult:     convBlockX,
	matrices: []string{"A", "R", "Q"},
	kernels:  gramSchmidtKernels,
}

func init() {
	Register(gramSchmidtDense.info.Name, func() Workload { return GramSchmidt{gramSchmidtDense} })
}

// GramSchmidtSide returns the matrix side gramschmidt uses for p.
func GramSchmidtSide(p Params) (int, error) { return gramSchmidtDense.side(p) }

// gramSchmidtKernels are the three kernels of each step k in 0 .. n-1
// over A, R and Q.
func gramSchmidtKernels(m denseObjects) []Kernel {
	n, args := m.n, m.ids
	g := gsMatrices{a: m.base[0], r: m.base[1], q: m.base[2], n: n}
	var ks []Kernel
	for k := 0; k < n; k++ {
		k1, k2, k3 := g.kernel1(args, k), g.kernel2(args, k), g.kernel3(args, k)
		k1.Access, k2.Access, k3.Access = gsAccess(args, n, k)
		ks = append(ks, k1, k2, k3)
	}
	return ks
}

// gsAccess are the accesses of the three kernels of step k, args A, R, Q.
func gsAccess(args []int, n, k int) (k1, k2, k3 []Access) {
	a, r, q := args[0], args[1], args[2]
	nn, kk := int64(n), int64(k)
	grid := int64(ceilDiv(n, vecBlock) * vecBlock) // kernel2's and kernel3's threads
	col := FloatSpan(0, (nn-1)*nn)                 // [i][k] for i in 0 .. n-1
	colIt := func(rows int64) LoopSpan { return AffineLoop(k, n, 0, floatBytes, FloatSpan(0, (rows-1)*nn)) }
	diag := AffineLoop(k, n, 0, (nn+1)*floatBytes, floatBytes)
	k1 = []Access{LoopAccess(a, nn, col, colIt(nn)), LoopAccess(r, 1, floatBytes, diag)}
	block := FloatSpan(0, (vecBlock-1)*nn) // [i][k] for a block's 256 rows
	k2 = []Access{
		LoopAccess(a, nn, block, colIt(grid)),
		LoopAccess(r, nn, floatBytes, diag), // a broadcast to the n threads
		LoopAccess(q, nn, block, colIt(grid)),
	}
	cols := nn - kk - 1 // the threads with k < j < n
	if cols > 0 {
		k3 = []Access{
			AnalysableAccess(a, 3*nn*cols, FloatSpan(0, (nn-1)*nn+vecBlock-1)),
			LoopAccess(r, 2*cols, FloatSpan(0, vecBlock-1), AffineLoop(k, n, 0, nn*floatBytes, grid*floatBytes)),
			LoopAccess(q, 2*nn*cols, col, colIt(nn)), // a broadcast to the threads in range
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
const gsWavefronts = vecBlock / WavefrontSize

// kernel1 is the single-thread norm of column k.
func (g gsMatrices) kernel1(args []int, k int) Kernel {
	return Kernel{
		Name: "gramschmidt_kernel1", Args: args,
		Workgroups: 1, WavefrontsPerWorkgroup: gsWavefronts,
		Wavefront: func(_, wf, _ int) Stream {
			if wf > 0 {
				return idleStream()
			}
			return &Loop{N: g.n + 1, Gen: func(i int, in *Instruction) {
				in.Compute = mvFMACycles
				if i == 0 {
					in.Compute = indexCycles
				}
				if i == g.n {
					in.Write = true
					addLane(in, elem(g.r, k*g.n+k, floatBytes))
					return
				}
				addLane(in, elem(g.a, i*g.n+k, floatBytes))
			}}
		},
	}
}

// kernel2 is q[i][k] = a[i][k] / r[k][k].
func (g gsMatrices) kernel2(args []int, k int) Kernel {
	n := g.n
	return Kernel{
		Name: "gramschmidt_kernel2", Args: args,
		Workgroups: ceilDiv(n, vecBlock), WavefrontsPerWorkgroup: gsWavefronts,
		Wavefront: func(wg, wf, _ int) Stream {
			i0 := wg*vecBlock + wf*WavefrontSize
			if i0 >= n {
				return idleStream()
			}
			return &Loop{N: 3, Gen: func(x int, in *Instruction) {
				switch x {
				case 0:
					in.Compute = indexCycles
					addBlock(in, g.a, n, i0, WavefrontSize, n, k, 1, n)
				case 1:
					in.Compute = loadCycles
					addLane(in, elem(g.r, k*n+k, floatBytes))
				default:
					in.Compute = mvFMACycles
					in.Write = true
					addBlock(in, g.q, n, i0, WavefrontSize, n, k, 1, n)
				}
			}}
		},
	}
}

// kernel3 projects column k out of the columns right of it.
func (g gsMatrices) kernel3(args []int, k int) Kernel {
	n := g.n
	// Instructions: 0 the zero store of r; 1 .. 2n the first loop; 2n+1
	// the store of r; 2n+2 .. 5n+1 the second loop.
	first, store := 1, 2*n+1
	return Kernel{
		Name: "gramschmidt_kernel3", Args: args,
		Workgroups: ceilDiv(n, vecBlock), WavefrontsPerWorkgroup: gsWavefronts,
		Wavefront: func(wg, wf, _ int) Stream {
			j0 := wg*vecBlock + wf*WavefrontSize
			lo := max(j0, k+1) // the first column in range
			if lo >= min(j0+WavefrontSize, n) {
				return idleStream()
			}
			cols := j0 + WavefrontSize - lo
			return &Loop{N: 5*n + 2, Gen: func(x int, in *Instruction) {
				switch {
				case x == 0 || x == store: // r[k][j]
					in.Compute = indexCycles
					if x == store {
						in.Compute = mvFMACycles
					}
					in.Write = true
					addBlock(in, g.r, n, k, 1, n, lo, cols, n)
				case x < store: // q[i][k], a[i][j]
					i := (x - first) / 2
					if (x-first)%2 == 0 {
						in.Compute = mvFMACycles
						addLane(in, elem(g.q, i*n+k, floatBytes))
					} else {
						in.Compute = loadCycles
						addBlock(in, g.a, n, i, 1, n, lo, cols, n)
					}
				default: // q[i][k], a[i][j], a[i][j] = ...
					i, op := (x-store-1)/3, (x-store-1)%3
					switch op {
					case 0:
						in.Compute = mvFMACycles
						addLane(in, elem(g.q, i*n+k, floatBytes))
					case 1:
						in.Compute = loadCycles
						addBlock(in, g.a, n, i, 1, n, lo, cols, n)
					default:
						in.Compute = mvFMACycles
						in.Write = true
						addBlock(in, g.a, n, i, 1, n, lo, cols, n)
					}
				}
			}}
		},
	}
}
