// Package benchtest holds what the workload tests of every suite share:
// an allocator, setting a workload up by name, draining a wavefront while
// checking that every lane lies in an object with its tag, hashing a
// run's streams, counting accesses per object and element, and the
// paper-footprint columns with their tolerance. It is imported by tests
// only.
package benchtest

import (
	"hash/fnv"
	"math"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Page is the page size the tests reason in.
const Page = 4096

// NewAlloc is an allocator with 4 tag bits, as the platform's.
func NewAlloc(t testing.TB) *objtable.Allocator {
	t.Helper()
	a, err := objtable.NewAllocator(objtable.Tagging{IDBits: 4, ConfigBit: 1}, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Setup builds the named workload or fails the test.
func Setup(t testing.TB, name string, p benchmarks.Params) (*objtable.Allocator, []benchmarks.Kernel) {
	t.Helper()
	w, err := benchmarks.New(name)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAlloc(t)
	ks, err := w.Setup(a, p)
	if err != nil {
		t.Fatalf("%s.Setup(%+v): %v", name, p, err)
	}
	return a, ks
}

// Access is what one instruction lane did.
type Access struct {
	Obj   *objtable.Object
	Addr  uint64 // untagged
	Write bool
}

// Drain runs one wavefront to the end, calling f for every active lane.
// It reuses an Instruction filled with junk between calls, to catch a
// Stream that relies on fields it did not set. It checks that every lane
// hits an object and carries that object's tag, and returns the number of
// instructions.
func Drain(t testing.TB, a *objtable.Allocator, s benchmarks.Stream, f func(Access)) int {
	t.Helper()
	var in benchmarks.Instruction
	n := 0
	for {
		in.Compute, in.Write, in.Lanes = -7, !in.Write, 99
		if !s.Next(&in) {
			return n
		}
		n++
		if in.Lanes < 0 || in.Lanes > benchmarks.WavefrontSize || in.Compute < 0 {
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
				f(Access{Obj: o, Addr: addr, Write: in.Write})
			}
		}
	}
}

// StreamHash hashes every instruction of every wavefront of ks, with GPU
// wg mod gpus, and counts the instructions.
func StreamHash(ks []benchmarks.Kernel, gpus int) (uint64, int) {
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
				var in benchmarks.Instruction
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

// PaperColumn is one footprint column of Tables II and III: where a run
// sizes from, and the footprint the paper gives there.
type PaperColumn struct {
	GPUs int
	Size string
	Want uint64
}

// PaperColumns lists Table II, both Table III columns, and the 16-GPU size
// on 4 GPUs (fig18).
func PaperColumns(s benchmarks.PaperSize) []PaperColumn {
	return []PaperColumn{
		{4, "auto", s.TableII},
		{8, "auto", s.TableIII8},
		{16, "auto", s.TableIII16},
		{4, "16gpu", s.TableIII16},
	}
}

// CheckFootprint allows 5% between a built footprint and the paper's.
func CheckFootprint(t *testing.T, name string, q PaperColumn, got uint64) {
	t.Helper()
	if dev := math.Abs(float64(got)/float64(q.Want) - 1); dev > 0.05 {
		t.Errorf("%s %d GPUs %s: footprint %.1f MB, want %.0f MB ± 5%%", name, q.GPUs, q.Size,
			float64(got)/benchmarks.MiB, float64(q.Want)/benchmarks.MiB)
	}
}

// Counts are, per object name, the reads and writes of each element
// (byte offset / size) of a kernel, and its instructions (CountKernel).
type Counts struct {
	Reads, Writes map[string]map[uint64]int
	Instructions  int
}

// CountKernel drains kernel k and counts its accesses.
func CountKernel(t *testing.T, a *objtable.Allocator, k benchmarks.Kernel, size uint64) Counts {
	t.Helper()
	c := Counts{Reads: map[string]map[uint64]int{}, Writes: map[string]map[uint64]int{}}
	for wg := 0; wg < k.Workgroups; wg++ {
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			c.Instructions += Drain(t, a, k.Wavefront(wg, wf, 0), func(x Access) {
				m := c.Reads
				if x.Write {
					m = c.Writes
				}
				if m[x.Obj.Name] == nil {
					m[x.Obj.Name] = map[uint64]int{}
				}
				m[x.Obj.Name][(x.Addr-x.Obj.Base)/size]++
			})
		}
	}
	return c
}

// OnlyObjects fails unless exactly the named objects were read and written.
func (c Counts) OnlyObjects(t *testing.T, what string, reads, writes []string) {
	t.Helper()
	for _, m := range []struct {
		got  map[string]map[uint64]int
		want []string
		kind string
	}{{c.Reads, reads, "read"}, {c.Writes, writes, "written"}} {
		if len(m.got) != len(m.want) {
			t.Errorf("%s: %d objects %s, want %v", what, len(m.got), m.kind, m.want)
		}
		for _, n := range m.want {
			if len(m.got[n]) == 0 {
				t.Errorf("%s: %s not %s", what, n, m.kind)
			}
		}
	}
}

// ExactlyOnce fails unless the elements of m are exactly those for which
// in(i) holds, out of elems, each counted once.
func ExactlyOnce(t *testing.T, what string, m map[uint64]int, elems uint64, in func(i uint64) bool) {
	t.Helper()
	want := 0
	for i := uint64(0); i < elems; i++ {
		if in(i) {
			want++
			if m[i] != 1 {
				t.Fatalf("%s: element %d counted %d times, want once", what, i, m[i])
			}
		}
	}
	if len(m) != want {
		t.Fatalf("%s: %d elements counted, want %d", what, len(m), want)
	}
}

// CheckEach fails unless elems offsets of c, each a multiple of 4, are
// accessed, each want times.
func CheckEach(t *testing.T, obj string, c map[uint64]int, elems uint64, want int) {
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

// CountAccesses drains every wavefront of kernel k and counts, per object
// name, the reads and writes of each byte offset.
func CountAccesses(t *testing.T, name string, p benchmarks.Params, k int) (reads, writes map[string]map[uint64]int, instrs int) {
	a, ks := Setup(t, name, p)
	reads, writes = map[string]map[uint64]int{}, map[string]map[uint64]int{}
	kn := ks[k]
	for wg := 0; wg < kn.Workgroups; wg++ {
		for wf := 0; wf < kn.WavefrontsPerWorkgroup; wf++ {
			instrs += Drain(t, a, kn.Wavefront(wg, wf, wg%p.GPUs), func(x Access) {
				m := reads
				if x.Write {
					m = writes
				}
				if m[x.Obj.Name] == nil {
					m[x.Obj.Name] = map[uint64]int{}
				}
				m[x.Obj.Name][x.Addr-x.Obj.Base]++
			})
		}
	}
	return reads, writes, instrs
}

// FirstInstructions returns up to max instructions of wavefront (wg, wf)
// of k.
func FirstInstructions(k benchmarks.Kernel, wg, wf, max int) []benchmarks.Instruction {
	var out []benchmarks.Instruction
	s := k.Wavefront(wg, wf, 0)
	var in benchmarks.Instruction
	for len(out) < max && s.Next(&in) {
		out = append(out, in)
	}
	return out
}

// WantLanes fails unless in has exactly lanes lanes, lane l on element
// idx(l) of o (elements of size bytes), and is a write when write.
func WantLanes(t *testing.T, what string, in benchmarks.Instruction, o *objtable.Object, write bool, lanes int, idx func(l int) int, size int) {
	t.Helper()
	if in.Lanes != lanes || in.Write != write {
		t.Fatalf("%s: %d lanes, write %v; want %d lanes on %s, write %v", what, in.Lanes, in.Write, lanes, o.Name, write)
	}
	for l := 0; l < lanes; l++ {
		if want := benchmarks.Elem(o.Ptr, idx(l), size); in.Addr[l] != want {
			t.Fatalf("%s lane %d: %#x, want %s element %d (%#x)", what, l, in.Addr[l], o.Name, idx(l), want)
		}
	}
}

// EachCounted fails unless the elements of m for which in(i) holds, out of
// elems, are each counted want times, and no other element is.
func EachCounted(t *testing.T, what string, m map[uint64]int, elems uint64, want int, in func(i uint64) bool) {
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

// AnyElem takes every element.
func AnyElem(uint64) bool { return true }

// InstructionAccesses drains one wavefront and returns its instructions'
// accesses.
func InstructionAccesses(t *testing.T, a *objtable.Allocator, s benchmarks.Stream) [][]Access {
	t.Helper()
	var out [][]Access
	var in benchmarks.Instruction
	for s.Next(&in) {
		var ins []Access
		for l := 0; l < in.Lanes; l++ {
			o := a.ObjectAt(objtable.Strip(in.Addr[l]))
			if o == nil {
				t.Fatalf("lane %d: %#x outside every object", l, in.Addr[l])
			}
			ins = append(ins, Access{Obj: o, Addr: objtable.Strip(in.Addr[l]), Write: in.Write})
		}
		out = append(out, ins)
	}
	return out
}

// LaneElems is the element indices (offset / size) of an instruction's lanes.
func LaneElems(ins []Access, size uint64) []uint64 {
	var e []uint64
	for _, x := range ins {
		e = append(e, (x.Addr-x.Obj.Base)/size)
	}
	return e
}

// ObjectNamed is a's object of that name, or nil.
func ObjectNamed(a *objtable.Allocator, name string) *objtable.Object {
	for _, o := range a.Objects() {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// GraphTable checks a graph workload's footprint in every paper column
// (PaperColumns): built at Table II, where it must have objects objects,
// and from the sizing alone (GraphScale over bytes) in the larger
// columns, whose graphs take seconds to generate.
func GraphTable(t *testing.T, name string, objects int, size benchmarks.PaperSize, bytes benchmarks.GraphBytes) {
	t.Helper()
	for _, q := range PaperColumns(size) {
		if q.GPUs != 4 || q.Size != "auto" {
			fp, err := size.Footprint(benchmarks.Params{GPUs: q.GPUs, Size: q.Size, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			s, e := benchmarks.GraphScale(fp, bytes.Vertex, bytes.Edge)
			got := uint64(bytes.Vertex)<<s + uint64(bytes.Edge*e)
			CheckFootprint(t, name, q, got)
			t.Logf("%s %2d GPUs %-5s: 2^%d vertices, %d edges, %.1f MB", name, q.GPUs, q.Size, s, e, float64(got)/benchmarks.MiB)
			continue
		}
		a, ks := Setup(t, name, benchmarks.Params{GPUs: q.GPUs, Size: q.Size, Scale: 1, Seed: 1})
		if got := len(a.Objects()); got != objects {
			t.Errorf("%s: %d objects, want %d", name, got, objects)
		}
		fp := a.Footprint()
		CheckFootprint(t, name, q, fp)
		_, n := StreamHash(ks, 1)
		t.Logf("%s %2d GPUs %-5s: %.1f MB (table %d MB), %d launches, %d instructions", name, q.GPUs, q.Size, float64(fp)/benchmarks.MiB, q.Want/benchmarks.MiB, len(ks), n)
	}
}
