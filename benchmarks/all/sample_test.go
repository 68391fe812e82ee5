package all

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// TestSampleWorkgroupsTouchesEveryPage: the dense kernels the
// oversubscription figures truncate with benchmarks.SampleWorkgroups
// still touch every 64 KB page the full grid touches, and write every
// page it writes, so the footprint the memory sees is the full run's.
func TestSampleWorkgroupsTouchesEveryPage(t *testing.T) {
	const page = 64 << 10
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
		full, fullW, all := pagesOf(ks, page)
		for _, n := range []int{4, 16} {
			got, gotW, instr := pagesOf(benchmarks.SampleWorkgroups(ks, n), page)
			if len(got) != len(full) || len(gotW) != len(fullW) {
				t.Errorf("%s, one workgroup in %d: touches %d pages (writes %d), the full grid %d (%d)", name, n, len(got), len(gotW), len(full), len(fullW))
			}
			if instr >= all {
				t.Errorf("%s, one workgroup in %d: %d instructions, not fewer than the full %d", name, n, instr, all)
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
