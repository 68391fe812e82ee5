package accelsim

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/platform"
)

// TestRealTraces: the real traces in testdata/real (tracer versions 3
// and 5, compressed and not, with cluster lines and without; see its
// SOURCE) convert, with every touched address in an object (Write
// refuses one in none), and replay on four GPUs with the coherence
// checker on, under the default distribution and a spreading one. The
// objects are inferred as the package documentation says: bfs's flag,
// copied before every other kernel, is one object; an output that
// cudaMalloc packed after a copy is one of its own.
func TestRealTraces(t *testing.T) {
	for _, tc := range []struct {
		dir        string
		kernels    int
		objects    []string // each object's inference, in order
		spreadNote bool
	}{
		{"bfs-v3", 6, []string{"of 32768 bytes", "of 98304 bytes", "of 4096 bytes", "of 4096 bytes", "of 4096 bytes", "of 16384 bytes", "of 1 bytes, 3 copies of one range merged"}, true},
		{"btree-v5", 2, []string{"of 43560 bytes", "of 4000 bytes", "inferred from touches alone"}, true},
		{"atax-v5", 1, []string{"of 262144 bytes", "of 1024 bytes", "inferred from touches alone"}, false},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			o, po := options(t)
			po.Config.GPUs = 4
			if o.Params, o.Tagging, o.Align, _ = platform.RecordingFor(po); o.Params.GPUs != 4 {
				t.Fatal("no 4-GPU recording parameters")
			}
			dir := "testdata/real/" + tc.dir
			tr, err := Read(dir+"/kernelslist.g", o)
			if err != nil {
				t.Fatal(err)
			}
			objs := tr.Objects()
			if len(tr.Workgroups()) != tc.kernels || len(objs) != len(tc.objects) {
				t.Fatalf("%d kernels, objects %+v; want %d kernels, %d objects", len(tr.Workgroups()), objs, tc.kernels, len(tc.objects))
			}
			for i, want := range tc.objects {
				if !strings.Contains(objs[i].Inferred, want) {
					t.Errorf("object %d %s: %q, want %q", i, objs[i].Name, objs[i].Inferred, want)
				}
			}
			note := benchmarks.SpreadNote(tr.Workgroups(), po.Config.Distribution, 4, po.Config.GPU.CUs)
			if (note != "") != tc.spreadNote {
				t.Errorf("spread note %q, want one: %v", note, tc.spreadNote)
			}
			p := convertFor(t, dir, o)
			for _, dist := range []string{po.Config.Distribution, benchmarks.SchemeContiguous} {
				run := po
				run.Config.Distribution = dist
				run.Program = p
				r, err := platform.Run(run)
				if err != nil {
					t.Fatalf("%s: %v", dist, err)
				}
				if r.Totals.MemInstructions == 0 || r.Totals.PageFaults == 0 {
					t.Fatalf("%s: %d memory instructions, %d faults", dist, r.Totals.MemInstructions, r.Totals.PageFaults)
				}
			}
		})
	}
}
