package cuda

import "github.com/mgpu-sim/mgpu/benchmarks"

// MMTiled is the CUDA samples' tiled matrix multiplication (matrixMul's
// MatrixMulCUDA with block_size 32), the shared-memory kernel issue 16
// names for ObservUVM's and SUV's MM: C = A x B through 32x32 tiles. It is
// not `mm`, which is AMDAPPSDK's 16x16 LDS kernel as OASIS runs it.
//
// Shape: square float32 matrices of side n (wA = hA = wB = hB), a
// multiple of 32 (the sample needs whole tiles), whose three arrays come
// closest to the footprint (MMTiledSize times Params.Scale): n = 2656 at
// scale 1 (80.7 MiB of 80.8), scale 128 is ObservUVM's 10.1 GB (n =
// 30048), scale 71.3 SUV's 5760 MB (n = 22432).
//
// Objects, in allocation (ID) order (the sample's d_A, d_B, d_C):
//
//	0 "A" n*n float32, read only: block row by reads its 32 rows
//	1 "B" n*n float32, read only: every block reads all of it, one
//	      32-column strip
//	2 "C" n*n float32, write only, each element once
//
// One launch of (n/32)^2 blocks of 32x32 threads, workgroup wg = by*(n/32)
// + bx (x fastest); thread (tx, ty) computes C[32by+ty][32bx+tx].
// Wavefront wf holds block rows 2wf and 2wf+1 (lane 32*(ty-2wf) + tx), 16
// wavefronts a block, and issues 2*(n/32) + 1 instructions:
//
//  1. for each tile t in 0 .. n/32-1: the load of A[32by+ty][32t+tx] and
//     the load of B[32t+ty][32bx+tx] into shared memory (each two rows of
//     32 floats), then __syncthreads, 32 multiply-adds out of shared
//     memory and __syncthreads, charged before the next load;
//  2. the store of C[32by+ty][32bx+tx].
//
// At scale 1 that is 110224 wavefronts x 167 = 18.4M instructions. A and
// C are touched a block row at a time and B whole by every block row, the
// pattern for which ObservUVM prefers LRU.
//
// Known simplification: the sample launches the kernel once to warm up and
// 300 times timed, each launch repeating the same accesses; the model runs
// one launch and takes no Params.Iterations.
//
// Class: regular, assigned here from the access pattern (dense tiles, a
// few VA blocks at a time); Early-Adaptor does not run it.
//
// Access facts: A, B and C are Analysable, with affine addresses (block,
// thread, tile t) and no host loop. A and B have n^3/32 accesses each (64
// lanes per wavefront and tile), C n^2. One block's range: A is its 32
// rows whole (32n floats), B a 32-column strip of every row ((n-1)n + 32),
// C 32 rows of 32 (31n + 32). Table I's T for MM is the simulator's call
// from these ranges (A's block row is small at SUV's size).
type MMTiled struct{ benchmarks.DenseLinalg }

// mmTiledDense is mm-tiled's Info, shape and kernel.
var mmTiledDense = benchmarks.DenseLinalg{
	Facts: benchmarks.Info{
		Name:              "mm-tiled",
		Description:       "CUDA samples matrixMul: C = A x B with 32x32 shared-memory tiles (ObservUVM/SUV MM)",
		Suite:             benchmarks.SuiteCUDASamples,
		Aliases:           []string{"MM"},
		Class:             benchmarks.ClassRegular,
		PaperSize:         MMTiledSize,
		PreferredEviction: benchmarks.ObservUVMLRU,
		DeclaresAccess:    true,
	},
	Mult:     mmTiledBlock,
	Matrices: []string{"A", "B", "C"},
	Kernels:  mmTiledKernels,
}

const (
	// mmTiledBlock is the sample's block_size.
	mmTiledBlock = 32
	// mmTiledCycles is one 32x32 tile's work after its loads: twice the
	// 256 cycles AMDAPPSDK mm charges for a 16x16 tile's 16 multiply-adds.
	mmTiledCycles = 2 * 256
	// mmTiledRows is the block rows one wavefront holds.
	mmTiledRows = benchmarks.WavefrontSize / mmTiledBlock
)

// MMTiledSize is mm-tiled's scale-1 footprint: its reference footprint over
// LinalgScales.
var MMTiledSize = benchmarks.LinalgSize("mm-tiled")

func init() {
	benchmarks.Register(mmTiledDense.Facts.Name, func() benchmarks.Workload { return MMTiled{mmTiledDense} })
}

// MMTiledSide returns the matrix side mm-tiled uses for p.
func MMTiledSide(p benchmarks.Params) (int, error) { return mmTiledDense.Side(p) }

// mmTiledKernels is MatrixMulCUDA over A, B and C.
func mmTiledKernels(m benchmarks.DenseObjects) []benchmarks.Kernel {
	n, ids := m.N, m.IDs
	a, b, c := m.Base[0], m.Base[1], m.Base[2]
	tiles := n / mmTiledBlock
	last := 2 * tiles
	nn := int64(n)
	return []benchmarks.Kernel{{
		Name: "MatrixMulCUDA", Args: ids,
		Access: []benchmarks.Access{
			benchmarks.AnalysableAccess(ids[0], nn*nn*nn/mmTiledBlock, benchmarks.FloatSpan(0, mmTiledBlock*nn-1)),
			benchmarks.AnalysableAccess(ids[1], nn*nn*nn/mmTiledBlock, benchmarks.FloatSpan(0, (nn-1)*nn+mmTiledBlock-1)),
			benchmarks.AnalysableAccess(ids[2], nn*nn, benchmarks.FloatSpan(0, (mmTiledBlock-1)*nn+mmTiledBlock-1)),
		},
		Workgroups: tiles * tiles, WavefrontsPerWorkgroup: mmTiledBlock * mmTiledBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			i0 := wg/tiles*mmTiledBlock + wf*mmTiledRows
			j0 := wg % tiles * mmTiledBlock
			return &benchmarks.Loop{N: last + 1, Gen: func(i int, in *benchmarks.Instruction) {
				switch {
				case i == last:
					in.Compute = mmTiledCycles
					in.Write = true
					benchmarks.AddBlock(in, c, n, i0, mmTiledRows, n, j0, mmTiledBlock, n)
				case i%2 == 0: // A, tile i/2
					in.Compute = mmTiledCycles
					if i == 0 {
						in.Compute = benchmarks.IndexCycles
					}
					benchmarks.AddBlock(in, a, n, i0, mmTiledRows, n, i/2*mmTiledBlock, mmTiledBlock, n)
				default: // B, tile i/2
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddBlock(in, b, n, i/2*mmTiledBlock+i0%mmTiledBlock, mmTiledRows, n, j0, mmTiledBlock, n)
				}
			}}
		},
	}}
}
