package accelsim

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// hopper is a version-5 kernel file as today's post-processor writes it
// for a clustered launch with lineinfo: cluster lines in every block's
// header, source lines before each PC, an immediate after each
// instruction, TMA and LDGSTS; block (1,0,0) is left out, as
// post-processing leaves out blocks that ran nothing.
const hopper = `-kernel name = _Z7clusterPfS_
-kernel id = 1
-grid dim = (3,1,1)
-block dim = (32,1,1)
-shmem = 1024
-nregs = 32
-binary version = 90
-cuda stream id = 0
-shmem base_addr = 0x00007f1000000000
-local mem base_addr = 0x00007f2000000000
-nvbit version = 1.7.5
-accelsim tracer version = 5
-enable lineinfo = 1

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate

#BEGIN_TB

thread block = 0,0,0
cluster id = 0,0,0
cluster cta = 0,0,0
cluster rank = 0

warp = 0
insts = 4
10 0000 ffffffff 0 LDGSTS.E.128 2 R1 R2 16 1 0x7f0000000000 16 0
11 0010 00000001 0 UTMALDG.2D 2 UR4 UR8 128 0x400 0 256 0 3 2 0x7f0000001000 0x7f0000001080 0
12 0020 ffffffff 0 ST.E 2 R2 R6 4 1 0x7f0000200000 4 0
13 0030 ffffffff 0 EXIT 0 0 0

#END_TB

#BEGIN_TB

thread block = 2,0,0
cluster id = 1,0,0
cluster cta = 0,0,0
cluster rank = 0

warp = 0
insts = 2
12 0020 ffffffff 0 STG.E 2 R2 R6 4 1 0x7f0000200080 4 0
13 0030 ffffffff 0 EXIT 0 0 0

#END_TB
`

// TestHopperForms: a version-5 trace with cluster lines and lineinfo,
// compressed as the tracer compresses it, converts and replays; the
// left-out block is noted, not refused.
func TestHopperForms(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		d := t.TempDir()
		name := "kernel-1.traceg"
		body := []byte(hopper)
		if compressed {
			name += ".xz"
			var b bytes.Buffer
			w, err := xz.NewWriter(&b)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body)
			w.Close()
			body = b.Bytes()
		}
		os.WriteFile(filepath.Join(d, name), body, 0o644)
		os.WriteFile(filepath.Join(d, "kernelslist.g"), []byte("MemcpyHtoD,0x7f0000000000,8192\n"+name+"\n"), 0o644)
		p := convert(t, d)
		o, _ := options(t)
		tr, err := Read(filepath.Join(d, "kernelslist.g"), o)
		if err != nil {
			t.Fatal(err)
		}
		if w := tr.Workgroups(); !slices.Equal(w, []int{2}) {
			t.Fatalf("workgroups %v, want the file's 2 blocks", w)
		}
		if n := tr.Notes(); len(n) != 1 || !strings.Contains(n[0], "2 of the grid's 3 thread blocks") {
			t.Fatalf("notes %q", n)
		}
		objs := tr.Objects()
		if len(objs) != 2 || !strings.HasPrefix(objs[0].Name, "memcpy0@") || !strings.HasPrefix(objs[1].Name, "touched1@") {
			t.Fatalf("objects %+v, want the copy and the stored output", objs)
		}
		if !strings.Contains(p.Info().Description, "1 objects from MemcpyHtoD") {
			t.Fatalf("description %q does not say how the objects were inferred", p.Info().Description)
		}
	}
}

// TestRawTracerOutput: the tracer's raw output, given without
// post-processing, is refused with the step to run.
func TestRawTracerOutput(t *testing.T) {
	raw := "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n\n#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask ...\n\n0 0 0 0 0000 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1000 4 0\n"
	for _, tc := range []struct{ list, file string }{
		{"kernel-1.trace\n", "kernelslist.g"},
		{"kernel-1.trace.xz\n", "kernelslist.g"},
		{"kernel-1.traceg\n", "kernel-1.traceg"},
	} {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, "kernelslist.g"), []byte(tc.list), 0o644)
		os.WriteFile(filepath.Join(d, "kernel-1.traceg"), []byte(raw), 0o644)
		o, _ := options(t)
		_, err := Read(filepath.Join(d, "kernelslist.g"), o)
		checkError(t, err, d, tc.file == "kernelslist.g", 0, "post-traces-processing")
	}
}

// TestBadXZ: a kernel file that starts like xz and is not is refused at
// its file, saying how to check it.
func TestBadXZ(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "kernelslist.g"), []byte("kernel-1.traceg\n"), 0o644)
	os.WriteFile(filepath.Join(d, "kernel-1.traceg"), append(slices.Clone(xzMagic), "garbage"...), 0o644)
	o, _ := options(t)
	_, err := Read(filepath.Join(d, "kernelslist.g"), o)
	checkError(t, err, d, false, 0, "xz -t")
}
