package benchmarks

import (
	"github.com/mgpu-sim/mgpu/objtable"
	"math"
	"testing"
)

func TestPaperFootprints(t *testing.T) {
	for _, c := range []struct {
		name    string
		objects int
		size    PaperSize
	}{{"mm", 4, MMSize}, {"mt", 3, MTSize}} {
		for _, q := range append(paperColumns(c.size), paperColumn{2, "auto", c.size.TableII}) {
			a, ks := setupTest(t, c.name, Params{GPUs: q.gpus, Size: q.size, Scale: 1})
			if got := len(a.Objects()); got != c.objects {
				t.Errorf("%s: %d objects, want %d", c.name, got, c.objects)
			}
			if len(ks) != 1 || len(ks[0].Args) != c.objects {
				t.Errorf("%s: %d kernels, args %v", c.name, len(ks), ks[0].Args)
			}
			fp := a.Footprint()
			checkFootprint(t, c.name, q, fp)
			t.Logf("%s %2d GPUs %-5s: side %d, %.2f MB (table %d MB), %d workgroups",
				c.name, q.gpus, q.size, int(math.Sqrt(float64(a.Object(0).Size/4))), float64(fp)/MiB, q.want/MiB, ks[0].Workgroups)
		}
	}
}

// objectRules drains sampled wavefronts of a paper workload and checks
// which objects are read and which written.
func objectRules(t *testing.T, name string, p Params, readOnly, writeOnly []string, every int) {
	a, ks := setupTest(t, name, p)
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
			drain(t, a, k.Wavefront(wg, wf, wg%p.GPUs), func(x access) {
				seen[x.obj.Name] = true
				switch kinds[x.obj.Name] {
				case "r":
					if x.write {
						t.Fatalf("%s: read-only object %q written at %#x", name, x.obj.Name, x.addr)
					}
				case "w":
					if !x.write {
						t.Fatalf("%s: write-only object %q read at %#x", name, x.obj.Name, x.addr)
					}
				default:
					t.Fatalf("%s: unexpected object %q", name, x.obj.Name)
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
	objectRules(t, "mm", Params{GPUs: 4, Size: "auto", Scale: 0.05}, []string{"A", "B", "kernarg"}, []string{"C"}, 1)
	objectRules(t, "mm", Params{GPUs: 4, Size: "auto", Scale: 1}, []string{"A", "B", "kernarg"}, []string{"C"}, 997)
}

func TestMTObjects(t *testing.T) {
	objectRules(t, "mt", Params{GPUs: 4, Size: "auto", Scale: 0.05}, []string{"input", "kernarg"}, []string{"output"}, 1)
	objectRules(t, "mt", Params{GPUs: 16, Size: "auto", Scale: 1}, []string{"input", "kernarg"}, []string{"output"}, 101)
}

// TestTileCoverage checks that mm writes every element of C exactly once
// and mt reads every input element and writes every output element once,
// with output[x][y] = input[y][x].
func TestTileCoverage(t *testing.T) {
	p := Params{GPUs: 2, Size: "auto", Scale: 0.01}
	for _, name := range []string{"mm", "mt"} {
		a, ks := setupTest(t, name, p)
		counts := map[string]map[uint64]int{}
		k := ks[0]
		for wg := 0; wg < k.Workgroups; wg++ {
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				drain(t, a, k.Wavefront(wg, wf, 0), func(x access) {
					if counts[x.obj.Name] == nil {
						counts[x.obj.Name] = map[uint64]int{}
					}
					counts[x.obj.Name][x.addr-x.obj.Base]++
				})
			}
		}
		elems := a.Object(0).Size / 4
		n := uint64(math.Sqrt(float64(elems)))
		switch name {
		case "mm":
			checkEach(t, "C", counts["C"], elems, 1)
			checkEach(t, "A", counts["A"], elems, int(n/Tile))
			checkEach(t, "B", counts["B"], elems, int(n/Tile))
		case "mt":
			checkEach(t, "input", counts["input"], elems, 1)
			checkEach(t, "output", counts["output"], elems, 1)
		}
	}
}

func checkEach(t *testing.T, obj string, c map[uint64]int, elems uint64, want int) {
	t.Helper()
	if uint64(len(c)) != elems {
		t.Fatalf("%s: %d of %d elements accessed", obj, len(c), elems)
	}
	for off, k := range c {
		if k != want || off%4 != 0 {
			t.Fatalf("%s: offset %d accessed %d times, want %d", obj, off, k, want)
		}
	}
}

// TestMTTranspose checks the lane-level pairing of one wavefront: lane l of
// the write goes to the transposed position of lane l of the read.
func TestMTTranspose(t *testing.T) {
	a, ks := setupTest(t, "mt", Params{GPUs: 4, Size: "auto", Scale: 1})
	n := uint64(math.Sqrt(float64(a.Object(0).Size / 4)))
	k := ks[0]
	for _, wg := range []int{0, 1, 180, 181, 5000, k.Workgroups - 1} {
		for wf := 0; wf < 4; wf++ {
			s := k.Wavefront(wg, wf, 0)
			var in, rd Instruction
			s.Next(&in) // kernarg
			s.Next(&rd)
			s.Next(&in)
			pages := map[uint64]bool{}
			for l := 0; l < WavefrontSize; l++ {
				i := (rd.Addr[l] - a.Object(0).Ptr) / 4
				o := (in.Addr[l] - a.Object(1).Ptr) / 4
				if o/n != i%n || o%n != i/n {
					t.Fatalf("wg %d wf %d lane %d: input [%d][%d] written to output [%d][%d]",
						wg, wf, l, i/n, i%n, o/n, o%n)
				}
				pages[objtable.Strip(in.Addr[l])/testPage] = true
			}
			if len(pages) != Tile {
				t.Errorf("wg %d wf %d: write spans %d pages, want %d", wg, wf, len(pages), Tile)
			}
		}
	}
}

func TestMMInstructionCount(t *testing.T) {
	p := Params{GPUs: 4, Size: "auto", Scale: 1}
	n, err := MMSide(p)
	if err != nil {
		t.Fatal(err)
	}
	want := MMInstructions(n)
	t.Logf("mm Table II: side %d, %d memory instructions (formula)", n, want)
	if testing.Short() {
		return
	}
	_, ks := setupTest(t, "mm", p)
	got := 0
	var in Instruction
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
	_, ks := setupTest(b, "mm", Params{GPUs: 4, Size: "auto", Scale: 1})
	k := ks[0]
	var in Instruction
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
