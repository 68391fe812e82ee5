package hecbench

import (
	"fmt"
	"math"
	"sync"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// FloydWarshall is SUV's FW: HeCBench's floydwarshall-cuda (AMD APP SDK's
// FloydWarshall), the all-pairs shortest paths of a dense graph, one
// launch of floydWarshallPass per intermediate node k, both matrices made
// managed.
//
// Input: HeCBench's own: srand(2), then every distance rand() % 201
// (MAXDISTANCE 200) in row-major order and the diagonal 0. The model
// reproduces glibc's rand() (the TYPE_3 additive generator), so seed 1 is
// srand(2), HeCBench's matrix, and seed s is srand(s+1). The distances
// are computed pass by pass at run time (from the first wavefront of a
// pass, on the matrix the earlier passes left), so every store is one
// the real kernel makes.
//
// Shape: n nodes, a multiple of the 16 x 16 block, whose two n x n uint32
// matrices come closest to FWSize times Params.Scale: n = 4096 at scale 1
// (128 MiB), 23168 at --scale 32 (SUV's 4096 MB; the distances then take
// n^2 = 537 MB of host memory).
//
// Objects, in allocation (ID) order:
//
//	0 "pathDistanceBuffer" n x n uint32, the distances, read and written
//	1 "pathBuffer"         n x n uint32, the intermediate node of each
//	                       improved path, written only
//
// Launches: the program runs n passes, k = 0 .. n-1, one launch each;
// that is 4096 launches of n^2 threads at scale 1, about 5 billion
// instructions, so the model runs the first Params.Iterations passes
// (default fwPasses = 4, at most n), k = 0, 1, 2, ... in order. Each
// launch is an (n/16) x (n/16) grid of 16 x 16 blocks, blockIdx.x
// fastest; wavefront w of a block holds its rows 4w .. 4w+3 (x fastest).
// A wavefront issues, in the kernel's order: the load of d[y][x] (4 rows
// of 16, 4 lines), the load of d[y][k] (4 distinct words), the load of
// d[k][x] (16 words, one line), and, if some of its threads found a
// shorter path through k, the stores of d[y][x] and path[y][x] by those
// threads: 3 to 5 instructions, about 1.3M per pass at scale 1.
//
// Class: regular, assigned here from the access pattern (Early-Adaptor
// does not run FW): every pass sweeps both matrices densely in row order;
// only row k (one line per wavefront) and column k are shared.
//
// Known simplifications: only a prefix of the passes runs. HeCBench
// repeats the whole computation <iterations> times (its second argument),
// copying the matrix to the device each time; the model runs it once, the
// copy being the host's initialisation of the managed matrix, and
// Params.Iterations counts passes, not those repetitions.
//
// Access facts: pathDistanceBuffer is HostLoop in pass k of the host loop,
// with a count of n for the program's passes, not the model's prefix. Two
// of its memops, d[y][k] and d[k][x], take k from the loop. The hull of
// its memops is still the whole matrix, because d[y][x] sweeps all of it
// in every pass. So the span is offset 0, stride 0, span n^2 words: one
// window is the whole object, and SUV's plan treats it as Density. Table
// I's I for FW comes from the same memops; the code gives SUV nothing to
// prefetch per pass. pathBuffer is Analysable. The stores sit under
// tempWeight < oldWeight, a data-dependent branch, so SUV takes its
// fraction as 1. The declared accesses are then upper bounds: 4n^2 on the
// distances (three loads of 64 lanes and the store per thread) and n^2 on
// the paths. Block 0's range: 16 rows of 16 for d[y][x] and path; for the
// distances also row k and column k, so through row max(15, k).
type FloydWarshall struct{}

const (
	// fwBlock is the 16 x 16 thread block (HeCBench caps blockSize at 16).
	fwBlock = 16
	// fwPasses is the default number of passes (launches).
	fwPasses = 4
	// fwMaxDistance is HeCBench's MAXDISTANCE.
	fwMaxDistance = 200
	// fwAddCycles is the add and compare before the stores.
	fwAddCycles = 8
	// fwPaperScale is the --scale of SUV's 4096 MB.
	fwPaperScale = 32
)

// FWSize is FloydWarshall's scale-1 footprint: SUV's 4096 MB / 32.
var FWSize = benchmarks.FlatSize(4096 * benchmarks.MiB / fwPaperScale)

func init() {
	benchmarks.Register("floyd-warshall", func() benchmarks.Workload { return FloydWarshall{} })
}

// Info implements Workload.
func (FloydWarshall) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:           "floyd-warshall",
		Description:    "HeCBench Floyd-Warshall: one launch per intermediate node k over the n x n distance matrix (first passes)",
		Suite:          benchmarks.SuiteHeCBench,
		Aliases:        []string{"FW"},
		Class:          benchmarks.ClassRegular,
		PaperSize:      FWSize,
		DeclaresAccess: true,
	}
}

// FWShape returns the node count and the passes floyd-warshall runs for p.
func FWShape(p benchmarks.Params) (n, passes int, err error) {
	fp, err := FWSize.Footprint(p)
	if err != nil {
		return 0, 0, err
	}
	n = benchmarks.FitSide(fp, fwBlock, func(n int) uint64 { return 8 * uint64(n) * uint64(n) })
	if uint64(n)*uint64(n) > math.MaxInt32 {
		return 0, 0, fmt.Errorf("floyd-warshall: scale %g: %d nodes overflow the kernel's int indices", p.Scale, n)
	}
	passes = fwPasses
	if p.Iterations > 0 {
		passes = p.Iterations
	}
	if passes > n {
		return 0, 0, fmt.Errorf("floyd-warshall: %d passes, but the graph has only %d nodes", passes, n)
	}
	return n, passes, nil
}

// glibcRand is glibc's rand() after srand(seed): the TYPE_3 additive
// feedback generator r[i] = r[i-3] + r[i-31], its first 310 outputs
// discarded.
type glibcRand struct {
	r [34]uint32
	i int
}

func newGlibcRand(seed uint32) *glibcRand {
	g := &glibcRand{}
	if seed == 0 {
		seed = 1
	}
	w := int64(seed)
	g.r[0] = seed
	for i := 1; i < 31; i++ {
		// 16807 * w mod (2^31 - 1), by Schrage's method as glibc does.
		hi, lo := w/127773, w%127773
		w = 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		g.r[i] = uint32(w)
	}
	for i := 31; i < 34; i++ {
		g.r[i] = g.r[i-31]
	}
	g.i = 34
	for k := 0; k < 310; k++ {
		g.next()
	}
	return g
}

func (g *glibcRand) next() uint32 {
	v := g.r[(g.i-31)%34] + g.r[(g.i-3)%34]
	g.r[g.i%34] = v
	g.i++
	return v >> 1
}

// fwDistances is the distance matrix as the passes leave it, advanced on
// demand: done passes have been applied.
type fwDistances struct {
	mu   sync.Mutex
	n    int
	seed uint64
	d    []uint8 // distances stay within 0 .. MAXDISTANCE
	done int
}

func (f *fwDistances) reset() {
	n := f.n
	if f.d == nil {
		f.d = make([]uint8, n*n)
	}
	g := newGlibcRand(uint32(f.seed + 1))
	for i := range f.d {
		f.d[i] = uint8(g.next() % (fwMaxDistance + 1))
	}
	for i := 0; i < n; i++ {
		f.d[i*n+i] = 0
	}
	f.done = 0
}

// pass applies pass k (row and column k do not change in it).
func (f *fwDistances) pass(k int) {
	n, d := f.n, f.d
	row := d[k*n : (k+1)*n]
	for y := 0; y < n; y++ {
		dyk := int(d[y*n+k])
		dy := d[y*n : (y+1)*n]
		for x, dkx := range row {
			if t := dyk + int(dkx); t < int(dy[x]) {
				dy[x] = uint8(t)
			}
		}
	}
	f.done = k + 1
}

// improved returns the mask of the 64 threads of the wavefront at (x0,
// y0) (4 rows of 16) that find a shorter path through k, x fastest.
func (f *fwDistances) improved(k, x0, y0 int) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.d == nil || f.done > k {
		f.reset()
	}
	for f.done < k {
		f.pass(f.done)
	}
	n, d := f.n, f.d
	var m uint64
	for l := 0; l < benchmarks.WavefrontSize; l++ {
		y, x := y0+l/fwBlock, x0+l%fwBlock
		if int(d[y*n+k])+int(d[k*n+x]) < int(d[y*n+x]) {
			m |= 1 << l
		}
	}
	return m
}

// Setup implements Workload.
func (FloydWarshall) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, passes, err := FWShape(p)
	if err != nil {
		return nil, err
	}
	size := 4 * uint64(n) * uint64(n)
	dist, err := alloc.MallocManaged(size, "pathDistanceBuffer")
	if err != nil {
		return nil, err
	}
	path := alloc.MustMalloc(size, "pathBuffer")
	args := benchmarks.LastObjects(alloc, 2)
	f := &fwDistances{n: n, seed: p.Seed}
	side := n / fwBlock
	wfs := fwBlock * fwBlock / benchmarks.WavefrontSize
	ks := make([]benchmarks.Kernel, passes)
	nn := int64(n)
	tile := benchmarks.FloatSpan(0, (fwBlock-1)*nn+fwBlock-1)
	for k := range ks {
		ks[k] = benchmarks.Kernel{
			Name: "floydWarshallPass", Args: args, Workgroups: side * side, WavefrontsPerWorkgroup: wfs,
			Access: []benchmarks.Access{
				benchmarks.LoopAccess(args[0], 4*nn*nn, benchmarks.FloatSpan(0, max(fwBlock-1, int64(k))*nn+fwBlock-1),
					benchmarks.AffineLoop(k, n, 0, 0, int64(size))),
				benchmarks.AnalysableAccess(args[1], nn*nn, tile),
			},
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				x0, y0 := wg%side*fwBlock, wg/side*fwBlock+wf*benchmarks.TileRows
				mask := f.improved(k, x0, y0)
				steps := 3
				if mask != 0 {
					steps = 5
				}
				return &benchmarks.Loop{N: steps, Gen: func(i int, in *benchmarks.Instruction) {
					in.Compute = benchmarks.LoadCycles
					switch i {
					case 0: // oldWeight = d[y][x]
						in.Compute = benchmarks.IndexCycles
						benchmarks.FillRows(in, dist, n, y0, x0)
					case 1: // d[y][k]
						for l := 0; l < benchmarks.WavefrontSize; l++ {
							benchmarks.AddLane(in, dist+4*uint64((y0+l/fwBlock)*n+k))
						}
					case 2: // d[k][x]
						for l := 0; l < benchmarks.WavefrontSize; l++ {
							benchmarks.AddLane(in, dist+4*uint64(k*n+x0+l%fwBlock))
						}
					default: // the improved threads store d[y][x], then path[y][x]
						base := dist
						if i == 4 {
							base = path
						} else {
							in.Compute = fwAddCycles
						}
						in.Write = true
						for l := 0; l < benchmarks.WavefrontSize; l++ {
							if mask&(1<<l) != 0 {
								benchmarks.AddLane(in, base+4*uint64((y0+l/fwBlock)*n+x0+l%fwBlock))
							}
						}
					}
				}}
			},
		}
	}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}
