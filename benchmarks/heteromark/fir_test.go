package heteromark

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

// TestFIRAccesses: each output sample is written once, each input sample
// read by as many work-items as taps reach it (16, fewer at the end),
// each GPU reads only its own coefficients, and only the first wavefront
// reads the history.
func TestFIRAccesses(t *testing.T) {
	const gpus = 4
	a, ks := benchtest.Setup(t, "fir", benchmarks.Params{GPUs: gpus, Scale: 0.002, Seed: 1})
	if len(ks) != 1 || !ks[0].PerDevice || ks[0].Workgroups%gpus != 0 {
		t.Fatalf("want one per-device launch split evenly over %d GPUs: %+v", gpus, ks)
	}
	k := ks[0]
	out := benchtest.ObjectNamed(a, "output")
	n := int(out.Size / 4)
	writes, inputs := map[uint64]int{}, map[uint64]int{}
	filters := map[*objtable.Object]int{}
	history := 0
	per := k.Workgroups / gpus
	for wg := range k.Workgroups {
		g := wg / per
		for wf := range k.WavefrontsPerWorkgroup {
			benchtest.Drain(t, a, k.Wavefront(wg, wf, g), func(x benchtest.Access) {
				switch x.Obj.Name {
				case "output":
					writes[x.Addr-x.Obj.Base]++
				case "input":
					inputs[x.Addr-x.Obj.Base]++
				case "filter":
					filters[x.Obj] = g + 1
					if x.Obj.ID != 3+g {
						t.Fatalf("GPU %d reads filter object %d", g, x.Obj.ID)
					}
				case "history":
					if wg != 0 || wf != 0 {
						t.Fatalf("workgroup %d wavefront %d reads the history", wg, wf)
					}
					history++
				}
				if x.Write != (x.Obj.Name == "output") {
					t.Fatalf("%s written: %v", x.Obj.Name, x.Write)
				}
			})
		}
	}
	benchtest.CheckEach(t, "output", writes, uint64(n), 1)
	for i := range n {
		if want := min(firTaps, n-i); inputs[uint64(i)*4] != want {
			t.Fatalf("input %d read %d times, want %d", i, inputs[uint64(i)*4], want)
		}
	}
	if len(filters) != gpus || history != firTaps*(firTaps-1)/2 {
		t.Fatalf("%d filters read, history read %d times (want %d)", len(filters), history, firTaps*(firTaps-1)/2)
	}
}
