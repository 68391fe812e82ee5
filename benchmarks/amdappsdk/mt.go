package amdappsdk

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// MatrixTranspose is AMDAPPSDK's MatrixTranspose as MGPUSim runs it.
//
// Shape: a square float32 matrix of side n, a multiple of 16 chosen so that
// input plus output come closest to the paper footprint (MTSize times
// Params.Scale): n = 2896 at Table II (64 MB), 4576 at 8 GPUs (160 MB), 6480
// at 16 GPUs (320 MB).
//
// Objects, in allocation (ID) order:
//
//	0 "input"   n*n float32, read only  (OASIS §III-B)
//	1 "output"  n*n float32, write only (OASIS §III-B)
//	2 "kernarg" 48 B: two pointers, the LDS pointer with padding and three
//	            hidden global offsets; see benchmarks.AllocKernarg for why it is here.
//
// One kernel, (n/16)^2 workgroups of 16x16 work-items (4 wavefronts).
// Workgroup wg handles tile (tx, ty) = (wg mod n/16, wg div n/16), x
// fastest as OpenCL numbers workgroups. Work-item (x, y) of the tile is lane
// (y mod 4)*16 + x of wavefront y/4. Each wavefront issues three memory
// instructions:
//
//  1. the scalar load of the kernel arguments (1 lane, object 2);
//  2. a read of input[ty*16+y][tx*16+x]: 4 rows of 16 consecutive floats,
//     4 lines, coalesced along rows;
//  3. after the tile has gone through LDS (ds_write, barrier, ds_read,
//     modelled as Compute cycles), a write of output[tx*16+x][ty*16+y]:
//     lanes with consecutive x stride by the row pitch, so one instruction
//     spans 16 rows, 16 lines and (with 4 KB pages and n >= 1024) 16 pages.
//     This is the scatter pattern the brief of this model asks for.
//
// Known simplifications: AMDAPPSDK's kernel reshuffles workgroups along
// diagonals to spread DRAM banks and writes the transposed tile from LDS
// row by row; this model keeps the plain workgroup order and writes the
// tile column-wise. Per workgroup the set of input and output elements, and
// so of pages, is the same; only the per-instruction line count of the
// write and which workgroup handles which tile differ.
type MatrixTranspose struct{}

const (
	// mtKernargBytes is MGPUSim's MatrixTranspose kernel-argument struct.
	mtKernargBytes = 48
	// mtLDSCycles is the tile's trip through LDS between the global read
	// and the global write: ds_write, s_barrier, ds_read (about 64 cycles
	// of GCN LDS latency) and the transposed index arithmetic. An
	// estimate; the papers give no instruction timing.
	mtLDSCycles = 96
	// mtInstructions is the memory instructions per wavefront.
	mtInstructions = 3
)

// MTSize: MatrixTranspose, 64 MB and 3 objects in OASIS Table II; 160 MB
// (8 GPUs) and 320 MB (16 GPUs) in Table III.
var MTSize = benchmarks.PaperSize{TableII: 64 * benchmarks.MiB, TableIII8: 160 * benchmarks.MiB, TableIII16: 320 * benchmarks.MiB}

func init() {
	benchmarks.Register("mt", func() benchmarks.Workload { return MatrixTranspose{} })
}

// Info implements Workload.
func (MatrixTranspose) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "mt",
		Description: "AMDAPPSDK MatrixTranspose: 16x16 LDS tiles, row reads, strided (scatter) writes",
		Suite:       benchmarks.SuiteAMDAPPSDK,
		PaperSize:   MTSize,
	}
}

// MTSide returns the matrix side mt uses for p.
func MTSide(p benchmarks.Params) (int, error) {
	fp, err := MTSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	return squareSide(fp, 2, benchmarks.Tile), nil
}

// Setup implements Workload.
func (MatrixTranspose) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := MTSide(p)
	if err != nil {
		return nil, err
	}
	bytes := uint64(n) * uint64(n) * benchmarks.FloatBytes
	in, err := alloc.MallocManaged(bytes, "input")
	if err != nil {
		return nil, err
	}
	out, err := alloc.MallocManaged(bytes, "output")
	if err != nil {
		return nil, err
	}
	karg, err := benchmarks.AllocKernarg(alloc, mtKernargBytes)
	if err != nil {
		return nil, err
	}
	ids := benchmarks.LastObjects(alloc, 3)
	tiles := n / benchmarks.Tile
	return []benchmarks.Kernel{{
		Name:                   "matrixTranspose",
		Args:                   ids,
		Workgroups:             tiles * tiles,
		WavefrontsPerWorkgroup: tileWavefronts,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			x0 := wg % tiles * benchmarks.Tile
			y0 := wg/tiles*benchmarks.Tile + wf*benchmarks.TileRows
			return &benchmarks.Loop{N: mtInstructions, Gen: func(i int, ins *benchmarks.Instruction) {
				switch i {
				case 0:
					benchmarks.GenKernarg(ins, karg)
				case 1:
					ins.Compute = benchmarks.IndexCycles
					benchmarks.FillRows(ins, in, n, y0, x0)
				default:
					ins.Compute = mtLDSCycles
					ins.Write = true
					fillColumns(ins, out, n, y0, x0)
				}
			}}
		},
	}}, nil
}
