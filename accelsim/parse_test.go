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

// TestParseInst: each instruction form the tracer writes is classed and
// its addresses read as Accel-Sim's trace parser and trace-driven model
// read them.
func TestParseInst(t *testing.T) {
	withBases := &kernelFile{shmem: 0x7f1000000000, local: 0x7f2000000000}
	swapped := &kernelFile{shmem: 0x7fb05c000000, local: 0x7fb05a000000}
	lineinfo := &kernelFile{lineinfo: true}
	plain := &kernelFile{}
	for _, tc := range []struct {
		name          string
		k             *kernelFile
		line          string
		global, write bool
		addrs         []uint64
	}{
		{"LDG, base and stride", plain, "0020 0000000f 1 R4 LDG.E 1 R2 4 1 0x1000 4", true, false, []uint64{0x1000, 0x1004, 0x1008, 0x100c}},
		{"version 5's trailing immediate", plain, "0020 00000003 1 R4 LDG.E.32 1 R2 4 1 0x1000 8 0", true, false, []uint64{0x1000, 0x1008}},
		{"base and deltas", plain, "0020 0000000b 1 R4 LDG.E 1 R2 4 2 0x1000 4 -8", true, false, []uint64{0x1000, 0x1004, 0xffc}},
		{"base and deltas, one lane", plain, "0020 00000004 1 R4 LDG.E 1 R2 4 2 0x1000 0", true, false, []uint64{0x1000}},
		{"STG writes", plain, "0050 00000001 0 STG.E 2 R2 R6 4 0 0x2000", true, true, []uint64{0x2000}},
		{"RED writes", plain, "0050 00000001 0 RED.E.ADD 2 R2 R6 4 0 0x2000", true, true, []uint64{0x2000}},
		{"LDGSTS is a global load", plain, "0040 00000003 0 LDGSTS.E.BYPASS.128 3 R1 R2 R3 16 1 0x3000 16", true, false, []uint64{0x3000, 0x3010}},
		{"uniform registers and predicates", plain, "0040 00000001 2 R4 P0 LDG.E 2 UR4 R2 4 0 0x3000", true, false, []uint64{0x3000}},
		{"lineinfo's source line first", lineinfo, "17 0020 00000001 1 R4 LDG.E 1 R2 4 0 0x1000", true, false, []uint64{0x1000}},
		{"LDS is compute", plain, "0030 0000ffff 1 R5 LDS 1 R1 4 1 0x80 4", false, false, nil},
		{"a compute instruction", plain, "0010 ffffffff 1 R2 IMAD 2 R0 R1 0", false, false, nil},
		{"version 5's compute immediate", plain, "0010 ffffffff 0 BAR.SYNC 0 0 0", false, false, nil},
		{"GMMA's commit flag before the width", plain, "0100 ffffffff 0 HGMMA.64x128x16.F32 2 UR4 UR6 1 0 0", false, false, nil},
		{"generic LD without bases is shared", plain, "0010 00000001 1 R4 LD.E 1 R2 4 0 0x5000", false, false, nil},
		{"generic LD in the shared window", withBases, "0010 00000001 1 R4 LD.E 1 R2 4 0 0x7f1000000040", false, false, nil},
		{"generic ST in the local window", withBases, "0010 00000001 0 ST.E 2 R2 R4 4 0 0x7f2000000040", false, true, nil},
		{"generic ST elsewhere is global", withBases, "0010 00000001 0 ST.E 2 R2 R4 4 0 0x5000", true, true, []uint64{0x5000}},
		{"generic LD past the local window is global", withBases, "0010 00000001 1 R4 LD.E 1 R2 4 0 0x7f2000004000", true, false, []uint64{0x7f2000004000}},
		{"local below shared: shared window", swapped, "0010 00000001 1 R4 LD.E 1 R2 4 0 0x7fb05c000010", false, false, nil},
		{"local below shared: local window", swapped, "0010 00000001 1 R4 LD.E 1 R2 4 0 0x7fb05a000010", false, false, nil},
		{"local below shared: global", swapped, "0010 00000001 1 R4 LD.E 1 R2 4 0 0x7fb02d700000", true, false, []uint64{0x7fb02d700000}},
		{"TMA load, listed", plain, "0200 00000001 0 UTMALDG.2D 2 UR4 UR8 128 0x400 0 256 0 3 2 0x9000 0x9080", true, false, []uint64{0x9000, 0x9080}},
		{"TMA store, base and deltas", plain, "0200 00000001 0 UTMASTG.2D 2 UR4 UR8 128 0x400 0 384 0 4 0x9000 3 128 128", true, true, []uint64{0x9000, 0x9080, 0x9100}},
		{"TMA multicast's CTA mask", plain, "0200 00000001 0 UTMALDG.2D.MULTICAST 2 UR4 UR8 128 0x400 1 3 256 0 3 1 0x9000", true, false, []uint64{0x9000}},
		{"TMA with no transfer", plain, "0200 00000001 0 UTMALDG.2D 2 UR4 UR8 128 0x400 0 0 0 4 0x9000 0", false, false, nil},
		{"TMA predicated off", plain, "0200 00000000 0 UTMALDG.2D 2 UR4 UR8 128 0x400 0 128 0 3 1 0x9000", false, false, nil},
		{"bulk copy shared to global stores", plain, "0200 00000001 0 UBLKCP.G.S 2 UR4 UR8 128 0x400 0 128 0 3 1 0x9000", true, true, []uint64{0x9000}},
		{"bulk copy global to shared loads", plain, "0200 00000001 0 UBLKCP.S.G 2 UR4 UR8 128 0x400 0 128 0 3 1 0x9000", true, false, []uint64{0x9000}},
		{"TMA prefetch moves nothing", plain, "0200 00000001 0 UTMAPF.2D 2 UR4 UR8 128 0x400 0 128 0 3 1 0x9000", false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &parsed{}
			if err := tc.k.parseInst(tc.line, in); err != nil {
				t.Fatal(err)
			}
			var got []uint64
			if in.global {
				got = in.addrs
			}
			if in.global != tc.global || in.write != tc.write || !slices.Equal(got, tc.addrs) {
				t.Fatalf("global %v write %v addresses %#x, want %v %v %#x", in.global, in.write, got, tc.global, tc.write, tc.addrs)
			}
		})
	}
}

// TestParseInstErrors: a malformed instruction is refused saying what
// is wrong.
func TestParseInstErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"0020 0000000f 1 R4 LDG.E 1 R2 4 5 0x1000 4", "address mode 5"},
		{"0020 0000000f 1 R4 LDG.E 1 R2 4 3 2 0x1000 0x1004", "3 and 4 are for TMA instructions only"},
		{"0200 00000001 0 UTMALDG.2D 2 UR4 UR8 128 0x400 0 256 0 1 0x9000 4", "TMA address mode 1"},
		{"0200 00000001 0 UTMALDG.2D 2 UR4 UR8 128 0x400 0 256 0 3 9 0x9000", "bad TMA transfer count"},
		{"0200 00000001 0 UTMALDG.2D 2 UR4 UR8 128", "truncated before its addresses"},
		{"0020 zz 1 R4 LDG.E 1 R2 4 1 0x1000 4", "bad mask"},
	} {
		if err := (&kernelFile{}).parseInst(tc.line, &parsed{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.line, err, tc.want)
		}
	}
}

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
