package polybench

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// FDTD2D is PolyBench/GPU's FDTD-2D (2-D finite-difference time-domain
// electromagnetics) as UVMSmart ports it and Early-Adaptor runs it: tmax
// time steps of three kernels each.
//
// Shape: square fields of side n (NX = NY), a multiple of 32, whose four
// arrays come closest to the footprint (FDTD2DSize times Params.Scale):
// n = 4800 at scale 1 (263.7 MB), 27168 at scale 32 (EA's 8445 MB).
// UVMSmart's own input, n = 1200, is not a multiple of 32: the nearest in
// bytes, n = 1184, is scale 0.062479 (UVMMU's paper size).
//
// Objects, in allocation (ID) order:
//
//	0 "_fict_" tmax float32, the source term, read one element per step
//	1 "ex"     n*(n+1) float32 (row pitch n+1)
//	2 "ey"     (n+1)*n float32
//	3 "hz"     n*n float32
//
// Each time step t launches three kernels over a grid of (n/32) x (n/8)
// blocks of 32x8 threads, mapped as in 2dconv (see Convolution2D): thread
// (i, j), wavefront wf holding block rows 2wf and 2wf+1. Per wavefront:
//
//   - fdtd_step1_kernel (args _fict_, ex, ey, hz): the lanes of row 0 load
//     _fict_[t] (one address) and store ey[0][j]; that branch exists only
//     in the wavefront holding row 0. The other lanes load ey[i][j],
//     hz[i][j], hz[i-1][j] and store ey[i][j]: 4 instructions (6 in the
//     top wavefront);
//   - fdtd_step2_kernel (ex, ey, hz): lanes with j > 0 load ex[i][j],
//     hz[i][j], hz[i][j-1] and store ex[i][j]: 4;
//   - fdtd_step3_kernel (ex, ey, hz): load hz[i][j], ex[i][j+1], ex[i][j],
//     ey[i+1][j], ey[i][j], store hz[i][j]: 6.
//
// tmax is 5 by default, UVMSmart's setting (PolyBench's is 500);
// Params.Iterations sets it. That is n*n/64 x 14 = 5.0M instructions per
// step, 25M at scale 1.
//
// Class: regular (Early-Adaptor Table II).
//
// Access facts: ex, ey and hz are Analysable in every launch (SUV's Table
// I: D for FDT). Their addresses are affine in i and j and ignore t.
// _fict_[t] is the one address the time loop moves, so _fict_ is HostLoop
// (offset 0, stride 4, span 4, over tmax). This departs from Table I's
// plain D, but the array is a few bytes under one page, so a prefetch
// window covers all of it and SUV's plan treats it as Density anyway.
// Accesses count the threads on each memop's branch (i == 0, i > 0, j >
// 0), which depend on i and j only. A full-grid operand is n^2. Those with
// i > 0 or j > 0 are n^2 - n. The row-0 store of ey is n, and so is
// _fict_: the n row-0 threads all load _fict_[t], one broadcast lane in
// the stream for the 32 of them in each top wavefront. One block's range
// covers 8 rows of 32 at the operand's pitch, widened by the stencil
// offsets (hz[i-1] adds a row, ex[j+1] a column).
type FDTD2D struct{}

// fdtdSteps is the default tmax, UVMSmart's fdtd2d.cu (#define tmax 5).
const fdtdSteps = 5

// fdtdFlopCycles is the update arithmetic before a store.
const fdtdFlopCycles = 16

// FDTD2DSize is fdtd2d's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var FDTD2DSize = benchmarks.EASize("fdtd2d")

func init() {
	benchmarks.Register("fdtd2d", func() benchmarks.Workload { return FDTD2D{} })
}

// Info implements Workload.
func (FDTD2D) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:           "fdtd2d",
		Description:    "PolyBench/GPU FDTD-2D: 3 stencil kernels per time step over ex, ey, hz (5 steps)",
		Suite:          benchmarks.SuitePolyBench,
		Aliases:        []string{"FDT"},
		Class:          benchmarks.ClassRegular,
		PaperSize:      FDTD2DSize,
		DeclaresAccess: true,
	}
}

// FDTD2DShape returns the field side and the number of time steps fdtd2d
// uses for p.
func FDTD2DShape(p benchmarks.Params) (n, tmax int, err error) {
	tmax = fdtdSteps
	if p.Iterations > 0 {
		tmax = p.Iterations
	}
	fp, err := FDTD2DSize.Footprint(p)
	if err != nil {
		return 0, 0, err
	}
	n = benchmarks.FitSide(fp, convBlockX, func(n int) uint64 {
		return benchmarks.FloatBytes * uint64(tmax+n*(n+1)+(n+1)*n+n*n)
	})
	return n, tmax, nil
}

// Lane sets of a grid access.
const (
	lanesAll   = iota
	lanesRow0  // i == 0
	lanesBelow // i > 0
	lanesRight // j > 0
	lanesOne   // one address, element dj of the array
)

// gridAccess is one instruction of a 2-D kernel: the threads in lanes
// access element [i+di][j+dj] of the array at base with row pitch pitch.
type gridAccess struct {
	base          uint64
	pitch, di, dj int
	lanes         int
	write         bool
}

// Setup implements Workload.
func (FDTD2D) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, tmax, err := FDTD2DShape(p)
	if err != nil {
		return nil, err
	}
	fict, err := alloc.MallocManaged(uint64(tmax)*benchmarks.FloatBytes, "_fict_")
	if err != nil {
		return nil, err
	}
	ex := alloc.MustMalloc(uint64(n)*uint64(n+1)*benchmarks.FloatBytes, "ex")
	ey := alloc.MustMalloc(uint64(n+1)*uint64(n)*benchmarks.FloatBytes, "ey")
	hz := alloc.MustMalloc(uint64(n)*uint64(n)*benchmarks.FloatBytes, "hz")
	id := benchmarks.LastObjects(alloc, 4)
	var ks []benchmarks.Kernel
	for t := 0; t < tmax; t++ {
		top := []gridAccess{{base: fict, dj: t, lanes: lanesOne}, {base: ey, pitch: n, lanes: lanesRow0, write: true}}
		step1 := []gridAccess{
			{base: ey, pitch: n, lanes: lanesBelow}, {base: hz, pitch: n, lanes: lanesBelow},
			{base: hz, pitch: n, di: -1, lanes: lanesBelow}, {base: ey, pitch: n, lanes: lanesBelow, write: true},
		}
		step2 := []gridAccess{
			{base: ex, pitch: n + 1, lanes: lanesRight}, {base: hz, pitch: n, lanes: lanesRight},
			{base: hz, pitch: n, dj: -1, lanes: lanesRight}, {base: ex, pitch: n + 1, lanes: lanesRight, write: true},
		}
		step3 := []gridAccess{
			{base: hz, pitch: n}, {base: ex, pitch: n + 1, dj: 1}, {base: ex, pitch: n + 1},
			{base: ey, pitch: n, di: 1}, {base: ey, pitch: n}, {base: hz, pitch: n, write: true},
		}
		ks = append(ks,
			gridKernel("fdtd_step1_kernel", id, n, append(top, step1...), step1),
			gridKernel("fdtd_step2_kernel", id[1:], n, step2, step2),
			gridKernel("fdtd_step3_kernel", id[1:], n, step3, step3))
		h := fdtdAccess(id, n, t, tmax)
		for i := range h {
			ks[len(ks)-3+i].Access = h[i]
		}
	}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}

// fdtdAccess are the accesses of the three kernels of step t over _fict_, ex,
// ey, hz (id).
func fdtdAccess(id []int, n, t, tmax int) [3][]benchmarks.Access {
	nn := int64(n)
	all, cut := nn*nn, nn*nn-nn // every thread; those with i > 0 (or j > 0)
	// rows: a block's 8 rows of 32 at pitch p, from row r0 and column c0
	// to one row and column more than the block when the stencil says.
	rows := func(p, r0, r1, c0, c1 int64) int64 {
		return benchmarks.FloatSpan(r0*p+c0, (convBlockY-1+r1)*p+convBlockX-1+c1)
	}
	return [3][]benchmarks.Access{{
		benchmarks.LoopAccess(id[0], nn, benchmarks.FloatBytes, benchmarks.AffineLoop(t, tmax, 0, benchmarks.FloatBytes, benchmarks.FloatBytes)), // the row-0 threads
		benchmarks.AnalysableAccess(id[2], 2*cut+nn, rows(nn, 0, 0, 0, 0)),
		benchmarks.AnalysableAccess(id[3], 2*cut, rows(nn, -1, 0, 0, 0)),
	}, {
		benchmarks.AnalysableAccess(id[1], 2*cut, rows(nn+1, 0, 0, 0, 0)),
		benchmarks.AnalysableAccess(id[3], 2*cut, rows(nn, 0, 0, -1, 0)),
	}, {
		benchmarks.AnalysableAccess(id[1], 2*all, rows(nn+1, 0, 0, 0, 1)),
		benchmarks.AnalysableAccess(id[2], 2*all, rows(nn, 0, 1, 0, 0)),
		benchmarks.AnalysableAccess(id[3], 2*all, rows(nn, 0, 0, 0, 0)),
	}}
}

// gridKernel is a launch over an n x n grid of 32x8 blocks in which each
// wavefront issues ops, or first (which starts with the row-0 branch) if
// it holds row 0.
func gridKernel(name string, args []int, n int, first, ops []gridAccess) benchmarks.Kernel {
	gx := n / convBlockX
	return benchmarks.Kernel{
		Name: name, Args: args,
		Workgroups: gx * (n / convBlockY), WavefrontsPerWorkgroup: convBlockX * convBlockY / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			i0 := wg/gx*convBlockY + wf*convRows
			j0 := wg % gx * convBlockX
			list := ops
			if i0 == 0 {
				list = first
			}
			return &benchmarks.Loop{N: len(list), Gen: func(k int, in *benchmarks.Instruction) {
				acc := list[k]
				switch {
				case k == 0:
					in.Compute = benchmarks.IndexCycles
				case acc.write:
					in.Compute = fdtdFlopCycles
				default:
					in.Compute = benchmarks.LoadCycles
				}
				in.Write = acc.write
				fillGrid(in, acc, i0, j0)
			}}
		},
	}
}

// fillGrid adds the lanes of acc for the wavefront holding rows i0 and
// i0+1, columns j0 .. j0+31.
func fillGrid(in *benchmarks.Instruction, acc gridAccess, i0, j0 int) {
	if acc.lanes == lanesOne {
		benchmarks.AddLane(in, benchmarks.Elem(acc.base, acc.dj, benchmarks.FloatBytes))
		return
	}
	for r := 0; r < convRows; r++ {
		i := i0 + r
		for c := 0; c < convBlockX; c++ {
			j := j0 + c
			switch {
			case acc.lanes == lanesRow0 && i != 0,
				acc.lanes == lanesBelow && i == 0,
				acc.lanes == lanesRight && j == 0:
				continue
			}
			benchmarks.AddLane(in, benchmarks.Elem(acc.base, (i+acc.di)*acc.pitch+j+acc.dj, benchmarks.FloatBytes))
		}
	}
}
