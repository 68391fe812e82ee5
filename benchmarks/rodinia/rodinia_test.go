package rodinia

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

func TestHotspotSwap(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.003, Size: benchmarks.SizeAuto, Iterations: 3}
	n, _, _ := HotspotShape(p)
	a, ks := benchtest.Setup(t, "hotspot", p)
	temps := []string{"MatrixTemp0", "MatrixTemp1"}
	for k, kn := range ks {
		c := benchtest.CountKernel(t, a, kn, benchmarks.FloatBytes)
		src, dst := temps[k%2], temps[(k+1)%2]
		c.OnlyObjects(t, "hotspot", []string{src, "MatrixPower"}, []string{dst})
		all := func(uint64) bool { return true }
		benchtest.ExactlyOnce(t, dst, c.Writes[dst], uint64(n*n), all)
		if len(c.Reads[src]) != n*n || len(c.Reads["MatrixPower"]) != n*n {
			t.Errorf("launch %d: %d and %d of %d points read", k, len(c.Reads[src]), len(c.Reads["MatrixPower"]), n*n)
		}
	}
}

func TestPathfinderRows(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.002, Size: benchmarks.SizeAuto}
	cols, _ := PathfinderCols(p)
	cols = max(cols, 2*pfBlock)
	a, ks := benchtest.Setup(t, "pathfinder", p)
	if len(ks) != 20 {
		t.Fatalf("%d launches, want 20", len(ks))
	}
	res := []string{"gpuResult0", "gpuResult1"}
	wallRead := map[uint64]int{}
	for k, kn := range ks {
		c := benchtest.CountKernel(t, a, kn, benchmarks.FloatBytes)
		c.OnlyObjects(t, "pathfinder", []string{res[k%2], "gpuWall"}, []string{res[(k+1)%2]})
		benchtest.ExactlyOnce(t, "result", c.Writes[res[(k+1)%2]], uint64(cols), func(uint64) bool { return true })
		for i := range c.Reads["gpuWall"] {
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
	p := benchmarks.Params{GPUs: 4, Scale: 0.001, Size: benchmarks.SizeAuto}
	n, _ := NWLength(p)
	a, ks := benchtest.Setup(t, "nw", p)
	if len(ks) != 2*n/nwBlock-1 {
		t.Fatalf("%d launches for n = %d", len(ks), n)
	}
	cols := uint64(n + 1)
	written := map[uint64]int{}
	for k, kn := range ks {
		c := benchtest.CountKernel(t, a, kn, benchmarks.FloatBytes)
		c.OnlyObjects(t, "nw", []string{"referrence", "itemsets"}, []string{"itemsets"})
		for i := range c.Reads["itemsets"] {
			if i/cols != 0 && i%cols != 0 && written[i] == 0 {
				t.Fatalf("launch %d reads score [%d][%d] before it is written", k, i/cols, i%cols)
			}
		}
		for i, m := range c.Writes["itemsets"] {
			written[i] += m
		}
	}
	benchtest.ExactlyOnce(t, "itemsets", written, cols*cols, func(i uint64) bool { return i/cols > 0 && i%cols > 0 })
}

func TestBackpropKernels(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto}
	in, _ := BackpropInputs(p)
	a, ks := benchtest.Setup(t, "backprop", p)
	if len(ks) != 2 {
		t.Fatalf("%d kernels", len(ks))
	}
	w := uint64(bpHidden + 1)
	inner := func(i uint64) bool { return i/w > 0 && i%w > 0 }
	f := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
	f.OnlyObjects(t, "forward", []string{"input_units", "input_weights"}, []string{"input_weights", "hidden_partial_sum"})
	benchtest.ExactlyOnce(t, "forward reads", f.Reads["input_weights"], uint64(in+1)*w, inner)
	benchtest.ExactlyOnce(t, "forward writes", f.Writes["input_weights"], uint64(in+1)*w, inner)
	benchtest.ExactlyOnce(t, "partial sums", f.Writes["hidden_partial_sum"], uint64(in), func(uint64) bool { return true })
	b := benchtest.CountKernel(t, a, ks[1], benchmarks.FloatBytes)
	b.OnlyObjects(t, "adjust", []string{"hidden_delta", "input_units", "input_weights2", "input_prev_weights"},
		[]string{"input_weights2", "input_prev_weights"})
	for _, o := range []string{"input_weights2", "input_prev_weights"} {
		benchtest.ExactlyOnce(t, o, b.Writes[o], uint64(in+1)*w, func(i uint64) bool { return i%w > 0 })
	}
}

func TestSRADCoverage(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.02, Size: benchmarks.SizeAuto, Iterations: 1}
	n, _, _ := SRADShape(p)
	a, ks := benchtest.Setup(t, "srad", p)
	all := func(uint64) bool { return true }
	c1 := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
	c1.OnlyObjects(t, "srad_cuda_1", []string{"J_shared"}, []string{"C_cuda", "E_C", "W_C", "S_C", "N_C"})
	for _, o := range []string{"C_cuda", "E_C", "W_C", "S_C", "N_C"} {
		benchtest.ExactlyOnce(t, o, c1.Writes[o], uint64(n*n), all)
	}
	c2 := benchtest.CountKernel(t, a, ks[1], benchmarks.FloatBytes)
	c2.OnlyObjects(t, "srad_cuda_2", []string{"C_cuda", "E_C", "W_C", "S_C", "N_C", "J_shared"}, []string{"J_shared"})
	benchtest.ExactlyOnce(t, "J", c2.Writes["J_shared"], uint64(n*n), all)
}

// TestRBFSLevels checks the graph's shape and that the launches of level
// c write exactly the nodes at depth c+1, and logs the instruction count
// at scale 1.
func TestRBFSLevels(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.05, Size: benchmarks.SizeAuto, Seed: 3}
	g, depth, err := rbfsGraph(p)
	if err != nil {
		t.Fatal(err)
	}
	minDeg := g.Vertices()
	for v := 0; v < g.Vertices(); v++ {
		minDeg = min(minDeg, g.Degree(v))
	}
	if mean := float64(g.Edges()) / float64(g.Vertices()); minDeg < 2*rbfsMinEdges/2 || mean < 5.8 || mean > 6.2 {
		t.Errorf("degrees: min %d, mean %.2f; Rodinia's generator gives at least 2, mean 6", minDeg, mean)
	}
	a, ks := benchtest.Setup(t, "rbfs", p)
	for k, kn := range ks {
		c := benchtest.CountKernel(t, a, kn, 1)
		level := int32(k / 2)
		for _, o := range []string{"graph_nodes", "graph_edges"} {
			if len(c.Writes[o]) != 0 {
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
			if (c.Writes[target][off] > 0) != (d == level+1) {
				t.Fatalf("launch %d: node %d at depth %d: %s written %d times", k, v, d, target, c.Writes[target][off])
			}
		}
	}
	if testing.Short() {
		return
	}
	_, ks = benchtest.Setup(t, "rbfs", benchmarks.Params{GPUs: 4, Scale: 1, Size: benchmarks.SizeAuto, Seed: 1})
	_, total := benchtest.StreamHash(ks, 4)
	t.Logf("rbfs scale 1: %d launches, %d instructions", len(ks), total)
}
