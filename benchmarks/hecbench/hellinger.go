package hecbench

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Hellinger is HeCBench's hellinger-cuda as ObservUVM's and SUV's HEL:
// the Hellinger distance between every row of a and every column of b,
// c[row][col] = sqrt(max(0, 1 - sum_i sqrt(a[row][i] b[i][col]))), a
// matrix-multiplication access pattern.
//
// Shape: HeCBench's proportions, M = s/8, N = s/4, P = s/2 for a size s
// (m_size), here a multiple of 128 so that M and P are whole 16-thread
// blocks; a is M x N, b N x P and c M x P float32, 0.875 s^2 bytes in all,
// coming closest to the footprint (HellingerSize times Params.Scale): s =
// 3072 at scale 1 (7.9 MiB; HeCBench's default is s = 6144), scale 1024 is
// ObservUVM's 7.9 GB (s = 98432), scale 875 SUV's 6912 MB.
//
// Objects, in allocation (ID) order (a_device, b_device, c_device):
//
//	0 "a" M*N float32, read only
//	1 "b" N*P float32, read only, read whole by every block row
//	2 "c" M*P float32, write only, each element once
//
// One launch of (P/16) x (M/16) blocks of 16x16 threads (BLOCK_SIZE),
// workgroup wg = by*(P/16) + bx; thread (tx, ty) computes c[row][col],
// row = 16by + ty, col = 16bx + tx. Wavefront wf holds block rows 4wf ..
// 4wf+3 (lane 16*(ty-4wf) + tx) and issues 2N + 1 instructions: for each
// i the load of a[row][i] (four addresses, one per row) and of b[i][col]
// (16 consecutive floats), then the store of c[row][col] (four rows of 16
// floats).
//
// That is M*P/64 x (2N + 1) = 14.2M instructions a launch at scale 1.
// HeCBench launches the kernel `repeat` times (its argument); one launch
// by default, Params.Iterations sets the count. ObservUVM prefers LRU.
//
// Class: regular, assigned here from the access pattern; Early-Adaptor
// does not run it.
//
// Access facts: a, b and c are Analysable in every launch. The addresses
// are affine in the block and thread indices and the loop's i, and the
// repeat loop passes nothing that moves them. Accesses count the M P
// threads (all in range): M P N on a and on b (one load each a thread and
// i) and M P on c. The stream has fewer lanes: a[row][i] is four lanes a
// wavefront, one per thread row (16 threads a lane), and b[i][col] 16,
// shared by the four rows (4 threads a lane). One block's range: a is 16
// rows whole (16N floats), b a 16-column strip of every row ((N-1)P + 16),
// c 16 rows of 16 (15P + 16). Table I's T for HEL is then the simulator's
// call from these ranges.
type Hellinger struct{}

const (
	// helBlock is HeCBench's BLOCK_SIZE.
	helBlock = 16
	// helRows is the block rows one wavefront holds.
	helRows = benchmarks.WavefrontSize / helBlock
	// helTermCycles is one term of the sum: a multiply, a square root
	// and an add.
	helTermCycles = 16
	// helSizeMult keeps M = s/8 a multiple of helBlock.
	helSizeMult = 8 * helBlock
)

// HellingerSize is hellinger's scale-1 footprint: its reference footprint over
// LinalgScales.
var HellingerSize = benchmarks.LinalgSize("hellinger")

func init() {
	benchmarks.Register("hellinger", func() benchmarks.Workload { return Hellinger{} })
}

// Info implements Workload.
func (Hellinger) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:              "hellinger",
		Description:       "HeCBench hellinger (ObservUVM/SUV HEL): Hellinger distance of a's rows and b's columns, 16x16 blocks",
		Suite:             benchmarks.SuiteHeCBench,
		Aliases:           []string{"HEL"},
		Class:             benchmarks.ClassRegular,
		PaperSize:         HellingerSize,
		PreferredEviction: benchmarks.ObservUVMLRU,
		DeclaresAccess:    true,
	}
}

// HellingerShape returns the size s (M = s/8, N = s/4, P = s/2) and the
// launch count hellinger uses for p.
func HellingerShape(p benchmarks.Params) (s, launches int, err error) {
	s, err = benchmarks.LinalgSide(HellingerSize, p, helSizeMult, func(s int) uint64 {
		m, n, q := uint64(s/8), uint64(s/4), uint64(s/2)
		return benchmarks.FloatBytes * (m*n + n*q + m*q)
	})
	return s, max(p.Iterations, 1), err
}

// Setup implements Workload.
func (Hellinger) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	s, launches, err := HellingerShape(p)
	if err != nil {
		return nil, err
	}
	m, n, q := s/8, s/4, s/2
	a, err := alloc.MallocManaged(uint64(m)*uint64(n)*benchmarks.FloatBytes, "a")
	if err != nil {
		return nil, err
	}
	b := alloc.MustMalloc(uint64(n)*uint64(q)*benchmarks.FloatBytes, "b")
	c := alloc.MustMalloc(uint64(m)*uint64(q)*benchmarks.FloatBytes, "c")
	gx := q / helBlock
	ids := benchmarks.LastObjects(alloc, 3)
	mm, nn, qq := int64(m), int64(n), int64(q)
	k := benchmarks.Kernel{
		Name: "hellinger", Args: ids,
		Access: []benchmarks.Access{
			benchmarks.AnalysableAccess(ids[0], mm*qq*nn, benchmarks.FloatSpan(0, helBlock*nn-1)),
			benchmarks.AnalysableAccess(ids[1], mm*qq*nn, benchmarks.FloatSpan(0, (nn-1)*qq+helBlock-1)),
			benchmarks.AnalysableAccess(ids[2], mm*qq, benchmarks.FloatSpan(0, (helBlock-1)*qq+helBlock-1)),
		},
		Workgroups: gx * (m / helBlock), WavefrontsPerWorkgroup: helBlock * helBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			row0 := wg/gx*helBlock + wf*helRows
			col0 := wg % gx * helBlock
			return &benchmarks.Loop{N: 2*n + 1, Gen: func(i int, in *benchmarks.Instruction) {
				switch {
				case i == 2*n:
					in.Compute = helTermCycles
					in.Write = true
					benchmarks.AddBlock(in, c, q, row0, helRows, m, col0, helBlock, q)
				case i%2 == 0: // a[row][i/2]
					in.Compute = helTermCycles
					if i == 0 {
						in.Compute = benchmarks.IndexCycles
					}
					benchmarks.AddBlock(in, a, n, row0, helRows, m, i/2, 1, n)
				default: // b[i/2][col]
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddBlock(in, b, q, i/2, 1, n, col0, helBlock, q)
				}
			}}
		},
	}
	ks := make([]benchmarks.Kernel, launches)
	for i := range ks {
		ks[i] = k
	}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}
