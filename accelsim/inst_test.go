package accelsim

import (
	"slices"
	"strings"
	"testing"
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
		{"Hopper's REDG writes", plain, "0050 00000001 0 REDG.E.ADD.STRONG.GPU 2 R2 R6 4 0 0x2000 0", true, true, []uint64{0x2000}},
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
