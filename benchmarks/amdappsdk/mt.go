package amdappsdk

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// MatrixTranspose is AMDAPPSDK's MatrixTranspose as MGPUSim runs it
// (sarchlab/mgpusim v3.0.3, benchmarks/amdappsdk/matrixtranspose:
// MatrixTranspose_Kernels.cl and matrixtranspose.go).
//
// Shape: a square float32 matrix of side n, a multiple of 64 (one
// workgroup's tile) chosen so that input plus output come closest to the
// paper footprint (MTSize times Params.Scale): n = 2880 at Table II
// (63.3 MB).
//
// Objects, in allocation (ID) order:
//
//	0 "input"   n*n float32, read only  (OASIS §III-B)
//	1 "output"  n*n float32, write only (OASIS §III-B)
//	2 "kernarg" 48 B: two pointers, the LDS pointer with padding and three
//	            hidden global offsets; see benchmarks.AllocKernarg for why it is here.
//
// One kernel, (n/64)^2 workgroups of 16x16 work-items (4 wavefronts), each
// work-item moving a 4x4 block of floats as float4s, so a workgroup moves a
// 64x64 tile (matrixtranspose.go: blockSize 16, elemsPerThread1Dim 4).
// Workgroup wg is group (gx, gy) = (wg mod n/64, wg div n/64), x fastest
// as OpenCL numbers workgroups, and the kernel reshuffles groups along
// diagonals (.cl lines 50-52): giy = gx, gix = (gx + gy) mod n/64. Work-item
// (lix, liy) is lane (liy mod 4)*16 + lix of wavefront liy/4. Each
// wavefront issues nine memory instructions:
//
//  1. the scalar load of the kernel arguments (1 lane, object 2);
//  2. four loads k = 0..3 of input rows 64*giy + 4*liy + k at float4
//     column 16*gix + lix: 4 rows of 256 consecutive bytes each;
//  3. after the tile has gone through LDS (ds_write, barrier, ds_read,
//     modelled as Compute cycles), four stores j = 0..3 of output rows
//     64*gix + 4*liy + j at float4 column 16*giy + lix, row-wise coalesced
//     as the LDS read-back makes them (.cl lines 72-88).
//
// The reshuffle is what decides sharing under a static split of the
// workgroups over GPUs (MGPUSim's unified driver gives each GPU a
// contiguous block of them, the mgpusim distribution): a page of a row
// holds 16 column tiles, read by 16 consecutive gy, which span two GPUs,
// so nearly every page is shared, as OASIS Fig. 20 shows for MT.
type MatrixTranspose struct{}

const (
	// mtKernargBytes is MGPUSim's MatrixTranspose kernel-argument struct.
	mtKernargBytes = 48
	// mtLDSCycles is the tile's trip through LDS between the global read
	// and the global write: ds_write, s_barrier, ds_read (about 64 cycles
	// of GCN LDS latency) and the transposed index arithmetic. An
	// estimate; the papers give no instruction timing.
	mtLDSCycles = 96
	// mtTile is the side of one workgroup's tile in floats, and
	// mtVec the floats a work-item moves per access (a float4).
	mtTile = 64
	mtVec  = 4
	// mtInstructions is the memory instructions per wavefront: the
	// kernel arguments, four loads and four stores.
	mtInstructions = 1 + 2*mtVec
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
	return squareSide(fp, 2, mtTile), nil
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
	nb := n / mtTile
	return []benchmarks.Kernel{{
		Name:                   "matrixTranspose",
		Args:                   ids,
		Workgroups:             nb * nb,
		WavefrontsPerWorkgroup: tileWavefronts,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			gx, gy := wg%nb, wg/nb
			giy, gix := gx, (gx+gy)%nb // the kernel's diagonal reshuffle
			liy0 := wf * benchmarks.TileRows
			return &benchmarks.Loop{N: mtInstructions, Gen: func(i int, ins *benchmarks.Instruction) {
				switch {
				case i == 0:
					benchmarks.GenKernarg(ins, karg)
				case i <= mtVec:
					if i == 1 {
						ins.Compute = benchmarks.IndexCycles
					}
					fillFloat4Rows(ins, in, n, mtTile*giy+mtVec*liy0+i-1, mtTile*gix)
				default:
					if i == mtVec+1 {
						ins.Compute = mtLDSCycles
					}
					ins.Write = true
					fillFloat4Rows(ins, out, n, mtTile*gix+mtVec*liy0+i-1-mtVec, mtTile*giy)
				}
			}}
		},
	}}, nil
}
