package benchmarks_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/benchmarks/cuda"
	"github.com/mgpu-sim/mgpu/benchmarks/hecbench"
	"github.com/mgpu-sim/mgpu/benchmarks/papers"
	"github.com/mgpu-sim/mgpu/benchmarks/polybench"
)

// linalgCase is one ObservUVM / SUV workload sized by LinalgScales: its alias,
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
	size     benchmarks.PaperSize
	small    float64
	launches func(iters int) int
}

var linalgCases = []linalgCase{
	{"mm-tiled", "MM", benchmarks.ClassRegular, "lru", []string{"A", "B", "C"}, cuda.MMTiledSize, 0.01, nil},
	{"gmm", "GMM", benchmarks.ClassRegular, "lru", []string{"A", "B", "C"}, polybench.GEMMSize, 0.01, nil},
	{"syrk", "SRK", benchmarks.ClassIrregular, "lfu", []string{"A", "C"}, polybench.SYRKSize, 0.01, nil},
	{"syr2k", "SR2", benchmarks.ClassIrregular, "lfu", []string{"A", "B", "C"}, polybench.SYR2KSize, 0.01, nil},
	{"gemv", "GMV", benchmarks.ClassRegular, "lfu", []string{"A", "x", "y"}, cuda.GEMVSize, 0.01, nil},
	{"hellinger", "HEL", benchmarks.ClassRegular, "lru", []string{"a", "b", "c"}, hecbench.HellingerSize, 0.01, perIteration(1, 1)},
	{"lu", "LU", benchmarks.ClassRegular, "lfu", []string{"A"}, polybench.LUSize, 0.001, perIteration(2, 16)},
	{"blackscholes", "BLK", benchmarks.ClassRegular, "cp", []string{"CallResult", "PutResult", "StockPrice", "OptionStrike", "OptionYears"},
		cuda.BlackScholesSize, 0.001, perIteration(1, 10)},
	{"doitgen", "DTG", benchmarks.ClassRegular, "", []string{"A", "C4", "sum"}, polybench.DoitgenSize, 0.01, nil},
	{"mvt", "MVT", benchmarks.ClassIrregular, "", []string{"a", "x1", "x2", "y_1", "y_2"}, polybench.MVTSize, 0.001, nil},
	{"gramschmidt", "GRM", benchmarks.ClassMixed, "", []string{"A", "R", "Q"}, polybench.GramSchmidtSize, 0.01, nil},
	{"bicgstab", "BCG", benchmarks.ClassIrregular, "", []string{"A", "b", "x", "r", "r_hat", "p", "v", "s", "t", "dots"},
		papers.BiCGStabSize, 0.001, func(it int) int { return 1 + perIteration(8, 2)(it) }},
}

func TestLinalgRegistered(t *testing.T) {
	for _, c := range linalgCases {
		w, err := benchmarks.New(c.name)
		if err != nil {
			t.Fatal(err)
		}
		info := w.Info()
		if info.Name != c.name || info.Description == "" || strings.Contains(info.Description, "\n") {
			t.Errorf("%s: Name %q, Description %q", c.name, info.Name, info.Description)
		}
		if a, err := benchmarks.New(c.alias); err != nil || a.Info().Name != c.name {
			t.Errorf("alias %s: %v, %v; want %s", c.alias, a, err, c.name)
		}
		if got := benchmarks.AliasesOf(w); !slices.Equal(got, []string{c.alias}) {
			t.Errorf("%s: aliases %v, want [%s]", c.name, got, c.alias)
		}
		if got := benchmarks.ClassOf(w); got != c.class {
			t.Errorf("%s: class %q, want %q", c.name, got, c.class)
		}
		want := benchmarks.EvictionPreference{}
		if c.eviction != "" {
			want = benchmarks.EvictionPreference{Policy: c.eviction, Source: "ObservUVM Table II"}
		}
		if ev := info.PreferredEviction; ev != want {
			t.Errorf("%s: preferred eviction %+v, want %+v", c.name, ev, want)
		}
		if sz := info.PaperSize; sz != c.size || c.size.TableII != c.size.TableIII8 || c.size.TableII != c.size.TableIII16 {
			t.Errorf("%s: PaperSize %+v is not %+v in every column", c.name, sz, c.size)
		}
	}
	if w, _ := benchmarks.New("mm"); w.Info().Name != "mm" {
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
			p := benchmarks.Params{GPUs: gpus, Scale: c.small, Size: benchmarks.SizeAuto, Seed: 1}
			a, ks := benchtest.Setup(t, c.name, p)
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
						n := benchtest.Drain(t, a, k.Wavefront(wg, wf, wg%gpus), func(x benchtest.Access) {
							touched[x.Obj.ID] = true
							if !slices.Contains(k.Args, x.Obj.ID) {
								t.Fatalf("%s kernel %d (%s): touches %s, not among its arguments %v", c.name, ki, k.Name, x.Obj.Name, k.Args)
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
			h, _ := benchtest.StreamHash(ks, gpus)
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
			t.Errorf("%s: footprint %.1f MiB, want %.1f MiB ± %.0f%%", what, float64(got)/benchmarks.MiB, float64(want)/benchmarks.MiB, 100*tol)
		}
	}
	for _, c := range linalgCases {
		a, _ := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 4, Scale: 1, Size: benchmarks.SizeAuto, Seed: 1})
		within(c.name+" scale 1", a.Footprint(), c.size.TableII, 0.05)
		if a.Footprint() > 320*benchmarks.MiB {
			t.Errorf("%s: %.1f MiB at scale 1, more than 320 MiB", c.name, float64(a.Footprint())/benchmarks.MiB)
		}
		ref, ok := benchmarks.LinalgObservUVMFootprints[c.name]
		if !ok {
			ref = benchmarks.LinalgSUVFootprints[c.name]
		}
		if want := ref / uint64(benchmarks.LinalgScales[c.name]); c.size.TableII != want {
			t.Errorf("%s: size %d, want the reference footprint / %d = %d", c.name, c.size.TableII, benchmarks.LinalgScales[c.name], want)
		}
		papers := 0
		for _, paper := range []string{"ObservUVM", "SUV"} {
			sc, ok := benchmarks.LinalgPaperScale(c.name, paper)
			if !ok {
				continue
			}
			papers++
			want := map[string]map[string]uint64{"ObservUVM": benchmarks.LinalgObservUVMFootprints, "SUV": benchmarks.LinalgSUVFootprints}[paper][c.name]
			p := benchmarks.Params{GPUs: 4, Scale: sc, Size: benchmarks.SizeAuto, Seed: 1}
			a, ks := benchtest.Setup(t, c.name, p)
			within(c.name+" at "+paper+"'s size", a.Footprint(), want, 0.10)
			for _, k := range []benchmarks.Kernel{ks[0], ks[len(ks)-1]} {
				for _, wg := range []int{0, k.Workgroups - 1} {
					for _, wf := range []int{0, k.WavefrontsPerWorkgroup - 1} {
						benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), nil)
					}
				}
			}
			t.Logf("%-12s %-9s scale %7.2f: %8.1f MiB (paper %6.0f MiB), %d launches", c.name, paper, sc,
				float64(a.Footprint())/benchmarks.MiB, float64(want)/benchmarks.MiB, len(ks))
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
			_, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto, Seed: 1, Iterations: it})
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
