package benchmarks

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/objtable"
)

// irregular16Paper is a paper's footprint of a workload and the --scale
// documented to reach it.
type irregular16Paper struct {
	paper string
	bytes uint64
	scale float64
}

// irregular16Case is one workload of issue 16, section 3.
type irregular16Case struct {
	name, alias, eviction, class string
	size                         PaperSize
	// objects is the allocation order (a prefix for the DNNs).
	objects []string
	papers  []irregular16Paper
	// seeded: the accesses depend on Params.Seed.
	seeded bool
	// expected is the footprint without building (for workloads whose
	// set-up generates large inputs), or nil.
	expected func(Params) (uint64, error)
	// small is the scale of the access tests.
	small float64
}

// paperGiB is a paper's "GB" read as GiB, as MiB reads its "MB".
func paperGiB(x float64) uint64 { return uint64(math.Round(x * 1024 * MiB)) }

var irregular16Cases = []irregular16Case{
	{"spgemm", "SPM", "lfu", ClassMixed, SpGEMMSize,
		[]string{"dA_csrOffsets", "dA_columns", "dA_values", "dB_csrOffsets", "dB_columns", "dB_values",
			"dC_csrOffsets", "dBuffer1", "dBuffer2", "dC_columns", "dC_values"},
		[]irregular16Paper{{"ObservUVM", paperGiB(8.0), 32}}, true, SpGEMMExpectedFootprint, 0.01},
	{"btree", "BTR", "lfu", ClassIrregular, BTreeSize,
		[]string{"d_pool", "d_count", "d_root", "d_queries", "d_results"},
		[]irregular16Paper{{"ObservUVM", paperGiB(5.0), 32}, {"SUV", 5120 * MiB, 32}}, true, BTreeExpectedFootprint, 0.01},
	{"floyd-warshall", "FW", "", ClassRegular, FWSize,
		[]string{"pathDistanceBuffer", "pathBuffer"},
		[]irregular16Paper{{"SUV", 4096 * MiB, 32}}, true, nil, 0.005},
	{"xsbench", "XSB", "", ClassIrregular, XSBenchSize,
		[]string{"num_nucs", "concs", "mats", "nuclide_grid", "verification", "unionized_energy_array", "index_grid"},
		[]irregular16Paper{{"SUV", 3884 * MiB, 32}}, true, nil, 0.02},
	{"alexnet", "AN", "lru", ClassRegular, AlexNetSize,
		[]string{"input", "conv1.bias", "conv1.weight", "conv1", "conv1.col", "kernarg", "norm1", "pool1"},
		[]irregular16Paper{{"SUV", 3504 * MiB, 16}, {"ObservUVM", paperGiB(10.3), 48.16}}, false, nil, 0.01},
	{"squeezenet", "SN", "lru", ClassRegular, SqueezeNetSize,
		[]string{"input", "conv1.bias", "conv1.weight", "conv1", "conv1.col", "kernarg", "pool1",
			"fire2.squeeze.bias", "fire2.squeeze.weight", "fire2.squeeze"},
		[]irregular16Paper{{"SUV", 4976 * MiB, 16}, {"ObservUVM", paperGiB(19.8), 65.19}}, false, nil, 0.01},
}

func TestIrregular16Registered(t *testing.T) {
	for _, c := range irregular16Cases {
		w, err := New(c.name)
		if err != nil {
			t.Fatal(err)
		}
		info := w.Info()
		if info.Name != c.name || info.Description == "" || strings.Contains(info.Description, "\n") {
			t.Errorf("%s: Name %q, Description %q", c.name, info.Name, info.Description)
		}
		if a, err := New(c.alias); err != nil || a.Info().Name != c.name {
			t.Errorf("%s: alias %s resolves to %v, %v", c.name, c.alias, a, err)
		}
		if got := AliasesOf(w); !slices.Equal(got, []string{c.alias}) {
			t.Errorf("%s: aliases %v, want [%s]", c.name, got, c.alias)
		}
		ev := info.PreferredEviction
		switch {
		case c.eviction == "" && ev != (EvictionPreference{}):
			t.Errorf("%s prefers an eviction, but ObservUVM does not run it", c.name)
		case c.eviction != "":
			if ev.Policy != c.eviction || !strings.Contains(ev.Source, "ObservUVM") {
				t.Errorf("%s: preferred eviction %q (%q), want %q", c.name, ev.Policy, ev.Source, c.eviction)
			}
		}
		if got := ClassOf(w); got != c.class {
			t.Errorf("%s: class %q, want %q", c.name, got, c.class)
		}
		if sz := info.PaperSize; sz != c.size || c.size.TableII != c.size.TableIII8 || c.size.TableII != c.size.TableIII16 {
			t.Errorf("%s: PaperSize %+v, want %+v in every column", c.name, sz, c.size)
		}
	}
}

// checkIrregular16Kernels checks that the kernels are well formed and drains every
// wavefront (drain fails on a lane outside every object or with the
// wrong tag). It returns the stream hash.
func checkIrregular16Kernels(t *testing.T, name string, a *objtable.Allocator, ks []Kernel, gpus int) uint64 {
	t.Helper()
	if len(ks) == 0 {
		t.Fatalf("%s: no kernels", name)
	}
	for ki, k := range ks {
		if k.Name == "" || k.Workgroups < 1 || k.WavefrontsPerWorkgroup < 1 || len(k.Args) == 0 || k.Barrier || k.PerDevice {
			t.Fatalf("%s kernel %d: %+v", name, ki, k)
		}
		for _, id := range k.Args {
			if id < 0 || id >= len(a.Objects()) {
				t.Fatalf("%s kernel %d: argument %d is no object", name, ki, id)
			}
		}
		for wg := 0; wg < k.Workgroups; wg++ {
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				drain(t, a, k.Wavefront(wg, wf, wg%gpus), nil)
			}
		}
	}
	h, _ := streamHash(ks, gpus)
	return h
}

// TestIrregular16Small sets every workload up at a small scale on 1 and 2
// GPUs: objects in the documented order with IDs in allocation order,
// every access inside an object, the streams independent of the GPU
// count.
func TestIrregular16Small(t *testing.T) {
	for _, c := range irregular16Cases {
		var hashes []uint64
		for _, gpus := range []int{1, 2} {
			a, ks := setupTest(t, c.name, Params{GPUs: gpus, Scale: c.small, Seed: 1})
			var names []string
			for i, o := range a.Objects() {
				names = append(names, o.Name)
				if o.ID != i {
					t.Fatalf("%s: object %d has ID %d", c.name, i, o.ID)
				}
			}
			prefix := strings.HasSuffix(c.name, "net") // the DNNs: the first objects only
			if len(names) < len(c.objects) || !slices.Equal(names[:len(c.objects)], c.objects) ||
				!prefix && len(names) != len(c.objects) {
				t.Fatalf("%s: objects %v, want %v", c.name, names, c.objects)
			}
			hashes = append(hashes, checkIrregular16Kernels(t, c.name, a, ks, gpus))
		}
		if hashes[0] != hashes[1] {
			t.Errorf("%s: the streams depend on the GPU count", c.name)
		}
	}
}

// TestIrregular16Scale1 sets every workload up at scale 1 and drains the
// first and last workgroup of every launch: the default size is a few
// hundred MB and close to the declared PaperSize.
func TestIrregular16Scale1(t *testing.T) {
	for _, c := range irregular16Cases {
		a, ks := setupTest(t, c.name, Params{GPUs: 1, Scale: 1, Seed: 1})
		fp := a.Footprint()
		if fp > 512*MiB {
			t.Errorf("%s: scale 1 is %.1f MB, not a few hundred MB", c.name, float64(fp)/MiB)
		}
		if dev := math.Abs(float64(fp)/float64(c.size.TableII) - 1); dev > 0.05 {
			t.Errorf("%s: scale 1 is %.1f MB, PaperSize %.1f MB", c.name, float64(fp)/MiB, float64(c.size.TableII)/MiB)
		}
		for _, k := range ks {
			for _, wg := range []int{0, k.Workgroups - 1} {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					drain(t, a, k.Wavefront(wg, wf, 0), nil)
				}
			}
		}
		if c.expected != nil {
			want, err := c.expected(Params{GPUs: 1, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			if dev := math.Abs(float64(fp)/float64(want) - 1); dev > 0.01 {
				t.Errorf("%s: built %.2f MB, expected %.2f MB", c.name, float64(fp)/MiB, float64(want)/MiB)
			}
		}
		msg := ""
		if w, _ := New(c.name); strings.HasSuffix(c.name, "net") {
			b, d, _ := w.(inferNet).shape(Params{GPUs: 1, Scale: 1})
			msg = fmt.Sprintf(", batch %d, width/%d", b, d)
		}
		t.Logf("%-14s scale 1: %6.1f MB, %3d objects, %4d launches%s", c.name, float64(fp)/MiB, len(a.Objects()), len(ks), msg)
	}
}

// TestIrregular16PaperSizes checks that the documented --scale reaches
// each paper's footprint within 10%.
func TestIrregular16PaperSizes(t *testing.T) {
	for _, c := range irregular16Cases {
		for _, pp := range c.papers {
			p := Params{GPUs: 1, Scale: pp.scale, Seed: 1}
			var fp uint64
			if c.expected != nil { // the inputs would take GBs of host memory
				var err error
				if fp, err = c.expected(p); err != nil {
					t.Fatal(err)
				}
			} else {
				a, _ := setupTest(t, c.name, p) // lazy kernels: cheap at any size
				fp = a.Footprint()
			}
			if dev := math.Abs(float64(fp)/float64(pp.bytes) - 1); dev > 0.10 {
				t.Errorf("%s --scale %g: %.0f MB, %s gives %.0f MB", c.name, pp.scale, float64(fp)/MiB, pp.paper, float64(pp.bytes)/MiB)
			}
			t.Logf("%-14s --scale %-5g %8.0f MB (%s %.0f MB)", c.name, pp.scale, float64(fp)/MiB, pp.paper, float64(pp.bytes)/MiB)
		}
	}
}

func TestIrregular16Deterministic(t *testing.T) {
	for _, c := range irregular16Cases {
		hash := func(seed uint64) uint64 {
			_, ks := setupTest(t, c.name, Params{GPUs: 2, Scale: c.small, Seed: seed})
			h, _ := streamHash(ks, 2)
			return h
		}
		a, b := hash(1), hash(1)
		if a != b {
			t.Errorf("%s: the same seed gave two access streams", c.name)
		}
		if c.seeded && a == hash(2) {
			t.Errorf("%s: seeds 1 and 2 gave the same accesses", c.name)
		}
	}
}

// TestIrregular16Iterations checks that only floyd-warshall (passes) and
// xsbench (kernel repeats) take Params.Iterations.
func TestIrregular16Iterations(t *testing.T) {
	for _, c := range irregular16Cases {
		n := map[int]int{}
		for _, it := range []int{0, 1, 2} {
			_, ks := setupTest(t, c.name, Params{GPUs: 1, Scale: c.small, Seed: 1, Iterations: it})
			n[it] = len(ks)
		}
		switch c.name {
		case "floyd-warshall":
			if n[0] != fwPasses || n[1] != 1 || n[2] != 2 {
				t.Errorf("%s: launches %v", c.name, n)
			}
		case "xsbench":
			if n[0] != 1 || n[1] != 1 || n[2] != 2 {
				t.Errorf("%s: launches %v", c.name, n)
			}
		default:
			if n[1] != n[0] || n[2] != n[0] {
				t.Errorf("%s has no iterations, yet launches vary with them: %v", c.name, n)
			}
		}
	}
}

// irregular16Accesses drains one wavefront and returns its instructions'
// accesses.
func irregular16Accesses(t *testing.T, a *objtable.Allocator, s Stream) [][]access {
	t.Helper()
	var out [][]access
	var in Instruction
	for s.Next(&in) {
		var ins []access
		for l := 0; l < in.Lanes; l++ {
			o := a.ObjectAt(objtable.Strip(in.Addr[l]))
			if o == nil {
				t.Fatalf("lane %d: %#x outside every object", l, in.Addr[l])
			}
			ins = append(ins, access{obj: o, addr: objtable.Strip(in.Addr[l]), write: in.Write})
		}
		out = append(out, ins)
	}
	return out
}

// laneElems is the element indices (offset / size) of an instruction's lanes.
func laneElems(ins []access, size uint64) []uint64 {
	var e []uint64
	for _, x := range ins {
		e = append(e, (x.addr-x.obj.Base)/size)
	}
	return e
}

// TestSpGEMMRows checks the Gustavson order: the numeric phase of row i
// gathers exactly the B rows A's row i names, and writes C's row i at
// its offsets; the copy moves every nonzero once; the launches come in
// the API's order.
func TestSpGEMMRows(t *testing.T) {
	p := Params{GPUs: 1, Scale: 0.01, Seed: 3}
	n, _ := SpGEMMRows(p)
	m := spgemmGenerate(n, p.Seed)
	a, ks := setupTest(t, "spgemm", p)
	var names []string
	for _, k := range ks {
		names = append(names, k.Name)
	}
	if want := "spgemm_work_estimation spgemm_symbolic spgemm_scan spgemm_numeric spgemm_copy"; strings.Join(names, " ") != want {
		t.Fatalf("launches %q", names)
	}
	// C's structure, independently: the union of the named B rows.
	for i := 0; i < n; i += 97 {
		u := map[uint32]bool{}
		for _, k := range m.arow(i) {
			for _, c := range m.brow(int(k)) {
				u[c] = true
			}
		}
		if got := int(m.coff[i+1] - m.coff[i]); got != len(u) {
			t.Fatalf("row %d of C: %d nonzeros, want %d", i, got, len(u))
		}
	}
	skew := map[uint32]int{}
	for _, c := range m.acol {
		skew[c]++
	}
	if skew[0] < 10*spgemmRowNNZ { // R-MAT's marginal: column 0 is hot
		t.Errorf("A's column 0 appears %d times in %d rows; the columns are not skewed", skew[0], n)
	}
	numeric := ks[3]
	cWritten := map[uint64]int{}
	for row := 0; row < n; row++ {
		ins := irregular16Accesses(t, a, numeric.Wavefront(row/spgemmRowsPerWG, row%spgemmRowsPerWG, 0))
		var bcols []uint64
		for _, k := range m.arow(row) {
			for j := uint64(0); j < spgemmRowNNZ; j++ {
				bcols = append(bcols, uint64(k)*spgemmRowNNZ+j)
			}
		}
		for _, x := range ins {
			if len(x) > 0 && x[0].obj.Name == "dB_columns" && !slices.Equal(laneElems(x, 4), bcols) {
				t.Fatalf("row %d gathers B elements %v, want %v", row, laneElems(x, 4), bcols)
			}
		}
		last := ins[len(ins)-1]
		if !last[0].write || last[0].obj.Name != "dBuffer2" || len(last) != int(m.coff[row+1]-m.coff[row]) {
			t.Fatalf("row %d: last instruction %v", row, last)
		}
		for _, x := range last {
			cWritten[(x.addr-x.obj.Base)/4]++
		}
	}
	// The values land after the n+1 counts and nnz(C) columns.
	first := uint64(n+1) + uint64(m.nnzC())
	exactlyOnce(t, "numeric values", cWritten, first+uint64(m.nnzC()), func(i uint64) bool { return i >= first })
	c := countKernel(t, a, ks[4], 4)
	c.onlyObjects(t, "copy", []string{"dBuffer2"}, []string{"dC_columns", "dC_values"})
	for _, o := range []string{"dC_columns", "dC_values"} {
		exactlyOnce(t, o, c.writes[o], uint64(m.nnzC()), func(uint64) bool { return true })
	}
	s := countKernel(t, a, ks[2], 4)
	exactlyOnce(t, "scan", s.writes["dC_csrOffsets"], uint64(n+1), func(uint64) bool { return true })
}

// TestBTreeDescent checks every lookup: it reads one whole 128-byte node
// per level, the root (pool slot 0) first, each node a child of the one
// before, ending in the leaf whose key range holds the key (the rightmost
// for keys past the last).
func TestBTreeDescent(t *testing.T) {
	p := Params{GPUs: 1, Scale: 0.005, Seed: 2}
	n, _ := BTreeKeys(p)
	tr := buildBTree(n, p.Seed)
	type where struct{ level, index int }
	at := map[uint32]where{}
	for li, l := range tr.levels {
		for i, s := range l.slot {
			at[s] = where{li, i}
		}
	}
	if len(at) != tr.nodes {
		t.Fatalf("%d pool slots for %d nodes", len(at), tr.nodes)
	}
	a, ks := setupTest(t, "btree", p)
	k := ks[0]
	levels := len(tr.levels)
	for wg := 0; wg < k.Workgroups; wg++ {
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			ins := irregular16Accesses(t, a, k.Wavefront(wg, wf, 0))
			if len(ins) != 3+btreeNodeWords*levels || ins[0][0].obj.Name != "d_queries" || ins[1][0].obj.Name != "d_root" ||
				!ins[len(ins)-1][0].write || ins[len(ins)-1][0].obj.Name != "d_results" {
				t.Fatalf("wavefront %d/%d: %d instructions", wg, wf, len(ins))
			}
			q0 := int(laneElems(ins[0], 4)[0])
			for h := 0; h < 2; h++ {
				for j := 0; j < btreeNodeWords; j++ {
					key := btreeQueryKey(p.Seed, q0+h*btreeNodeWords+j, n)
					prev := where{-1, -1}
					for l := 0; l < levels; l++ {
						lanes := ins[2+j*levels+l][h*btreeNodeWords : (h+1)*btreeNodeWords]
						off := lanes[0].addr - lanes[0].obj.Base
						if lanes[0].obj.Name != "d_pool" || off%btreeNodeBytes != 0 {
							t.Fatalf("query %d level %d reads %s+%d", q0+h*32+j, l, lanes[0].obj.Name, off)
						}
						for w, x := range lanes {
							if x.addr != lanes[0].addr+4*uint64(w) {
								t.Fatalf("query %d level %d: lane %d reads %#x", q0+h*32+j, l, w, x.addr)
							}
						}
						node := at[uint32(off/btreeNodeBytes)]
						if node.level != levels-1-l {
							t.Fatalf("query %d reads a node of level %d at depth %d", q0+h*32+j, node.level, l)
						}
						if l > 0 {
							up := tr.levels[prev.level]
							if node.index < int(up.start[prev.index]) || node.index >= int(up.start[prev.index+1]) {
								t.Fatalf("query %d: node %d of level %d is no child of node %d", q0+h*32+j, node.index, node.level, prev.index)
							}
						}
						prev = node
					}
					leaves := tr.levels[0].first
					lo, hi := leaves[prev.index], uint32(math.MaxUint32)
					if prev.index+1 < len(leaves) {
						hi = leaves[prev.index+1]
					}
					if key < lo || key >= hi {
						t.Fatalf("query %d: key %d ends in leaf [%d, %d)", q0+h*32+j, key, lo, hi)
					}
				}
			}
		}
	}
}

// TestFloydWarshallPasses checks the passes against an independent
// Floyd-Warshall on HeCBench's matrix: pass k reads row k and column k,
// and stores exactly the distances (and paths) that k shortens.
func TestFloydWarshallPasses(t *testing.T) {
	g := newGlibcRand(1) // glibc's rand() after srand(1)
	if a, b, c := g.next(), g.next(), g.next(); a != 1804289383 || b != 846930886 || c != 1681692777 {
		t.Fatalf("rand() after srand(1): %d %d %d", a, b, c)
	}
	p := Params{GPUs: 1, Scale: 0.002, Seed: 1, Iterations: 3}
	n, passes, _ := FWShape(p)
	g = newGlibcRand(2) // HeCBench's srand(2)
	d := make([]int, n*n)
	for i := range d {
		d[i] = int(g.next() % 201)
	}
	for i := 0; i < n; i++ {
		d[i*n+i] = 0
	}
	a, ks := setupTest(t, "floyd-warshall", p)
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
		c := countKernel(t, a, kn, 4)
		c.onlyObjects(t, "pass", []string{"pathDistanceBuffer"}, []string{"pathDistanceBuffer", "pathBuffer"})
		if len(want) == 0 {
			t.Fatalf("pass %d improves nothing", k)
		}
		for _, o := range []string{"pathDistanceBuffer", "pathBuffer"} {
			exactlyOnce(t, o, c.writes[o], uint64(n*n), func(i uint64) bool { return want[i] == 1 })
		}
		for i, r := range c.reads["pathDistanceBuffer"] {
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
	p := Params{GPUs: 1, Scale: 0.02, Seed: 1}
	g, lookups, _, _ := XSBenchShape(p)
	x := xsbGenerate(g, xsbGridSeed)
	for i := 0; i < xsbIsotopes; i++ {
		if !sort.Float64sAreSorted(x.energy[i*g : (i+1)*g]) {
			t.Fatalf("nuclide %d's grid is not sorted", i)
		}
	}
	a, ks := setupTest(t, "xsbench", p)
	k := ks[0]
	matCount := map[int]int{}
	steps := int(math.Ceil(math.Log2(float64(xsbIsotopes * g))))
	for wg := 0; wg < k.Workgroups; wg++ {
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			i0 := (wg*k.WavefrontsPerWorkgroup + wf) * WavefrontSize
			ins := irregular16Accesses(t, a, k.Wavefront(wg, wf, 0))
			search := 0
			for search < len(ins) && ins[search][0].obj.Name == "unionized_energy_array" {
				search++
			}
			if search < steps-1 || search > steps+1 {
				t.Fatalf("lookups %d..: %d search steps over %d energies", i0, search, xsbIsotopes*g)
			}
			var mat [WavefrontSize]int
			var idx [WavefrontSize]int
			nucs := 0
			for l := 0; l < WavefrontSize; l++ {
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
				for l := 0; l < WavefrontSize; l++ {
					if j < xsbNumNucs[mat[l]] {
						lanes = append(lanes, l)
					}
				}
				group := loop[5*j : 5*j+5]
				for f, o := range []string{"mats", "concs", "index_grid", "nuclide_grid", "nuclide_grid"} {
					if len(group[f]) != len(lanes) || group[f][0].obj.Name != o {
						t.Fatalf("lookups %d.. nuclide %d load %d: %d lanes of %s, want %d of %s",
							i0, j, f, len(group[f]), group[f][0].obj.Name, len(lanes), o)
					}
				}
				for li, l := range lanes {
					nuc := xsbMatNucs[mat[l]][j]
					if got := laneElems(group[0][li:li+1], 4)[0]; got != uint64(mat[l]*xsbMaxNucs+j) {
						t.Fatalf("lookup %d reads mats[%d], want material %d nuclide %d", i0+l, got, mat[l], j)
					}
					if got := laneElems(group[2][li:li+1], 4)[0]; got != uint64(idx[l]*xsbIsotopes+nuc) {
						t.Fatalf("lookup %d reads index_grid[%d], want row %d nuclide %d", i0+l, got, idx[l], nuc)
					}
					low := laneElems(group[3][li:li+1], xsbPointBytes)[0]
					high := laneElems(group[4][li:li+1], xsbPointBytes)[0]
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

// TestInferenceForwardOnly checks that alexnet and squeezenet run one
// forward pass: the launch order of their layers, no gradient or
// optimiser tensor, no kernel reading an activation before a launch wrote
// it, and the fire modules' concatenation copying each expand output
// once.
func TestInferenceForwardOnly(t *testing.T) {
	conv := "im2col gemm bias_relu"
	grouped := "im2col gemm im2col gemm bias_relu"
	fire := "gemm bias_relu gemm bias_relu im2col gemm bias_relu concat"
	want := map[string]string{
		"alexnet": strings.Join([]string{conv, "lrn maxpool", grouped, "lrn maxpool", conv, grouped, grouped, "maxpool",
			"gemm bias_relu gemm bias_relu gemm bias"}, " "),
		"squeezenet": strings.Join([]string{conv, "maxpool", fire, fire, fire, "maxpool", fire, fire, fire, fire, "maxpool",
			fire, "gemm bias_relu avgpool"}, " "),
	}
	for name, seq := range want {
		a, ks := setupTest(t, name, Params{GPUs: 2, Scale: 0.01})
		var names []string
		for _, k := range ks {
			names = append(names, k.Name)
		}
		if got := strings.Join(names, " "); got != seq {
			t.Errorf("%s launches\n%s\nwant\n%s", name, got, seq)
		}
		for _, o := range a.Objects() {
			for _, s := range []string{"grad", "velocity", "labels", "softmax", "mask"} {
				if strings.Contains(o.Name, s) {
					t.Errorf("%s: inference allocates %q", name, o.Name)
				}
			}
		}
		written := map[string]bool{}
		for i, k := range ks {
			wrote := map[string]bool{}
			for wg := 0; wg < k.Workgroups; wg++ {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					drain(t, a, k.Wavefront(wg, wf, 0), func(x access) {
						n := x.obj.Name
						if x.write {
							wrote[n] = true
							return
						}
						if !written[n] && n != "input" && n != "kernarg" && !strings.HasSuffix(n, ".weight") && !strings.HasSuffix(n, ".bias") {
							t.Fatalf("%s launch %d (%s) reads %q before any kernel wrote it", name, i, k.Name, n)
						}
					})
				}
			}
			for n := range wrote {
				written[n] = true
			}
			if k.Name == "lrn" { // output e reads the same pixel in the channels c-2 .. c+2
				for wg := 0; wg < k.Workgroups; wg++ {
					for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
						ins := irregular16Accesses(t, a, k.Wavefront(wg, wf, 0))
						if len(ins) != 7 {
							continue // past the end: the kernarg load only
						}
						out := laneElems(ins[6], floatBytes)
						hw := map[string]uint64{"norm1": 55 * 55, "norm2": 27 * 27}[ins[6][0].obj.Name]
						for d := 0; d < 5; d++ {
							for _, e := range laneElems(ins[1+d], floatBytes) {
								if !slices.Contains(out, e+2*hw-uint64(d)*hw) {
									t.Fatalf("%s launch %d: lrn read %d (channel offset %d) for none of outputs %v", name, i, e, d-2, out)
								}
							}
						}
					}
				}
			}
			if k.Name == "concat" {
				c := countKernel(t, a, k, floatBytes)
				var srcs []string
				for n := range c.reads {
					if n != "kernarg" {
						srcs = append(srcs, n)
					}
				}
				slices.Sort(srcs)
				if len(srcs) != 2 || !strings.HasSuffix(srcs[0], ".expand1x1") || !strings.HasSuffix(srcs[1], ".expand3x3") {
					t.Fatalf("%s launch %d: concat reads %v", name, i, srcs)
				}
				for _, n := range srcs {
					o := irregular16Object(a, n)
					exactlyOnce(t, n, c.reads[n], o.Size/floatBytes, func(uint64) bool { return true })
				}
			}
		}
	}
}

func irregular16Object(a *objtable.Allocator, name string) *objtable.Object {
	for _, o := range a.Objects() {
		if o.Name == name {
			return o
		}
	}
	return nil
}
