package benchmarks

import (
	"hash/fnv"
	"math"
	"testing"

	"github.com/mgpu-sim/mgpu/objtable"
)

const testPage = 4096

func newTestAlloc(t testing.TB) *objtable.Allocator {
	t.Helper()
	a, err := objtable.NewAllocator(objtable.Tagging{IDBits: 4, ConfigBit: 1}, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// setupTest builds the named workload or fails the test.
func setupTest(t testing.TB, name string, p Params) (*objtable.Allocator, []Kernel) {
	t.Helper()
	w, err := New(name)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAlloc(t)
	ks, err := w.Setup(a, p)
	if err != nil {
		t.Fatalf("%s.Setup(%+v): %v", name, p, err)
	}
	return a, ks
}

// access is what one instruction lane did.
type access struct {
	obj   *objtable.Object
	addr  uint64 // untagged
	write bool
}

// drain runs one wavefront to the end, calling f for every active lane.
// It reuses an Instruction filled with junk between calls, to catch a
// Stream that relies on fields it did not set. It checks that every lane
// hits an object and carries that object's tag, and returns the number of
// instructions.
func drain(t testing.TB, a *objtable.Allocator, s Stream, f func(access)) int {
	t.Helper()
	var in Instruction
	n := 0
	for {
		in.Compute, in.Write, in.Lanes = -7, !in.Write, 99
		if !s.Next(&in) {
			return n
		}
		n++
		if in.Lanes < 0 || in.Lanes > WavefrontSize || in.Compute < 0 {
			t.Fatalf("instruction %d: lanes %d compute %d", n, in.Lanes, in.Compute)
		}
		for l := 0; l < in.Lanes; l++ {
			addr, id, ok := a.Tagging().Decode(in.Addr[l])
			o := a.ObjectAt(objtable.Strip(in.Addr[l]))
			if o == nil {
				t.Fatalf("instruction %d lane %d: address %#x outside every object", n, l, in.Addr[l])
			}
			if !ok || id != o.ID&(1<<a.Tagging().IDBits-1) {
				t.Fatalf("instruction %d lane %d: %#x tagged %d, object %q has ID %d", n, l, in.Addr[l], id, o.Name, o.ID)
			}
			if f != nil {
				f(access{obj: o, addr: addr, write: in.Write})
			}
		}
	}
}

// streamHash hashes every instruction of every wavefront of ks, with GPU
// wg mod gpus, and counts the instructions.
func streamHash(ks []Kernel, gpus int) (uint64, int) {
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	n := 0
	for _, k := range ks {
		for wg := 0; wg < k.Workgroups; wg++ {
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				s := k.Wavefront(wg, wf, wg%gpus)
				var in Instruction
				for s.Next(&in) {
					n++
					w := uint64(0)
					if in.Write {
						w = 1
					}
					put(uint64(in.Compute))
					put(w)
					put(uint64(in.Lanes))
					for l := 0; l < in.Lanes; l++ {
						put(in.Addr[l])
					}
				}
			}
		}
	}
	return h.Sum64(), n
}

// paperColumn is one footprint column of Tables II and III: where a run
// sizes from, and the footprint the paper gives there.
type paperColumn struct {
	gpus int
	size string
	want uint64
}

// paperColumns lists Table II, both Table III columns, and the 16-GPU size
// on 4 GPUs (fig18).
func paperColumns(s PaperSize) []paperColumn {
	return []paperColumn{
		{4, "auto", s.TableII},
		{8, "auto", s.TableIII8},
		{16, "auto", s.TableIII16},
		{4, "16gpu", s.TableIII16},
	}
}

// checkFootprint allows 5% between a built footprint and the paper's.
func checkFootprint(t *testing.T, name string, q paperColumn, got uint64) {
	t.Helper()
	if dev := math.Abs(float64(got)/float64(q.want) - 1); dev > 0.05 {
		t.Errorf("%s %d GPUs %s: footprint %.1f MB, want %.0f MB ± 5%%", name, q.gpus, q.size,
			float64(got)/MiB, float64(q.want)/MiB)
	}
}
