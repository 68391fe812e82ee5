package benchmarks_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	_ "github.com/mgpu-sim/mgpu/benchmarks/all" // registers every workload
	"github.com/mgpu-sim/mgpu/benchmarks/amdappsdk"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

func TestSizeErrors(t *testing.T) {
	_, err := amdappsdk.MMSize.Footprint(benchmarks.Params{GPUs: 4, Size: "huge", Scale: 1})
	if err == nil {
		t.Fatal("unknown size accepted")
	}
	for _, s := range benchmarks.SizeColumns() {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
	for _, sc := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := amdappsdk.MTSize.Footprint(benchmarks.Params{GPUs: 4, Size: "auto", Scale: sc}); err == nil {
			t.Errorf("scale %v accepted", sc)
		}
	}
	if _, err := amdappsdk.MTSize.Footprint(benchmarks.Params{GPUs: 0, Size: "auto", Scale: 1}); err == nil {
		t.Error("0 GPUs accepted")
	}
	// Every workload rejects a bad size and a bad scale in Setup.
	for _, name := range benchmarks.Names() {
		w, _ := benchmarks.New(name)
		if _, err := w.Setup(benchtest.NewAlloc(t), benchmarks.Params{GPUs: 4, Size: "huge", Scale: 1}); err == nil || !strings.Contains(err.Error(), "16gpu") {
			t.Errorf("%s: size huge: error %v does not list the valid sizes", name, err)
		}
		if _, err := w.Setup(benchtest.NewAlloc(t), benchmarks.Params{GPUs: 4, Size: "auto"}); err == nil {
			t.Errorf("%s: scale 0 accepted", name)
		}
	}
}

func TestUnknownWorkload(t *testing.T) {
	_, err := benchmarks.New("nbody")
	if err == nil {
		t.Fatal("unknown workload accepted")
	}
	for _, n := range []string{"mt", "mm", "private", "shared-read", "pingpong", "prodcons"} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %q", err, n)
		}
	}
}

// TestRegistered checks every workload's Info: the name it is registered
// under, a one-line description and a suite; no empty alias; and a
// declared paper size with every column set, since a zero PaperSize
// means none is declared.
func TestRegistered(t *testing.T) {
	for _, n := range benchmarks.Names() {
		w, err := benchmarks.New(n)
		if err != nil {
			t.Fatal(err)
		}
		info := w.Info()
		if info.Name != n || info.Description == "" || strings.Contains(info.Description, "\n") || info.Suite == "" {
			t.Errorf("%s: Name %q, Description %q, Suite %q", n, info.Name, info.Description, info.Suite)
		}
		if slices.Contains(info.Aliases, "") {
			t.Errorf("%s: an empty alias in %q", n, info.Aliases)
		}
		if sz := info.PaperSize; sz != (benchmarks.PaperSize{}) && (sz.TableII == 0 || sz.TableIII8 == 0 || sz.TableIII16 == 0) {
			t.Errorf("%s: PaperSize %+v has an empty column", n, sz)
		}
	}
}

// TestAllWorkloadsSmall sets every workload up at small scales on 1 to 16
// GPUs and drains every wavefront: all lanes land in an object with the
// right tag, and every stream is deterministic. make test runs every
// workload at scale 0.001 on each GPU count, and at 0.02 on one GPU count,
// the counts taken in turn; make test-full runs the rest.
func TestAllWorkloadsSmall(t *testing.T) {
	counts := []int{1, 2, 4, 16}
	for i, name := range benchmarks.Names() {
		for _, gpus := range counts {
			for _, scale := range []float64{0.001, 0.02} {
				quick := scale == 0.001 || gpus == counts[i%len(counts)]
				t.Run(fmt.Sprintf("%s/%dgpu/scale%g", name, gpus, scale), func(t *testing.T) {
					if !quick {
						fullOnly(t)
					}
					p := benchmarks.Params{GPUs: gpus, Scale: scale, Size: "auto", Iterations: 2, Seed: 42}
					a, ks := benchtest.Setup(t, name, p)
					if len(ks) == 0 {
						t.Fatalf("%s: no kernels", name)
					}
					total := 0
					for ki, k := range ks {
						if k.Workgroups < 1 || k.WavefrontsPerWorkgroup < 1 || k.Wavefront == nil || len(k.Args) == 0 {
							t.Fatalf("%s kernel %d: %+v", name, ki, k)
						}
						for _, id := range k.Args {
							if id < 0 || id >= len(a.Objects()) {
								t.Fatalf("%s kernel %d: arg %d is no object", name, ki, id)
							}
						}
						for wg := 0; wg < k.Workgroups; wg++ {
							for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
								n := benchtest.Drain(t, a, k.Wavefront(wg, wf, wg%gpus), nil)
								if n == 0 {
									t.Fatalf("%s kernel %d wg %d wf %d: empty wavefront", name, ki, wg, wf)
								}
								total += n
							}
						}
					}
					h1, n1 := benchtest.StreamHash(ks, gpus)
					_, ks2 := benchtest.Setup(t, name, p)
					h2, n2 := benchtest.StreamHash(ks2, gpus)
					if h1 != h2 || n1 != n2 || n1 != total {
						t.Fatalf("%s %+v: two setups differ (%x/%d vs %x/%d, drained %d)", name, p, h1, n1, h2, n2, total)
					}
				})
			}
		}
	}
}

func TestGraphsDeterministic(t *testing.T) {
	for _, name := range []string{"bfs", "pr"} {
		hash := func(seed uint64) uint64 {
			_, ks := benchtest.Setup(t, name, benchmarks.Params{GPUs: 4, Scale: 0.01, Seed: seed})
			h, _ := benchtest.StreamHash(ks, 4)
			return h
		}
		a, b := hash(1), hash(1)
		if a != b || a == hash(2) {
			t.Errorf("%s: same seed must give the same accesses, another seed other ones", name)
		}
	}
}
