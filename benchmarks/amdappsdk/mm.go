package amdappsdk

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// MatrixMultiplication is AMDAPPSDK's tiled MatrixMultiplication (the LDS
// kernel), C = A x B, as MGPUSim runs it.
//
// Shape: square float32 matrices of side n, a multiple of 16 chosen so that
// A, B and C together come closest to the paper footprint (MMSize times
// Params.Scale): n = 1680 at Table II (32.3 MB of 32 MB), 3344 at 8 GPUs
// (128 MB), 4096 at 16 GPUs (192 MB).
//
// Objects, in allocation (ID) order:
//
//	0 "A"       n*n float32, read only, shared: each row of tiles is read by
//	            n/16 workgroups (OASIS §III-B)
//	1 "B"       n*n float32, read only, shared: each column of tiles is
//	            read by n/16 workgroups
//	2 "C"       n*n float32, write only, private: each element written once
//	3 "kernarg" 64 B: three pointers, the widths, the LDS pointers and
//	            three hidden global offsets; see benchmarks.AllocKernarg.
//
// One kernel, (n/16)^2 workgroups, one per 16x16 tile of C, 4 wavefronts
// each. Workgroup wg computes tile (tx, ty) = (wg mod n/16, wg div n/16);
// work-item (x, y) is lane (y mod 4)*16 + x of wavefront y/4. A wavefront
// issues 2 + 2*(n/16) memory instructions:
//
//  1. the scalar load of the kernel arguments (1 lane, object 3);
//  2. for each k-tile kt in 0 .. n/16-1: a load of A[ty*16+y][kt*16+x] and
//     a load of B[kt*16+y][tx*16+x] (each 4 rows x 16 floats, 4 lines) into
//     LDS, then 16 FMAs out of LDS, charged as Compute cycles before the
//     next instruction;
//  3. the store of C[ty*16+y][tx*16+x].
//
// At Table II that is 44100 wavefronts x 212 = 9.35M memory instructions
// (see MMInstructions); at 8 and 16 GPUs 73.4M and 134.7M.
type MatrixMultiplication struct{}

const (
	// mmKernargBytes is MGPUSim's MatrixMultiplication kernel-argument
	// struct, rounded up to 64 B.
	mmKernargBytes = 64
	// mmTileCycles is the work on one k-tile after its loads: ds_write of
	// the A and B elements, s_barrier, 16 x (2 ds_read + v_fma) issued at
	// 4 cycles each on GCN, about 64 cycles of LDS latency, and the closing
	// barrier. An estimate; the papers give no instruction timing.
	mmTileCycles = 256
)

// MMSize: MatrixMultiplication, 32 MB and 4 objects in OASIS Table II;
// 128 MB (8 GPUs) and 192 MB (16 GPUs) in Table III.
var MMSize = benchmarks.PaperSize{TableII: 32 * benchmarks.MiB, TableIII8: 128 * benchmarks.MiB, TableIII16: 192 * benchmarks.MiB}

func init() {
	benchmarks.Register("mm", func() benchmarks.Workload { return MatrixMultiplication{} })
}

// Info implements Workload.
func (MatrixMultiplication) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "mm",
		Description: "AMDAPPSDK MatrixMultiplication: C = A x B with 16x16 LDS tiles; A, B shared read-only",
		Suite:       benchmarks.SuiteAMDAPPSDK,
		PaperSize:   MMSize,
	}
}

// MMSide returns the matrix side mm uses for p.
func MMSide(p benchmarks.Params) (int, error) {
	fp, err := MMSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	return squareSide(fp, 3, benchmarks.Tile), nil
}

// MMInstructions is the number of memory instructions mm issues for matrix
// side n (over all wavefronts).
func MMInstructions(n int) uint64 {
	tiles := uint64(n / benchmarks.Tile)
	return tiles * tiles * tileWavefronts * (2 + 2*tiles)
}

// Setup implements Workload.
func (MatrixMultiplication) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := MMSide(p)
	if err != nil {
		return nil, err
	}
	bytes := uint64(n) * uint64(n) * benchmarks.FloatBytes
	var ptr [3]uint64
	for i, name := range []string{"A", "B", "C"} {
		if ptr[i], err = alloc.MallocManaged(bytes, name); err != nil {
			return nil, err
		}
	}
	karg, err := benchmarks.AllocKernarg(alloc, mmKernargBytes)
	if err != nil {
		return nil, err
	}
	ids := benchmarks.LastObjects(alloc, 4)
	a, b, c := ptr[0], ptr[1], ptr[2]
	tiles := n / benchmarks.Tile
	last := 1 + 2*tiles
	return []benchmarks.Kernel{{
		Name:                   "mmmKernel_local",
		Args:                   ids,
		Workgroups:             tiles * tiles,
		WavefrontsPerWorkgroup: tileWavefronts,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			x0 := wg % tiles * benchmarks.Tile
			y0 := wg/tiles*benchmarks.Tile + wf*benchmarks.TileRows
			return &benchmarks.Loop{N: last + 1, Gen: func(i int, ins *benchmarks.Instruction) {
				switch {
				case i == 0:
					benchmarks.GenKernarg(ins, karg)
				case i == last:
					ins.Compute = mmTileCycles
					ins.Write = true
					benchmarks.FillRows(ins, c, n, y0, x0)
				case i%2 == 1: // A tile of k-tile (i-1)/2
					kt := (i - 1) / 2
					if kt == 0 {
						ins.Compute = benchmarks.IndexCycles
					} else {
						ins.Compute = mmTileCycles
					}
					benchmarks.FillRows(ins, a, n, y0, kt*benchmarks.Tile)
				default: // B tile of k-tile (i-2)/2
					kt := (i - 2) / 2
					benchmarks.FillRows(ins, b, n, kt*benchmarks.Tile+wf*benchmarks.TileRows, x0)
				}
			}}
		},
	}}, nil
}
