package amdappsdk

import (
	"math/bits"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestBitonicPasses: a sort of 2^k keys has k(k+1)/2 passes, and in each
// the pairs partition the array: every key is read once and written once.
func TestBitonicPasses(t *testing.T) {
	a, ks := benchtest.Setup(t, "bitonicsort", benchmarks.Params{GPUs: 2, Scale: 0.002, Seed: 1})
	arr := benchtest.ObjectNamed(a, "array")
	n := arr.Size / 4
	k := bits.Len64(n) - 1
	if n&(n-1) != 0 || len(ks) != k*(k+1)/2 {
		t.Fatalf("%d keys, %d passes", n, len(ks))
	}
	for i, kn := range ks {
		reads, writes := map[uint64]int{}, map[uint64]int{}
		for wg := range kn.Workgroups {
			benchtest.Drain(t, a, kn.Wavefront(wg, 0, 0), func(x benchtest.Access) {
				if x.Obj.Name != "array" {
					return
				}
				if x.Write {
					writes[x.Addr-x.Obj.Base]++
				} else {
					reads[x.Addr-x.Obj.Base]++
				}
			})
		}
		if !kn.PerDevice {
			t.Fatalf("pass %d is not per device", i)
		}
		benchtest.CheckEach(t, "array read", reads, n, 1)
		benchtest.CheckEach(t, "array written", writes, n, 1)
	}
}
