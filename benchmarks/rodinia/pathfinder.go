package rodinia

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Pathfinder is Rodinia 3.1's PathFinder (dynproc_kernel) as UVMSmart
// ports it and Early-Adaptor runs it: dynamic programming down a rows x
// cols grid of weights, pyramid_height rows per launch, the two result
// rows swapping between launches.
//
// Shape: UVMSmart's run script has rows = 200 and pyramid_height = 10
// (cols = 50000, 40 MB); the model keeps rows and pyramid_height and
// sizes cols so that the three arrays come closest to the footprint
// (PathfinderSize times Params.Scale): cols = 333753 at scale 1 (255.9
// MB), 10680086 at scale 32 (EA's 8189 MB). EA does not give its shape;
// growing cols keeps UVMSmart's 20 launches at every scale. UVMSmart's
// cols = 50000 is scale 0.149812.
//
// Objects, in allocation (ID) order:
//
//	0 "gpuResult0" cols int32, the first row of the grid
//	1 "gpuResult1" cols int32
//	2 "gpuWall"    (rows-1)*cols int32, the other rows, read only
//
// Launch k (t = 10k, 0 <= t < rows-1: 20 launches) runs it = min(10,
// rows-1-t) steps: it reads gpuResult(k mod 2) and writes the other. Each
// launch has ceil(cols/236) blocks of 256 threads (BLOCK_SIZE 256, a halo
// of pyramid_height each side); thread tx of block bx is column xidx =
// (256 - 2*it)*bx - 10 + tx, and lane tx mod 64 of wavefront tx/64. A
// wavefront issues 2 + it instructions:
//
//  1. the load of gpuSrc[xidx] for its columns in the grid;
//  2. for each step i < it, after the LDS min of the previous row, the
//     load of gpuWall[(t+i)*cols + xidx] by the threads still computing
//     (tx in i+1 .. 254-i, and in the grid): a shrinking pyramid;
//  3. the store of gpuResults[xidx] by the threads computed at the last
//     step.
//
// The launch count depends on rows, a shape, so Params.Iterations does
// not apply. That is 20 x 1415 x 4 x 12 = 1.4M instructions at scale 1.
//
// Class: regular (Early-Adaptor Table II).
type Pathfinder struct{}

const (
	// pfBlock is Rodinia's BLOCK_SIZE.
	pfBlock = 256
	// pfRows and pfPyramid are UVMSmart's run script (rows 200, pyramid
	// height 10).
	pfRows    = 200
	pfPyramid = 10
	// pfStepCycles is one step in LDS: three shared reads, two mins and a
	// __syncthreads.
	pfStepCycles = 16 + benchmarks.SyncCycles
)

// PathfinderSize is pathfinder's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var PathfinderSize = benchmarks.EASize("pathfinder")

func init() {
	benchmarks.Register("pathfinder", func() benchmarks.Workload { return Pathfinder{} })
}

// Info implements Workload.
func (Pathfinder) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "pathfinder",
		Description: "Rodinia PathFinder: row-by-row DP over a 200-row weight grid, 10 rows per launch (20 launches)",
		Suite:       benchmarks.SuiteRodinia,
		Aliases:     []string{"PF"},
		Class:       benchmarks.ClassRegular,
		PaperSize:   PathfinderSize,
	}
}

// PathfinderCols returns the column count pathfinder uses for p.
func PathfinderCols(p benchmarks.Params) (int, error) {
	fp, err := PathfinderSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	return benchmarks.FitSide(fp, 1, func(c int) uint64 { return benchmarks.FloatBytes * uint64(pfRows+1) * uint64(max(c, 2*pfBlock)) }), nil
}

// Setup implements Workload.
func (Pathfinder) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	cols, err := PathfinderCols(p)
	if err != nil {
		return nil, err
	}
	cols = max(cols, 2*pfBlock)
	row := uint64(cols) * benchmarks.FloatBytes
	var res [2]uint64
	if res[0], err = alloc.MallocManaged(row, "gpuResult0"); err != nil {
		return nil, err
	}
	res[1] = alloc.MustMalloc(row, "gpuResult1")
	wall := alloc.MustMalloc(row*(pfRows-1), "gpuWall")
	id := benchmarks.LastObjects(alloc, 3)
	blocks := benchmarks.CeilDiv(cols, pfBlock-2*pfPyramid)
	var ks []benchmarks.Kernel
	for t, k := 0, 0; t < pfRows-1; t, k = t+pfPyramid, k+1 {
		src, dst := res[k%2], res[(k+1)%2]
		it, start := min(pfPyramid, pfRows-1-t), t
		ks = append(ks, benchmarks.Kernel{
			Name: "dynproc_kernel", Args: []int{id[2], id[k%2], id[(k+1)%2]},
			Workgroups: blocks, WavefrontsPerWorkgroup: pfBlock / benchmarks.WavefrontSize,
			Wavefront: func(bx, wf, _ int) benchmarks.Stream {
				blkX := (pfBlock-2*it)*bx - pfPyramid
				tx0 := wf * benchmarks.WavefrontSize
				return &benchmarks.Loop{N: 2 + it, Gen: func(i int, in *benchmarks.Instruction) {
					base, row, lo, hi := src, 0, 0, pfBlock-1
					switch {
					case i == 0:
						in.Compute = benchmarks.IndexCycles
					case i <= it: // step i-1
						base, row = wall, start+i-1
						lo, hi = i, pfBlock-1-i
						in.Compute = pfStepCycles
					default:
						base, lo, hi = dst, it, pfBlock-1-it
						in.Compute = pfStepCycles
						in.Write = true
					}
					for tx := max(lo, tx0); tx <= min(hi, tx0+benchmarks.WavefrontSize-1); tx++ {
						if x := blkX + tx; x >= 0 && x < cols {
							benchmarks.AddLane(in, benchmarks.Elem(base, row*cols+x, benchmarks.FloatBytes))
						}
					}
				}}
			},
		})
	}
	return ks, nil
}
