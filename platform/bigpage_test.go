package platform

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

// bigPaged is a small run's config with 64 KB big PTEs over 4 KB pages
// (the RTX 3090 preset's gmmu.big_page).
func bigPaged(gpus int, over float64, prefetch string) Config {
	c := small(gpus)
	c.Oversubscribe = over
	c.UVM.Prefetch.Policy = prefetch
	c.GMMU.BigPage = 64 * units.KB
	return c
}

// TestBigPagesCoherent: with big PTEs the coherence checker passes under
// every kind of mapping change (migration, replication, remote mapping,
// eviction), and big PTEs do form.
func TestBigPagesCoherent(t *testing.T) {
	for _, c := range []struct {
		w, p, prefetch string
		gpus           int
		over           float64
	}{
		{"mm", "on-touch", "tbn", 1, 1.5},
		{"mm", "on-touch", "tbn", 2, 1.5},
		{"mm", "duplication", "off", 4, 0},
		{"st", "access-counter", "off", 4, 0},
		{"mm", "oasis", "off", 4, 1.5},
	} {
		t.Run(fmt.Sprintf("%s/%s/%dgpu/over%g", c.w, c.p, c.gpus, c.over), func(t *testing.T) {
			t.Parallel()
			s, err := Build(Options{Workload: c.w, Policy: c.p, Scale: 0.05, Seed: 1, Config: bigPaged(c.gpus, c.over, c.prefetch)})
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			if c.over > 0 && r.Totals.Evictions == 0 {
				t.Fatalf("no eviction at %v of %v", r.GPUCapacity, r.Footprint)
			}
			big := 0
			for _, m := range s.gmmus {
				_, n := m.Geometry()
				for p := uint64(0); p < n; p++ {
					if m.InBigPage(p) {
						big++
					}
				}
			}
			if big == 0 {
				t.Error("no big PTE at the end of the run")
			}
		})
	}
}

// TestBigPagesWidenTLBReach: on one GPU whose prefetcher fills whole big
// pages, a footprint past the L2 TLB's reach at 4 KB (512 entries, 2 MB)
// takes fewer L2 TLB misses with big PTEs.
func TestBigPagesWidenTLBReach(t *testing.T) {
	for _, c := range []struct {
		w     string
		scale float64
	}{{"mm", 0.2}, {"st", 0.1}} {
		with := mustRun(t, Options{Workload: c.w, Policy: "on-touch", Scale: c.scale, Seed: 1, Config: bigPaged(1, 0, "tbn")})
		cfg := bigPaged(1, 0, "tbn")
		cfg.GMMU.BigPage = 0
		without := mustRun(t, Options{Workload: c.w, Policy: "on-touch", Scale: c.scale, Seed: 1, Config: cfg})
		if with.Footprint <= 2*units.MB {
			t.Fatalf("%s: footprint %v within the L2 TLB's reach", c.w, with.Footprint)
		}
		if 10*with.Totals.TLBL2Misses > 8*without.Totals.TLBL2Misses {
			t.Errorf("%s: %d L2 TLB misses with 64 KB big PTEs, %d without: want at least 20%% fewer", c.w, with.Totals.TLBL2Misses, without.Totals.TLBL2Misses)
		}
	}
}

// TestBigPageOfOnePage: a big page equal to the page changes nothing.
func TestBigPageOfOnePage(t *testing.T) {
	o := smallOASIS()
	o.Config.PageSize = 64 * units.KB
	off := mustRun(t, o)
	o.Config.GMMU.BigPage = 64 * units.KB
	on := mustRun(t, o)
	if on.SimTimeNs != off.SimTimeNs || !reflect.DeepEqual(on.Totals, off.Totals) || !reflect.DeepEqual(on.Stalls, off.Stalls) {
		t.Errorf("gmmu.big_page equal to page_size changed the run: %v ns against %v", on.SimTimeNs, off.SimTimeNs)
	}
}
