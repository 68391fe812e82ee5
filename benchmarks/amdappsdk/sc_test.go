package amdappsdk

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestSCAccesses: each output pixel is written once, each padded input
// pixel read once per window that covers it, and each GPU reads only its
// own mask, every tap of it.
func TestSCAccesses(t *testing.T) {
	const gpus = 2
	a, ks := benchtest.Setup(t, "sc", benchmarks.Params{GPUs: gpus, Scale: 0.001, Seed: 1})
	if len(ks) != 1 || !ks[0].PerDevice {
		t.Fatalf("want one per-device launch: %+v", ks)
	}
	k := ks[0]
	w := 0
	for w*w*4 < int(benchtest.ObjectNamed(a, "output").Size) {
		w++
	}
	ex := w + scMask - 1
	writes, inputs := map[uint64]int{}, map[uint64]int{}
	masks := map[int]map[uint64]bool{}
	d, err := benchmarks.NewDispatcher(benchmarks.SchemeContiguous, k.Workgroups, gpus)
	if err != nil {
		t.Fatal(err)
	}
	for g := range gpus {
		for wg, ok := d.Next(g); ok; wg, ok = d.Next(g) {
			benchtest.Drain(t, a, k.Wavefront(wg, 0, g), func(x benchtest.Access) {
				off := x.Addr - x.Obj.Base
				switch x.Obj.Name {
				case "output":
					writes[off]++
				case "input":
					inputs[off]++
				case "mask":
					if x.Obj.ID != 2+g {
						t.Fatalf("GPU %d reads mask object %d", g, x.Obj.ID)
					}
					if masks[g] == nil {
						masks[g] = map[uint64]bool{}
					}
					masks[g][off] = true
				}
			})
		}
	}
	benchtest.CheckEach(t, "output", writes, uint64(w*w), 1)
	cover := func(p int) int { return min(p, scMask-1) - max(0, p-(w-1)) + 1 }
	for y := range ex {
		for x := range ex {
			if got, want := inputs[uint64(y*ex+x)*4], cover(x)*cover(y); got != want {
				t.Fatalf("input (%d,%d) read %d times, want %d", x, y, got, want)
			}
		}
	}
	for g := range gpus {
		if len(masks[g]) != scMask*scMask {
			t.Fatalf("GPU %d read %d of its mask's %d taps", g, len(masks[g]), scMask*scMask)
		}
	}
}
