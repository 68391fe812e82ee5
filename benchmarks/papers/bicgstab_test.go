package papers

import (
	"slices"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

func TestBiCGStabIteration(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.001, Size: benchmarks.SizeAuto, Iterations: 1}
	n, _, _ := BiCGStabShape(p)
	a, ks := benchtest.Setup(t, "bicgstab", p)
	var names []string
	for _, k := range ks {
		names = append(names, k.Name)
	}
	want := []string{"bicgstab_residual", "bicgstab_dot", "bicgstab_update_p", "bicgstab_matvec", "bicgstab_dot",
		"bicgstab_update_s", "bicgstab_matvec", "bicgstab_dot2", "bicgstab_update_xr"}
	if !slices.Equal(names, want) {
		t.Fatalf("launches %v, want %v", names, want)
	}
	obj := map[string]*objtable.Object{}
	for _, o := range a.Objects() {
		obj[o.Name] = o
	}
	vec := uint64(n)
	// v = A p: v zeroed, then A[i][0] down 64 rows, p[0], A[i][1], ...
	in := benchtest.FirstInstructions(ks[3], 0, 1, 4) // rows 64..127
	benchtest.WantLanes(t, "v = 0", in[0], obj["v"], true, 64, func(l int) int { return 64 + l }, 4)
	benchtest.WantLanes(t, "A[i][0]", in[1], obj["A"], false, 64, func(l int) int { return (64 + l) * n }, 4)
	benchtest.WantLanes(t, "p[0]", in[2], obj["p"], false, 1, func(int) int { return 0 }, 4)
	benchtest.WantLanes(t, "A[i][1]", in[3], obj["A"], false, 64, func(l int) int { return (64+l)*n + 1 }, 4)
	for ki, mv := range map[int][2]string{3: {"p", "v"}, 6: {"s", "t"}} {
		c := benchtest.CountKernel(t, a, ks[ki], benchmarks.FloatBytes)
		c.OnlyObjects(t, "matvec", []string{"A", mv[0]}, []string{mv[1]})
		benchtest.EachCounted(t, "A", c.Reads["A"], vec*vec, 1, benchtest.AnyElem)
		benchtest.EachCounted(t, mv[0], c.Reads[mv[0]], vec, n/64, benchtest.AnyElem)
		benchtest.EachCounted(t, mv[1], c.Writes[mv[1]], vec, 2, benchtest.AnyElem)
	}
	blocks := benchmarks.CeilDiv(n, 256)
	d := benchtest.CountKernel(t, a, ks[7], benchmarks.FloatBytes)
	d.OnlyObjects(t, "dot2", []string{"t", "s"}, []string{"dots"})
	benchtest.EachCounted(t, "dot2 dots", d.Writes["dots"], bcgDots, blocks, func(i uint64) bool { return i >= 2 })
	u := benchtest.CountKernel(t, a, ks[8], benchmarks.FloatBytes)
	u.OnlyObjects(t, "update_xr", []string{"x", "p", "s", "t"}, []string{"x", "r"})
	for _, o := range []string{"x", "r"} {
		benchtest.EachCounted(t, o, u.Writes[o], vec, 1, benchtest.AnyElem)
	}
	r := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
	r.OnlyObjects(t, "residual", []string{"A", "b", "x"}, []string{"r", "r_hat"})
}
