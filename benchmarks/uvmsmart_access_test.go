package benchmarks

import (
	"testing"

	"github.com/mgpu-sim/mgpu/objtable"
)

// accessCounts drains kernel k and counts, per object name, the reads and
// writes of each element (byte offset / size).
type accessCounts struct {
	reads, writes map[string]map[uint64]int
	instructions  int
}

func countKernel(t *testing.T, a *objtable.Allocator, k Kernel, size uint64) accessCounts {
	t.Helper()
	c := accessCounts{reads: map[string]map[uint64]int{}, writes: map[string]map[uint64]int{}}
	for wg := 0; wg < k.Workgroups; wg++ {
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			c.instructions += drain(t, a, k.Wavefront(wg, wf, 0), func(x access) {
				m := c.reads
				if x.write {
					m = c.writes
				}
				if m[x.obj.Name] == nil {
					m[x.obj.Name] = map[uint64]int{}
				}
				m[x.obj.Name][(x.addr-x.obj.Base)/size]++
			})
		}
	}
	return c
}

// onlyObjects fails unless exactly the named objects were read and written.
func (c accessCounts) onlyObjects(t *testing.T, what string, reads, writes []string) {
	t.Helper()
	for _, m := range []struct {
		got  map[string]map[uint64]int
		want []string
		kind string
	}{{c.reads, reads, "read"}, {c.writes, writes, "written"}} {
		if len(m.got) != len(m.want) {
			t.Errorf("%s: %d objects %s, want %v", what, len(m.got), m.kind, m.want)
		}
		for _, n := range m.want {
			if len(m.got[n]) == 0 {
				t.Errorf("%s: %s not %s", what, n, m.kind)
			}
		}
	}
}

// exactlyOnce fails unless the elements of m are exactly those for which
// in(i) holds, out of elems, each counted once.
func exactlyOnce(t *testing.T, what string, m map[uint64]int, elems uint64, in func(i uint64) bool) {
	t.Helper()
	want := 0
	for i := uint64(0); i < elems; i++ {
		if in(i) {
			want++
			if m[i] != 1 {
				t.Fatalf("%s: element %d counted %d times, want once", what, i, m[i])
			}
		}
	}
	if len(m) != want {
		t.Fatalf("%s: %d elements counted, want %d", what, len(m), want)
	}
}

func TestConv2DAccesses(t *testing.T) {
	p := Params{GPUs: 2, Scale: 0.005, Size: SizeAuto}
	n, _ := Conv2DSide(p)
	a, ks := setupTest(t, "2dconv", p)
	c := countKernel(t, a, ks[0], floatBytes)
	c.onlyObjects(t, "2dconv", []string{"A"}, []string{"B"})
	side := uint64(n)
	interior := func(i uint64) bool { r, col := i/side, i%side; return r > 0 && r < side-1 && col > 0 && col < side-1 }
	exactlyOnce(t, "B", c.writes["B"], side*side, interior)
	if len(c.reads["A"]) != n*n { // the corners too, as diagonal neighbours
		t.Errorf("A: %d of %d elements read", len(c.reads["A"]), n*n)
	}
	if want := 10 * n * n / WavefrontSize; c.instructions != want {
		t.Errorf("%d instructions, want %d", c.instructions, want)
	}
}

func TestMatrixVectorStride(t *testing.T) {
	for _, w := range []struct {
		name    string
		strided [2]bool // per kernel: lanes walk rows (64 rows per load)
	}{{"atax", [2]bool{true, false}}, {"bicg", [2]bool{false, true}}} {
		p := Params{GPUs: 4, Scale: 0.001, Size: SizeAuto}
		a, ks := setupTest(t, w.name, p)
		A := a.Object(0)
		n := uint64(mustSide(t, w.name, p))
		for ki, k := range ks {
			c := countKernel(t, a, k, floatBytes)
			exactlyOnce(t, w.name+" A", c.reads["A"], n*n, func(uint64) bool { return true })
			var in Instruction
			s := k.Wavefront(0, 1, 0)
			for s.Next(&in) {
				if in.Lanes != WavefrontSize || objtable.Strip(in.Addr[0]) < A.Base || objtable.Strip(in.Addr[0]) >= A.Base+A.Size {
					continue
				}
				step := objtable.Strip(in.Addr[1]) - objtable.Strip(in.Addr[0])
				if want := map[bool]uint64{true: n * floatBytes, false: floatBytes}[w.strided[ki]]; step != want {
					t.Fatalf("%s kernel %d: lanes %d bytes apart, want %d", w.name, ki, step, want)
				}
			}
		}
	}
}

func mustSide(t *testing.T, name string, p Params) int {
	n, err := mvSide(map[string]PaperSize{"atax": ATAXSize, "bicg": BICGSize}[name], map[string]int{"atax": 3, "bicg": 4}[name], p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFDTD2DSteps(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.003, Size: SizeAuto, Iterations: 2}
	n, tmax, _ := FDTD2DShape(p)
	a, ks := setupTest(t, "fdtd2d", p)
	if tmax != 2 || len(ks) != 6 || a.Object(0).Size != 2*floatBytes {
		t.Fatalf("tmax %d, %d kernels, _fict_ %d bytes", tmax, len(ks), a.Object(0).Size)
	}
	side := uint64(n)
	for ki, k := range ks {
		c := countKernel(t, a, k, floatBytes)
		switch ki % 3 {
		case 0:
			c.onlyObjects(t, "step1", []string{"_fict_", "ey", "hz"}, []string{"ey"})
			if f := c.reads["_fict_"]; len(f) != 1 || f[uint64(ki/3)] != n/convBlockX { // once per top wavefront
				t.Errorf("step1 of step %d: _fict_ reads %v", ki/3, f)
			}
			exactlyOnce(t, "step1 ey", c.writes["ey"], (side+1)*side, func(i uint64) bool { return i < side*side })
		case 1:
			c.onlyObjects(t, "step2", []string{"ex", "hz"}, []string{"ex"})
			exactlyOnce(t, "step2 ex", c.writes["ex"], side*(side+1), func(i uint64) bool { return i%(side+1) > 0 && i%(side+1) < side })
		default:
			c.onlyObjects(t, "step3", []string{"ex", "ey", "hz"}, []string{"hz"})
			exactlyOnce(t, "step3 hz", c.writes["hz"], side*side, func(uint64) bool { return true })
		}
	}
}

func TestHotspotSwap(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.003, Size: SizeAuto, Iterations: 3}
	n, _, _ := HotspotShape(p)
	a, ks := setupTest(t, "hotspot", p)
	temps := []string{"MatrixTemp0", "MatrixTemp1"}
	for k, kn := range ks {
		c := countKernel(t, a, kn, floatBytes)
		src, dst := temps[k%2], temps[(k+1)%2]
		c.onlyObjects(t, "hotspot", []string{src, "MatrixPower"}, []string{dst})
		all := func(uint64) bool { return true }
		exactlyOnce(t, dst, c.writes[dst], uint64(n*n), all)
		if len(c.reads[src]) != n*n || len(c.reads["MatrixPower"]) != n*n {
			t.Errorf("launch %d: %d and %d of %d points read", k, len(c.reads[src]), len(c.reads["MatrixPower"]), n*n)
		}
	}
}

func TestPathfinderRows(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.002, Size: SizeAuto}
	cols, _ := PathfinderCols(p)
	cols = max(cols, 2*pfBlock)
	a, ks := setupTest(t, "pathfinder", p)
	if len(ks) != 20 {
		t.Fatalf("%d launches, want 20", len(ks))
	}
	res := []string{"gpuResult0", "gpuResult1"}
	wallRead := map[uint64]int{}
	for k, kn := range ks {
		c := countKernel(t, a, kn, floatBytes)
		c.onlyObjects(t, "pathfinder", []string{res[k%2], "gpuWall"}, []string{res[(k+1)%2]})
		exactlyOnce(t, "result", c.writes[res[(k+1)%2]], uint64(cols), func(uint64) bool { return true })
		for i := range c.reads["gpuWall"] {
			if row := int(i) / cols; row < pfPyramid*k || row >= pfPyramid*(k+1) {
				t.Fatalf("launch %d read wall row %d", k, row)
			}
			wallRead[i]++
		}
	}
	if len(wallRead) != (pfRows-1)*cols {
		t.Errorf("%d of %d wall elements read", len(wallRead), (pfRows-1)*cols)
	}
}

// TestNWDiagonals checks that every interior score is written once, and
// that each launch reads only scores written by earlier launches or the
// host's first row and column.
func TestNWDiagonals(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.001, Size: SizeAuto}
	n, _ := NWLength(p)
	a, ks := setupTest(t, "nw", p)
	if len(ks) != 2*n/nwBlock-1 {
		t.Fatalf("%d launches for n = %d", len(ks), n)
	}
	cols := uint64(n + 1)
	written := map[uint64]int{}
	for k, kn := range ks {
		c := countKernel(t, a, kn, floatBytes)
		c.onlyObjects(t, "nw", []string{"referrence", "itemsets"}, []string{"itemsets"})
		for i := range c.reads["itemsets"] {
			if i/cols != 0 && i%cols != 0 && written[i] == 0 {
				t.Fatalf("launch %d reads score [%d][%d] before it is written", k, i/cols, i%cols)
			}
		}
		for i, m := range c.writes["itemsets"] {
			written[i] += m
		}
	}
	exactlyOnce(t, "itemsets", written, cols*cols, func(i uint64) bool { return i/cols > 0 && i%cols > 0 })
}

func TestBackpropKernels(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Size: SizeAuto}
	in, _ := BackpropInputs(p)
	a, ks := setupTest(t, "backprop", p)
	if len(ks) != 2 {
		t.Fatalf("%d kernels", len(ks))
	}
	w := uint64(bpHidden + 1)
	inner := func(i uint64) bool { return i/w > 0 && i%w > 0 }
	f := countKernel(t, a, ks[0], floatBytes)
	f.onlyObjects(t, "forward", []string{"input_units", "input_weights"}, []string{"input_weights", "hidden_partial_sum"})
	exactlyOnce(t, "forward reads", f.reads["input_weights"], uint64(in+1)*w, inner)
	exactlyOnce(t, "forward writes", f.writes["input_weights"], uint64(in+1)*w, inner)
	exactlyOnce(t, "partial sums", f.writes["hidden_partial_sum"], uint64(in), func(uint64) bool { return true })
	b := countKernel(t, a, ks[1], floatBytes)
	b.onlyObjects(t, "adjust", []string{"hidden_delta", "input_units", "input_weights2", "input_prev_weights"},
		[]string{"input_weights2", "input_prev_weights"})
	for _, o := range []string{"input_weights2", "input_prev_weights"} {
		exactlyOnce(t, o, b.writes[o], uint64(in+1)*w, func(i uint64) bool { return i%w > 0 })
	}
}

func TestSRADCoverage(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.02, Size: SizeAuto, Iterations: 1}
	n, _, _ := SRADShape(p)
	a, ks := setupTest(t, "srad", p)
	all := func(uint64) bool { return true }
	c1 := countKernel(t, a, ks[0], floatBytes)
	c1.onlyObjects(t, "srad_cuda_1", []string{"J_shared"}, []string{"C_cuda", "E_C", "W_C", "S_C", "N_C"})
	for _, o := range []string{"C_cuda", "E_C", "W_C", "S_C", "N_C"} {
		exactlyOnce(t, o, c1.writes[o], uint64(n*n), all)
	}
	c2 := countKernel(t, a, ks[1], floatBytes)
	c2.onlyObjects(t, "srad_cuda_2", []string{"C_cuda", "E_C", "W_C", "S_C", "N_C", "J_shared"}, []string{"J_shared"})
	exactlyOnce(t, "J", c2.writes["J_shared"], uint64(n*n), all)
}

// TestRBFSLevels checks the graph's shape and that the launches of level
// c write exactly the nodes at depth c+1, and logs the instruction count
// at scale 1.
func TestRBFSLevels(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.05, Size: SizeAuto, Seed: 3}
	g, depth, err := rbfsGraph(p)
	if err != nil {
		t.Fatal(err)
	}
	minDeg := g.vertices()
	for v := 0; v < g.vertices(); v++ {
		minDeg = min(minDeg, g.degree(v))
	}
	if mean := float64(g.edges()) / float64(g.vertices()); minDeg < 2*rbfsMinEdges/2 || mean < 5.8 || mean > 6.2 {
		t.Errorf("degrees: min %d, mean %.2f; Rodinia's generator gives at least 2, mean 6", minDeg, mean)
	}
	a, ks := setupTest(t, "rbfs", p)
	for k, kn := range ks {
		c := countKernel(t, a, kn, 1)
		level := int32(k / 2)
		for _, o := range []string{"graph_nodes", "graph_edges"} {
			if len(c.writes[o]) != 0 {
				t.Fatalf("%s written", o)
			}
		}
		target := "cost"
		if k%2 == 1 {
			target = "graph_visited"
		}
		for v, d := range depth {
			off := uint64(v)
			if target == "cost" {
				off *= 4
			}
			if (c.writes[target][off] > 0) != (d == level+1) {
				t.Fatalf("launch %d: node %d at depth %d: %s written %d times", k, v, d, target, c.writes[target][off])
			}
		}
	}
	if testing.Short() {
		return
	}
	_, ks = setupTest(t, "rbfs", Params{GPUs: 4, Scale: 1, Size: SizeAuto, Seed: 1})
	_, total := streamHash(ks, 4)
	t.Logf("rbfs scale 1: %d launches, %d instructions", len(ks), total)
}

func TestRandomAccessUpdates(t *testing.T) {
	r := uint64(1)
	for n := uint64(0); n < 300; n++ {
		if got := raPow(n); got != r {
			t.Fatalf("HPCC_starts(%d) = %#x, want %#x", n, got, r)
		}
		r = raNext(r)
	}
	p := Params{GPUs: 4, Scale: 0.001, Size: SizeAuto, Seed: 1}
	k, _ := RALogTable(p)
	a, ks := setupTest(t, "ra", p)
	table := a.Object(0)
	updates, pages := 0, map[uint64]bool{}
	for wg := 0; wg < ks[0].Workgroups; wg++ {
		for wf := 0; wf < ks[0].WavefrontsPerWorkgroup; wf++ {
			s := ks[0].Wavefront(wg, wf, 0)
			var ld, st Instruction
			for s.Next(&ld) {
				if !s.Next(&st) || ld.Write || !st.Write || ld.Addr != st.Addr || ld.Lanes != WavefrontSize {
					t.Fatal("an update is not a load then a store of the same words")
				}
				updates += WavefrontSize
				for l := 0; l < ld.Lanes; l++ {
					pages[(objtable.Strip(ld.Addr[l])-table.Base)/testPage] = true
				}
			}
		}
	}
	if updates != 4<<k {
		t.Errorf("%d updates, want 4 x 2^%d", updates, k)
	}
	if n := (8<<k + testPage - 1) / testPage; len(pages) != n {
		t.Errorf("%d of %d table pages touched", len(pages), n)
	}
}
