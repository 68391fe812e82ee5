package amdappsdk

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// GEMM is GRIT's GEMM ("GRIT: Enhancing Multi-GPU Performance with
// Fine-Grained Dynamic Page Placement", HPCA 2024, Table II: AMDAPPSDK,
// scatter-gather, 16 MB). MGPUSim's AMD APP SDK port, whose kernels GRIT
// ran, has no GEMM; the GEMM kernel MGPUSim does have is its tensor
// operator's (amd/benchmarks/dnn/gputensor: operator.go loads gemm_old
// from gemm.cl for matrixMultiplication), and this models that kernel:
// D = alpha A B + beta C, one work-item per element of D, no tiling.
//
// Shape: square float32 matrices of side n, a multiple of 16, whose four
// arrays fill the footprint: n = 1024 at 16 MiB.
//
// Objects, in allocation (ID) order (the operator's operands, then the D
// it creates):
//
//	0 "A"       n*n float32, read only
//	1 "B"       n*n float32, read only
//	2 "C"       n*n float32, read only
//	3 "D"       n*n float32, written once
//	4 "kernarg" the kernel arguments
//
// One launch over an n x n grid in 16x16 workgroups, as the operator
// launches it; workgroup wg = by*(n/16) + bx, and work-item (tx, ty)
// computes D[y][x], y = 16by + ty, x = 16bx + tx. Wavefront wf holds rows
// ty = 4wf .. 4wf+3 (lane 16*(ty-4wf) + tx) and issues 2n + 3
// instructions:
//
//  1. the kernel-argument load;
//  2. for each z: the load of A[y][z] (four addresses, one per row: the 16
//     work-items of a row read the same float) and of B[z][x] (16
//     consecutive floats, shared by the four rows);
//  3. the load of C[y][x] and the store of D[y][x] (four rows of 16).
//
// That is n*n/64 x (2n + 3) = 33.6M instructions at 16 MiB. Every
// workgroup row reads all of B and the workgroups of one row share A's
// rows: with the grid split over GPUs by contiguous workgroups, B is read
// by every GPU and A's rows mostly by one.
type GEMM struct{}

// gemmBlock is the operator's 16x16 workgroup (blockSize).
const gemmBlock = 16

// GEMMSize is GEMM's footprint in GRIT Table II.
var GEMMSize = benchmarks.FlatSize(16 * benchmarks.MiB)

func init() {
	benchmarks.Register("gemm", func() benchmarks.Workload { return GEMM{} })
}

// Info implements Workload.
func (GEMM) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "gemm",
		Description: "MGPUSim gputensor gemm_old (GRIT's GEMM, listed as AMDAPPSDK): D = aAB + bC, one work-item per element, 16x16 workgroups",
		Suite:       "MGPUSim gputensor",
		Aliases:     []string{"GEMM"},
		PaperSize:   GEMMSize,
	}
}

// Setup implements Workload.
func (GEMM) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	fp, err := GEMMSize.Footprint(p)
	if err != nil {
		return nil, err
	}
	n := benchmarks.FitSide(fp, gemmBlock, func(n int) uint64 { return 4 * uint64(n*n) * benchmarks.FloatBytes })
	bytes := uint64(n*n) * benchmarks.FloatBytes
	a, err := alloc.MallocManaged(bytes, "A")
	if err != nil {
		return nil, err
	}
	b := alloc.MustMalloc(bytes, "B")
	c := alloc.MustMalloc(bytes, "C")
	d := alloc.MustMalloc(bytes, "D")
	karg, err := benchmarks.AllocKernarg(alloc, 64)
	if err != nil {
		return nil, err
	}
	gx := n / gemmBlock
	const rows = benchmarks.WavefrontSize / gemmBlock // rows of a wavefront
	last := 2*n + 2
	return []benchmarks.Kernel{{
		Name: "gemm_old", Args: benchmarks.LastObjects(alloc, 5),
		Workgroups: gx * gx, WavefrontsPerWorkgroup: gemmBlock * gemmBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			y0, x0 := wg/gx*gemmBlock+wf*rows, wg%gx*gemmBlock
			return &benchmarks.Loop{N: last + 1, Gen: func(i int, in *benchmarks.Instruction) {
				switch {
				case i == 0:
					benchmarks.GenKernarg(in, karg)
				case i < last-1:
					z := (i - 1) / 2
					if (i-1)%2 == 0 { // A[y][z] for the wavefront's four rows
						in.Compute = benchmarks.LoadCycles
						benchmarks.AddBlock(in, a, n, y0, rows, n, z, 1, n)
					} else { // B[z][x]: one row of 16
						in.Compute = benchmarks.FMACycles
						benchmarks.AddBlock(in, b, n, z, 1, n, x0, gemmBlock, n)
					}
				default: // C[y][x], then D[y][x]
					in.Compute = benchmarks.FMACycles
					in.Write = i == last
					base := c
					if in.Write {
						base = d
					}
					benchmarks.AddBlock(in, base, n, y0, rows, n, x0, gemmBlock, n)
				}
			}}
		},
	}}, nil
}
