package benchmarks

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/objtable"
)

// linalgCase is one ObservUVM / SUV workload of linalg.go: its alias,
// class, preferred eviction ("" when no paper names one), objects in ID
// order, scale-1 size, a scale at which every wavefront can be drained,
// and its launches for an iteration count (0 the default) or nil when it
// has no iterations.
type linalgCase struct {
	name     string
	alias    string
	class    string
	eviction string
	objects  []string
	size     PaperSize
	small    float64
	launches func(iters int) int
}

var linalgCases = []linalgCase{
	{"mm-tiled", "MM", ClassRegular, "lru", []string{"A", "B", "C"}, MMTiledSize, 0.01, nil},
	{"gmm", "GMM", ClassRegular, "lru", []string{"A", "B", "C"}, GEMMSize, 0.01, nil},
	{"syrk", "SRK", ClassIrregular, "lfu", []string{"A", "C"}, SYRKSize, 0.01, nil},
	{"syr2k", "SR2", ClassIrregular, "lfu", []string{"A", "B", "C"}, SYR2KSize, 0.01, nil},
	{"gemv", "GMV", ClassRegular, "lfu", []string{"A", "x", "y"}, GEMVSize, 0.01, nil},
	{"hellinger", "HEL", ClassRegular, "lru", []string{"a", "b", "c"}, HellingerSize, 0.01, perIteration(1, 1)},
	{"lu", "LU", ClassRegular, "lfu", []string{"A"}, LUSize, 0.001, perIteration(2, luSteps)},
	{"blackscholes", "BLK", ClassRegular, "cp", []string{"CallResult", "PutResult", "StockPrice", "OptionStrike", "OptionYears"},
		BlackScholesSize, 0.001, perIteration(1, bsIterations)},
	{"doitgen", "DTG", ClassRegular, "", []string{"A", "C4", "sum"}, DoitgenSize, 0.01, nil},
	{"mvt", "MVT", ClassIrregular, "", []string{"a", "x1", "x2", "y_1", "y_2"}, MVTSize, 0.001, nil},
	{"gramschmidt", "GRM", ClassMixed, "", []string{"A", "R", "Q"}, GramSchmidtSize, 0.01, nil},
	{"bicgstab", "BCG", ClassIrregular, "", []string{"A", "b", "x", "r", "r_hat", "p", "v", "s", "t", "dots"},
		BiCGStabSize, 0.001, func(it int) int { return 1 + perIteration(8, bcgIterations)(it) }},
}

func TestLinalgRegistered(t *testing.T) {
	for _, c := range linalgCases {
		w, err := New(c.name)
		if err != nil {
			t.Fatal(err)
		}
		info := w.Info()
		if info.Name != c.name || info.Description == "" || strings.Contains(info.Description, "\n") {
			t.Errorf("%s: Name %q, Description %q", c.name, info.Name, info.Description)
		}
		if a, err := New(c.alias); err != nil || a.Info().Name != c.name {
			t.Errorf("alias %s: %v, %v; want %s", c.alias, a, err, c.name)
		}
		if got := AliasesOf(w); !slices.Equal(got, []string{c.alias}) {
			t.Errorf("%s: aliases %v, want [%s]", c.name, got, c.alias)
		}
		if got := ClassOf(w); got != c.class {
			t.Errorf("%s: class %q, want %q", c.name, got, c.class)
		}
		want := EvictionPreference{}
		if c.eviction != "" {
			want = EvictionPreference{Policy: c.eviction, Source: "ObservUVM Table II"}
		}
		if ev := info.PreferredEviction; ev != want {
			t.Errorf("%s: preferred eviction %+v, want %+v", c.name, ev, want)
		}
		if sz := info.PaperSize; sz != c.size || c.size.TableII != c.size.TableIII8 || c.size.TableII != c.size.TableIII16 {
			t.Errorf("%s: PaperSize %+v is not %+v in every column", c.name, sz, c.size)
		}
	}
	if w, _ := New("mm"); w.Info().Name != "mm" {
		t.Error("mm is no longer AMDAPPSDK's")
	}
}

// TestLinalgSmall sets every workload up at its small scale on 1 and 4
// GPUs and drains every wavefront (drain checks that each lane lies in an
// object with the right tag): objects in the documented order, every
// object a kernel touches among its arguments, no empty wavefront, the
// streams the same whatever the GPU count.
func TestLinalgSmall(t *testing.T) {
	for _, c := range linalgCases {
		var hashes []uint64
		for _, gpus := range []int{1, 4} {
			p := Params{GPUs: gpus, Scale: c.small, Size: SizeAuto, Seed: 1}
			a, ks := setupTest(t, c.name, p)
			var names []string
			for i, o := range a.Objects() {
				names = append(names, o.Name)
				if o.ID != i {
					t.Fatalf("%s: object %d has ID %d", c.name, i, o.ID)
				}
			}
			if !slices.Equal(names, c.objects) {
				t.Fatalf("%s: objects %v, want %v", c.name, names, c.objects)
			}
			touched := make([]bool, len(names))
			for ki, k := range ks {
				if k.Workgroups < 1 || k.WavefrontsPerWorkgroup < 1 || k.Barrier || k.PerDevice || len(k.Frees) != 0 {
					t.Fatalf("%s kernel %d: %+v", c.name, ki, k)
				}
				for wg := 0; wg < k.Workgroups; wg++ {
					for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
						n := drain(t, a, k.Wavefront(wg, wf, wg%gpus), func(x access) {
							touched[x.obj.ID] = true
							if !slices.Contains(k.Args, x.obj.ID) {
								t.Fatalf("%s kernel %d (%s): touches %s, not among its arguments %v", c.name, ki, k.Name, x.obj.Name, k.Args)
							}
						})
						if n == 0 {
							t.Fatalf("%s kernel %d wg %d wf %d: empty", c.name, ki, wg, wf)
						}
					}
				}
			}
			for i, ok := range touched {
				if !ok {
					t.Errorf("%s: object %s never touched", c.name, names[i])
				}
			}
			h, _ := streamHash(ks, gpus)
			hashes = append(hashes, h)
		}
		if hashes[0] != hashes[1] {
			t.Errorf("%s: the streams depend on the GPU count", c.name)
		}
	}
}

// TestLinalgFootprints checks scale 1 (a few hundred MB at most, within
// 5% of the declared size) and each paper's footprint at its PaperScale
// (within 10%), draining the first and last wavefronts of the first and
// last launches there.
func TestLinalgFootprints(t *testing.T) {
	within := func(what string, got, want uint64, tol float64) {
		t.Helper()
		if dev := math.Abs(float64(got)/float64(want) - 1); dev > tol {
			t.Errorf("%s: footprint %.1f MiB, want %.1f MiB ± %.0f%%", what, float64(got)/MiB, float64(want)/MiB, 100*tol)
		}
	}
	for _, c := range linalgCases {
		a, _ := setupTest(t, c.name, Params{GPUs: 4, Scale: 1, Size: SizeAuto, Seed: 1})
		within(c.name+" scale 1", a.Footprint(), c.size.TableII, 0.05)
		if a.Footprint() > 320*MiB {
			t.Errorf("%s: %.1f MiB at scale 1, more than 320 MiB", c.name, float64(a.Footprint())/MiB)
		}
		if want := linalgRef(c.name) / uint64(LinalgScales[c.name]); c.size.TableII != want {
			t.Errorf("%s: size %d, want the reference footprint / %d = %d", c.name, c.size.TableII, LinalgScales[c.name], want)
		}
		papers := 0
		for _, paper := range []string{"ObservUVM", "SUV"} {
			sc, ok := LinalgPaperScale(c.name, paper)
			if !ok {
				continue
			}
			papers++
			want := map[string]map[string]uint64{"ObservUVM": LinalgObservUVMFootprints, "SUV": LinalgSUVFootprints}[paper][c.name]
			p := Params{GPUs: 4, Scale: sc, Size: SizeAuto, Seed: 1}
			a, ks := setupTest(t, c.name, p)
			within(c.name+" at "+paper+"'s size", a.Footprint(), want, 0.10)
			for _, k := range []Kernel{ks[0], ks[len(ks)-1]} {
				for _, wg := range []int{0, k.Workgroups - 1} {
					for _, wf := range []int{0, k.WavefrontsPerWorkgroup - 1} {
						drain(t, a, k.Wavefront(wg, wf, 0), nil)
					}
				}
			}
			t.Logf("%-12s %-9s scale %7.2f: %8.1f MiB (paper %6.0f MiB), %d launches", c.name, paper, sc,
				float64(a.Footprint())/MiB, float64(want)/MiB, len(ks))
		}
		if papers == 0 {
			t.Errorf("%s: no paper footprint", c.name)
		}
	}
}

// TestLinalgIterations checks that Params.Iterations sets the launches of
// the workloads that have iterations and changes nothing elsewhere.
func TestLinalgIterations(t *testing.T) {
	for _, c := range linalgCases {
		n := map[int]int{}
		for _, it := range []int{0, 1, 2, 3} {
			_, ks := setupTest(t, c.name, Params{GPUs: 4, Scale: 0.01, Size: SizeAuto, Seed: 1, Iterations: it})
			n[it] = len(ks)
		}
		if c.launches == nil {
			if n[1] != n[0] || n[2] != n[0] || n[3] != n[0] {
				t.Errorf("%s has no iterations, yet launches vary with them: %v", c.name, n)
			}
			continue
		}
		for it, got := range n {
			if want := c.launches(it); got != want {
				t.Errorf("%s: %d iterations: %d launches, want %d", c.name, it, got, want)
			}
		}
	}
}

// firstInstructions returns up to max instructions of wavefront (wg, wf)
// of k.
func firstInstructions(k Kernel, wg, wf, max int) []Instruction {
	var out []Instruction
	s := k.Wavefront(wg, wf, 0)
	var in Instruction
	for len(out) < max && s.Next(&in) {
		out = append(out, in)
	}
	return out
}

// wantLanes fails unless in has exactly lanes lanes, lane l on element
// idx(l) of o (elements of size bytes), and is a write when write.
func wantLanes(t *testing.T, what string, in Instruction, o *objtable.Object, write bool, lanes int, idx func(l int) int, size int) {
	t.Helper()
	if in.Lanes != lanes || in.Write != write {
		t.Fatalf("%s: %d lanes, write %v; want %d lanes on %s, write %v", what, in.Lanes, in.Write, lanes, o.Name, write)
	}
	for l := 0; l < lanes; l++ {
		if want := elem(o.Ptr, idx(l), size); in.Addr[l] != want {
			t.Fatalf("%s lane %d: %#x, want %s element %d (%#x)", what, l, in.Addr[l], o.Name, idx(l), want)
		}
	}
}

// eachCounted fails unless the elements of m for which in(i) holds, out of
// elems, are each counted want times, and no other element is.
func eachCounted(t *testing.T, what string, m map[uint64]int, elems uint64, want int, in func(i uint64) bool) {
	t.Helper()
	n := 0
	for i := uint64(0); i < elems; i++ {
		if in(i) {
			n++
			if m[i] != want {
				t.Fatalf("%s: element %d counted %d times, want %d", what, i, m[i], want)
			}
		}
	}
	if len(m) != n {
		t.Fatalf("%s: %d elements counted, want %d", what, len(m), n)
	}
}

func anyElem(uint64) bool { return true }

func TestMMTiledOrder(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Size: SizeAuto}
	n, _ := MMTiledSide(p)
	a, ks := setupTest(t, "mm-tiled", p)
	A, B, C := a.Object(0), a.Object(1), a.Object(2)
	tiles := n / 32
	if n%32 != 0 || tiles < 2 || ks[0].Workgroups != tiles*tiles || ks[0].WavefrontsPerWorkgroup != 16 {
		t.Fatalf("n %d: %d workgroups of %d wavefronts", n, ks[0].Workgroups, ks[0].WavefrontsPerWorkgroup)
	}
	// Block (bx 1, by 0), wavefront 1: rows 2 and 3, columns 32..63.
	in := firstInstructions(ks[0], 1, 1, 1<<20)
	if len(in) != 2*tiles+1 {
		t.Fatalf("%d instructions, want %d", len(in), 2*tiles+1)
	}
	row := func(r0, c0 int) func(int) int { return func(l int) int { return (r0+l/32)*n + c0 + l%32 } }
	wantLanes(t, "A tile 0", in[0], A, false, 64, row(2, 0), 4)
	wantLanes(t, "B tile 0", in[1], B, false, 64, row(2, 32), 4)
	wantLanes(t, "A tile 1", in[2], A, false, 64, row(2, 32), 4)
	wantLanes(t, "B tile 1", in[3], B, false, 64, row(34, 32), 4)
	wantLanes(t, "C", in[2*tiles], C, true, 64, row(2, 32), 4)
	cnt := countKernel(t, a, ks[0], floatBytes)
	elems := uint64(n * n)
	eachCounted(t, "A", cnt.reads["A"], elems, tiles, anyElem)
	eachCounted(t, "B", cnt.reads["B"], elems, tiles, anyElem)
	eachCounted(t, "C", cnt.writes["C"], elems, 1, anyElem)
}

// TestInnerLoopOrder checks gmm, syrk and syr2k: the first instructions
// of wavefront 0 of block (1, 0) and how often each element is touched.
func TestInnerLoopOrder(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Size: SizeAuto}
	for _, name := range []string{"gmm", "syrk", "syr2k"} {
		a, ks := setupTest(t, name, p)
		obj := map[string]*objtable.Object{}
		for _, o := range a.Objects() {
			obj[o.Name] = o
		}
		n := int(math.Sqrt(float64(obj["C"].Size / floatBytes)))
		in := firstInstructions(ks[0], 1, 0, 6)
		rows := func(r0, c int) func(int) int { return func(l int) int { return (r0+l/32)*n + c + l%32 } }
		ik := func(k int) func(int) int { return func(l int) int { return l*n + k } }      // [i][k], i = 0, 1
		jk := func(k int) func(int) int { return func(l int) int { return (32+l)*n + k } } // [j][k], j = 32..63
		kj := func(k int) func(int) int { return func(l int) int { return k*n + 32 + l } } // [k][j]
		wantLanes(t, name+" C", in[0], obj["C"], false, 64, rows(0, 32), 4)
		var per int
		switch name {
		case "gmm":
			per = 2
			wantLanes(t, "gmm A[i][0]", in[1], obj["A"], false, 2, ik(0), 4)
			wantLanes(t, "gmm B[0][j]", in[2], obj["B"], false, 32, kj(0), 4)
			wantLanes(t, "gmm A[i][1]", in[3], obj["A"], false, 2, ik(1), 4)
		case "syrk":
			per = 2
			wantLanes(t, "syrk A[i][0]", in[1], obj["A"], false, 2, ik(0), 4)
			wantLanes(t, "syrk A[j][0]", in[2], obj["A"], false, 32, jk(0), 4)
			wantLanes(t, "syrk A[i][1]", in[3], obj["A"], false, 2, ik(1), 4)
		default:
			per = 4
			wantLanes(t, "syr2k A[i][0]", in[1], obj["A"], false, 2, ik(0), 4)
			wantLanes(t, "syr2k B[j][0]", in[2], obj["B"], false, 32, jk(0), 4)
			wantLanes(t, "syr2k B[i][0]", in[3], obj["B"], false, 2, ik(0), 4)
			wantLanes(t, "syr2k A[j][0]", in[4], obj["A"], false, 32, jk(0), 4)
			wantLanes(t, "syr2k A[i][1]", in[5], obj["A"], false, 2, ik(1), 4)
		}
		c := countKernel(t, a, ks[0], floatBytes)
		if c.instructions != n*n/64*(2+per*n) {
			t.Errorf("%s: %d instructions, want %d", name, c.instructions, n*n/64*(2+per*n))
		}
		elems := uint64(n * n)
		eachCounted(t, name+" C read", c.reads["C"], elems, 1, anyElem)
		eachCounted(t, name+" C written", c.writes["C"], elems, 1, anyElem)
		switch name {
		case "gmm": // A[i][k] once per block column, B[k][j] once per wavefront row
			eachCounted(t, "gmm A", c.reads["A"], elems, n/32, anyElem)
			eachCounted(t, "gmm B", c.reads["B"], elems, n/2, anyElem)
		case "syrk":
			eachCounted(t, "syrk A", c.reads["A"], elems, n/32+n/2, anyElem)
		default:
			eachCounted(t, "syr2k A", c.reads["A"], elems, n/32+n/2, anyElem)
			eachCounted(t, "syr2k B", c.reads["B"], elems, n/32+n/2, anyElem)
		}
	}
}

func TestGEMVRows(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Size: SizeAuto}
	n, _ := GEMVSide(p)
	a, ks := setupTest(t, "gemv", p)
	A, x, y := a.Object(0), a.Object(1), a.Object(2)
	in := firstInstructions(ks[0], 2, 3, 1<<20) // row 11
	if len(in) != 2*n/64+1 {
		t.Fatalf("%d instructions, want %d", len(in), 2*n/64+1)
	}
	wantLanes(t, "A[11][0..63]", in[0], A, false, 64, func(l int) int { return 11*n + l }, 4)
	wantLanes(t, "x[0..63]", in[1], x, false, 64, func(l int) int { return l }, 4)
	wantLanes(t, "A[11][64..127]", in[2], A, false, 64, func(l int) int { return 11*n + 64 + l }, 4)
	wantLanes(t, "y[11]", in[len(in)-1], y, true, 1, func(int) int { return 11 }, 4)
	c := countKernel(t, a, ks[0], floatBytes)
	eachCounted(t, "A", c.reads["A"], uint64(n*n), 1, anyElem)
	eachCounted(t, "x", c.reads["x"], uint64(n), n, anyElem)
	eachCounted(t, "y", c.writes["y"], uint64(n), 1, anyElem)
}

func TestHellingerOrder(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Size: SizeAuto}
	s, _, _ := HellingerShape(p)
	m, n, q := s/8, s/4, s/2
	a, ks := setupTest(t, "hellinger", p)
	A, B, C := a.Object(0), a.Object(1), a.Object(2)
	in := firstInstructions(ks[0], 1, 2, 1<<20) // block (1, 0), rows 8..11, columns 16..31
	if len(in) != 2*n+1 {
		t.Fatalf("%d instructions, want %d", len(in), 2*n+1)
	}
	wantLanes(t, "a[row][0]", in[0], A, false, 4, func(l int) int { return (8 + l) * n }, 4)
	wantLanes(t, "b[0][col]", in[1], B, false, 16, func(l int) int { return 16 + l }, 4)
	wantLanes(t, "a[row][1]", in[2], A, false, 4, func(l int) int { return (8+l)*n + 1 }, 4)
	wantLanes(t, "c", in[2*n], C, true, 64, func(l int) int { return (8+l/16)*q + 16 + l%16 }, 4)
	c := countKernel(t, a, ks[0], floatBytes)
	eachCounted(t, "a", c.reads["a"], uint64(m*n), q/16, anyElem)
	eachCounted(t, "b", c.reads["b"], uint64(n*q), m/4, anyElem)
	eachCounted(t, "c", c.writes["c"], uint64(m*q), 1, anyElem)
}

// TestLUSteps checks each sampled step's pair of launches: kernel1
// divides row k right of the pivot, kernel2 updates the trailing matrix
// once per element from column k and row k; and that Iterations = n runs
// every step.
func TestLUSteps(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.001, Size: SizeAuto}
	n, steps, _ := LUShape(p)
	a, ks := setupTest(t, "lu", p)
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
		c1 := countKernel(t, a, k1, floatBytes)
		rowK := func(i uint64) bool { return i/side == kk && i%side > kk }
		eachCounted(t, "kernel1 writes", c1.writes["A"], side*side, 1, rowK)
		if got, want := c1.reads["A"][kk*side+kk], ceilDiv(n-k-1, 64); got != want {
			t.Errorf("step k=%d: pivot read %d times, want %d", k, got, want)
		}
		c2 := countKernel(t, a, k2, floatBytes)
		trailing := func(i uint64) bool { return i/side > kk && i%side > kk }
		eachCounted(t, "kernel2 writes", c2.writes["A"], side*side, 1, trailing)
		for i, r := range c2.reads["A"] {
			if !trailing(i) && i%side != kk && i/side != kk {
				t.Fatalf("step k=%d: kernel2 reads [%d][%d] (%d times)", k, i/side, i%side, r)
			}
		}
		if s == 1 { // the first wavefront: A[i][j], A[i][k], A[k][j], A[i][j]
			in := firstInstructions(k2, 0, 0, 4)
			tile := func(l int) int { return (k+1+l/32)*n + k + 1 + l%32 }
			wantLanes(t, "A[i][j]", in[0], A, false, 64, tile, 4)
			wantLanes(t, "A[i][k]", in[1], A, false, 2, func(l int) int { return (k+1+l)*n + k }, 4)
			wantLanes(t, "A[k][j]", in[2], A, false, 32, func(l int) int { return k*n + k + 1 + l }, 4)
			wantLanes(t, "A[i][j] =", in[3], A, true, 64, tile, 4)
		}
	}
	full := Params{GPUs: 4, Scale: 1e-4, Size: SizeAuto, Iterations: 1 << 20}
	n, steps, _ = LUShape(full)
	if _, ks := setupTest(t, "lu", full); len(steps) != n || len(ks) != 2*(n-1) || steps[n-1] != n-1 {
		t.Errorf("every step of n = %d: %d steps, %d launches", n, len(steps), len(ks))
	}
}

func TestBlackScholesSweeps(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.001, Size: SizeAuto, Iterations: 2}
	optN, _, _ := BlackScholesShape(p)
	a, ks := setupTest(t, "blackscholes", p)
	in := firstInstructions(ks[1], 1, 1, 10) // float2 elements 192..255
	if len(in) != 5 {
		t.Fatalf("%d instructions", len(in))
	}
	for i, o := range []int{2, 3, 4, 0, 1} { // StockPrice, OptionStrike, OptionYears, then CallResult, PutResult
		wantLanes(t, a.Object(o).Name, in[i], a.Object(o), i >= 3, 64, func(l int) int { return 192 + l }, 8)
	}
	for _, k := range ks {
		c := countKernel(t, a, k, 8)
		c.onlyObjects(t, "BlackScholesGPU", []string{"StockPrice", "OptionStrike", "OptionYears"}, []string{"CallResult", "PutResult"})
		for _, o := range []string{"StockPrice", "OptionStrike", "OptionYears"} {
			eachCounted(t, o, c.reads[o], uint64(optN/2), 1, anyElem)
		}
		for _, o := range []string{"CallResult", "PutResult"} {
			eachCounted(t, o, c.writes[o], uint64(optN/2), 1, anyElem)
		}
	}
}

func TestDoitgenSlices(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Size: SizeAuto}
	n, _ := DoitgenSide(p)
	a, ks := setupTest(t, "doitgen", p)
	if len(ks) != 2*n || n < 32 {
		t.Fatalf("n %d: %d launches", n, len(ks))
	}
	A, C4, sum := a.Object(0), a.Object(1), a.Object(2)
	sq := n * n
	r := 1
	in := firstInstructions(ks[2*r], 0, 0, 4)
	slice := func(l int) int { return r*sq + (l/32)*n + l%32 }
	wantLanes(t, "sum = 0", in[0], sum, true, 64, slice, 4)
	wantLanes(t, "A[r][q][0]", in[1], A, false, 2, func(l int) int { return r*sq + l*n }, 4)
	wantLanes(t, "C4[0][p]", in[2], C4, false, 32, func(l int) int { return l }, 4)
	wantLanes(t, "A[r][q][1]", in[3], A, false, 2, func(l int) int { return r*sq + l*n + 1 }, 4)
	inR := func(i uint64) bool { return int(i)/sq == r }
	c1 := countKernel(t, a, ks[2*r], floatBytes)
	c1.onlyObjects(t, "doitgen_kernel1", []string{"A", "C4"}, []string{"sum"})
	eachCounted(t, "sum", c1.writes["sum"], uint64(n*sq), 2, inR)
	eachCounted(t, "A", c1.reads["A"], uint64(n*sq), n/32, inR)
	eachCounted(t, "C4", c1.reads["C4"], uint64(sq), n/2, anyElem)
	c2 := countKernel(t, a, ks[2*r+1], floatBytes)
	c2.onlyObjects(t, "doitgen_kernel2", []string{"sum"}, []string{"A"})
	eachCounted(t, "sum", c2.reads["sum"], uint64(n*sq), 1, inR)
	eachCounted(t, "A", c2.writes["A"], uint64(n*sq), 1, inR)
}

// TestMVTRedundantBlocks checks mvt.cu's launch: the 4 wavefronts of a
// 32x8 block repeat the same 32 threads' work; kernel1 walks rows (32
// lanes a row apart), kernel2 columns.
func TestMVTRedundantBlocks(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.001, Size: SizeAuto}
	n, _ := MVTSide(p)
	a, ks := setupTest(t, "mvt", p)
	A := a.Object(0)
	for ki, k := range ks {
		one := Kernel{Workgroups: 1, WavefrontsPerWorkgroup: 1, Wavefront: func(_, wf, g int) Stream { return k.Wavefront(1, wf, g) }}
		h0, _ := streamHash([]Kernel{one}, 1)
		for wf := 1; wf < 4; wf++ {
			other := one
			other.Wavefront = func(_, _, g int) Stream { return k.Wavefront(1, wf, g) }
			if h, _ := streamHash([]Kernel{other}, 1); h != h0 {
				t.Fatalf("kernel %d: wavefront %d of a block differs from wavefront 0", ki, wf)
			}
		}
		in := firstInstructions(k, 1, 0, 3) // i = 32..63
		x, y := a.Object(1+ki), a.Object(3+ki)
		wantLanes(t, "x", in[0], x, false, 32, func(l int) int { return 32 + l }, 4)
		if ki == 0 {
			wantLanes(t, "a[i][0]", in[1], A, false, 32, func(l int) int { return (32 + l) * n }, 4)
		} else {
			wantLanes(t, "a[0][i]", in[1], A, false, 32, func(l int) int { return 32 + l }, 4)
		}
		wantLanes(t, "y[0]", in[2], y, false, 1, func(int) int { return 0 }, 4)
		c := countKernel(t, a, k, floatBytes)
		eachCounted(t, "a", c.reads["a"], uint64(n*n), 4, anyElem)
		eachCounted(t, x.Name, c.writes[x.Name], uint64(n), 4, anyElem)
	}
}

func TestGramSchmidtColumns(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Size: SizeAuto}
	n, _ := GramSchmidtSide(p)
	a, ks := setupTest(t, "gramschmidt", p)
	if len(ks) != 3*n {
		t.Fatalf("n %d: %d launches", n, len(ks))
	}
	side := uint64(n)
	for _, k := range []int{0, 5, n - 1} {
		kk := uint64(k)
		column := func(i uint64) bool { return i%side == kk }
		c1 := countKernel(t, a, ks[3*k], floatBytes)
		c1.onlyObjects(t, "kernel1", []string{"A"}, []string{"R"})
		eachCounted(t, "kernel1 A", c1.reads["A"], side*side, 1, column)
		eachCounted(t, "kernel1 R", c1.writes["R"], side*side, 1, func(i uint64) bool { return i == kk*side+kk })
		if c1.instructions != n+1+3 { // thread 0's loop and store, three idle wavefronts
			t.Errorf("kernel1: %d instructions", c1.instructions)
		}
		c2 := countKernel(t, a, ks[3*k+1], floatBytes)
		eachCounted(t, "kernel2 Q", c2.writes["Q"], side*side, 1, column)
		eachCounted(t, "kernel2 A", c2.reads["A"], side*side, 1, column)
		c3 := countKernel(t, a, ks[3*k+2], floatBytes)
		right := func(i uint64) bool { return i%side > kk }
		eachCounted(t, "kernel3 R", c3.writes["R"], side*side, 2, func(i uint64) bool { return i/side == kk && right(i) })
		eachCounted(t, "kernel3 A written", c3.writes["A"], side*side, 1, right)
		eachCounted(t, "kernel3 A read", c3.reads["A"], side*side, 2, right)
		if k < n-1 {
			busy := 2 * ((n-1)/64 - (k+1)/64 + 1) // wavefronts with a column right of k, two loops each
			eachCounted(t, "kernel3 Q", c3.reads["Q"], side*side, busy, column)
		} else if len(c3.reads) != 0 || len(c3.writes) != 0 {
			t.Errorf("kernel3 of the last column accesses memory")
		}
	}
}

func TestBiCGStabIteration(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.001, Size: SizeAuto, Iterations: 1}
	n, _, _ := BiCGStabShape(p)
	a, ks := setupTest(t, "bicgstab", p)
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
	in := firstInstructions(ks[3], 0, 1, 4) // rows 64..127
	wantLanes(t, "v = 0", in[0], obj["v"], true, 64, func(l int) int { return 64 + l }, 4)
	wantLanes(t, "A[i][0]", in[1], obj["A"], false, 64, func(l int) int { return (64 + l) * n }, 4)
	wantLanes(t, "p[0]", in[2], obj["p"], false, 1, func(int) int { return 0 }, 4)
	wantLanes(t, "A[i][1]", in[3], obj["A"], false, 64, func(l int) int { return (64+l)*n + 1 }, 4)
	for ki, mv := range map[int][2]string{3: {"p", "v"}, 6: {"s", "t"}} {
		c := countKernel(t, a, ks[ki], floatBytes)
		c.onlyObjects(t, "matvec", []string{"A", mv[0]}, []string{mv[1]})
		eachCounted(t, "A", c.reads["A"], vec*vec, 1, anyElem)
		eachCounted(t, mv[0], c.reads[mv[0]], vec, n/64, anyElem)
		eachCounted(t, mv[1], c.writes[mv[1]], vec, 2, anyElem)
	}
	blocks := ceilDiv(n, 256)
	d := countKernel(t, a, ks[7], floatBytes)
	d.onlyObjects(t, "dot2", []string{"t", "s"}, []string{"dots"})
	eachCounted(t, "dot2 dots", d.writes["dots"], bcgDots, blocks, func(i uint64) bool { return i >= 2 })
	u := countKernel(t, a, ks[8], floatBytes)
	u.onlyObjects(t, "update_xr", []string{"x", "p", "s", "t"}, []string{"x", "r"})
	for _, o := range []string{"x", "r"} {
		eachCounted(t, o, u.writes[o], vec, 1, anyElem)
	}
	r := countKernel(t, a, ks[0], floatBytes)
	r.onlyObjects(t, "residual", []string{"A", "b", "x"}, []string{"r", "r_hat"})
}
