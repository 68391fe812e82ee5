package hpcc

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

func TestRandomAccessUpdates(t *testing.T) {
	r := uint64(1)
	for n := uint64(0); n < 300; n++ {
		if got := raPow(n); got != r {
			t.Fatalf("HPCC_starts(%d) = %#x, want %#x", n, got, r)
		}
		r = raNext(r)
	}
	p := benchmarks.Params{GPUs: 4, Scale: 0.001, Size: benchmarks.SizeAuto, Seed: 1}
	k, _ := RALogTable(p)
	a, ks := benchtest.Setup(t, "ra", p)
	table := a.Object(0)
	updates, pages := 0, map[uint64]bool{}
	for wg := 0; wg < ks[0].Workgroups; wg++ {
		for wf := 0; wf < ks[0].WavefrontsPerWorkgroup; wf++ {
			s := ks[0].Wavefront(wg, wf, 0)
			var ld, st benchmarks.Instruction
			for s.Next(&ld) {
				if !s.Next(&st) || ld.Write || !st.Write || ld.Addr != st.Addr || ld.Lanes != benchmarks.WavefrontSize {
					t.Fatal("an update is not a load then a store of the same words")
				}
				updates += benchmarks.WavefrontSize
				for l := 0; l < ld.Lanes; l++ {
					pages[(objtable.Strip(ld.Addr[l])-table.Base)/benchtest.Page] = true
				}
			}
		}
	}
	if updates != 4<<k {
		t.Errorf("%d updates, want 4 x 2^%d", updates, k)
	}
	if n := (8<<k + benchtest.Page - 1) / benchtest.Page; len(pages) != n {
		t.Errorf("%d of %d table pages touched", len(pages), n)
	}
}
