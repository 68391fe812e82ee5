package hecbench

import (
	"math"
	"sort"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestFloydWarshallPasses checks the passes against an independent
// Floyd-Warshall on HeCBench's matrix: pass k reads row k and column k,
// and stores exactly the distances (and paths) that k shortens.
func TestFloydWarshallPasses(t *testing.T) {
	g := newGlibcRand(1) // glibc's rand() after srand(1)
	if a, b, c := g.next(), g.next(), g.next(); a != 1804289383 || b != 846930886 || c != 1681692777 {
		t.Fatalf("rand() after srand(1): %d %d %d", a, b, c)
	}
	p := benchmarks.Params{GPUs: 1, Scale: 0.002, Seed: 1, Iterations: 3}
	n, passes, _ := FWShape(p)
	g = newGlibcRand(2) // HeCBench's srand(2)
	d := make([]int, n*n)
	for i := range d {
		d[i] = int(g.next() % 201)
	}
	for i := 0; i < n; i++ {
		d[i*n+i] = 0
	}
	a, ks := benchtest.Setup(t, "floyd-warshall", p)
	if len(ks) != passes {
		t.Fatalf("%d launches for %d passes", len(ks), passes)
	}
	for k, kn := range ks {
		want := map[uint64]int{}
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				if s := d[y*n+k] + d[k*n+x]; s < d[y*n+x] {
					d[y*n+x] = s
					want[uint64(y*n+x)] = 1
				}
			}
		}
		c := benchtest.CountKernel(t, a, kn, 4)
		c.OnlyObjects(t, "pass", []string{"pathDistanceBuffer"}, []string{"pathDistanceBuffer", "pathBuffer"})
		if len(want) == 0 {
			t.Fatalf("pass %d improves nothing", k)
		}
		for _, o := range []string{"pathDistanceBuffer", "pathBuffer"} {
			benchtest.ExactlyOnce(t, o, c.Writes[o], uint64(n*n), func(i uint64) bool { return want[i] == 1 })
		}
		for i, r := range c.Reads["pathDistanceBuffer"] {
			y, x := int(i)/n, int(i)%n
			wantReads := 1 // d[y][x], by its own thread
			if x == k {
				wantReads += n // d[y][k], by every thread of row y
			}
			if y == k {
				wantReads += n // d[k][x], by every thread of column x
			}
			if r != wantReads {
				t.Fatalf("pass %d reads d[%d][%d] %d times, want %d", k, y, x, r, wantReads)
			}
		}
	}
}

// TestXSBenchLookups checks each lookup: the unionized-grid search ends at
// the energy's interval, the loop visits the material's nuclides in
// Materials.cu's order, each reading the index_grid row of that
// interval and the two nuclide gridpoints bracketing its energy.
func TestXSBenchLookups(t *testing.T) {
	p := benchmarks.Params{GPUs: 1, Scale: 0.02, Seed: 1}
	g, lookups, _, _ := XSBenchShape(p)
	x := xsbGenerate(g, xsbGridSeed)
	for i := 0; i < xsbIsotopes; i++ {
		if !sort.Float64sAreSorted(x.energy[i*g : (i+1)*g]) {
			t.Fatalf("nuclide %d's grid is not sorted", i)
		}
	}
	a, ks := benchtest.Setup(t, "xsbench", p)
	k := ks[0]
	matCount := map[int]int{}
	steps := int(math.Ceil(math.Log2(float64(xsbIsotopes * g))))
	for wg := 0; wg < k.Workgroups; wg++ {
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			i0 := (wg*k.WavefrontsPerWorkgroup + wf) * benchmarks.WavefrontSize
			ins := benchtest.InstructionAccesses(t, a, k.Wavefront(wg, wf, 0))
			search := 0
			for search < len(ins) && ins[search][0].Obj.Name == "unionized_energy_array" {
				search++
			}
			if search < steps-1 || search > steps+1 {
				t.Fatalf("lookups %d..: %d search steps over %d energies", i0, search, xsbIsotopes*g)
			}
			var mat [benchmarks.WavefrontSize]int
			var idx [benchmarks.WavefrontSize]int
			nucs := 0
			for l := 0; l < benchmarks.WavefrontSize; l++ {
				seed := xsbFastForward(xsbStartingSeed, 2*uint64(i0+l))
				e := xsbLCG(&seed)
				mat[l] = xsbPickMat(&seed)
				matCount[mat[l]]++
				nucs = max(nucs, xsbNumNucs[mat[l]])
				// The last unionized energy at or below e, short of the last.
				below := sort.Search(len(x.unionized), func(i int) bool { return x.unionized[i] > e })
				idx[l] = min(max(below-1, 0), len(x.unionized)-2)
			}
			loop := ins[search+1 : len(ins)-1]
			if len(loop) != 5*nucs {
				t.Fatalf("lookups %d..: %d loop instructions for %d nuclides", i0, len(loop), nucs)
			}
			for j := 0; j < nucs; j++ {
				var lanes []int
				for l := 0; l < benchmarks.WavefrontSize; l++ {
					if j < xsbNumNucs[mat[l]] {
						lanes = append(lanes, l)
					}
				}
				group := loop[5*j : 5*j+5]
				for f, o := range []string{"mats", "concs", "index_grid", "nuclide_grid", "nuclide_grid"} {
					if len(group[f]) != len(lanes) || group[f][0].Obj.Name != o {
						t.Fatalf("lookups %d.. nuclide %d load %d: %d lanes of %s, want %d of %s",
							i0, j, f, len(group[f]), group[f][0].Obj.Name, len(lanes), o)
					}
				}
				for li, l := range lanes {
					nuc := xsbMatNucs[mat[l]][j]
					if got := benchtest.LaneElems(group[0][li:li+1], 4)[0]; got != uint64(mat[l]*xsbMaxNucs+j) {
						t.Fatalf("lookup %d reads mats[%d], want material %d nuclide %d", i0+l, got, mat[l], j)
					}
					if got := benchtest.LaneElems(group[2][li:li+1], 4)[0]; got != uint64(idx[l]*xsbIsotopes+nuc) {
						t.Fatalf("lookup %d reads index_grid[%d], want row %d nuclide %d", i0+l, got, idx[l], nuc)
					}
					low := benchtest.LaneElems(group[3][li:li+1], xsbPointBytes)[0]
					high := benchtest.LaneElems(group[4][li:li+1], xsbPointBytes)[0]
					ue := x.unionized[idx[l]]
					if high != low+1 || low/uint64(g) != uint64(nuc) || low%uint64(g) > uint64(g-2) ||
						x.energy[low] > ue && low%uint64(g) > 0 || x.energy[high] <= ue && high%uint64(g) < uint64(g-1) {
						t.Fatalf("lookup %d nuclide %d: gridpoints %d, %d do not bracket %g", i0+l, nuc, low, high, ue)
					}
				}
			}
		}
	}
	if matCount[0] < lookups/10 || matCount[2] < lookups/5 {
		t.Errorf("materials %v: pick_mat gives fuel 14%%, cold water 27.5%%", matCount)
	}
}
