package cuda

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

func TestMMTiledOrder(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto}
	n, _ := MMTiledSide(p)
	a, ks := benchtest.Setup(t, "mm-tiled", p)
	A, B, C := a.Object(0), a.Object(1), a.Object(2)
	tiles := n / 32
	if n%32 != 0 || tiles < 2 || ks[0].Workgroups != tiles*tiles || ks[0].WavefrontsPerWorkgroup != 16 {
		t.Fatalf("n %d: %d workgroups of %d wavefronts", n, ks[0].Workgroups, ks[0].WavefrontsPerWorkgroup)
	}
	// Block (bx 1, by 0), wavefront 1: rows 2 and 3, columns 32..63.
	in := benchtest.FirstInstructions(ks[0], 1, 1, 1<<20)
	if len(in) != 2*tiles+1 {
		t.Fatalf("%d instructions, want %d", len(in), 2*tiles+1)
	}
	row := func(r0, c0 int) func(int) int { return func(l int) int { return (r0+l/32)*n + c0 + l%32 } }
	benchtest.WantLanes(t, "A tile 0", in[0], A, false, 64, row(2, 0), 4)
	benchtest.WantLanes(t, "B tile 0", in[1], B, false, 64, row(2, 32), 4)
	benchtest.WantLanes(t, "A tile 1", in[2], A, false, 64, row(2, 32), 4)
	benchtest.WantLanes(t, "B tile 1", in[3], B, false, 64, row(34, 32), 4)
	benchtest.WantLanes(t, "C", in[2*tiles], C, true, 64, row(2, 32), 4)
	cnt := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
	elems := uint64(n * n)
	benchtest.EachCounted(t, "A", cnt.Reads["A"], elems, tiles, benchtest.AnyElem)
	benchtest.EachCounted(t, "B", cnt.Reads["B"], elems, tiles, benchtest.AnyElem)
	benchtest.EachCounted(t, "C", cnt.Writes["C"], elems, 1, benchtest.AnyElem)
}

func TestGEMVRows(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto}
	n, _ := GEMVSide(p)
	a, ks := benchtest.Setup(t, "gemv", p)
	A, x, y := a.Object(0), a.Object(1), a.Object(2)
	in := benchtest.FirstInstructions(ks[0], 2, 3, 1<<20) // row 11
	if len(in) != 2*n/64+1 {
		t.Fatalf("%d instructions, want %d", len(in), 2*n/64+1)
	}
	benchtest.WantLanes(t, "A[11][0..63]", in[0], A, false, 64, func(l int) int { return 11*n + l }, 4)
	benchtest.WantLanes(t, "x[0..63]", in[1], x, false, 64, func(l int) int { return l }, 4)
	benchtest.WantLanes(t, "A[11][64..127]", in[2], A, false, 64, func(l int) int { return 11*n + 64 + l }, 4)
	benchtest.WantLanes(t, "y[11]", in[len(in)-1], y, true, 1, func(int) int { return 11 }, 4)
	c := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
	benchtest.EachCounted(t, "A", c.Reads["A"], uint64(n*n), 1, benchtest.AnyElem)
	benchtest.EachCounted(t, "x", c.Reads["x"], uint64(n), n, benchtest.AnyElem)
	benchtest.EachCounted(t, "y", c.Writes["y"], uint64(n), 1, benchtest.AnyElem)
}

func TestBlackScholesSweeps(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.001, Size: benchmarks.SizeAuto, Iterations: 2}
	optN, _, _ := BlackScholesShape(p)
	a, ks := benchtest.Setup(t, "blackscholes", p)
	in := benchtest.FirstInstructions(ks[1], 1, 1, 10) // float2 elements 192..255
	if len(in) != 5 {
		t.Fatalf("%d instructions", len(in))
	}
	for i, o := range []int{2, 3, 4, 0, 1} { // StockPrice, OptionStrike, OptionYears, then CallResult, PutResult
		benchtest.WantLanes(t, a.Object(o).Name, in[i], a.Object(o), i >= 3, 64, func(l int) int { return 192 + l }, 8)
	}
	for _, k := range ks {
		c := benchtest.CountKernel(t, a, k, 8)
		c.OnlyObjects(t, "BlackScholesGPU", []string{"StockPrice", "OptionStrike", "OptionYears"}, []string{"CallResult", "PutResult"})
		for _, o := range []string{"StockPrice", "OptionStrike", "OptionYears"} {
			benchtest.EachCounted(t, o, c.Reads[o], uint64(optN/2), 1, benchtest.AnyElem)
		}
		for _, o := range []string{"CallResult", "PutResult"} {
			benchtest.EachCounted(t, o, c.Writes[o], uint64(optN/2), 1, benchtest.AnyElem)
		}
	}
}
