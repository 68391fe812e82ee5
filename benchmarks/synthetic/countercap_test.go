package synthetic

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestCounterCap: countercap-p holds p 2 MB-aligned regions whatever the
// scale; wavefront r reads CounterCapAccesses distinct lines of region r's
// first page and nothing else.
func TestCounterCap(t *testing.T) {
	for _, p := range CounterCapRegions {
		for _, scale := range []float64{0.01, 0.2, 1} {
			name := CounterCapName(p)
			a, ks := benchtest.Setup(t, name, benchmarks.Params{GPUs: 1, Scale: scale, Size: benchmarks.SizeAuto, Seed: 1})
			if a.Footprint() != uint64(p)*2*benchmarks.MiB || len(a.Objects()) != 1 || a.Objects()[0].Base%(2*benchmarks.MiB) != 0 {
				t.Fatalf("%s scale %v: footprint %d, %d objects", name, scale, a.Footprint(), len(a.Objects()))
			}
			if len(ks) != 1 || ks[0].Workgroups != p || ks[0].WavefrontsPerWorkgroup != 1 {
				t.Fatalf("%s: kernels %+v", name, ks)
			}
			base := a.Objects()[0].Base
			regions := map[uint64]int{}
			for wg := 0; wg < p; wg++ {
				lines := map[uint64]bool{}
				benchtest.Drain(t, a, ks[0].Wavefront(wg, 0, 0), func(x benchtest.Access) {
					r := (x.Addr - base) / (2 * benchmarks.MiB)
					if r != uint64(wg) || x.Write || (x.Addr-base)%(2*benchmarks.MiB) >= benchtest.Page {
						t.Fatalf("%s wg %d: access at offset %#x (write %v)", name, wg, x.Addr-base, x.Write)
					}
					lines[x.Addr/counterCapStride] = true
					regions[r]++
				})
				if len(lines) != CounterCapAccesses {
					t.Fatalf("%s wg %d: %d distinct 256-byte lines, want %d", name, wg, len(lines), CounterCapAccesses)
				}
			}
			if len(regions) != p {
				t.Fatalf("%s: %d regions accessed, want %d", name, len(regions), p)
			}
		}
	}
	w, err := benchmarks.New("countercap-256")
	if err != nil || w.Info().Name != "countercap-256" || !strings.Contains(w.Info().Description, "256 2 MB regions") {
		t.Fatalf("countercap-256: %v %v", w, err)
	}
}
