package accelsim

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/replay"
	"github.com/mgpu-sim/mgpu/trace"
)

// options makes a conversion for a default one-GPU on-touch run.
func options(t *testing.T) (Options, platform.Options) {
	t.Helper()
	c := platform.DefaultConfig()
	c.GPUs = 1
	c.Check = true
	po := platform.Options{Policy: "on-touch", Seed: 1, Config: c}
	p, tag, align, err := platform.RecordingFor(po)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Name: "vecadd", Params: p, Tagging: tag, Align: align}, po
}

// convert converts dir's kernelslist.g and opens the recording.
func convert(t *testing.T, dir string) *replay.Program {
	t.Helper()
	o, _ := options(t)
	path := filepath.Join(t.TempDir(), "vecadd.mgputrace")
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
	if len(objs) != 3 || objs[0].Size != 1024 || objs[1].Size != 1024 || objs[2].Size != chunk {
		for _, x := range objs {
			t.Logf("object %d %s: %d bytes", x.ID, x.Name, x.Size)
		}
		t.Fatalf("want the two copies (1 KB) and the output's 64 KB chunk")
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

// TestBadTraces: a broken trace is refused with its file and line.
func TestBadTraces(t *testing.T) {
	good, err := os.ReadFile("testdata/vecadd/kernel-1.traceg")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	cut := func(n int) string { return strings.Join(lines[:n], "\n") }
	for _, tc := range []struct {
		name, list, kernel, want string
	}{
		{"truncated inside a block", "kernel-1.traceg\n", cut(30), "truncated"},
		{"a block missing", "kernel-1.traceg\n", string(good[:strings.LastIndex(string(good), "#BEGIN_TB")]), "1 thread blocks, the grid (2,1,1) has 2"},
		{"old tracer", "kernel-1.traceg\n", strings.Replace(string(good), "tracer version = 4", "tracer version = 2", 1), "version 2"},
		{"bad address mode", "kernel-1.traceg\n", strings.Replace(string(good), "4 1 0x7f0000200000 4", "4 7 0x7f0000200000 4", 1), "address mode 7"},
		{"bad memcpy", "MemcpyHtoD,zz,4\nkernel-1.traceg\n", string(good), "hex address"},
		{"unknown command", "cudaFree\n", string(good), "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, "kernelslist.g"), []byte(tc.list), 0o644)
			os.WriteFile(filepath.Join(d, "kernel-1.traceg"), []byte(tc.kernel), 0o644)
			o, _ := options(t)
			err := Convert(filepath.Join(d, "kernelslist.g"), &bytes.Buffer{}, o)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) || e.Line < 1 {
				t.Fatalf("got %v, want an Error with a line, containing %q", err, tc.want)
			}
		})
	}
}
