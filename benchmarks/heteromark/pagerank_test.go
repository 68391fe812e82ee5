package heteromark

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestPageRankSwap checks the rank vectors' roles: in each launch one is
// only read and the other only written, each row once, and they swap.
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
		if reads[out] != 0 || writes[in] != nil || len(writes) != 1 || reads[in] == 0 {
			t.Fatalf("launch %d: reads %v, writes to %d objects", i, reads, len(writes))
		}
		o := a.Objects()[3]
		benchtest.CheckEach(t, out, writes[out], o.Size/4, 1)
	}
}

func TestPageRankTable(t *testing.T) { benchtest.GraphTable(t, "pr", 6, PRSize, prBytes) }
