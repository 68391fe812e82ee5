package hecbench

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

func TestHellingerOrder(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto}
	s, _, _ := HellingerShape(p)
	m, n, q := s/8, s/4, s/2
	a, ks := benchtest.Setup(t, "hellinger", p)
	A, B, C := a.Object(0), a.Object(1), a.Object(2)
	in := benchtest.FirstInstructions(ks[0], 1, 2, 1<<20) // block (1, 0), rows 8..11, columns 16..31
	if len(in) != 2*n+1 {
		t.Fatalf("%d instructions, want %d", len(in), 2*n+1)
	}
	benchtest.WantLanes(t, "a[row][0]", in[0], A, false, 4, func(l int) int { return (8 + l) * n }, 4)
	benchtest.WantLanes(t, "b[0][col]", in[1], B, false, 16, func(l int) int { return 16 + l }, 4)
	benchtest.WantLanes(t, "a[row][1]", in[2], A, false, 4, func(l int) int { return (8+l)*n + 1 }, 4)
	benchtest.WantLanes(t, "c", in[2*n], C, true, 64, func(l int) int { return (8+l/16)*q + 16 + l%16 }, 4)
	c := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
	benchtest.EachCounted(t, "a", c.Reads["a"], uint64(m*n), q/16, benchtest.AnyElem)
	benchtest.EachCounted(t, "b", c.Reads["b"], uint64(n*q), m/4, benchtest.AnyElem)
	benchtest.EachCounted(t, "c", c.Writes["c"], uint64(m*q), 1, benchtest.AnyElem)
}
