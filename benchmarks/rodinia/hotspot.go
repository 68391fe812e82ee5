package rodinia

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Hotspot is Rodinia 3.1's HotSpot (calculate_temp) as UVMSmart ports it
// and Early-Adaptor runs it: a chip temperature grid advanced by a
// 5-point stencil, pyramid_height time steps per launch in LDS, the two
// temperature buffers swapping between launches.
//
// Shape: a square float32 grid of side n (grid_rows = grid_cols), a
// multiple of 16, whose three arrays come closest to the footprint
// (HotspotSize times Params.Scale): n = 4800 at scale 1 (263.7 MB), 27168
// at scale 32 (EA's 8445 MB). UVMSmart's input, n = 1024, is scale 0.045.
//
// Objects, in allocation (ID) order:
//
//	0 "MatrixTemp0" n*n float32, the initial temperatures
//	1 "MatrixTemp1" n*n float32
//	2 "MatrixPower" n*n float32, read only
//
// Launch k reads MatrixTemp(k mod 2) and writes the other (the first
// launch reads MatrixTemp0, as compute_tran_temp's src/dst swap gives).
// Each launch has ceil(n/12)^2 blocks of 16x16 threads (BLOCK_SIZE 16,
// pyramid_height 2: each block loads a 16x16 tile with a border of 2 and
// computes its inner 12x12), workgroup wg = by*ceil(n/12) + bx. Thread
// (tx, ty) is grid point (12*by - 2 + ty, 12*bx - 2 + tx); wavefront wf
// holds block rows 4wf .. 4wf+3 (lane 16*(ty-4wf) + tx). A wavefront
// issues 3 instructions:
//
//  1. the load of temp_src at its points that lie in the grid (4 rows of
//     16 floats);
//  2. the load of power at the same points;
//  3. after the pyramid_height steps in LDS, the store of temp_dst at its
//     points in the inner 12x12 (tx and ty in 2..13) that lie in the grid.
//
// A wavefront wholly outside the grid issues its loads with no lane
// (compute only). The launch count is UVMSmart's run script (sim_time 8,
// pyramid_height 2: 4 launches; Rodinia's own script runs 1);
// Params.Iterations sets it, each launch being 2 time steps. That is
// 160000 workgroups x 4 x 3 = 1.9M instructions per launch at scale 1.
//
// Class: regular (Early-Adaptor Table II).
type Hotspot struct{}

const (
	// hsBlock is Rodinia's BLOCK_SIZE.
	hsBlock = 16
	// hsPyramid is pyramid_height, the time steps per launch.
	hsPyramid = 2
	// hsInner is the computed part of a block, BLOCK_SIZE - 2*pyramid.
	hsInner = hsBlock - 2*hsPyramid
	// hsLaunches is UVMSmart's sim_time 8 / pyramid_height 2.
	hsLaunches = 4
	// hsRows is the block rows one wavefront holds.
	hsRows = benchmarks.WavefrontSize / hsBlock
	// hsStepCycles is one time step in LDS: 5 shared reads, about 12
	// flops and two __syncthreads.
	hsStepCycles = 64 + 2*benchmarks.SyncCycles
)

// HotspotSize is hotspot's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var HotspotSize = benchmarks.EASize("hotspot")

func init() {
	benchmarks.Register("hotspot", func() benchmarks.Workload { return Hotspot{} })
}

// Info implements Workload.
func (Hotspot) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "hotspot",
		Description: "Rodinia HotSpot: 16x16 pyramid stencil tiles, temperature buffers swapping per launch (4 launches)",
		Suite:       benchmarks.SuiteRodinia,
		Aliases:     []string{"HS"},
		Class:       benchmarks.ClassRegular,
		PaperSize:   HotspotSize,
	}
}

// HotspotShape returns the grid side and the launch count hotspot uses
// for p.
func HotspotShape(p benchmarks.Params) (n, launches int, err error) {
	fp, err := HotspotSize.Footprint(p)
	if err != nil {
		return 0, 0, err
	}
	launches = hsLaunches
	if p.Iterations > 0 {
		launches = p.Iterations
	}
	return benchmarks.FitSide(fp, hsBlock, func(n int) uint64 { return 3 * benchmarks.FloatBytes * uint64(n) * uint64(n) }), launches, nil
}

// Setup implements Workload.
func (Hotspot) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, launches, err := HotspotShape(p)
	if err != nil {
		return nil, err
	}
	bytes := uint64(n) * uint64(n) * benchmarks.FloatBytes
	var temp [2]uint64
	if temp[0], err = alloc.MallocManaged(bytes, "MatrixTemp0"); err != nil {
		return nil, err
	}
	temp[1] = alloc.MustMalloc(bytes, "MatrixTemp1")
	power := alloc.MustMalloc(bytes, "MatrixPower")
	id := benchmarks.LastObjects(alloc, 3)
	bc := benchmarks.CeilDiv(n, hsInner)
	ks := make([]benchmarks.Kernel, launches)
	for k := range ks {
		src, dst := temp[k%2], temp[(k+1)%2]
		ks[k] = benchmarks.Kernel{
			Name: "calculate_temp", Args: []int{id[2], id[k%2], id[(k+1)%2]},
			Workgroups: bc * bc, WavefrontsPerWorkgroup: hsBlock * hsBlock / benchmarks.WavefrontSize,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				y0 := wg/bc*hsInner - hsPyramid + wf*hsRows
				x0 := wg%bc*hsInner - hsPyramid
				return &benchmarks.Loop{N: 3, Gen: func(i int, in *benchmarks.Instruction) {
					base := [3]uint64{src, power, dst}[i]
					in.Compute = [3]int{benchmarks.IndexCycles, benchmarks.LoadCycles, hsPyramid * hsStepCycles}[i]
					in.Write = i == 2
					for r := 0; r < hsRows; r++ {
						y, ty := y0+r, wf*hsRows+r
						for tx := 0; tx < hsBlock; tx++ {
							x := x0 + tx
							if y < 0 || y >= n || x < 0 || x >= n {
								continue
							}
							if in.Write && (tx < hsPyramid || tx >= hsBlock-hsPyramid || ty < hsPyramid || ty >= hsBlock-hsPyramid) {
								continue
							}
							benchmarks.AddLane(in, benchmarks.Elem(base, y*n+x, benchmarks.FloatBytes))
						}
					}
				}}
			},
		}
	}
	return ks, nil
}
