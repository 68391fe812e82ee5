package amdappsdk

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// MatrixMultiplication is AMDAPPSDK's MatrixMultiplication, C = A x B, as
// MGPUSim runs it: its kernel mmmKernel_local (sarchlab/mgpusim v3.0.3,
// benchmarks/amdappsdk/matrixmultiplication: MatrixMultiplication_Kernels.cl
// and mm.go), instruction for instruction in its global accesses.
//
// Shape: square float32 matrices of side n, a multiple of 32 (one
// workgroup's tile of C) chosen so that A, B and C together come closest
// to the paper footprint (MMSize times Params.Scale): n = 1664 at Table II
// (31.7 MB of 32 MB).
//
// Objects, in allocation (ID) order:
//
//	0 "A"       n*n float32, read only, shared (see below)
//	1 "B"       n*n float32, read only, shared: every workgroup reads a
//	            32-float column strip of all n rows
//	2 "C"       n*n float32, write only, private: each element written once
//	3 "kernarg" 64 B: three pointers, the width, the LDS pointer and
//	            three hidden global offsets; see benchmarks.AllocKernarg.
//
// One kernel, global (n/4, n/4) work-items in workgroups of 8x8, so
// (n/32)^2 workgroups of one wavefront; work-item (lx, ly) of group
// (gx, gy), lane ly*8 + lx, computes four float4 rows of C, a 4x4 block,
// so a workgroup computes a 32x32 tile. Its wavefront issues, as the
// kernel does:
//
//  1. the scalar load of the kernel arguments (1 lane, object 3);
//  2. for each of the n/32 blocks i: four float4 loads of A into LDS, rows
//     4*ly + k (k = 0..3) at float4 column 8*i + lx; then, for j = 0, 4,
//     .., 28, four float4 loads of B, row 32*i + j + m (m = 0..3) at float4
//     column 8*gx + lx, and the 64 multiply-adds out of LDS and registers,
//     charged as Compute cycles;
//  3. four float4 stores of C, rows 32*gy + 4*ly + k, float4 column
//     8*gx + lx.
//
// A's rows are indexed by the local id (.cl line 55: globalPosA = i*lSizeX
// + lIdX + (lIdY << TILEY_SHIFT)*temp), so every workgroup reads the same
// 32 rows of A: MGPUSim's kernel computes a wrong product, and its
// benchmark's check does not run (its inner loop tests i, not j). It is
// the kernel the OASIS paper's simulator executed, and what makes MM_A
// shared-read-only in its Fig. 5 and MM about half private in its Fig. 20;
// mgpu runs it as MGPUSim does. B's loads are the same address for the 8
// lanes of one lx, so each coalesces to two lines of one row.
//
// At Table II that is 2704 wavefronts x 1877 = 5.08M memory instructions
// (see MMInstructions).
type MatrixMultiplication struct{}

const (
	// mmKernargBytes is MGPUSim's MatrixMultiplication kernel-argument
	// struct, rounded up to 64 B.
	mmKernargBytes = 64
	// mmTile is the side of a workgroup's tile of C, and mmGroup the side
	// of its 8x8 workgroup.
	mmTile  = 32
	mmGroup = 8
	// mmBlockCycles is the work after a block's four A loads: four
	// ds_write, the barrier and its LDS latency (about 64 cycles on
	// GCN). mmFMACycles is the work after each group of four B loads:
	// four ds_read and 64 v_mac_f32 at 4 cycles each on a GCN SIMD. Both
	// are estimates; the papers give no instruction timing.
	mmBlockCycles = 96
	mmFMACycles   = 272
	// mmBLoads is the B loads of one block (j = 0, 4, .., 28, four each).
	mmBLoads = 4 * mmTile / 4
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
	return squareSide(fp, 3, mmTile), nil
}

// MMInstructions is the number of memory instructions mm issues for matrix
// side n (over all wavefronts).
func MMInstructions(n int) uint64 {
	blocks := uint64(n / mmTile)
	return blocks * blocks * (1 + blocks*(4+mmBLoads) + 4)
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
	nb := n / mmTile
	perBlock := 4 + mmBLoads
	last := 1 + nb*perBlock // the first store of C
	return []benchmarks.Kernel{{
		Name:                   "mmmKernel_local",
		Args:                   ids,
		Workgroups:             nb * nb,
		WavefrontsPerWorkgroup: 1,
		Wavefront: func(wg, _, _ int) benchmarks.Stream {
			gx, gy := wg%nb, wg/nb
			return &benchmarks.Loop{N: last + 4, Gen: func(i int, ins *benchmarks.Instruction) {
				switch {
				case i == 0:
					benchmarks.GenKernarg(ins, karg)
				case i >= last: // C, rows 32*gy + 4*ly + k
					ins.Write = true
					if i == last {
						ins.Compute = mmFMACycles
					}
					fillMM(ins, c, n, mmTile*gy+i-last, 4, mmTile*gx, 4)
				default:
					blk, r := (i-1)/perBlock, (i-1)%perBlock
					switch {
					case r < 4: // A, rows 4*ly + r: the local id, as MGPUSim's kernel
						switch {
						case r > 0:
						case blk == 0:
							ins.Compute = benchmarks.IndexCycles
						default:
							ins.Compute = mmFMACycles
						}
						fillMM(ins, a, n, r, 4, mmTile*blk, 4)
					default: // B, row 32*blk + (r-4), every ly alike
						if r == 4 {
							ins.Compute = mmBlockCycles
						} else if (r-4)%4 == 0 {
							ins.Compute = mmFMACycles
						}
						fillMM(ins, b, n, mmTile*blk+r-4, 0, mmTile*gx, 4)
					}
				}
			}}
		},
	}}, nil
}

// fillMM fills the 64 lanes of an 8x8 workgroup: lane ly*8 + lx accesses
// the float4 at row row0 + rowStep*ly, float column col0 + colStep*lx.
func fillMM(in *benchmarks.Instruction, base uint64, pitch, row0, rowStep, col0, colStep int) {
	in.Lanes = benchmarks.WavefrontSize
	for ly := 0; ly < mmGroup; ly++ {
		a := base + uint64((row0+rowStep*ly)*pitch+col0)*benchmarks.FloatBytes
		for lx := 0; lx < mmGroup; lx++ {
			in.Addr[ly*mmGroup+lx] = a + uint64(colStep*lx)*benchmarks.FloatBytes
		}
	}
}
