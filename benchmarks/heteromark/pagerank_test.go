package heteromark

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestPageRankSwap checks the rank vectors' roles: in each launch the
// input is only read, the output has each row zeroed by all 64 lanes and
// then read once and written once more (MGPUSim's y[row] = 0, then lane
// 0's y[row] += sum), and they swap.
func TestPageRankSwap(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01, Seed: 1, Iterations: 3}
	a, ks := benchtest.Setup(t, "pr", p)
	if len(ks) != 3 {
		t.Fatalf("%d launches", len(ks))
	}
	for i, k := range ks {
		reads, writes := map[string]int{}, map[string]map[uint64]int{}
		for wg := 0; wg < k.Workgroups; wg++ {
			benchtest.Drain(t, a, k.Wavefront(wg, 0, 0), func(x benchtest.Access) {
				if !x.Write {
					reads[x.Obj.Name]++
					return
				}
				if writes[x.Obj.Name] == nil {
					writes[x.Obj.Name] = map[uint64]int{}
				}
				writes[x.Obj.Name][x.Addr-x.Obj.Base]++
			})
		}
		in, out := "x", "y"
		if i%2 == 1 {
			in, out = "y", "x"
		}
		o := a.Objects()[3]
		if reads[out] != int(o.Size/4) || writes[in] != nil || len(writes) != 1 || reads[in] == 0 {
			t.Fatalf("launch %d: reads %v, writes to %d objects", i, reads, len(writes))
		}
		benchtest.CheckEach(t, out, writes[out], o.Size/4, benchmarks.WavefrontSize+1)
	}
}

func TestPageRankTable(t *testing.T) { benchtest.GraphTable(t, "pr", 6, PRSize, prBytes) }
