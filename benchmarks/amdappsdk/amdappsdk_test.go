package amdappsdk

import (
	"math"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

func TestPaperFootprints(t *testing.T) {
	for _, c := range []struct {
		name    string
		objects int
		size    benchmarks.PaperSize
	}{{"mm", 4, MMSize}, {"mt", 3, MTSize}} {
		for _, q := range append(benchtest.PaperColumns(c.size), benchtest.PaperColumn{GPUs: 2, Size: "auto", Want: c.size.TableII}) {
			a, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: q.GPUs, Size: q.Size, Scale: 1})
			if got := len(a.Objects()); got != c.objects {
				t.Errorf("%s: %d objects, want %d", c.name, got, c.objects)
			}
			if len(ks) != 1 || len(ks[0].Args) != c.objects {
				t.Errorf("%s: %d kernels, args %v", c.name, len(ks), ks[0].Args)
			}
			fp := a.Footprint()
			benchtest.CheckFootprint(t, c.name, q, fp)
			t.Logf("%s %2d GPUs %-5s: side %d, %.2f MB (table %d MB), %d workgroups",
				c.name, q.GPUs, q.Size, int(math.Sqrt(float64(a.Object(0).Size/4))), float64(fp)/benchmarks.MiB, q.Want/benchmarks.MiB, ks[0].Workgroups)
		}
	}
}

// objectRules drains sampled wavefronts of a paper workload and checks
// which objects are read and which written.
func objectRules(t *testing.T, name string, p benchmarks.Params, readOnly, writeOnly []string, every int) {
	a, ks := benchtest.Setup(t, name, p)
	kinds := map[string]string{}
	for _, n := range readOnly {
		kinds[n] = "r"
	}
	for _, n := range writeOnly {
		kinds[n] = "w"
	}
	seen := map[string]bool{}
	k := ks[0]
	for wg := 0; wg < k.Workgroups; wg += every {
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			benchtest.Drain(t, a, k.Wavefront(wg, wf, wg%p.GPUs), func(x benchtest.Access) {
				seen[x.Obj.Name] = true
				switch kinds[x.Obj.Name] {
				case "r":
					if x.Write {
						t.Fatalf("%s: read-only object %q written at %#x", name, x.Obj.Name, x.Addr)
					}
				case "w":
					if !x.Write {
						t.Fatalf("%s: write-only object %q read at %#x", name, x.Obj.Name, x.Addr)
					}
				default:
					t.Fatalf("%s: unexpected object %q", name, x.Obj.Name)
				}
			})
		}
	}
	for n := range kinds {
		if !seen[n] {
			t.Errorf("%s: object %q never accessed", name, n)
		}
	}
}

func TestMMObjects(t *testing.T) {
	objectRules(t, "mm", benchmarks.Params{GPUs: 4, Size: "auto", Scale: 0.05}, []string{"A", "B", "kernarg"}, []string{"C"}, 1)
	objectRules(t, "mm", benchmarks.Params{GPUs: 4, Size: "auto", Scale: 1}, []string{"A", "B", "kernarg"}, []string{"C"}, 997)
}

func TestMTObjects(t *testing.T) {
	objectRules(t, "mt", benchmarks.Params{GPUs: 4, Size: "auto", Scale: 0.05}, []string{"input", "kernarg"}, []string{"output"}, 1)
	objectRules(t, "mt", benchmarks.Params{GPUs: 16, Size: "auto", Scale: 1}, []string{"input", "kernarg"}, []string{"output"}, 101)
}

// TestTileCoverage checks that mm writes every element of C exactly once,
// reads B whole and A's first 32 rows as MGPUSim's kernel does, and that mt
// reads every input element and writes every output element once.
func TestTileCoverage(t *testing.T) {
	p := benchmarks.Params{GPUs: 2, Size: "auto", Scale: 0.01}
	for _, name := range []string{"mm", "mt"} {
		a, ks := benchtest.Setup(t, name, p)
		counts := map[string]map[uint64]int{}
		k := ks[0]
		for wg := 0; wg < k.Workgroups; wg++ {
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), func(x benchtest.Access) {
					if counts[x.Obj.Name] == nil {
						counts[x.Obj.Name] = map[uint64]int{}
					}
					counts[x.Obj.Name][x.Addr-x.Obj.Base]++
				})
			}
		}
		elems := a.Object(0).Size / 4
		n := uint64(math.Sqrt(float64(elems)))
		switch name {
		case "mm": // MGPUSim's kernel: every workgroup reads A's first 32 rows
			blocks := int(n / mmTile)
			benchtest.CheckEach(t, "C", float4s(counts["C"]), elems/4, 1)
			benchtest.CheckEach(t, "A", float4s(counts["A"]), mmTile*n/4, blocks*blocks)
			benchtest.CheckEach(t, "B", float4s(counts["B"]), elems/4, mmGroup*blocks)
		case "mt": // a lane moves a float4: each is read, and written, once
			benchtest.CheckEach(t, "input", float4s(counts["input"]), elems/4, 1)
			benchtest.CheckEach(t, "output", float4s(counts["output"]), elems/4, 1)
		}
	}
}

// float4s re-keys byte-offset counts by float4, at its first element.
func float4s(c map[uint64]int) map[uint64]int {
	out := map[uint64]int{}
	for off, n := range c {
		out[off/16*4] += n // a float4's first element
	}
	return out
}

// TestMTTranspose checks MGPUSim's mapping for a few workgroups: group
// (gx, gy) reads the input tile at row block gx and column block
// (gx+gy) mod n/64 (the diagonal reshuffle) and writes the transposed
// tile, row-wise: each load and store is four rows of 256 bytes.
func TestMTTranspose(t *testing.T) {
	a, ks := benchtest.Setup(t, "mt", benchmarks.Params{GPUs: 4, Size: "auto", Scale: 1})
	n := uint64(math.Sqrt(float64(a.Object(0).Size / 4)))
	if n%mtTile != 0 {
		t.Fatalf("side %d is not a multiple of %d", n, mtTile)
	}
	nb := int(n / mtTile)
	k := ks[0]
	for _, wg := range []int{0, 1, nb - 1, nb, nb + 5, k.Workgroups - 1} {
		gx, gy := wg%nb, wg/nb
		wantIn := [2]uint64{uint64(gx), uint64((gx + gy) % nb)}
		wantOut := [2]uint64{wantIn[1], wantIn[0]}
		for wf := 0; wf < 4; wf++ {
			s := k.Wavefront(wg, wf, 0)
			var in benchmarks.Instruction
			s.Next(&in) // kernarg
			for i := 0; i < 2*mtVec; i++ {
				if !s.Next(&in) {
					t.Fatalf("wg %d wf %d: %d instructions", wg, wf, i+1)
				}
				obj, want := a.Object(0), wantIn
				if in.Write {
					obj, want = a.Object(1), wantOut
				}
				if in.Write != (i >= mtVec) {
					t.Fatalf("wg %d wf %d: instruction %d write=%v", wg, wf, i+1, in.Write)
				}
				rows := map[uint64]bool{}
				for l := 0; l < benchmarks.WavefrontSize; l++ {
					e := (in.Addr[l] - obj.Ptr) / 4
					if b := [2]uint64{e / n / mtTile, e % n / mtTile}; b != want {
						t.Fatalf("wg %d wf %d instr %d lane %d: tile %v, want %v", wg, wf, i+1, l, b, want)
					}
					rows[e/n] = true
				}
				if len(rows) != 4 {
					t.Errorf("wg %d wf %d instr %d: %d rows, want 4", wg, wf, i+1, len(rows))
				}
			}
		}
	}
}

func TestMMInstructionCount(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Size: "auto", Scale: 1}
	n, err := MMSide(p)
	if err != nil {
		t.Fatal(err)
	}
	want := MMInstructions(n)
	t.Logf("mm Table II: side %d, %d memory instructions (formula)", n, want)
	if testing.Short() {
		return
	}
	_, ks := benchtest.Setup(t, "mm", p)
	got := 0
	var in benchmarks.Instruction
	for wg := 0; wg < ks[0].Workgroups; wg++ {
		for wf := 0; wf < ks[0].WavefrontsPerWorkgroup; wf++ {
			for s := ks[0].Wavefront(wg, wf, 0); s.Next(&in); {
				got++
			}
		}
	}
	t.Logf("mm Table II: %d memory instructions (drained)", got)
	if uint64(got) != want {
		t.Errorf("drained %d instructions, MMInstructions says %d", got, want)
	}
}

func BenchmarkMMStream(b *testing.B) {
	_, ks := benchtest.Setup(b, "mm", benchmarks.Params{GPUs: 4, Size: "auto", Scale: 1})
	k := ks[0]
	var in benchmarks.Instruction
	n := 0
	wg, wf := 0, 0
	s := k.Wavefront(wg, wf, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for !s.Next(&in) {
			if wf++; wf == k.WavefrontsPerWorkgroup {
				wf = 0
				wg = (wg + 1) % k.Workgroups
			}
			s = k.Wavefront(wg, wf, 0)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "instr/s")
}
