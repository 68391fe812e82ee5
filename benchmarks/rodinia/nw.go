package rodinia

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// NW is Rodinia 3.1's Needleman-Wunsch (needle_cuda_shared_1 and _2) as
// UVMSmart ports it and Early-Adaptor runs it: the alignment score matrix
// filled in 16x16 blocks along anti-diagonals, one launch per diagonal.
//
// Shape: sequences of length n, a multiple of 16 (max_rows = max_cols =
// n+1), whose two (n+1)^2 int32 matrices come closest to the footprint
// (NWSize times Params.Scale): n = 5920 at scale 1 (267.5 MB), 33520 at
// scale 32 (EA's 8573 MB). UVMSmart's n = 1024 is scale 0.03.
//
// Objects, in allocation (ID) order:
//
//	0 "referrence" (n+1)^2 int32, the substitution scores, read only
//	1 "itemsets"   (n+1)^2 int32, the score matrix (matrix_cuda), its
//	               first row and column set by the host, the rest written
//	               once by the kernels
//
// With bw = n/16 blocks per side, needle_cuda_shared_1 is launched for
// i = 1 .. bw with i blocks (the upper-left triangle of block diagonals),
// then needle_cuda_shared_2 for i = bw-1 .. 1 with i blocks: 2*bw - 1
// launches. Block bx of launch i handles block (row, col) = (i-1-bx, bx)
// in the first kernel and (bw-1-bx, bx+bw-i) in the second. A block is 16
// threads, one wavefront with 16 lanes; thread tx works on column tx of
// the block, its 16 rows one pitch (n+1 ints, 16 lines apart) apart. The
// wavefront issues 35 instructions, in the kernel's order:
//
//	_1: the north-west corner (lane 0), the 16 rows of referrence, the
//	    west column (16 lanes, one per row), the north row;
//	_2: the 16 rows of referrence, the corner, the west column, the north
//	    row;
//
// then, after the 31 anti-diagonal steps in LDS, the 16 stores of its rows
// of itemsets. That is (n/16)^2 x 35 = 4.8M instructions at scale 1, in
// 739 launches. The launch count follows from n, so Params.Iterations
// does not apply.
//
// Class: irregular (Early-Adaptor Table II): each launch touches one
// 16-row band of each of up to bw block rows, a few lines of many pages.
type NW struct{}

const (
	// nwBlock is Rodinia's BLOCK_SIZE.
	nwBlock = 16
	// nwInstructions is the instructions per wavefront.
	nwInstructions = 1 + nwBlock + 2 + nwBlock
	// nwDiagCycles is the 2*16-1 anti-diagonal steps in LDS, each a max
	// of three and a __syncthreads.
	nwDiagCycles = (2*nwBlock - 1) * (12 + benchmarks.SyncCycles)
)

// NWSize is nw's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var NWSize = benchmarks.EASize("nw")

func init() {
	benchmarks.Register("nw", func() benchmarks.Workload { return NW{} })
}

// Info implements Workload.
func (NW) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "nw",
		Description: "Rodinia Needleman-Wunsch: 16x16 blocks along anti-diagonals, one launch per diagonal",
		Suite:       benchmarks.SuiteRodinia,
		Aliases:     []string{"NW"},
		Class:       benchmarks.ClassIrregular,
		PaperSize:   NWSize,
	}
}

// NWLength returns the sequence length n nw uses for p.
func NWLength(p benchmarks.Params) (int, error) {
	fp, err := NWSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	return benchmarks.FitSide(fp, nwBlock, func(n int) uint64 { return 2 * benchmarks.FloatBytes * uint64(n+1) * uint64(n+1) }), nil
}

// Setup implements Workload.
func (NW) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := NWLength(p)
	if err != nil {
		return nil, err
	}
	cols := n + 1
	bytes := uint64(cols) * uint64(cols) * benchmarks.FloatBytes
	ref, err := alloc.MallocManaged(bytes, "referrence")
	if err != nil {
		return nil, err
	}
	mat := alloc.MustMalloc(bytes, "itemsets")
	args := benchmarks.LastObjects(alloc, 2)
	bw := n / nwBlock
	var ks []benchmarks.Kernel
	for i := 1; i <= bw; i++ {
		ks = append(ks, nwKernel("needle_cuda_shared_1", args, i, func(bx int) (int, int) { return i - 1 - bx, bx }, ref, mat, cols))
	}
	for i := bw - 1; i >= 1; i-- {
		ks = append(ks, nwKernel("needle_cuda_shared_2", args, i, func(bx int) (int, int) { return bw - 1 - bx, bx + bw - i }, ref, mat, cols))
	}
	return ks, nil
}

// nwKernel is one diagonal launch of blocks blocks; block(bx) gives the
// block row and column of block bx.
func nwKernel(name string, args []int, blocks int, block func(bx int) (int, int), ref, mat uint64, cols int) benchmarks.Kernel {
	second := name == "needle_cuda_shared_2"
	return benchmarks.Kernel{
		Name: name, Args: args, Workgroups: blocks, WavefrontsPerWorkgroup: 1,
		Wavefront: func(bx, _, _ int) benchmarks.Stream {
			by, bxx := block(bx)
			nw := cols*nwBlock*by + nwBlock*bxx // index_nw: the corner
			return &benchmarks.Loop{N: nwInstructions, Gen: func(k int, in *benchmarks.Instruction) {
				in.Compute = benchmarks.LoadCycles
				if k == 0 {
					in.Compute = benchmarks.IndexCycles
				}
				if second { // the same loads, the referrence rows first
					switch {
					case k < nwBlock:
						k++
					case k == nwBlock:
						k = 0
					}
				}
				switch {
				case k == 0: // matrix_cuda[index_nw], thread 0
					benchmarks.AddLane(in, benchmarks.Elem(mat, nw, benchmarks.FloatBytes))
				case k <= nwBlock: // referrence[index + cols*ty]
					nwRow(in, ref, nw+cols*k+1)
				case k == nwBlock+1: // matrix_cuda[index_w + cols*tx]
					for tx := 0; tx < nwBlock; tx++ {
						benchmarks.AddLane(in, benchmarks.Elem(mat, nw+cols*(tx+1), benchmarks.FloatBytes))
					}
				case k == nwBlock+2: // matrix_cuda[index_n]
					nwRow(in, mat, nw+1)
				default: // matrix_cuda[index + ty*cols]
					if k == nwBlock+3 {
						in.Compute = nwDiagCycles
					}
					in.Write = true
					nwRow(in, mat, nw+cols*(k-nwBlock-2)+1)
				}
			}}
		},
	}
}

// nwRow adds the 16 consecutive ints from element i.
func nwRow(in *benchmarks.Instruction, base uint64, i int) {
	for tx := 0; tx < nwBlock; tx++ {
		benchmarks.AddLane(in, benchmarks.Elem(base, i+tx, benchmarks.FloatBytes))
	}
}
