package polybench

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// ATAX is PolyBench/GPU's ATAX (y = A^T (A x)) as UVMSmart ports it and
// Early-Adaptor runs it: two matrix-vector kernels over one matrix, the
// first walking its rows, the second its columns.
//
// Shape: a square float32 matrix of side n (NX = NY), a multiple of 64,
// plus three vectors of n floats, coming closest to the footprint
// (ATAXSize times Params.Scale): n = 8128 at scale 1 (252 MB), 45952 at
// scale 32 (EA's 8062 MB). UVMSmart's own input, n = 1200, is not a
// multiple of 64: scale 0.021858 gives the nearest, n = 1216.
//
// Objects, in allocation (ID) order:
//
//	0 "A"   n*n float32, read only
//	1 "x"   n float32, read only
//	2 "y"   n float32, read and written by atax_kernel2
//	3 "tmp" n float32, written by atax_kernel1, read by atax_kernel2
//
// Two kernels, each a 1-D grid of ceil(n/256) blocks of 256 threads
// (DIM_THREAD_BLOCK_X); thread t of the grid is lane t mod 64 of wavefront
// (t mod 256)/64. Threads t >= n issue one compute-only instruction (the
// bounds check).
//
//   - atax_kernel1: thread i computes tmp[i] += sum_j A[i][j] * x[j]. A
//     wavefront loads tmp[i] for its 64 rows, then for each j a load of
//     A[i][j] (64 rows apart: 64 lines and, with rows of 4 KB or more, 64
//     pages in one instruction) and a load of x[j] (one address for all
//     lanes), and finally stores tmp[i]: 2 + 2n instructions.
//   - atax_kernel2: thread j computes y[j] += sum_i A[i][j] * tmp[i]: the
//     same with A[i][j] a row of 64 consecutive floats (coalesced).
//
// That is 2 * n/64 * (2 + 2n) = 4.1M instructions at scale 1.
//
// Known simplification: without __restrict__ the compiled kernel reloads
// and re-stores tmp[i] (y[j]) on every iteration, since the store might
// alias A; those accesses hit one line per wavefront and touch no new
// page, so the model keeps the sum in a register (load before the loop,
// store after), which halves the instruction count.
//
// Class: irregular (Early-Adaptor Table II).
type ATAX struct{}

// mvBlock is PolyBench's DIM_THREAD_BLOCK_X for atax and bicg.
const mvBlock = 256

// ATAXSize is atax's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var ATAXSize = benchmarks.EASize("atax")

func init() {
	benchmarks.Register("atax", func() benchmarks.Workload { return ATAX{} })
}

// Info implements Workload.
func (ATAX) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "atax",
		Description: "PolyBench/GPU ATAX: y = A^T(Ax), a row-walking (64 pages per load) then a column-walking kernel",
		Suite:       benchmarks.SuitePolyBench,
		Aliases:     []string{"ATA"},
		Class:       benchmarks.ClassIrregular,
		PaperSize:   ATAXSize,
	}
}

// mvSide returns the matrix side of atax or bicg (one n x n matrix and
// vectors vecs of n floats) for the footprint of s at p.
func mvSide(s benchmarks.PaperSize, vecs int, p benchmarks.Params) (int, error) {
	fp, err := s.Footprint(p)
	if err != nil {
		return 0, err
	}
	return benchmarks.FitSide(fp, benchmarks.WavefrontSize, func(n int) uint64 {
		return benchmarks.FloatBytes * (uint64(n)*uint64(n) + uint64(vecs*n))
	}), nil
}

// Setup implements Workload.
func (ATAX) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := mvSide(ATAXSize, 3, p)
	if err != nil {
		return nil, err
	}
	vec := uint64(n) * benchmarks.FloatBytes
	a, err := alloc.MallocManaged(vec*uint64(n), "A")
	if err != nil {
		return nil, err
	}
	x := alloc.MustMalloc(vec, "x")
	y := alloc.MustMalloc(vec, "y")
	tmp := alloc.MustMalloc(vec, "tmp")
	id := benchmarks.LastObjects(alloc, 4)
	return []benchmarks.Kernel{
		mvKernel("atax_kernel1", []int{id[0], id[1], id[3]}, mvPass{a: a, vec: x, acc: tmp, n: n, rows: true, load: true}),
		mvKernel("atax_kernel2", []int{id[0], id[2], id[3]}, mvPass{a: a, vec: tmp, acc: y, n: n, load: true}),
	}, nil
}

// mvPass is one matrix-vector kernel of atax or bicg: thread t computes
// acc[t] over the n x n matrix a and the vector vec.
type mvPass struct {
	a, vec, acc uint64
	n           int
	// rows: thread t walks row t of a (lanes 64 rows apart); otherwise
	// column t (lanes on consecutive floats).
	rows bool
	// load: acc[t] += ... reads acc first (atax); otherwise acc[t] = 0 is
	// stored first (bicg).
	load bool
}

// mvKernel is the launch of pass m.
func mvKernel(name string, args []int, m mvPass) benchmarks.Kernel {
	return benchmarks.Kernel{
		Name: name, Args: args,
		Workgroups: benchmarks.CeilDiv(m.n, mvBlock), WavefrontsPerWorkgroup: mvBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			t0 := wg*mvBlock + wf*benchmarks.WavefrontSize
			if t0 >= m.n {
				return &benchmarks.Loop{N: 1, Gen: func(_ int, in *benchmarks.Instruction) { in.Compute = benchmarks.IndexCycles }}
			}
			last := 1 + 2*m.n
			return &benchmarks.Loop{N: last + 1, Gen: func(i int, in *benchmarks.Instruction) {
				switch {
				case i == 0 || i == last: // acc[t]: the first read (or zeroing) and the result
					in.Compute = benchmarks.IndexCycles
					if i == last {
						in.Compute = benchmarks.FMACycles
					}
					in.Write = i == last || !m.load
					for l := 0; l < benchmarks.WavefrontSize; l++ {
						benchmarks.AddLane(in, benchmarks.Elem(m.acc, t0+l, benchmarks.FloatBytes))
					}
				case i%2 == 1: // A[t][k] or A[k][t]
					k := (i - 1) / 2
					in.Compute = benchmarks.FMACycles
					for l := 0; l < benchmarks.WavefrontSize; l++ {
						if m.rows {
							benchmarks.AddLane(in, benchmarks.Elem(m.a, (t0+l)*m.n+k, benchmarks.FloatBytes))
						} else {
							benchmarks.AddLane(in, benchmarks.Elem(m.a, k*m.n+t0+l, benchmarks.FloatBytes))
						}
					}
				default: // vec[k], one address for the whole wavefront
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddLane(in, benchmarks.Elem(m.vec, (i-1)/2, benchmarks.FloatBytes))
				}
			}}
		},
	}
}
