package hecbench

import (
	"math"
	"slices"
	"sort"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// XSBench is SUV's XSB: HeCBench's xsbench-cuda, the event-based
// macroscopic cross-section lookups of the Monte Carlo neutron transport
// proxy (Tramm et al.), its baseline lookup kernel on the unionized
// energy grid, every cudaMalloc made managed.
//
// Data: H-M large's 355 nuclides and 12 materials (fuel 321 nuclides, the
// others 4 to 27; Materials.cu's lists), g gridpoints per nuclide. As in
// GridInit.cu, each gridpoint's energy is the first of six draws of
// XSBench's LCG from seed 42, each nuclide's grid sorted by energy, the
// unionized grid all 355 g energies sorted, and index_grid[e][i] the
// gridpoint of nuclide i just below unionized energy e. Lookup i draws
// its energy and material from the LCG fast-forwarded from STARTING_SEED
// 1070 by 2i, and pick_mat's distribution (fuel 14%, cold water 27.5%,
// ...). The model reproduces these generators, so seed 1 is XSBench's own
// data; seed s seeds them with 41+s and 1069+s instead. index_grid
// is not materialised: each read's value is found by a binary search of
// the nuclide's grid, which gives the same entry.
//
// Shape: the lookups are one per KiB of footprint (in 256-thread blocks),
// and g gridpoints make the footprint closest to XSBenchSize times
// Params.Scale: g = 242 and 124,416 lookups at scale 1 (121 MiB), g =
// 7742 and 3.98M lookups at --scale 32 (SUV's 3884 MB). HeCBench's run
// (-s large -m event) has g = 11303 and 17M lookups in 6.0 GB, one per
// 352 bytes; SUV gives only its footprint, and a third of HeCBench's
// lookup density keeps scale 1 near 3M instructions.
//
// Objects, in Simulation.cu's allocation (ID) order:
//
//	0 "num_nucs"               12 int32
//	1 "concs"                  12 x 321 double
//	2 "mats"                   12 x 321 int32
//	3 "nuclide_grid"           355 g NuclideGridPoint (energy and 5 cross
//	                           sections, 48 bytes)
//	4 "verification"           one int32 per lookup, written
//	5 "unionized_energy_array" 355 g double
//	6 "index_grid"             355 g x 355 int32 (96% of the footprint)
//
// One kernel, lookup, launched Params.Iterations times (HeCBench's -r,
// default 1), lookups/256 blocks of 256 threads, one lookup per thread,
// lane l of wavefront w lookup 64w+l. A wavefront issues, in the
// kernel's order: grid_search's loads of the unionized grid (about
// log2(355 g) = 16 steps at scale 1, each lane until its interval is
// one wide), the load of num_nucs[mat], then for j = 0 .. 320 (the
// longest material among its lanes, almost always fuel) five loads by
// the lanes whose material has more than j nuclides: mats[mat][j],
// concs[mat][j], index_grid[idx][nuc], and the two bounding gridpoints
// nuclide_grid[nuc][index] and [index+1] (adjacent 48-byte structures,
// one instruction each, a lane addressing its structure's first byte);
// then the store of verification[i]. About 1,624 instructions per
// wavefront, 3.2M at scale 1.
//
// Class: irregular, as SUV's access-pattern tags (dense plus unknown)
// suggest: each lookup reads one row of index_grid and one gridpoint pair
// in each of up to 321 nuclide grids, at random energies.
//
// Known simplifications: the interpolation and the concentration-weighted
// sums are compute cycles; a gridpoint read is one lane, not the six
// doubles the compiler may load separately (the pair straddles at most
// two 64-byte lines); lookups past the total, which the kernel skips,
// do not exist since the total is a whole number of blocks.
//
// Access facts: grid_search's loop runs while the interval is wider than
// one. Its bounds move with the energies it loads, so the loop bound is
// data-dependent and unionized_energy_array is DataDependent. The nuclide
// loop runs to num_nucs[mat], a loaded bound, so everything read in it is
// DataDependent too: mats, concs, index_grid and nuclide_grid (the last
// two also indirect, at loaded indices). This is the paper's remark that
// most of XSB's regions use access-counter migration. num_nucs and
// verification are Analysable, with one access per lookup each.
// verification's range is a block's 256 words. num_nucs has none (0),
// since mat comes out of pick_mat's loop over the LCG roll, not an affine
// expression. This is SUV Table I's D, U for XSB.
type XSBench struct{}

const (
	// xsbIsotopes is H-M large's nuclide count; xsbMaxNucs its fuel's.
	xsbIsotopes = 355
	xsbMaxNucs  = 321
	xsbMats     = 12
	// xsbPointBytes is a NuclideGridPoint: six doubles.
	xsbPointBytes = 48
	// xsbBlock is the lookup kernel's block.
	xsbBlock = 256
	// xsbBytesPerLookup is the footprint per lookup.
	xsbBytesPerLookup = 1024
	// xsbGridSeed and xsbStartingSeed are GridInit.cu's and
	// STARTING_SEED.
	xsbGridSeed     = 42
	xsbStartingSeed = 1070
	// xsbSampleCycles is fast_forward_LCG and pick_mat; xsbSearchCycles
	// one step of grid_search; xsbNucCycles the interpolation and sums of
	// one nuclide.
	xsbSampleCycles = 256
	xsbSearchCycles = 12
	xsbNucCycles    = 48
	// xsbPaperScale is the --scale of SUV's 3884 MB.
	xsbPaperScale = 32
)

// XSBenchSize is XSBench's scale-1 footprint: SUV's 3884 MB / 32.
var XSBenchSize = benchmarks.FlatSize(3884 * benchmarks.MiB / xsbPaperScale)

// xsbNumNucs and xsbMatDist are Materials.cu's nuclides per material (H-M
// large) and pick_mat's distribution.
var (
	xsbNumNucs = [xsbMats]int{321, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9}
	xsbMatDist = [xsbMats]float64{0.140, 0.052, 0.275, 0.134, 0.154, 0.064, 0.066, 0.055, 0.008, 0.015, 0.025, 0.013}
)

// xsbMatNucs is Materials.cu's nuclide list of each material (H-M large).
var xsbMatNucs = func() [xsbMats][]int {
	fuel := []int{58, 59, 60, 61, 40, 42, 43, 44, 45, 46, 1, 2, 3, 7, 8, 9, 10, 29, 57, 47, 48, 0, 62, 15, 33, 34, 52, 53,
		54, 55, 56, 18, 23, 41}
	for i := 0; i < xsbMaxNucs-34; i++ {
		fuel = append(fuel, 68+i)
	}
	water := []int{24, 41, 4, 5}
	reflector := []int{24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 49, 50, 51, 11, 12, 13, 14}
	assembly := []int{24, 41, 4, 5, 63, 64, 65, 66, 67}
	return [xsbMats][]int{
		fuel,
		{63, 64, 65, 66, 67},
		water, water,
		{19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 27, 28, 29, 30, 31, 32, 26, 49, 50, 51, 11, 12, 13, 14, 6, 16, 17},
		reflector, reflector, reflector, reflector, reflector,
		assembly, assembly,
	}
}()

func init() {
	benchmarks.Register("xsbench", func() benchmarks.Workload { return XSBench{} })
}

// Info implements Workload.
func (XSBench) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:           "xsbench",
		Description:    "HeCBench XSBench event-based lookups: unionized-grid binary search, then per-nuclide index and gridpoint gathers",
		Suite:          benchmarks.SuiteHeCBench,
		Aliases:        []string{"XSB"},
		Class:          benchmarks.ClassIrregular,
		PaperSize:      XSBenchSize,
		DeclaresAccess: true,
	}
}

// xsbFixedBytes is num_nucs, concs and mats.
const xsbFixedBytes = 4*xsbMats + xsbMats*xsbMaxNucs*(8+4)

// XSBenchShape returns the gridpoints per nuclide, the lookups and the
// kernel launches xsbench uses for p.
func XSBenchShape(p benchmarks.Params) (gridpoints, lookups, launches int, err error) {
	fp, err := XSBenchSize.Footprint(p)
	if err != nil {
		return 0, 0, 0, err
	}
	lookups = max(1, int(math.Round(float64(fp)/xsbBytesPerLookup/xsbBlock))) * xsbBlock
	fixed := uint64(xsbFixedBytes + 4*lookups)
	g := benchmarks.FitSide(fp, 1, func(g int) uint64 { return fixed + uint64(g)*xsbIsotopes*(xsbPointBytes+8+4*xsbIsotopes) })
	launches = 1
	if p.Iterations > 0 {
		launches = p.Iterations
	}
	return max(g, 2), lookups, launches, nil
}

// xsbLCG is XSBench's LCG_random_double.
func xsbLCG(seed *uint64) float64 {
	const a, c, m = 2806196910506780709, 1, 1 << 63
	*seed = (a**seed + c) % m
	return float64(*seed) / m
}

// xsbFastForward is fast_forward_LCG.
func xsbFastForward(seed, n uint64) uint64 {
	const m = 1 << 63
	a, c := uint64(2806196910506780709), uint64(1)
	n %= m
	an, cn := uint64(1), uint64(0)
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			an *= a
			cn = cn*a + c
		}
		c *= a + 1
		a *= a
	}
	return (an*seed + cn) % m
}

// xsbPickMat is pick_mat: material i for a roll below the sum of
// dist[1..i], fuel otherwise.
func xsbPickMat(seed *uint64) int {
	roll := xsbLCG(seed)
	for i := 0; i < xsbMats; i++ {
		running := 0.0
		for j := i; j > 0; j-- {
			running += xsbMatDist[j]
		}
		if roll < running {
			return i
		}
	}
	return 0
}

// xsbGrids is the nuclide grids' energies (nuclide-major, each sorted) and
// the unionized grid.
type xsbGrids struct {
	g         int
	energy    []float64
	unionized []float64
}

func xsbGenerate(g int, seed uint64) *xsbGrids {
	x := &xsbGrids{g: g, energy: make([]float64, xsbIsotopes*g)}
	s := seed
	for i := range x.energy {
		x.energy[i] = xsbLCG(&s)
		for k := 0; k < 5; k++ { // the five cross sections
			xsbLCG(&s)
		}
	}
	for i := 0; i < xsbIsotopes; i++ {
		slices.Sort(x.energy[i*g : (i+1)*g])
	}
	x.unionized = slices.Clone(x.energy)
	slices.Sort(x.unionized)
	return x
}

// index is index_grid[idx][nuc]: the gridpoint of nuc just below the
// unionized energy idx, at most g-2.
func (x *xsbGrids) index(idx, nuc int) int {
	e := x.unionized[idx]
	grid := x.energy[nuc*x.g : (nuc+1)*x.g]
	below := sort.Search(x.g, func(i int) bool { return grid[i] > e })
	return min(max(below-1, 0), x.g-2)
}

// xsbArrays are the objects' pointers.
type xsbArrays struct {
	numNucs, concs, mats, grid, verification, unionized, index uint64
}

// Setup implements Workload.
func (XSBench) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	g, lookups, launches, err := XSBenchShape(p)
	if err != nil {
		return nil, err
	}
	x := xsbGenerate(g, xsbGridSeed+p.Seed-1)
	points := uint64(xsbIsotopes * g)
	var a xsbArrays
	if a.numNucs, err = alloc.MallocManaged(4*xsbMats, "num_nucs"); err != nil {
		return nil, err
	}
	a.concs = alloc.MustMalloc(8*xsbMats*xsbMaxNucs, "concs")
	a.mats = alloc.MustMalloc(4*xsbMats*xsbMaxNucs, "mats")
	a.grid = alloc.MustMalloc(xsbPointBytes*points, "nuclide_grid")
	a.verification = alloc.MustMalloc(4*uint64(lookups), "verification")
	a.unionized = alloc.MustMalloc(8*points, "unionized_energy_array")
	a.index = alloc.MustMalloc(4*points*xsbIsotopes, "index_grid")
	args := benchmarks.LastObjects(alloc, 7)
	start := uint64(xsbStartingSeed) + p.Seed - 1
	wfs := xsbBlock / benchmarks.WavefrontSize
	ks := make([]benchmarks.Kernel, launches)
	access := []benchmarks.Access{
		benchmarks.AnalysableAccess(args[0], int64(lookups), 0),
		benchmarks.DataDependentAccess(args[1]), benchmarks.DataDependentAccess(args[2]), benchmarks.DataDependentAccess(args[3]),
		benchmarks.AnalysableAccess(args[4], int64(lookups), benchmarks.FloatSpan(0, xsbBlock-1)),
		benchmarks.DataDependentAccess(args[5]), benchmarks.DataDependentAccess(args[6]),
	}
	for k := range ks {
		ks[k] = benchmarks.Kernel{
			Name: "lookup", Args: args, Workgroups: lookups / xsbBlock, WavefrontsPerWorkgroup: wfs, Access: access,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				return newXSBStream(x, &a, start, (wg*wfs+wf)*benchmarks.WavefrontSize)
			},
		}
	}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}

// xsbStream is one wavefront of lookups i0 .. i0+63.
type xsbStream struct {
	x        *xsbGrids
	a        *xsbArrays
	i0       int
	energy   [benchmarks.WavefrontSize]float64
	mat      [benchmarks.WavefrontSize]int
	lo, hi   [benchmarks.WavefrontSize]int    // grid_search's interval; lo is idx at the end
	point    [benchmarks.WavefrontSize]uint64 // the low gridpoint of nuclide j
	nucs     int                              // the longest material's nuclides
	step     int                              // 0 the search, 1 num_nucs, 2 the nuclide loop, 3 the store, 4 done
	searched bool
	j, field int
}

func newXSBStream(x *xsbGrids, a *xsbArrays, start uint64, i0 int) *xsbStream {
	s := &xsbStream{x: x, a: a, i0: i0}
	for l := range s.energy {
		seed := xsbFastForward(start, 2*uint64(i0+l))
		s.energy[l] = xsbLCG(&seed)
		s.mat[l] = xsbPickMat(&seed)
		s.lo[l], s.hi[l] = 0, len(x.unionized)-1
		s.nucs = max(s.nucs, xsbNumNucs[s.mat[l]])
	}
	return s
}

// Next implements Stream.
func (s *xsbStream) Next(in *benchmarks.Instruction) bool {
	in.Reset()
	in.Compute = benchmarks.LoadCycles
	switch s.step {
	case 0: // one step of grid_search for the lanes still searching
		in.Compute = xsbSearchCycles
		if !s.searched { // the LCG fast-forward and pick_mat come first
			s.searched, in.Compute = true, xsbSampleCycles
		}
		for l := range s.lo {
			if s.hi[l]-s.lo[l] <= 1 {
				continue
			}
			exam := s.lo[l] + (s.hi[l]-s.lo[l])/2
			benchmarks.AddLane(in, s.a.unionized+8*uint64(exam))
			if s.x.unionized[exam] > s.energy[l] {
				s.hi[l] = exam
			} else {
				s.lo[l] = exam
			}
		}
		if in.Lanes > 0 {
			return true
		}
		s.step++
		fallthrough
	case 1: // the loop bound num_nucs[mat]
		s.step++
		in.Compute = benchmarks.LoadCycles
		for _, m := range s.mat {
			benchmarks.AddLane(in, s.a.numNucs+4*uint64(m))
		}
		return true
	case 2:
		s.nucleus(in)
		if s.field++; s.field == 5 {
			s.field, s.j = 0, s.j+1
			if s.j == s.nucs {
				s.step++
			}
		}
		return true
	case 3: // verification[i] = max_idx + 1
		s.step++
		in.Write = true
		for l := 0; l < benchmarks.WavefrontSize; l++ {
			benchmarks.AddLane(in, s.a.verification+4*uint64(s.i0+l))
		}
		return true
	}
	return false
}

// nucleus fills load s.field of nuclide s.j for the lanes whose material
// has that many nuclides.
func (s *xsbStream) nucleus(in *benchmarks.Instruction) {
	if s.field == 0 {
		in.Compute = xsbNucCycles
	}
	j := s.j
	for l, m := range s.mat {
		if j >= xsbNumNucs[m] {
			continue
		}
		nuc := xsbMatNucs[m][j]
		at := uint64(m*xsbMaxNucs + j)
		switch s.field {
		case 0:
			benchmarks.AddLane(in, s.a.mats+4*at)
		case 1:
			benchmarks.AddLane(in, s.a.concs+8*at)
		case 2:
			benchmarks.AddLane(in, s.a.index+4*(uint64(s.lo[l])*xsbIsotopes+uint64(nuc)))
			s.point[l] = uint64(nuc*s.x.g + s.x.index(s.lo[l], nuc))
		default: // low, then high = low + 1
			benchmarks.AddLane(in, s.a.grid+xsbPointBytes*(s.point[l]+uint64(s.field-3)))
		}
	}
}
