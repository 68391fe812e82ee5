package accelsim

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/replay"
	"github.com/mgpu-sim/mgpu/trace"
)

// options makes a conversion for a default one-GPU on-touch run.
func options(t testing.TB) (Options, platform.Options) {
	t.Helper()
	c := config.DefaultConfig()
	c.GPUs = 1
	c.Check = true
	po := platform.Options{Policy: "on-touch", Seed: 1, Config: c}
	p, tag, align, err := platform.RecordingFor(po)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Name: "vecadd", Params: p, Tagging: tag, Align: align}, po
}

// convert converts dir's kernelslist.g for a one-GPU run and opens the
// recording.
func convert(t *testing.T, dir string) *replay.Program {
	t.Helper()
	o, _ := options(t)
	return convertFor(t, dir, o)
}

// convertFor converts dir's kernelslist.g for o and opens the recording.
func convertFor(t *testing.T, dir string, o Options) *replay.Program {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.mgputrace")
	var buf bytes.Buffer
	if err := Convert(filepath.Join(dir, "kernelslist.g"), &buf, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := platform.OpenTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// want is one converted instruction, with its addresses as offsets into
// an object.
type want struct {
	compute int
	write   bool
	obj     int
	offs    []uint64
}

func stride(from, n, by uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = from + uint64(i)*by
	}
	return out
}

// TestVecadd: the hand-written trace (testdata/vecadd: two copied inputs,
// an uncopied output, all three address formats, a partial mask, shared
// memory, an atomic) converts to the objects, kernel and instructions the
// package documentation promises.
func TestVecadd(t *testing.T) {
	p := convert(t, "testdata/vecadd")
	o, _ := options(t)
	alloc, err := objtable.NewAllocator(o.Tagging, o.Align)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := p.Setup(alloc, o.Params)
	if err != nil {
		t.Fatal(err)
	}
	objs := alloc.Objects()
	if len(objs) != 3 || objs[0].Size != 1024 || objs[1].Size != 1024 || objs[2].Size != page {
		for _, x := range objs {
			t.Logf("object %d %s: %d bytes", x.ID, x.Name, x.Size)
		}
		t.Fatalf("want the two copies (1 KB) and the output's 4 KB page")
	}
	if len(ks) != 1 || ks[0].Workgroups != 2 || ks[0].WavefrontsPerWorkgroup != 2 || len(ks[0].Args) != 3 || ks[0].Name != "_Z6vecaddPfS_S_" {
		t.Fatalf("kernel %+v", ks[0])
	}
	waves := [2][2][]want{
		{ // block 0
			{{2, false, 0, stride(0, 32, 4)}, {0, false, 1, stride(0, 32, 4)}, {1, true, 2, stride(0, 32, 4)}},
			{{1, false, 0, stride(0x80, 16, 4)}, {3, false, -1, nil}}, // STS, LDS, EXIT are compute
		},
		{ // block 1
			{{0, false, 0, stride(0x100, 4, 4)}, {0, true, 2, []uint64{0x100, 0x100, 0x100, 0x100}}, {1, false, -1, nil}},
			{{1, false, -1, nil}},
		},
	}
	for wg := range waves {
		for wf, insts := range waves[wg] {
			s := ks[0].Wavefront(wg, wf, 0)
			var in trace.Instruction
			for i, w := range insts {
				if !s.Next(&in) {
					t.Fatalf("block %d warp %d: %d instructions, want %d", wg, wf, i, len(insts))
				}
				if in.Compute != w.compute || in.Write != w.write || in.Lanes != len(w.offs) {
					t.Fatalf("block %d warp %d instruction %d: compute %d write %v lanes %d, want %d %v %d", wg, wf, i, in.Compute, in.Write, in.Lanes, w.compute, w.write, len(w.offs))
				}
				for l, off := range w.offs {
					if got := in.Addr[l]; got != objs[w.obj].Ptr+off {
						t.Fatalf("block %d warp %d instruction %d lane %d: %#x, want object %d + %#x", wg, wf, i, l, got, w.obj, off)
					}
				}
			}
			if s.Next(&in) {
				t.Fatalf("block %d warp %d: more than %d instructions", wg, wf, len(insts))
			}
		}
	}
}

// TestVecaddRuns: the conversion runs on the platform with the coherence
// checker on, touching the three objects.
func TestVecaddRuns(t *testing.T) {
	p := convert(t, "testdata/vecadd")
	_, po := options(t)
	po.Program = p
	r, err := platform.Run(po)
	if err != nil {
		t.Fatal(err)
	}
	if r.Workload != "vecadd" || r.Totals.MemInstructions != 3+1+2 || r.Totals.PageFaults == 0 {
		t.Fatalf("workload %s, %d memory instructions, %d faults", r.Workload, r.Totals.MemInstructions, r.Totals.PageFaults)
	}
}

// TestBadTraces: a broken or out-of-range trace is refused, before
// anything is written, naming its file and line and what is valid.
func TestBadTraces(t *testing.T) {
	good, err := os.ReadFile("testdata/vecadd/kernel-1.traceg")
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	lines := strings.Split(g, "\n")
	cut := func(n int) string { return strings.Join(lines[:n], "\n") }
	sub := func(old, new string) string { return strings.Replace(g, old, new, 1) }
	const k1 = "kernel-1.traceg\n"
	for _, tc := range []struct {
		name, list, kernel string
		inList             bool
		line               int
		want               string
	}{
		{"truncated inside a block", k1, cut(30), false, 30, "truncated"},
		{"a block too many", k1, g + "\n#BEGIN_TB\n#END_TB\n", false, 0, "more thread blocks than the grid (2,1,1) has"},
		{"no thread block", k1, cut(16), false, 0, "no thread block (#BEGIN_TB ... #END_TB): the grid (2,1,1) has 2; the file is truncated, or is the tracer's raw output"},
		{"old tracer", k1, sub("tracer version = 4", "tracer version = 2"), false, 0, "version 2"},
		{"bad address mode", k1, sub("4 1 0x7f0000200000 4", "4 7 0x7f0000200000 4"), false, 28, "address mode 7"},
		{"bad memcpy", "MemcpyHtoD,zz,4\n" + k1, g, true, 1, "hex address"},
		{"unknown command", "cudaFree\n", g, true, 1, "unknown command"},
		{"a copy that wraps past 2^64", "MemcpyHtoD,0x7f0000000000,18446744073709551615\n" + k1, g, true, 1, "must end at or below 0xffffffffffff0000"},
		{"a copy that ends at 2^64", "\nMemcpyHtoD,0xffffffffffffff00,256\n" + k1, g, true, 2, "must end at or below"},
		{"an empty list", "", g, true, 1, "no kernel: the list names no kernel-N.traceg file"},
		{"a list without a kernel", "MemcpyHtoD,0x7f0000000000,1024\nMemcpyDtoH,0x7f0000000000,1024\n", g, true, 2, "no kernel"},
		{"a kernel file missing", "MemcpyHtoD,0x7f0000000000,1024\nkernel-9.traceg\n", g, true, 2, "kernel-9.traceg: no such file"},
		{"a block of 2^31-1 x 1024 threads", k1, sub("block dim = (64,1,1)", "block dim = (2147483647,1024,1)"), false, 4, "block dim = (2147483647,1024,1): CUDA allows at most 1024 threads a block, 1024 in x and y and 64 in z"},
		{"a thread count that overflows to 0", k1, sub("block dim = (64,1,1)", "block dim = (4294967296,4294967296,1)"), false, 4, "CUDA allows at most 1024 threads"},
		{"2048 threads", k1, sub("block dim = (64,1,1)", "block dim = (1024,2,1)"), false, 4, "at most 1024 threads"},
		{"65 in z", k1, sub("block dim = (64,1,1)", "block dim = (1,1,65)"), false, 4, "64 in z"},
		{"no threads", k1, sub("block dim = (64,1,1)", "block dim = (0,1,1)"), false, 4, "at least 1 in each"},
		{"a grid past CUDA's y", k1, sub("grid dim = (2,1,1)", "grid dim = (2,65536,1)"), false, 3, "grid dim = (2,65536,1): CUDA allows 1 to 2147483647 blocks in x, 1 to 65535 in y and z"},
		{"a negative grid", k1, sub("grid dim = (2,1,1)", "grid dim = (-2,1,1)"), false, 3, "CUDA allows 1 to"},
		{"a grid of more blocks than a recording holds", k1, sub("grid dim = (2,1,1)", "grid dim = (2147483647,65535,65535)"), false, 3, "more thread blocks than the 67108864 a recording holds"},
		{"an empty kernel file", k1, "", false, 1, "no grid dim or block dim in the header"},
		{"no block dim", k1, sub("-block dim = (64,1,1)", ""), false, 0, "no grid dim or block dim"},
		{"a warp past the block", k1, sub("warp = 1", "warp = 2"), false, 0, `bad warp "warp = 2": a block of 64 threads has warps 0 to 1`},
		{"a destination count past the line", k1, sub("1 R6 FADD", "9223372036854775807 R6 FADD"), false, 0, "bad destination count"},
		{"a source count past the line", k1, sub("FADD 2 R4 R5", "FADD 9223372036854775807 R4 R5"), false, 0, "bad source count"},
		{"an address past the modelled space", k1, sub("4 1 0x7f0000000000 4", "4 1 0xffffffffffffff00 4"), false, 0, "address 0xffffffffffffff00: beyond 0xffffffffffff0000"},
		{"an empty kernel", k1, cut(16) + "\n#BEGIN_TB\n#END_TB\n#BEGIN_TB\n#END_TB\n", false, 0, "no instruction in its 2 thread blocks: an empty kernel"},
		{"no global memory instruction", "MemcpyHtoD,0x7f0000000000,1024\n" + k1, cut(16) + "\n#BEGIN_TB\nwarp = 0\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n#BEGIN_TB\n#END_TB\n", true, 2, "no global memory instruction in its 1 kernels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, "kernelslist.g"), []byte(tc.list), 0o644)
			os.WriteFile(filepath.Join(d, "kernel-1.traceg"), []byte(tc.kernel), 0o644)
			o, _ := options(t)
			_, err := Read(filepath.Join(d, "kernelslist.g"), o)
			checkError(t, err, d, tc.inList, tc.line, tc.want)
		})
	}
}

// checkError wants an *Error saying want, in the list or the kernel
// file of dir, at line (any line >= 1 if 0).
func checkError(t *testing.T, err error, dir string, inList bool, line int, want string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an Error containing %q", err, want)
	}
	file := "kernel-1.traceg"
	if inList {
		file = "kernelslist.g"
	}
	if e.File != filepath.Join(dir, file) || e.Line < 1 || (line > 0 && e.Line != line) {
		t.Fatalf("at %s:%d, want %s:%d", e.File, e.Line, file, line)
	}
}

// TestLimits: a thread block of more instructions, or a kernel of more
// pages, than a conversion holds at once is refused at its line.
func TestLimits(t *testing.T) {
	defer func(i, c int) { blockInsts, maxPages = i, c }(blockInsts, maxPages)
	for _, tc := range []struct {
		name         string
		insts, pages int
		line         int
		want         string
	}{
		{"instructions", 5, MaxPages, 28, "a thread block of more than 5 instructions"},
		{"pages", MaxBlockInstructions, 2, 38, "the kernel touches more than 2 pages of 4 KB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blockInsts, maxPages = tc.insts, tc.pages
			o, _ := options(t)
			_, err := Read("testdata/vecadd/kernelslist.g", o)
			checkError(t, err, "testdata/vecadd", false, tc.line, tc.want)
		})
	}
}
