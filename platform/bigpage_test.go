package platform

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/units"
)

// bigPaged is a small run's config with 64 KB big PTEs over 4 KB pages
// (the RTX 3090 preset's gmmu.big_page).
func bigPaged(gpus int, over float64, prefetch string) config.Config {
	c := small(gpus)
	c.Oversubscribe = over
	c.UVM.Prefetch.Policy = prefetch
	c.GMMU.BigPage = 64 * units.KB
	return c
}

// TestBigPagesCoherent: with big PTEs, and with 2 MB PTEs over them, the
// coherence checker passes under every kind of mapping change (migration,
// replication, remote mapping, eviction), and big and 2 MB PTEs do form
// (the 2 MB cases at a scale whose objects span whole 2 MB blocks).
func TestBigPagesCoherent(t *testing.T) {
	for _, c := range []struct {
		w, p, prefetch string
		gpus           int
		over, scale    float64
		huge           units.Bytes
	}{
		{"mm", "on-touch", "tbn", 1, 1.5, 0.05, 0},
		{"mm", "on-touch", "tbn", 2, 1.5, 0.05, 0},
		{"mm", "duplication", "off", 4, 0, 0.05, 0},
		{"st", "access-counter", "off", 4, 0, 0.05, 0},
		{"mm", "oasis", "off", 4, 1.5, 0.05, 0},
		{"mm", "on-touch", "tbn", 1, 1.5, 0.5, 2 * units.MB},
		{"st", "on-touch", "tbn", 1, 0, 0.5, 2 * units.MB},
		{"mm", "duplication", "off", 4, 0, 0.5, 2 * units.MB},
		{"mm", "on-touch", "tbn", 2, 1.5, 0.5, 2 * units.MB},
		{"fdtd2d", "access-counter", "off", 2, 0, 0.1, 2 * units.MB},
	} {
		t.Run(fmt.Sprintf("%s/%s/%dgpu/over%g/huge%v", c.w, c.p, c.gpus, c.over, c.huge), func(t *testing.T) {
			t.Parallel()
			cfg := bigPaged(c.gpus, c.over, c.prefetch)
			cfg.GMMU.HugePage = c.huge
			s, err := Build(Options{Workload: c.w, Policy: c.p, Scale: c.scale, Seed: 1, Config: cfg})
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
			big, huge := 0, 0
			for _, m := range s.gmmus {
				_, n := m.Geometry()
				for p := uint64(0); p < n; p++ {
					if m.InBigPage(p) {
						big++
					}
					if m.InHugePage(p) {
						huge++
					}
				}
			}
			if big == 0 {
				t.Error("no big PTE at the end of the run")
			}
			if (huge != 0) != (c.huge != 0) {
				t.Errorf("%d pages under 2 MB PTEs at the end of the run with gmmu.huge_page %v", huge, c.huge)
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
	}{{"mt", 0.2}, {"st", 0.1}} {
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

// TestHugePagesWidenTLBReach: past the reach of 64 KB big PTEs (an L2 TLB
// of 16 entries reaches 1 MB), 2 MB PTEs over whole resident blocks take
// fewer L2 TLB misses, and move the same pages in: only the translation is
// coarser.
func TestHugePagesWidenTLBReach(t *testing.T) {
	cfg := bigPaged(1, 0, "tbn")
	cfg.GPU.L2TLBEntries, cfg.GPU.L2TLBWays = 16, 16
	o := Options{Workload: "mt", Policy: "on-touch", Scale: 0.5, Seed: 1, Config: cfg}
	big := mustRun(t, o)
	o.Config.GMMU.HugePage = 2 * units.MB
	huge := mustRun(t, o)
	if 2*huge.Totals.TLBL2Misses > big.Totals.TLBL2Misses {
		t.Errorf("%d L2 TLB misses with 2 MB PTEs, %d with 64 KB ones only: want at most half", huge.Totals.TLBL2Misses, big.Totals.TLBL2Misses)
	}
	if huge.Totals.MigrationsH2D != big.Totals.MigrationsH2D {
		t.Errorf("2 MB PTEs changed the pages moved in: %d against %d", huge.Totals.MigrationsH2D, big.Totals.MigrationsH2D)
	}
	t.Logf("L2 TLB misses %d -> %d", big.Totals.TLBL2Misses, huge.Totals.TLBL2Misses)
}
