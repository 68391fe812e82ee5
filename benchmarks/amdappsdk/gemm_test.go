package amdappsdk

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestGEMMAccesses: D is written once per element and only D is written;
// C is read once per element; each work-item reads a row of A and a
// column of B, so every A and B element is read by the n work-items of
// its row or column, which the model folds into one lane per row of a
// wavefront (A: 16 work-items a lane) or per column (B: 4).
func TestGEMMAccesses(t *testing.T) {
	a, ks := benchtest.Setup(t, "gemm", benchmarks.Params{GPUs: 1, Scale: 0.004, Seed: 1})
	if len(ks) != 1 {
		t.Fatalf("want one launch, got %d", len(ks))
	}
	n := 0
	for n*n*4 < int(benchtest.ObjectNamed(a, "D").Size) {
		n++
	}
	if n%gemmBlock != 0 {
		t.Fatalf("side %d is not a multiple of the 16x16 workgroup", n)
	}
	c := benchtest.CountKernel(t, a, ks[0], 1)
	c.OnlyObjects(t, "gemm", []string{"A", "B", "C", "kernarg"}, []string{"D"})
	elems := uint64(n * n)
	benchtest.CheckEach(t, "D", c.Writes["D"], elems, 1)
	benchtest.CheckEach(t, "C", c.Reads["C"], elems, 1)
	benchtest.CheckEach(t, "A", c.Reads["A"], elems, n/gemmBlock)
	benchtest.CheckEach(t, "B", c.Reads["B"], elems, n/4)
	if want := n * n / benchmarks.WavefrontSize * (2*n + 3); c.Instructions != want {
		t.Fatalf("%d instructions, want %d", c.Instructions, want)
	}
}

// TestGEMMSize: GRIT's 16 MB holds four 1024 x 1024 float matrices.
func TestGEMMSize(t *testing.T) {
	a, _ := benchtest.Setup(t, "gemm", benchmarks.Params{GPUs: 4, Scale: 1, Seed: 1})
	if got := benchtest.ObjectNamed(a, "A").Size; got != 1024*1024*4 {
		t.Fatalf("A is %d bytes, want 1024 x 1024 floats", got)
	}
}
