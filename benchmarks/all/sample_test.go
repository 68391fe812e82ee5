package all

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// TestSampleWorkgroupsTouchesEveryPage: truncated, the kernels still write
// every page the full grid writes, at 4 KB pages and at the figures' one
// in 4 to 256 (each dropped workgroup writes its output tile in its
// outline); at 64 KB pages and one in 4 or 16 they also read every page.
// Before outlines, one in 256 wrote an eighth of SYRK's 4 KB pages of C.
func TestSampleWorkgroupsTouchesEveryPage(t *testing.T) {
	for _, name := range []string{"syrk", "syr2k", "gmm", "hellinger", "mm-tiled"} {
		w, err := benchmarks.New(name)
		if err != nil {
			t.Fatal(err)
		}
		alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits}, 2<<20)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := w.Setup(alloc, benchmarks.Params{GPUs: 1, Scale: 0.2, Size: benchmarks.SizeAuto, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, page := range []uint64{4 << 10, 64 << 10} {
			full, fullW, all := pagesOf(ks, page)
			for _, n := range []int{4, 16, 128, 256} {
				got, gotW, instr := pagesOf(benchmarks.SampleWorkgroups(ks, n), page)
				if len(gotW) != len(fullW) || (page == 64<<10 && n <= 16 && len(got) != len(full)) {
					t.Errorf("%s, %d KB pages, one workgroup in %d: touches %d pages (writes %d), the full grid %d (%d)", name, page>>10, n, len(got), len(gotW), len(full), len(fullW))
				}
				if instr >= all {
					t.Errorf("%s, one workgroup in %d: %d instructions, not fewer than the full %d", name, n, instr, all)
				}
			}
		}
	}
}

// pagesOf is the pages ks touch and write, and their instruction count.
func pagesOf(ks []benchmarks.Kernel, page uint64) (touched, written map[uint64]bool, instr int) {
	touched, written = map[uint64]bool{}, map[uint64]bool{}
	benchmarks.EachInstruction(ks, func(in *benchmarks.Instruction) {
		instr++
		for _, a := range in.Addr[:in.Lanes] {
			touched[a/page] = true
			if in.Write {
				written[a/page] = true
			}
		}
	})
	return touched, written, instr
}
