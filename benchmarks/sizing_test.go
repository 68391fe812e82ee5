package benchmarks

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestColumn(t *testing.T) {
	for _, c := range []struct {
		gpus int
		size string
		want int
	}{
		{1, "auto", 4}, {2, "auto", 4}, {3, "", 4}, {4, "auto", 4}, {7, "auto", 4},
		{8, "auto", 8}, {12, "auto", 8}, {16, "auto", 16}, {64, "auto", 16},
		{4, "16gpu", 16}, {16, "4gpu", 4}, {2, "8gpu", 8},
	} {
		got, err := Column(Params{GPUs: c.gpus, Size: c.size, Scale: 1})
		if err != nil || got != c.want {
			t.Errorf("Column(%d GPUs, %q) = %d, %v; want %d", c.gpus, c.size, got, err, c.want)
		}
	}
}

func TestSizeErrors(t *testing.T) {
	_, err := MMSize.Footprint(Params{GPUs: 4, Size: "huge", Scale: 1})
	if err == nil {
		t.Fatal("unknown size accepted")
	}
	for _, s := range SizeColumns() {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
	for _, sc := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := MTSize.Footprint(Params{GPUs: 4, Size: "auto", Scale: sc}); err == nil {
			t.Errorf("scale %v accepted", sc)
		}
	}
	if _, err := MTSize.Footprint(Params{GPUs: 0, Size: "auto", Scale: 1}); err == nil {
		t.Error("0 GPUs accepted")
	}
	// Every workload rejects a bad size and a bad scale in Setup.
	for _, name := range Names() {
		w, _ := New(name)
		if _, err := w.Setup(newTestAlloc(t), Params{GPUs: 4, Size: "huge", Scale: 1}); err == nil || !strings.Contains(err.Error(), "16gpu") {
			t.Errorf("%s: size huge: error %v does not list the valid sizes", name, err)
		}
		if _, err := w.Setup(newTestAlloc(t), Params{GPUs: 4, Size: "auto"}); err == nil {
			t.Errorf("%s: scale 0 accepted", name)
		}
	}
}

func TestUnknownWorkload(t *testing.T) {
	_, err := New("nbody")
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
	for _, n := range Names() {
		w, err := New(n)
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
		if sz := info.PaperSize; sz != (PaperSize{}) && (sz.TableII == 0 || sz.TableIII8 == 0 || sz.TableIII16 == 0) {
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
	for i, name := range Names() {
		for _, gpus := range counts {
			for _, scale := range []float64{0.001, 0.02} {
				quick := scale == 0.001 || gpus == counts[i%len(counts)]
				t.Run(fmt.Sprintf("%s/%dgpu/scale%g", name, gpus, scale), func(t *testing.T) {
					if !quick {
						fullOnly(t)
					}
					p := Params{GPUs: gpus, Scale: scale, Size: "auto", Iterations: 2, Seed: 42}
					a, ks := setupTest(t, name, p)
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
								n := drain(t, a, k.Wavefront(wg, wf, wg%gpus), nil)
								if n == 0 {
									t.Fatalf("%s kernel %d wg %d wf %d: empty wavefront", name, ki, wg, wf)
								}
								total += n
							}
						}
					}
					h1, n1 := streamHash(ks, gpus)
					_, ks2 := setupTest(t, name, p)
					h2, n2 := streamHash(ks2, gpus)
					if h1 != h2 || n1 != n2 || n1 != total {
						t.Fatalf("%s %+v: two setups differ (%x/%d vs %x/%d, drained %d)", name, p, h1, n1, h2, n2, total)
					}
				})
			}
		}
	}
}
