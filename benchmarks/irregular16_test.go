package benchmarks_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/benchmarks/cuda"
	"github.com/mgpu-sim/mgpu/benchmarks/dnn"
	"github.com/mgpu-sim/mgpu/benchmarks/hecbench"
	"github.com/mgpu-sim/mgpu/benchmarks/papers"
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
	size                         benchmarks.PaperSize
	// objects is the allocation order (a prefix for the DNNs).
	objects []string
	papers  []irregular16Paper
	// seeded: the accesses depend on Params.Seed.
	seeded bool
	// expected is the footprint without building (for workloads whose
	// set-up generates large inputs), or nil.
	expected func(benchmarks.Params) (uint64, error)
	// small is the scale of the access tests.
	small float64
}

// paperGiB is a paper's "GB" read as GiB, as MiB reads its "MB".
func paperGiB(x float64) uint64 { return uint64(math.Round(x * 1024 * benchmarks.MiB)) }

var irregular16Cases = []irregular16Case{
	{"spgemm", "SPM", "lfu", benchmarks.ClassMixed, cuda.SpGEMMSize,
		[]string{"dA_csrOffsets", "dA_columns", "dA_values", "dB_csrOffsets", "dB_columns", "dB_values",
			"dC_csrOffsets", "dBuffer1", "dBuffer2", "dC_columns", "dC_values"},
		[]irregular16Paper{{"ObservUVM", paperGiB(8.0), 32}}, true, cuda.SpGEMMExpectedFootprint, 0.01},
	{"btree", "BTR", "lfu", benchmarks.ClassIrregular, papers.BTreeSize,
		[]string{"d_pool", "d_count", "d_root", "d_queries", "d_results"},
		[]irregular16Paper{{"ObservUVM", paperGiB(5.0), 32}, {"SUV", 5120 * benchmarks.MiB, 32}}, true, papers.BTreeExpectedFootprint, 0.01},
	{"floyd-warshall", "FW", "", benchmarks.ClassRegular, hecbench.FWSize,
		[]string{"pathDistanceBuffer", "pathBuffer"},
		[]irregular16Paper{{"SUV", 4096 * benchmarks.MiB, 32}}, true, nil, 0.005},
	{"xsbench", "XSB", "", benchmarks.ClassIrregular, hecbench.XSBenchSize,
		[]string{"num_nucs", "concs", "mats", "nuclide_grid", "verification", "unionized_energy_array", "index_grid"},
		[]irregular16Paper{{"SUV", 3884 * benchmarks.MiB, 32}}, true, nil, 0.02},
	{"alexnet", "AN", "lru", benchmarks.ClassRegular, dnn.AlexNetSize,
		[]string{"input", "conv1.bias", "conv1.weight", "conv1", "conv1.col", "kernarg", "norm1", "pool1"},
		[]irregular16Paper{{"SUV", 3504 * benchmarks.MiB, 16}, {"ObservUVM", paperGiB(10.3), 48.16}}, false, nil, 0.01},
	{"squeezenet", "SN", "lru", benchmarks.ClassRegular, dnn.SqueezeNetSize,
		[]string{"input", "conv1.bias", "conv1.weight", "conv1", "conv1.col", "kernarg", "pool1",
			"fire2.squeeze.bias", "fire2.squeeze.weight", "fire2.squeeze"},
		[]irregular16Paper{{"SUV", 4976 * benchmarks.MiB, 16}, {"ObservUVM", paperGiB(19.8), 65.19}}, false, nil, 0.01},
}

func TestIrregular16Registered(t *testing.T) {
	for _, c := range irregular16Cases {
		w, err := benchmarks.New(c.name)
		if err != nil {
			t.Fatal(err)
		}
		info := w.Info()
		if info.Name != c.name || info.Description == "" || strings.Contains(info.Description, "\n") {
			t.Errorf("%s: Name %q, Description %q", c.name, info.Name, info.Description)
		}
		if a, err := benchmarks.New(c.alias); err != nil || a.Info().Name != c.name {
			t.Errorf("%s: alias %s resolves to %v, %v", c.name, c.alias, a, err)
		}
		if got := benchmarks.AliasesOf(w); !slices.Equal(got, []string{c.alias}) {
			t.Errorf("%s: aliases %v, want [%s]", c.name, got, c.alias)
		}
		ev := info.PreferredEviction
		switch {
		case c.eviction == "" && ev != (benchmarks.EvictionPreference{}):
			t.Errorf("%s prefers an eviction, but ObservUVM does not run it", c.name)
		case c.eviction != "":
			if ev.Policy != c.eviction || !strings.Contains(ev.Source, "ObservUVM") {
				t.Errorf("%s: preferred eviction %q (%q), want %q", c.name, ev.Policy, ev.Source, c.eviction)
			}
		}
		if got := benchmarks.ClassOf(w); got != c.class {
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
func checkIrregular16Kernels(t *testing.T, name string, a *objtable.Allocator, ks []benchmarks.Kernel, gpus int) uint64 {
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
				benchtest.Drain(t, a, k.Wavefront(wg, wf, wg%gpus), nil)
			}
		}
	}
	h, _ := benchtest.StreamHash(ks, gpus)
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
			a, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: gpus, Scale: c.small, Seed: 1})
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
		a, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 1, Scale: 1, Seed: 1})
		fp := a.Footprint()
		if fp > 512*benchmarks.MiB {
			t.Errorf("%s: scale 1 is %.1f MB, not a few hundred MB", c.name, float64(fp)/benchmarks.MiB)
		}
		if dev := math.Abs(float64(fp)/float64(c.size.TableII) - 1); dev > 0.05 {
			t.Errorf("%s: scale 1 is %.1f MB, PaperSize %.1f MB", c.name, float64(fp)/benchmarks.MiB, float64(c.size.TableII)/benchmarks.MiB)
		}
		for _, k := range ks {
			for _, wg := range []int{0, k.Workgroups - 1} {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), nil)
				}
			}
		}
		if c.expected != nil {
			want, err := c.expected(benchmarks.Params{GPUs: 1, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			if dev := math.Abs(float64(fp)/float64(want) - 1); dev > 0.01 {
				t.Errorf("%s: built %.2f MB, expected %.2f MB", c.name, float64(fp)/benchmarks.MiB, float64(want)/benchmarks.MiB)
			}
		}
		t.Logf("%-14s scale 1: %6.1f MB, %3d objects, %4d launches", c.name, float64(fp)/benchmarks.MiB, len(a.Objects()), len(ks))
	}
}

// TestIrregular16PaperSizes checks that the documented --scale reaches
// each paper's footprint within 10%.
func TestIrregular16PaperSizes(t *testing.T) {
	for _, c := range irregular16Cases {
		for _, pp := range c.papers {
			p := benchmarks.Params{GPUs: 1, Scale: pp.scale, Seed: 1}
			var fp uint64
			if c.expected != nil { // the inputs would take GBs of host memory
				var err error
				if fp, err = c.expected(p); err != nil {
					t.Fatal(err)
				}
			} else {
				a, _ := benchtest.Setup(t, c.name, p) // lazy kernels: cheap at any size
				fp = a.Footprint()
			}
			if dev := math.Abs(float64(fp)/float64(pp.bytes) - 1); dev > 0.10 {
				t.Errorf("%s --scale %g: %.0f MB, %s gives %.0f MB", c.name, pp.scale, float64(fp)/benchmarks.MiB, pp.paper, float64(pp.bytes)/benchmarks.MiB)
			}
			t.Logf("%-14s --scale %-5g %8.0f MB (%s %.0f MB)", c.name, pp.scale, float64(fp)/benchmarks.MiB, pp.paper, float64(pp.bytes)/benchmarks.MiB)
		}
	}
}

func TestIrregular16Deterministic(t *testing.T) {
	for _, c := range irregular16Cases {
		hash := func(seed uint64) uint64 {
			_, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 2, Scale: c.small, Seed: seed})
			h, _ := benchtest.StreamHash(ks, 2)
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
			_, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 1, Scale: c.small, Seed: 1, Iterations: it})
			n[it] = len(ks)
		}
		switch c.name {
		case "floyd-warshall":
			if n[0] != 4 || n[1] != 1 || n[2] != 2 {
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
