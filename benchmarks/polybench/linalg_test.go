package polybench

import (
	"math"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

// TestInnerLoopOrder checks gmm, syrk and syr2k: the first instructions
// of wavefront 0 of block (1, 0) and how often each element is touched.
func TestInnerLoopOrder(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto}
	for _, name := range []string{"gmm", "syrk", "syr2k"} {
		a, ks := benchtest.Setup(t, name, p)
		obj := map[string]*objtable.Object{}
		for _, o := range a.Objects() {
			obj[o.Name] = o
		}
		n := int(math.Sqrt(float64(obj["C"].Size / benchmarks.FloatBytes)))
		in := benchtest.FirstInstructions(ks[0], 1, 0, 6)
		rows := func(r0, c int) func(int) int { return func(l int) int { return (r0+l/32)*n + c + l%32 } }
		ik := func(k int) func(int) int { return func(l int) int { return l*n + k } }      // [i][k], i = 0, 1
		jk := func(k int) func(int) int { return func(l int) int { return (32+l)*n + k } } // [j][k], j = 32..63
		kj := func(k int) func(int) int { return func(l int) int { return k*n + 32 + l } } // [k][j]
		benchtest.WantLanes(t, name+" C", in[0], obj["C"], false, 64, rows(0, 32), 4)
		var per int
		switch name {
		case "gmm":
			per = 2
			benchtest.WantLanes(t, "gmm A[i][0]", in[1], obj["A"], false, 2, ik(0), 4)
			benchtest.WantLanes(t, "gmm B[0][j]", in[2], obj["B"], false, 32, kj(0), 4)
			benchtest.WantLanes(t, "gmm A[i][1]", in[3], obj["A"], false, 2, ik(1), 4)
		case "syrk":
			per = 2
			benchtest.WantLanes(t, "syrk A[i][0]", in[1], obj["A"], false, 2, ik(0), 4)
			benchtest.WantLanes(t, "syrk A[j][0]", in[2], obj["A"], false, 32, jk(0), 4)
			benchtest.WantLanes(t, "syrk A[i][1]", in[3], obj["A"], false, 2, ik(1), 4)
		default:
			per = 4
			benchtest.WantLanes(t, "syr2k A[i][0]", in[1], obj["A"], false, 2, ik(0), 4)
			benchtest.WantLanes(t, "syr2k B[j][0]", in[2], obj["B"], false, 32, jk(0), 4)
			benchtest.WantLanes(t, "syr2k B[i][0]", in[3], obj["B"], false, 2, ik(0), 4)
			benchtest.WantLanes(t, "syr2k A[j][0]", in[4], obj["A"], false, 32, jk(0), 4)
			benchtest.WantLanes(t, "syr2k A[i][1]", in[5], obj["A"], false, 2, ik(1), 4)
		}
		c := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
		if c.Instructions != n*n/64*(2+per*n) {
			t.Errorf("%s: %d instructions, want %d", name, c.Instructions, n*n/64*(2+per*n))
		}
		elems := uint64(n * n)
		benchtest.EachCounted(t, name+" C read", c.Reads["C"], elems, 1, benchtest.AnyElem)
		benchtest.EachCounted(t, name+" C written", c.Writes["C"], elems, 1, benchtest.AnyElem)
		switch name {
		case "gmm": // A[i][k] once per block column, B[k][j] once per wavefront row
			benchtest.EachCounted(t, "gmm A", c.Reads["A"], elems, n/32, benchtest.AnyElem)
			benchtest.EachCounted(t, "gmm B", c.Reads["B"], elems, n/2, benchtest.AnyElem)
		case "syrk":
			benchtest.EachCounted(t, "syrk A", c.Reads["A"], elems, n/32+n/2, benchtest.AnyElem)
		default:
			benchtest.EachCounted(t, "syr2k A", c.Reads["A"], elems, n/32+n/2, benchtest.AnyElem)
			benchtest.EachCounted(t, "syr2k B", c.Reads["B"], elems, n/32+n/2, benchtest.AnyElem)
		}
	}
}

// TestLUSteps checks each sampled step's pair of launches: kernel1
// divides row k right of the pivot, kernel2 updates the trailing matrix
// once per element from column k and row k; and that Iterations = n runs
// every step.
func TestLUSteps(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.001, Size: benchmarks.SizeAuto}
	n, steps, _ := LUShape(p)
	a, ks := benchtest.Setup(t, "lu", p)
	A := a.Object(0)
	if len(steps) != luSteps || len(ks) != 2*luSteps || steps[1] != n/luSteps {
		t.Fatalf("n %d: steps %v, %d launches", n, steps, len(ks))
	}
	side := uint64(n)
	for s, k := range steps {
		k1, k2 := ks[2*s], ks[2*s+1]
		if k1.Name != "lu_kernel1" || k2.Name != "lu_kernel2" {
			t.Fatalf("step %d: launches %s, %s", s, k1.Name, k2.Name)
		}
		kk := uint64(k)
		c1 := benchtest.CountKernel(t, a, k1, benchmarks.FloatBytes)
		rowK := func(i uint64) bool { return i/side == kk && i%side > kk }
		benchtest.EachCounted(t, "kernel1 writes", c1.Writes["A"], side*side, 1, rowK)
		if got, want := c1.Reads["A"][kk*side+kk], benchmarks.CeilDiv(n-k-1, 64); got != want {
			t.Errorf("step k=%d: pivot read %d times, want %d", k, got, want)
		}
		c2 := benchtest.CountKernel(t, a, k2, benchmarks.FloatBytes)
		trailing := func(i uint64) bool { return i/side > kk && i%side > kk }
		benchtest.EachCounted(t, "kernel2 writes", c2.Writes["A"], side*side, 1, trailing)
		for i, r := range c2.Reads["A"] {
			if !trailing(i) && i%side != kk && i/side != kk {
				t.Fatalf("step k=%d: kernel2 reads [%d][%d] (%d times)", k, i/side, i%side, r)
			}
		}
		if s == 1 { // the first wavefront: A[i][j], A[i][k], A[k][j], A[i][j]
			in := benchtest.FirstInstructions(k2, 0, 0, 4)
			tile := func(l int) int { return (k+1+l/32)*n + k + 1 + l%32 }
			benchtest.WantLanes(t, "A[i][j]", in[0], A, false, 64, tile, 4)
			benchtest.WantLanes(t, "A[i][k]", in[1], A, false, 2, func(l int) int { return (k+1+l)*n + k }, 4)
			benchtest.WantLanes(t, "A[k][j]", in[2], A, false, 32, func(l int) int { return k*n + k + 1 + l }, 4)
			benchtest.WantLanes(t, "A[i][j] =", in[3], A, true, 64, tile, 4)
		}
	}
	full := benchmarks.Params{GPUs: 4, Scale: 1e-4, Size: benchmarks.SizeAuto, Iterations: 1 << 20}
	n, steps, _ = LUShape(full)
	if _, ks := benchtest.Setup(t, "lu", full); len(steps) != n || len(ks) != 2*(n-1) || steps[n-1] != n-1 {
		t.Errorf("every step of n = %d: %d steps, %d launches", n, len(steps), len(ks))
	}
}

func TestDoitgenSlices(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto}
	n, _ := DoitgenSide(p)
	a, ks := benchtest.Setup(t, "doitgen", p)
	if len(ks) != 2*n || n < 32 {
		t.Fatalf("n %d: %d launches", n, len(ks))
	}
	A, C4, sum := a.Object(0), a.Object(1), a.Object(2)
	sq := n * n
	r := 1
	in := benchtest.FirstInstructions(ks[2*r], 0, 0, 4)
	slice := func(l int) int { return r*sq + (l/32)*n + l%32 }
	benchtest.WantLanes(t, "sum = 0", in[0], sum, true, 64, slice, 4)
	benchtest.WantLanes(t, "A[r][q][0]", in[1], A, false, 2, func(l int) int { return r*sq + l*n }, 4)
	benchtest.WantLanes(t, "C4[0][p]", in[2], C4, false, 32, func(l int) int { return l }, 4)
	benchtest.WantLanes(t, "A[r][q][1]", in[3], A, false, 2, func(l int) int { return r*sq + l*n + 1 }, 4)
	inR := func(i uint64) bool { return int(i)/sq == r }
	c1 := benchtest.CountKernel(t, a, ks[2*r], benchmarks.FloatBytes)
	c1.OnlyObjects(t, "doitgen_kernel1", []string{"A", "C4"}, []string{"sum"})
	benchtest.EachCounted(t, "sum", c1.Writes["sum"], uint64(n*sq), 2, inR)
	benchtest.EachCounted(t, "A", c1.Reads["A"], uint64(n*sq), n/32, inR)
	benchtest.EachCounted(t, "C4", c1.Reads["C4"], uint64(sq), n/2, benchtest.AnyElem)
	c2 := benchtest.CountKernel(t, a, ks[2*r+1], benchmarks.FloatBytes)
	c2.OnlyObjects(t, "doitgen_kernel2", []string{"sum"}, []string{"A"})
	benchtest.EachCounted(t, "sum", c2.Reads["sum"], uint64(n*sq), 1, inR)
	benchtest.EachCounted(t, "A", c2.Writes["A"], uint64(n*sq), 1, inR)
}

// TestMVTRedundantBlocks checks mvt.cu's launch: the 4 wavefronts of a
// 32x8 block repeat the same 32 threads' work; kernel1 walks rows (32
// lanes a row apart), kernel2 columns.
func TestMVTRedundantBlocks(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.001, Size: benchmarks.SizeAuto}
	n, _ := MVTSide(p)
	a, ks := benchtest.Setup(t, "mvt", p)
	A := a.Object(0)
	for ki, k := range ks {
		one := benchmarks.Kernel{Workgroups: 1, WavefrontsPerWorkgroup: 1, Wavefront: func(_, wf, g int) benchmarks.Stream { return k.Wavefront(1, wf, g) }}
		h0, _ := benchtest.StreamHash([]benchmarks.Kernel{one}, 1)
		for wf := 1; wf < 4; wf++ {
			other := one
			other.Wavefront = func(_, _, g int) benchmarks.Stream { return k.Wavefront(1, wf, g) }
			if h, _ := benchtest.StreamHash([]benchmarks.Kernel{other}, 1); h != h0 {
				t.Fatalf("kernel %d: wavefront %d of a block differs from wavefront 0", ki, wf)
			}
		}
		in := benchtest.FirstInstructions(k, 1, 0, 3) // i = 32..63
		x, y := a.Object(1+ki), a.Object(3+ki)
		benchtest.WantLanes(t, "x", in[0], x, false, 32, func(l int) int { return 32 + l }, 4)
		if ki == 0 {
			benchtest.WantLanes(t, "a[i][0]", in[1], A, false, 32, func(l int) int { return (32 + l) * n }, 4)
		} else {
			benchtest.WantLanes(t, "a[0][i]", in[1], A, false, 32, func(l int) int { return 32 + l }, 4)
		}
		benchtest.WantLanes(t, "y[0]", in[2], y, false, 1, func(int) int { return 0 }, 4)
		c := benchtest.CountKernel(t, a, k, benchmarks.FloatBytes)
		benchtest.EachCounted(t, "a", c.Reads["a"], uint64(n*n), 4, benchtest.AnyElem)
		benchtest.EachCounted(t, x.Name, c.Writes[x.Name], uint64(n), 4, benchtest.AnyElem)
	}
}

func TestGramSchmidtColumns(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto}
	n, _ := GramSchmidtSide(p)
	a, ks := benchtest.Setup(t, "gramschmidt", p)
	if len(ks) != 3*n {
		t.Fatalf("n %d: %d launches", n, len(ks))
	}
	side := uint64(n)
	for _, k := range []int{0, 5, n - 1} {
		kk := uint64(k)
		column := func(i uint64) bool { return i%side == kk }
		c1 := benchtest.CountKernel(t, a, ks[3*k], benchmarks.FloatBytes)
		c1.OnlyObjects(t, "kernel1", []string{"A"}, []string{"R"})
		benchtest.EachCounted(t, "kernel1 A", c1.Reads["A"], side*side, 1, column)
		benchtest.EachCounted(t, "kernel1 R", c1.Writes["R"], side*side, 1, func(i uint64) bool { return i == kk*side+kk })
		if c1.Instructions != n+1+3 { // thread 0's loop and store, three idle wavefronts
			t.Errorf("kernel1: %d instructions", c1.Instructions)
		}
		c2 := benchtest.CountKernel(t, a, ks[3*k+1], benchmarks.FloatBytes)
		benchtest.EachCounted(t, "kernel2 Q", c2.Writes["Q"], side*side, 1, column)
		benchtest.EachCounted(t, "kernel2 A", c2.Reads["A"], side*side, 1, column)
		c3 := benchtest.CountKernel(t, a, ks[3*k+2], benchmarks.FloatBytes)
		right := func(i uint64) bool { return i%side > kk }
		benchtest.EachCounted(t, "kernel3 R", c3.Writes["R"], side*side, 2, func(i uint64) bool { return i/side == kk && right(i) })
		benchtest.EachCounted(t, "kernel3 A written", c3.Writes["A"], side*side, 1, right)
		benchtest.EachCounted(t, "kernel3 A read", c3.Reads["A"], side*side, 2, right)
		if k < n-1 {
			busy := 2 * ((n-1)/64 - (k+1)/64 + 1) // wavefronts with a column right of k, two loops each
			benchtest.EachCounted(t, "kernel3 Q", c3.Reads["Q"], side*side, busy, column)
		} else if len(c3.Reads) != 0 || len(c3.Writes) != 0 {
			t.Errorf("kernel3 of the last column accesses memory")
		}
	}
}
