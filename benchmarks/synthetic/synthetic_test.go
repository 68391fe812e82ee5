package synthetic

import (
	"fmt"
	"sort"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

// pageSet is a set of 4 KB page numbers.
type pageSet map[uint64]bool

func (s pageSet) String() string {
	var p []uint64
	for k := range s {
		p = append(p, k)
	}
	sort.Slice(p, func(i, j int) bool { return p[i] < p[j] })
	if len(p) > 6 {
		return fmt.Sprintf("%d pages %d..%d", len(p), p[0], p[len(p)-1])
	}
	return fmt.Sprint(p)
}

func equalSets(a, b pageSet) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// regionPages is the page set of region r of an object split into n.
func regionPages(o *objtable.Object, r, n int) pageSet {
	size := o.Size / uint64(n)
	s := pageSet{}
	for a := o.Base + uint64(r)*size; a < o.Base+uint64(r+1)*size; a += benchtest.Page {
		s[a/benchtest.Page] = true
	}
	return s
}

// touched runs workgroup wg of k on gpu and returns the pages read and
// written.
func touched(t *testing.T, a *objtable.Allocator, k benchmarks.Kernel, wg, gpu int) (rd, wr pageSet) {
	rd, wr = pageSet{}, pageSet{}
	for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
		benchtest.Drain(t, a, k.Wavefront(wg, wf, gpu), func(x benchtest.Access) {
			if x.Write {
				wr[x.Addr/benchtest.Page] = true
			} else {
				rd[x.Addr/benchtest.Page] = true
			}
		})
	}
	return rd, wr
}

// TestSyntheticPages checks, for every kernel and GPU, that one workgroup
// (any of them) touches exactly the pages the doc comments promise.
func TestSyntheticPages(t *testing.T) {
	for _, name := range []string{"private", "shared-read", "pingpong", "prodcons"} {
		for _, gpus := range []int{1, 2, 3, 4, 16} {
			for _, scale := range []float64{0.01, 1} {
				p := benchmarks.Params{GPUs: gpus, Scale: scale, Size: "auto"}
				a, ks := benchtest.Setup(t, name, p)
				objs := a.Objects()
				iters := len(ks)
				if name == "prodcons" {
					iters /= 2
				}
				if iters != Iterations {
					t.Fatalf("%s: %d iterations by default, want %d", name, iters, Iterations)
				}
				for ki, k := range ks {
					if k.Workgroups != WorkgroupsPerGPU*gpus {
						t.Fatalf("%s: %d workgroups", name, k.Workgroups)
					}
					for g := 0; g < gpus; g++ {
						wantR, wantW := pageSet{}, pageSet{}
						switch name {
						case "private":
							wantR = regionPages(objs[0], g, gpus)
							wantW = wantR
						case "pingpong":
							wantR = regionPages(objs[0], (g+ki)%gpus, gpus)
							wantW = wantR
						case "shared-read":
							wantR = regionPages(objs[0], 0, 1)
							wantW = regionPages(objs[1], g, gpus)
						case "prodcons":
							if ki%2 == 0 {
								wantW = regionPages(objs[g], 0, 1)
							} else {
								wantR = regionPages(objs[(g+gpus-1)%gpus], 0, 1)
							}
						}
						for _, wg := range []int{g, (g*37 + ki*5 + 11) % k.Workgroups} {
							rd, wr := touched(t, a, k, wg, g)
							if !equalSets(rd, wantR) || !equalSets(wr, wantW) {
								t.Fatalf("%s N=%d scale %v kernel %d GPU %d wg %d: read %v write %v; want read %v write %v",
									name, gpus, scale, ki, g, wg, rd, wr, wantR, wantW)
							}
						}
					}
				}
			}
		}
	}
}

// TestPingpongMoves checks that with N > 1 every page of the object is
// written in every kernel, each time by a different GPU than in the kernel
// before.
func TestPingpongMoves(t *testing.T) {
	for _, gpus := range []int{2, 4, 16} {
		a, ks := benchtest.Setup(t, "pingpong", benchmarks.Params{GPUs: gpus, Scale: 0.01, Size: "auto", Iterations: 6})
		if len(ks) != 6 {
			t.Fatalf("%d kernels, want 6", len(ks))
		}
		all := regionPages(a.Object(0), 0, 1)
		var prev map[uint64]int
		for ki, k := range ks {
			writer := map[uint64]int{}
			for g := 0; g < gpus; g++ {
				_, wr := touched(t, a, k, 0, g)
				for pg := range wr {
					if _, dup := writer[pg]; dup {
						t.Fatalf("N=%d kernel %d: page %d written by two GPUs", gpus, ki, pg)
					}
					writer[pg] = g
				}
			}
			if len(writer) != len(all) {
				t.Fatalf("N=%d kernel %d: %d of %d pages written", gpus, ki, len(writer), len(all))
			}
			for pg, g := range writer {
				if prev != nil && prev[pg] == g {
					t.Fatalf("N=%d kernel %d: page %d written by GPU %d again", gpus, ki, pg, g)
				}
			}
			prev = writer
		}
	}
}

func TestSyntheticParams(t *testing.T) {
	for _, name := range []string{"private", "shared-read", "pingpong", "prodcons"} {
		w, _ := benchmarks.New(name)
		if _, err := w.Setup(benchtest.NewAlloc(t), benchmarks.Params{GPUs: 4, Scale: 1, Iterations: -1}); err == nil {
			t.Errorf("%s: negative iterations accepted", name)
		}
		if _, err := w.Setup(benchtest.NewAlloc(t), benchmarks.Params{GPUs: 0, Scale: 1}); err == nil {
			t.Errorf("%s: 0 GPUs accepted", name)
		}
		a := benchtest.NewAlloc(t)
		ks, err := w.Setup(a, benchmarks.Params{GPUs: 4, Scale: 1, Iterations: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := 3
		if name == "prodcons" {
			want = 6
		}
		if len(ks) != want {
			t.Errorf("%s: %d kernels for 3 iterations, want %d", name, len(ks), want)
		}
		fp := a.Footprint()
		if fp < 2*benchmarks.MiB || fp > 8*benchmarks.MiB {
			t.Errorf("%s: default footprint %d bytes, want a few MB", name, fp)
		}
		a2 := benchtest.NewAlloc(t)
		if _, err := w.Setup(a2, benchmarks.Params{GPUs: 4, Scale: 4, Iterations: 3}); err != nil {
			t.Fatal(err)
		}
		if a2.Footprint() != 4*fp {
			t.Errorf("%s: footprint %d at scale 4, %d at scale 1", name, a2.Footprint(), fp)
		}
	}
}
