package platform

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// TestOversubscriptionCoherent runs every policy under 150% oversubscription
// with both eviction policies and the checker on: evicted pages come back
// with their latest data, and no GPU ends above its capacity by more than
// the pages of one batch (a batch never evicts the pages it is placing).
// make test runs pingpong under every pair and mm under each eviction with
// one policy, the policies taken in turn; make test-full runs them all.
func TestOversubscriptionCoherent(t *testing.T) {
	policies := pagepolicy.Names()
	for i, ev := range eviction.Names() {
		for j, p := range policies {
			for _, w := range []string{"mm", "pingpong"} {
				quick := w == "pingpong" || j == i%len(policies)
				t.Run(fmt.Sprintf("%s/%s/%s", ev, p, w), func(t *testing.T) {
					if !quick {
						fullOnly(t)
					}
					t.Parallel()
					c := small(4)
					spreadAll(&c)
					c.Oversubscribe = 1.5
					c.UVM.Eviction = ev
					s, err := Build(Options{Workload: w, Policy: p, Scale: 0.05, Config: c})
					if err != nil {
						t.Fatal(err)
					}
					r, err := s.Run()
					if err != nil {
						t.Fatal(err)
					}
					if r.Totals.Evictions == 0 {
						t.Fatalf("no eviction at capacity %v for footprint %v", r.GPUCapacity, r.Footprint)
					}
					if r.Totals.MigrationsD2H > r.Totals.Evictions {
						t.Fatalf("%d copies to the host but only %d evictions", r.Totals.MigrationsD2H, r.Totals.Evictions)
					}
					for g := 0; g < c.GPUs; g++ {
						if used := s.driver.Table().Used(g); used > s.capacity+c.UVM.FaultBatch {
							t.Errorf("GPU %d holds %d pages, capacity %d", g, used, s.capacity)
						}
					}
				})
			}
		}
	}
}

// TestOversubscriptionCostsFaults: the same run with less memory refaults
// evicted pages, so it faults more and copies pages back to the host.
func TestOversubscriptionCostsFaults(t *testing.T) {
	t.Parallel()
	base := mustRun(t, Options{Workload: "mm", Policy: "on-touch", Scale: 0.05, Config: small(4)})
	c := small(4)
	c.Oversubscribe = 2
	over := mustRun(t, Options{Workload: "mm", Policy: "on-touch", Scale: 0.05, Config: c})
	if base.Totals.Evictions != 0 || base.Totals.MigrationsD2H != 0 {
		t.Fatalf("evictions without oversubscription: %+v", base.Totals)
	}
	if over.Totals.PageFaults <= base.Totals.PageFaults || over.Totals.MigrationsD2H == 0 {
		t.Fatalf("oversubscribed: %d faults, %d d2h; baseline %d faults", over.Totals.PageFaults, over.Totals.MigrationsD2H, base.Totals.PageFaults)
	}
	if over.SimTimeNs <= base.SimTimeNs {
		t.Fatalf("oversubscribed run %.0f ns not slower than %.0f ns", over.SimTimeNs, base.SimTimeNs)
	}
	want := uint64(float64(over.Footprint) / 4 / 2)
	if got := uint64(over.GPUCapacity); got > want || got+uint64(c.PageSize) <= want {
		t.Fatalf("capacity %d, want footprint/GPUs/2 = %d rounded down to pages", got, want)
	}
}

func TestOversubscribeBadValues(t *testing.T) {
	for _, f := range []float64{0.5, -1} {
		c := small(2)
		c.Oversubscribe = f
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "oversubscribe") {
			t.Errorf("oversubscribe %v: got %v", f, err)
		}
	}
	c := small(2)
	c.UVM.Eviction = "fifo"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "lrm-2mb") {
		t.Errorf("unknown eviction policy: got %v", err)
	}
}

// TestACRemoteOnEviction: under access-counter with the driver's remote
// mapping on eviction (policy.ac_evict=remote), a page a GPU evicts stays
// mapped there over PCIe, so the GPU reads the host instead of faulting it
// back, and its counters pull hot groups back; every read still sees the
// latest write. With unmap no line goes to the host and evicted pages
// fault again.
func TestACRemoteOnEviction(t *testing.T) {
	run := func(evict string, gpus int) *Result {
		c := small(gpus)
		c.Oversubscribe = 2
		c.Policy.ACHost, c.Policy.ACEvict = pagepolicy.ACHostMigrate, evict
		return mustRun(t, Options{Workload: "hotspot", Policy: "access-counter", Scale: 0.05, Config: c})
	}
	for _, gpus := range []int{1, 4} {
		unmap, remote := run(pagepolicy.ACEvictUnmap, gpus), run(pagepolicy.ACEvictRemote, gpus)
		if unmap.Totals.Evictions == 0 || remote.Totals.Evictions == 0 {
			t.Fatalf("%d GPUs: no eviction (%d, %d)", gpus, unmap.Totals.Evictions, remote.Totals.Evictions)
		}
		if unmap.Totals.HostLines != 0 {
			t.Errorf("%d GPUs: ac_evict=unmap read %d lines from the host", gpus, unmap.Totals.HostLines)
		}
		if remote.Totals.HostLines == 0 || remote.Totals.ACNotifications == 0 {
			t.Errorf("%d GPUs: ac_evict=remote: %d host lines, %d notifications", gpus, remote.Totals.HostLines, remote.Totals.ACNotifications)
		}
		if remote.Totals.PageFaults >= unmap.Totals.PageFaults {
			t.Errorf("%d GPUs: remote mapping on eviction must spare refaults: %d faults, unmap %d", gpus, remote.Totals.PageFaults, unmap.Totals.PageFaults)
		}
	}
	// Pages written by turns on four GPUs (the checker on): an eviction
	// maps only the evicting GPU, and the next writer's migration must
	// shoot that mapping down.
	c := small(4)
	c.Oversubscribe = 2
	c.Policy.ACHost, c.Policy.ACEvict = pagepolicy.ACHostMigrate, pagepolicy.ACEvictRemote
	if r := mustRun(t, Options{Workload: "pingpong", Policy: "access-counter", Scale: 0.05, Config: c}); r.Totals.Evictions == 0 {
		t.Errorf("pingpong: no eviction at capacity %v", r.GPUCapacity)
	}
}
