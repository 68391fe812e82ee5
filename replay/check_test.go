package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/trace"
)

// insts is a recorded wavefront (a trace.Source).
type insts []trace.Instruction

func (s *insts) Next(in *trace.Instruction) bool {
	if len(*s) == 0 {
		return false
	}
	*in = (*s)[0]
	*s = (*s)[1:]
	return true
}

// lanes is an instruction touching the given addresses.
func lanes(write bool, addrs ...uint64) trace.Instruction {
	in := trace.Instruction{Compute: 2, Write: write, Lanes: len(addrs)}
	copy(in.Addr[:], addrs)
	return in
}

// small is a valid recording: objects A and B, kernel k0 of two
// workgroups of two wavefronts, then k1 of one workgroup of one that
// frees A first; every lane in an object.
func small(t testing.TB) (meta, [][]insts) {
	t.Helper()
	tag := objtable.Tagging{IDBits: 4, ConfigBit: 1}
	alloc, err := objtable.NewAllocator(tag, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	a := alloc.MustMalloc(4096, "A")
	b := alloc.MustMalloc(100, "B")
	m := meta{Info: benchmarks.Info{Name: "small"}, Params: benchmarks.Params{GPUs: 2, Scale: 1, Size: "auto", Seed: 1, Im2col: "mgpusim"}, Tagging: tag,
		Objects: []object{{"A", 4096, a}, {"B", 100, b}},
		Kernels: []kernel{
			{Name: "k0", Args: []int{0, 1}, Workgroups: 2, WavefrontsPerWorkgroup: 2, First: 0,
				Access: []benchmarks.Access{{Object: 0, Accesses: 64}}},
			{Name: "k1", Args: []int{1}, Frees: []int{0}, Workgroups: 1, WavefrontsPerWorkgroup: 1, First: 2},
		}}
	wgs := [][]insts{
		{{lanes(false, a, a+8, a+4095)}, {lanes(true, b+99), lanes(false)}},
		{{lanes(false, a+64)}, {}},
		{{lanes(true, b, b+1)}},
	}
	return m, wgs
}

// write records wgs with meta m, marshalled unless it is raw bytes.
func write(t testing.TB, m any, wgs [][]insts) []byte {
	t.Helper()
	raw, ok := m.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, wg := range wgs {
		srcs := make([]trace.Source, len(wg))
		for i := range wg {
			c := append(insts(nil), wg[i]...)
			srcs[i] = &c
		}
		if _, err := w.Workgroup(srcs...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCheckRefuses: a recording whose metadata lies about a count, a
// range, an object or an address is refused before any run, with the
// byte of the metadata, or of the workgroup's block, at fault.
func TestCheckRefuses(t *testing.T) {
	base, _ := small(t)
	a, b := base.Objects[0], base.Objects[1]
	tag := base.Tagging
	for _, tc := range []struct {
		name   string
		change func(m *meta, wgs [][]insts)
		inMeta bool
		want   string
	}{
		{"one wavefront more than the blocks hold", func(m *meta, _ [][]insts) { m.Kernels[0].WavefrontsPerWorkgroup = 3 }, false, "kernel 0 (k0), its workgroup 0, has 2 wavefronts; the metadata says 3"},
		{"a billion wavefronts", func(m *meta, _ [][]insts) { m.Kernels[0].WavefrontsPerWorkgroup = 1e9 }, true, "1000000000 wavefronts a workgroup: must be 1 to 1024"},
		{"no wavefronts", func(m *meta, _ [][]insts) { m.Kernels[1].WavefrontsPerWorkgroup = 0 }, true, "0 wavefronts a workgroup"},
		{"more workgroups than blocks", func(m *meta, _ [][]insts) { m.Kernels[1].Workgroups = 2 }, true, "2 workgroups, and the file holds 1 more blocks"},
		{"negative workgroups", func(m *meta, _ [][]insts) { m.Kernels[1].Workgroups = -1 }, true, "-1 workgroups"},
		{"fewer workgroups than blocks", func(m *meta, _ [][]insts) { m.Kernels[1].Workgroups = 0 }, true, "the kernels name 2 workgroups, the file holds 3"},
		{"kernels out of order", func(m *meta, _ [][]insts) { m.Kernels[1].First = 1 }, true, "First = 1: its workgroups are blocks 2 on"},
		{"an argument that is no object", func(m *meta, _ [][]insts) { m.Kernels[1].Args = []int{5} }, true, "argument object 5: no such object (the recording has 2, IDs 0 to 1)"},
		{"a negative free", func(m *meta, _ [][]insts) { m.Kernels[1].Frees = []int{-1} }, true, "freed object -1: no such object"},
		{"an object freed twice", func(m *meta, _ [][]insts) { m.Kernels[0].Frees = []int{0} }, true, "frees object 0 (A) again"},
		{"a barrier that frees", func(m *meta, _ [][]insts) { m.Kernels[1].Barrier = true }, true, "a grid barrier frees objects [0]"},
		{"no workload name", func(m *meta, _ [][]insts) { m.Info.Name = "" }, true, "the workload has no name (Info.Name is empty)"},
		{"16 object-ID bits", func(m *meta, _ [][]insts) { m.Tagging.IDBits = 16 }, true, "object ID bits = 16"},
		{"an object of no bytes", func(m *meta, _ [][]insts) { m.Objects[1].Size = 0 }, true, "object 1 (B): size 0"},
		{"an object past the address space", func(m *meta, _ [][]insts) { m.Objects[1].Size = 1 << 48 }, true, "pass the 48-bit address space"},
		{"overlapping objects", func(m *meta, _ [][]insts) { m.Objects[1].Ptr = tag.Encode(objtable.Strip(a.Ptr)+1, 1) }, true, "starts before the end of object 0"},
		{"a pointer tagged as another object", func(m *meta, _ [][]insts) { m.Objects[1].Ptr = tag.Encode(objtable.Strip(b.Ptr), 0) }, true, "object 1 (B): pointer"},
		{"an access of no argument", func(m *meta, _ [][]insts) { m.Kernels[1].Access = []benchmarks.Access{{Object: 0}} }, true, "not an argument of the launch"},
		{"an access pattern past the last", func(m *meta, _ [][]insts) { m.Kernels[0].Access[0].Pattern = 9 }, true, "pattern 9"},
		{"negative accesses", func(m *meta, _ [][]insts) { m.Kernels[0].Access[0].Accesses = -1 }, true, "-1 accesses"},
		{"a loop iteration past its count", func(m *meta, _ [][]insts) { m.Kernels[0].Access[0].Loop = benchmarks.LoopSpan{Index: 3, Count: 3} }, true, "loop iteration 3 of 3"},
		{"an address in no object", func(_ *meta, wgs [][]insts) { wgs[1][0][0].Addr[0] = 0xdead }, false, "kernel 0 (k0), its workgroup 1, wavefront 0, instruction 0 (decompressed byte 2), lane 0: address 0xdead in no recorded object"},
		{"an address past its object", func(_ *meta, wgs [][]insts) { wgs[2][0][0].Addr[1] = b.Ptr + 100 }, false, "lane 1: address"},
		{"an address tagged as another object", func(_ *meta, wgs [][]insts) { wgs[0][0][0].Addr[2] = tag.Encode(objtable.Strip(a.Ptr), 1) }, false, "lane 2: address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, wgs := small(t)
			tc.change(&m, wgs)
			data := write(t, m, wgs)
			checkRefused(t, data, nil, tc.inMeta, tc.want)
		})
	}
}

// checkRefused reads data and wants a FormatError saying want at the
// metadata's byte (inMeta) or a workgroup's before it.
func checkRefused(t *testing.T, data []byte, params func(benchmarks.Params) error, inMeta bool, want string) {
	t.Helper()
	_, err := Read(bytes.NewReader(data), int64(len(data)), params)
	var fe *trace.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a FormatError saying %q", err, want)
	}
	tf, err := trace.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if inMeta != (fe.Offset == tf.MetaOffset()) || fe.Offset <= 0 || fe.Offset > tf.MetaOffset() {
		t.Fatalf("offset %d; the metadata is at %d (want it there: %v)", fe.Offset, tf.MetaOffset(), inMeta)
	}
}

// TestCheckRefusesParamsAndJSON: the recorded parameters go through the
// caller's check (platform.CheckParams), and metadata that is not the
// record is refused, both at the metadata's byte.
func TestCheckRefusesParamsAndJSON(t *testing.T) {
	m, wgs := small(t)
	checkRefused(t, write(t, m, wgs), func(p benchmarks.Params) error {
		if p.Scale != 1 || p.GPUs != 2 {
			t.Errorf("params %+v, want the recorded ones", p)
		}
		return errors.New("scale -1: must be a positive number")
	}, true, "metadata: recorded parameters: scale -1: must be a positive number")
	checkRefused(t, write(t, []byte("{not json"), wgs), nil, true, "metadata: invalid character")
	checkRefused(t, write(t, []byte(`{"Kernels": 3}`), wgs), nil, true, "cannot unmarshal number")
}

// TestCheckAccepts: the valid recording opens, and Setup returns its
// kernels whose streams give back every recorded instruction.
func TestCheckAccepts(t *testing.T) {
	m, wgs := small(t)
	data := write(t, m, wgs)
	p, err := Read(bytes.NewReader(data), int64(len(data)), func(benchmarks.Params) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := objtable.NewAllocator(m.Tagging, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := p.Setup(alloc, m.Params)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range ks {
		for wg := range k.Workgroups {
			for wf := range k.WavefrontsPerWorkgroup {
				var in trace.Instruction
				for s := k.Wavefront(wg, wf, 0); s.Next(&in); n++ {
				}
			}
		}
	}
	if n != 5 {
		t.Fatalf("%d instructions replayed, want 5", n)
	}
}
