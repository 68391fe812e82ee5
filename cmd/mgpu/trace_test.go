package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/trace"
)

// TestTraceRecordReplay: 'mgpu trace record' then 'mgpu run --trace'
// writes the result file of 'mgpu run --workload' byte for byte, taking
// the GPU count, scale and seed from the recording.
func TestTraceRecordReplay(t *testing.T) {
	d := t.TempDir()
	tr, a, b := filepath.Join(d, "mm.mgputrace"), filepath.Join(d, "a.json"), filepath.Join(d, "b.json")
	for _, args := range [][]string{
		{"trace", "record", "--workload", "mm", "--gpus", "2", "--scale", "0.05", "--seed", "3", "--out", tr},
		{"run", "--trace", tr, "--policy", "oasis", "--out", a},
		{"run", "--workload", "mm", "--gpus", "2", "--scale", "0.05", "--seed", "3", "--policy", "oasis", "--out", b},
	} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 0 {
			t.Fatalf("mgpu %v: exit %d: %s", args, code, errs.String())
		}
	}
	ra, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ra, rb) {
		t.Fatalf("replayed result differs from the run's:\n%.300s\n%.300s", ra, rb)
	}
}

// mgpuRun runs mgpu with args and returns its exit code and stderr.
func mgpuRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(args, &out, &errs)
	return code, out.String() + errs.String()
}

// recordSmall records mm on 2 GPUs at scale 0.01, seed 3, to dir.
func recordSmall(t *testing.T, dir string) string {
	t.Helper()
	tr := filepath.Join(dir, "mm.mgputrace")
	if code, msg := mgpuRun(t, "trace", "record", "--workload", "mm", "--gpus", "2", "--scale", "0.01", "--seed", "3", "--out", tr); code != 0 {
		t.Fatalf("record: exit %d: %s", code, msg)
	}
	return tr
}

// TestRunTraceConflicts: a flag or config that gives a replay another
// GPU count, im2col kernel or sizing than the recording's is refused
// (exit 2) naming it; one that agrees, or leaves them out, runs the
// recording and records what ran.
func TestRunTraceConflicts(t *testing.T) {
	d := t.TempDir()
	tr := recordSmall(t, d)
	gpus4, pages := filepath.Join(d, "gpus4.yaml"), filepath.Join(d, "pages.yaml")
	os.WriteFile(gpus4, []byte("gpus: 4\n"), 0o644)
	os.WriteFile(pages, []byte("page_size: 4KB\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpus", "4"}, "--gpus 4 sets gpus = 4, and the recording " + tr + " was made with gpus = 2: leave it out (the recording sets it) or give 2"},
		{[]string{"--set", "gpus=4"}, "--set gpus=4 sets gpus = 4"},
		{[]string{"--config", gpus4}, "--config " + gpus4 + " sets gpus = 4"},
		{[]string{"--set", "im2col=column"}, "--set im2col=column sets im2col = column, and the recording " + tr + " was made with im2col = mgpusim"},
		{[]string{"--iterations", "2"}, "--iterations with --trace: the recording fixes the workload and its size"},
		{[]string{"--scale", "0.5"}, "--scale with --trace"},
		{[]string{"--workload", "mt"}, "--workload with --trace"},
	} {
		code, msg := mgpuRun(t, append([]string{"run", "--trace", tr}, tc.args...)...)
		if code != 2 || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", tc.args, code, msg, tc.want)
		}
	}
	for i, args := range [][]string{{"--gpus", "2"}, {"--config", pages}, {"--set", "gpus=2"}} {
		out := filepath.Join(d, fmt.Sprintf("r%d.json", i))
		if code, msg := mgpuRun(t, append([]string{"run", "--trace", tr, "--out", out}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, msg)
		}
		var r struct {
			Workload string
			GPUs     int
			Scale    float64
			Seed     uint64
		}
		b, _ := os.ReadFile(out)
		if err := json.Unmarshal(b, &r); err != nil || r.Workload != "mm" || r.GPUs != 2 || r.Scale != 0.01 || r.Seed != 3 {
			t.Errorf("%v: result %+v (%v), want mm on 2 GPUs at scale 0.01, seed 3", args, r, err)
		}
	}
}

// rewriteMeta copies the recording in to out with its metadata edited.
func rewriteMeta(t *testing.T, in, out string, edit func(m map[string]any)) {
	t.Helper()
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	tf, err := trace.Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tf.Meta()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	var buf bytes.Buffer
	w, _ := trace.NewWriter(&buf)
	for i := range tf.Workgroups() {
		wg, err := tf.Workgroup(i)
		if err != nil {
			t.Fatal(err)
		}
		srcs := make([]trace.Source, wg.Wavefronts())
		for j := range srcs {
			srcs[j] = wg.Wavefront(j)
		}
		if _, err := w.Workgroup(srcs...); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(m)
	if err := w.Close(b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunTraceRefusesBadMetadata: a recording whose metadata a run
// would not accept exits 2 with the byte at fault and what is valid,
// before simulating: never an internal error, a stall, or a result.
func TestRunTraceRefusesBadMetadata(t *testing.T) {
	d := t.TempDir()
	tr := recordSmall(t, d)
	params := func(k string, v any) func(map[string]any) {
		return func(m map[string]any) { m["Params"].(map[string]any)[k] = v }
	}
	kernel0 := func(k string, v any) func(map[string]any) {
		return func(m map[string]any) { m["Kernels"].([]any)[0].(map[string]any)[k] = v }
	}
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"scale -1", params("Scale", -1), "metadata: recorded parameters: scale -1: must be a positive number"},
		{"0 GPUs", params("GPUs", 0), "metadata: recorded parameters: gpus = 0: must be between 1 and 64"},
		{"size 5gpu", params("Size", "5gpu"), `size "5gpu": valid sizes are`},
		{"one wavefront more", kernel0("WavefrontsPerWorkgroup", 2), "has 1 wavefronts; the metadata says 2"},
		{"a billion wavefronts", kernel0("WavefrontsPerWorkgroup", 1e9), "1000000000 wavefronts a workgroup: must be 1 to 1024"},
	} {
		bad := filepath.Join(d, strings.ReplaceAll(tc.name, " ", "_")+".mgputrace")
		rewriteMeta(t, tr, bad, tc.edit)
		out := filepath.Join(d, "r.json")
		code, msg := mgpuRun(t, "run", "--trace", bad, "--out", out)
		if code != 2 || !strings.Contains(msg, tc.want) || !strings.Contains(msg, bad+": trace file, byte ") {
			t.Errorf("%s: exit %d, %q; want exit 2 at a byte of %s saying %q", tc.name, code, msg, bad, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a result was written", tc.name)
		}
	}
}

// TestTraceConvertRefuses: a bad Accel-Sim trace exits 2 naming its file
// and line, and leaves nothing in --out's directory.
func TestTraceConvertRefuses(t *testing.T) {
	kernel, err := os.ReadFile("../../accelsim/testdata/vecadd/kernel-1.traceg")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, list, kernel, want string
	}{
		{"a copy wrapping past 2^64", "MemcpyHtoD,0x7f0000000000,18446744073709551615\nkernel-1.traceg\n", string(kernel), "kernelslist.g:1: MemcpyHtoD of 18446744073709551615 bytes"},
		{"no kernel", "MemcpyHtoD,0x7f0000000000,1024\n", string(kernel), "kernelslist.g:1: no kernel"},
		{"a huge block", "kernel-1.traceg\n", strings.Replace(string(kernel), "(64,1,1)", "(2147483647,1024,1)", 1), "kernel-1.traceg:4: block dim = (2147483647,1024,1): CUDA allows at most 1024 threads"},
		{"raw tracer output", "kernel-1.trace\n", string(kernel), "kernelslist.g:1: kernel-1.trace is the tracer's raw output: run the tracer's post-processing on it first"},
	} {
		in, outDir := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(in, "kernelslist.g"), []byte(tc.list), 0o644)
		os.WriteFile(filepath.Join(in, "kernel-1.traceg"), []byte(tc.kernel), 0o644)
		code, msg := mgpuRun(t, "trace", "convert", "--accelsim", filepath.Join(in, "kernelslist.g"), "--out", filepath.Join(outDir, "x.mgputrace"))
		if code != 2 || !strings.Contains(msg, tc.want) || strings.Contains(msg, "cannot write") {
			t.Errorf("%s: exit %d, %q; want exit 2 saying %q, not blaming --out", tc.name, code, msg, tc.want)
		}
		if left, _ := os.ReadDir(outDir); len(left) > 0 {
			t.Errorf("%s: left %v in --out's directory", tc.name, left)
		}
	}
}

// TestTraceConvertDirectory: a directory given as --accelsim exits 2
// saying what to pass: its kernelslist.g, or the post-processing a raw
// trace still needs.
func TestTraceConvertDirectory(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"kernelslist.g", "is a directory: give the kernel list in it, --accelsim "},
		{"kernelslist", "is a directory of the tracer's raw output (kernelslist, kernel-N.trace): run the tracer's post-processing on it first"},
		{"other", "is a directory with no kernelslist.g"},
	} {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, tc.file), nil, 0o644)
		code, msg := mgpuRun(t, "trace", "convert", "--accelsim", d, "--out", filepath.Join(t.TempDir(), "x.mgputrace"))
		if code != 2 || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: exit %d, %q; want exit 2 saying %q", tc.file, code, msg, tc.want)
		}
	}
}

// TestTraceConvertSmallGrid: a trace whose grid the default distribution
// puts on one GPU of four says so at convert and at replay, naming the
// distribution that spreads it; convert lists how each object was
// inferred.
func TestTraceConvertSmallGrid(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v.mgputrace")
	code, msg := mgpuRun(t, "trace", "convert", "--accelsim", "../../accelsim/testdata/vecadd/kernelslist.g", "--out", out)
	const want = "the mgpusim distribution runs them on 1 of the 4 GPUs, so the others idle and policies may not differ; --set distribution=contiguous"
	if code != 0 || !strings.Contains(msg, want) || !strings.Contains(msg, "object 2 touched2@0x7f0000200000, 4096 bytes: inferred from touches alone") {
		t.Fatalf("convert: exit %d: %s; want the warning and the objects", code, msg)
	}
	if code, msg := mgpuRun(t, "run", "--trace", out); code != 0 || !strings.Contains(msg, want) {
		t.Fatalf("run: exit %d: %s; want the warning", code, msg)
	}
	if code, msg := mgpuRun(t, "run", "--trace", out, "--set", "distribution=contiguous"); code != 0 || strings.Contains(msg, want) {
		t.Fatalf("run contiguous: exit %d: %s; want no warning", code, msg)
	}
}

// TestTraceConvertNamesDirectory: a list given by a relative name in its
// own directory names the recording after that directory, not ".".
func TestTraceConvertNamesDirectory(t *testing.T) {
	d := filepath.Join(t.TempDir(), "vecadd")
	os.Mkdir(d, 0o755)
	for _, name := range []string{"kernelslist.g", "kernel-1.traceg"} {
		b, err := os.ReadFile(filepath.Join("../../accelsim/testdata/vecadd", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, name), b, 0o644)
	}
	t.Chdir(d)
	if code, msg := mgpuRun(t, "trace", "convert", "--accelsim", "kernelslist.g", "--gpus", "1", "--out", "v.mgputrace"); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, msg)
	}
	if code, msg := mgpuRun(t, "run", "--trace", "v.mgputrace"); code != 0 || !strings.HasPrefix(msg, "vecadd on 1 GPUs") {
		t.Fatalf("run: exit %d: %s; want vecadd on 1 GPUs", code, msg)
	}
}

// TestTraceIgnoredFlags: a flag the subcommand would ignore, or a size
// no replay would accept, is refused.
func TestTraceIgnoredFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.mgputrace")
	list := "../../accelsim/testdata/vecadd/kernelslist.g"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--accelsim", list, "--workload", "fft"}, "--workload with 'mgpu trace convert': the Accel-Sim trace is the workload"},
		{[]string{"convert", "--accelsim", list, "--iterations", "3"}, "--iterations with 'mgpu trace convert'"},
		{[]string{"record", "--workload", "mm", "--name", "x"}, "--name goes with 'mgpu trace convert'"},
		{[]string{"convert", "--accelsim", list, "--size", "5gpu"}, `size "5gpu": valid sizes are`},
	} {
		code, msg := mgpuRun(t, append(append([]string{"trace"}, tc.args...), "--out", out)...)
		if code != 2 || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", tc.args, code, msg, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a recording was written")
	}
}
