package benchmarks_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/benchmarks/hpcc"
	"github.com/mgpu-sim/mgpu/benchmarks/polybench"
	"github.com/mgpu-sim/mgpu/benchmarks/rodinia"
)

// uvmCase is one UVMSmart / Early-Adaptor workload: its class, objects in
// ID order, scale-1 size, and its launches for an iteration count (0 the
// default) or nil when it has no iterations.
type uvmCase struct {
	name     string
	class    string
	objects  []string
	size     benchmarks.PaperSize
	launches func(iters int) int
}

// perIteration is launches(iters) for k launches per iteration and def
// iterations by default.
func perIteration(k, def int) func(int) int {
	return func(it int) int {
		if it == 0 {
			it = def
		}
		return k * it
	}
}

var uvmCases = []uvmCase{
	{"2dconv", benchmarks.ClassRegular, []string{"A", "B"}, polybench.Conv2DSize, nil},
	{"atax", benchmarks.ClassIrregular, []string{"A", "x", "y", "tmp"}, polybench.ATAXSize, nil},
	{"bicg", benchmarks.ClassIrregular, []string{"A", "r", "s", "p", "q"}, polybench.BICGSize, nil},
	{"fdtd2d", benchmarks.ClassRegular, []string{"_fict_", "ex", "ey", "hz"}, polybench.FDTD2DSize, perIteration(3, 5)},
	{"hotspot", benchmarks.ClassRegular, []string{"MatrixTemp0", "MatrixTemp1", "MatrixPower"}, rodinia.HotspotSize, perIteration(1, 4)},
	{"pathfinder", benchmarks.ClassRegular, []string{"gpuResult0", "gpuResult1", "gpuWall"}, rodinia.PathfinderSize, nil},
	{"nw", benchmarks.ClassIrregular, []string{"referrence", "itemsets"}, rodinia.NWSize, nil},
	{"backprop", benchmarks.ClassRegular, []string{"input_units", "hidden_units", "output_units", "hidden_delta",
		"output_delta", "target", "input_weights", "input_weights2", "hidden_weights", "input_prev_weights",
		"hidden_prev_weights", "output_hidden_cuda", "hidden_partial_sum"}, rodinia.BackpropSize, nil},
	{"srad", benchmarks.ClassRegular, []string{"C_cuda", "E_C", "W_C", "S_C", "N_C", "J_shared"}, rodinia.SRADSize, perIteration(2, 4)},
	{"rbfs", benchmarks.ClassMixed, []string{"graph_nodes", "graph_mask", "updating_graph_mask", "graph_visited",
		"graph_edges", "cost", "d_over"}, rodinia.RBFSSize, nil},
	{"ra", benchmarks.ClassIrregular, []string{"Table"}, hpcc.RASize, nil},
}

func TestUVMSmartRegistered(t *testing.T) {
	for _, c := range uvmCases {
		w, err := benchmarks.New(c.name)
		if err != nil {
			t.Fatal(err)
		}
		info := w.Info()
		if info.Name != c.name || info.Description == "" || strings.Contains(info.Description, "\n") {
			t.Errorf("%s: Name %q, Description %q", c.name, info.Name, info.Description)
		}
		if got := benchmarks.ClassOf(w); got != c.class || !slices.Contains(benchmarks.Classes(), got) {
			t.Errorf("%s: class %q, want %q (one of %v)", c.name, got, c.class, benchmarks.Classes())
		}
		if sz := info.PaperSize; sz != c.size {
			t.Errorf("%s: PaperSize %+v, want %+v", c.name, sz, c.size)
		}
		if c.size.TableII != c.size.TableIII8 || c.size.TableII != c.size.TableIII16 {
			t.Errorf("%s: columns differ: %+v", c.name, c.size)
		}
	}
	for _, n := range []string{"mm", "bfs", "private"} {
		if w, _ := benchmarks.New(n); benchmarks.ClassOf(w) != "" {
			t.Errorf("%s has a class", n)
		}
	}
}

// TestUVMSmartSmall sets every workload up at a small scale on 1, 2 and 4
// GPUs and drains every wavefront (drain checks that each lane lies in an
// object with the right tag): objects in the documented order, kernel
// arguments valid, work split by the platform's dispatcher (the gpu
// argument is ignored, so the streams are the same on every GPU).
func TestUVMSmartSmall(t *testing.T) {
	for _, c := range uvmCases {
		var hashes []uint64
		for _, gpus := range []int{1, 2, 4} {
			p := benchmarks.Params{GPUs: gpus, Scale: 0.01, Size: benchmarks.SizeAuto, Seed: 1}
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
			for ki, k := range ks {
				if k.Workgroups < 1 || k.WavefrontsPerWorkgroup < 1 || len(k.Args) == 0 || k.Barrier || k.PerDevice {
					t.Fatalf("%s kernel %d: %+v", c.name, ki, k)
				}
				for _, id := range k.Args {
					if id < 0 || id >= len(a.Objects()) {
						t.Fatalf("%s kernel %d: argument %d is no object", c.name, ki, id)
					}
				}
				for wg := 0; wg < k.Workgroups; wg++ {
					for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
						if benchtest.Drain(t, a, k.Wavefront(wg, wf, wg%gpus), nil) == 0 {
							t.Fatalf("%s kernel %d wg %d wf %d: empty", c.name, ki, wg, wf)
						}
					}
				}
			}
			h, _ := benchtest.StreamHash(ks, gpus)
			hashes = append(hashes, h)
		}
		if hashes[0] != hashes[1] || hashes[0] != hashes[2] {
			t.Errorf("%s: the streams depend on the GPU count", c.name)
		}
	}
}

// TestUVMSmartFootprints checks scale 1 against the declared PaperSize
// (within 3%, on 4, 8 and 16 GPUs: the columns are equal) and, for the
// Early-Adaptor workloads, scale EAScales against EA's Table II.
func TestUVMSmartFootprints(t *testing.T) {
	for _, c := range uvmCases {
		within := func(what string, got, want uint64) {
			t.Helper()
			if dev := math.Abs(float64(got)/float64(want) - 1); dev > 0.03 {
				t.Errorf("%s %s: footprint %.1f MB, want %.1f MB ± 3%%", c.name, what, float64(got)/benchmarks.MiB, float64(want)/benchmarks.MiB)
			}
		}
		for _, gpus := range []int{4, 8, 16} {
			a, _ := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: gpus, Scale: 1, Size: benchmarks.SizeAuto, Seed: 1})
			within("scale 1", a.Footprint(), c.size.TableII)
			if gpus == 4 {
				t.Logf("%-10s scale 1: %.1f MB (declared %.1f MB)", c.name, float64(a.Footprint())/benchmarks.MiB, float64(c.size.TableII)/benchmarks.MiB)
			}
		}
		ea, ok := benchmarks.EAFootprints[c.name]
		if !ok {
			continue
		}
		p := benchmarks.Params{GPUs: 4, Scale: float64(benchmarks.EAScales[c.name]), Size: benchmarks.SizeAuto, Seed: 1}
		var fp uint64
		if c.name == "rbfs" { // the expected size: the graph would take 6 GB of host memory
			v, err := rodinia.RBFSNodes(p)
			if err != nil {
				t.Fatal(err)
			}
			fp = uint64(v) * (15 + 6*4) // graph_nodes, three masks and cost; 6 edges of 4 bytes on average
		} else {
			a, _ := benchtest.Setup(t, c.name, p) // lazy kernels: cheap at any size
			fp = a.Footprint()
		}
		within("EA scale", fp, ea)
		t.Logf("%-10s scale %d: %.0f MB (EA Table II %d MB)", c.name, benchmarks.EAScales[c.name], float64(fp)/benchmarks.MiB, ea/benchmarks.MiB)
	}
}

// TestUVMSmartIterations checks that Params.Iterations sets the iteration
// count of the workloads that have one, and changes nothing elsewhere, so
// that mgpu run rejects --iterations for them (it compares the launches
// at 1 and 2 iterations).
func TestUVMSmartIterations(t *testing.T) {
	for _, c := range uvmCases {
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

func TestUVMSmartDeterministic(t *testing.T) {
	for _, name := range []string{"ra", "rbfs"} {
		hash := func(seed uint64) uint64 {
			_, ks := benchtest.Setup(t, name, benchmarks.Params{GPUs: 4, Scale: 0.005, Size: benchmarks.SizeAuto, Seed: seed})
			h, _ := benchtest.StreamHash(ks, 4)
			return h
		}
		a, b := hash(1), hash(1)
		if a != b || a == hash(2) {
			t.Errorf("%s: same seed must give the same accesses, another seed other ones", name)
		}
	}
}

// TestUVMSmartClamp: a tiny scale runs the smallest shape and says so; a
// small but fitting one does not.
func TestUVMSmartClamp(t *testing.T) {
	for _, c := range uvmCases {
		for _, q := range []struct {
			scale   float64
			clamped bool
		}{{1e-6, true}, {0.05, false}} {
			p := benchmarks.Params{GPUs: 4, Scale: q.scale, Size: benchmarks.SizeAuto, Seed: 1}
			a, _ := benchtest.Setup(t, c.name, p)
			w, _ := benchmarks.New(c.name)
			if note := benchmarks.ClampNote(w, p, a.Footprint()); (note != "") != q.clamped {
				t.Errorf("%s scale %g (%d bytes): note %q", c.name, q.scale, a.Footprint(), note)
			}
		}
	}
}
