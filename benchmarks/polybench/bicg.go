package polybench

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// BiCG is PolyBench/GPU's BICG (the BiCGStab sub-kernel: s = A^T r and
// q = A p) as Early-Adaptor runs it, every allocation managed. UVMSmart
// has no BICG port; the kernels are PolyBench/GPU's bicg.cu.
//
// Shape: a square float32 matrix of side n (NX = NY), a multiple of 64,
// plus four vectors of n floats, coming closest to the footprint
// (BICGSize times Params.Scale): n = 8128 at scale 1 (252 MB), 45952 at
// scale 32 (EA's 8062 MB).
//
// Objects, in allocation (ID) order:
//
//	0 "A" n*n float32, read only
//	1 "r" n float32, read only
//	2 "s" n float32, written by bicg_kernel1
//	3 "p" n float32, read only
//	4 "q" n float32, written by bicg_kernel2
//
// Two kernels, each a 1-D grid of ceil(n/256) blocks of 256 threads,
// mapped as in atax (see ATAX and mvKernel):
//
//   - bicg_kernel1: thread j stores s[j] = 0, then for each i loads
//     A[i][j] (a row of 64 consecutive floats: coalesced) and r[i] (one
//     address), then stores s[j]: 2 + 2n instructions;
//   - bicg_kernel2: thread i stores q[i] = 0, then for each j loads
//     A[i][j] (64 rows apart: 64 lines, 64 pages once a row is a page)
//     and p[j], then stores q[i].
//
// That is 2 * n/64 * (2 + 2n) = 4.1M instructions at scale 1. The sum is
// kept in a register, as in atax (see ATAX for why).
//
// Class: irregular (Early-Adaptor Table II).
type BiCG struct{}

// BICGSize is bicg's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var BICGSize = benchmarks.EASize("bicg")

func init() {
	benchmarks.Register("bicg", func() benchmarks.Workload { return BiCG{} })
}

// Info implements Workload.
func (BiCG) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "bicg",
		Description: "PolyBench/GPU BICG: s = A^T r (column-walking) then q = A p (row-walking, 64 pages per load)",
		Suite:       benchmarks.SuitePolyBench,
		Aliases:     []string{"BIC"},
		Class:       benchmarks.ClassIrregular,
		PaperSize:   BICGSize,
	}
}

// Setup implements Workload.
func (BiCG) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := mvSide(BICGSize, 4, p)
	if err != nil {
		return nil, err
	}
	vec := uint64(n) * benchmarks.FloatBytes
	a, err := alloc.MallocManaged(vec*uint64(n), "A")
	if err != nil {
		return nil, err
	}
	r := alloc.MustMalloc(vec, "r")
	s := alloc.MustMalloc(vec, "s")
	pv := alloc.MustMalloc(vec, "p")
	q := alloc.MustMalloc(vec, "q")
	id := benchmarks.LastObjects(alloc, 5)
	return []benchmarks.Kernel{
		mvKernel("bicg_kernel1", []int{id[0], id[1], id[2]}, mvPass{a: a, vec: r, acc: s, n: n}),
		mvKernel("bicg_kernel2", []int{id[0], id[3], id[4]}, mvPass{a: a, vec: pv, acc: q, n: n, rows: true}),
	}, nil
}
