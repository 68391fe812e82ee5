package platform

import (
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/griffin"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	griffinrt "github.com/mgpu-sim/mgpu/runtimes/griffin"
)

// griffinConfig is Griffin-DPC (approximated) on gpus small GPUs: first
// touch, remote access, and the access counters' notifications classified
// every epochNs.
func griffinConfig(gpus int, epochNs float64) config.Config {
	c := small(gpus)
	c.Check = true
	c.Policy.ACHost = pagepolicy.ACHostMigrate
	c.UVM.Adaptive = griffinrt.Name
	griffinrt.Config.Edit(&c.UVM, func(s *griffin.Config) { s.EpochNs = epochNs })
	return c
}

// TestGriffinDPCMovesOnlyAtEpochs runs DPC with the checker on, over
// workloads that share pages in different ways. Without
// oversubscription every GPU-to-GPU move is DPC's (faults only map
// remotely), so the driver's D2D migrations equal DPC's count; with an
// epoch longer than the run nothing moves between GPUs at all, though the
// counters notify: a notification alone never migrates. The runs take
// the contiguous split (spreadAll): at this scale MGPUSim's puts bfs's 32
// workgroups all on GPU 0.
func TestGriffinDPCMovesOnlyAtEpochs(t *testing.T) {
	for _, w := range []string{"pingpong", "mm", "st", "bfs"} {
		t.Run(w, func(t *testing.T) {
			t.Parallel()
			cfg := func(epochNs float64) config.Config {
				c := griffinConfig(4, epochNs)
				spreadAll(&c)
				return c
			}
			r := mustRun(t, Options{Workload: w, Policy: "access-counter", Scale: 0.05, Seed: 1, Config: cfg(20000)})
			st := r.PolicyStats
			if st["dpc_epochs"] == 0 || st["dpc_notifications"] == 0 {
				t.Fatalf("DPC classified nothing: %v", st)
			}
			if float64(r.Totals.MigrationsD2D) != st["dpc_migrations"] {
				t.Errorf("%d GPU-to-GPU migrations, DPC made %v", r.Totals.MigrationsD2D, st["dpc_migrations"])
			}
			if st["dpc_migrations"] > st["dpc_private"]+st["dpc_dominant"] {
				t.Errorf("more moves than pages classified to move: %v", st)
			}
			never := mustRun(t, Options{Workload: w, Policy: "access-counter", Scale: 0.05, Seed: 1, Config: cfg(1e12)})
			if never.Totals.ACNotifications == 0 || never.Totals.MigrationsD2D != 0 {
				t.Errorf("epoch never ends: %d notifications, %d GPU-to-GPU moves", never.Totals.ACNotifications, never.Totals.MigrationsD2D)
			}
		})
	}
}

// TestGriffinDPCOversubscribedCoherent runs DPC at 150% on 4 GPUs with the
// checker on: an epoch's page may have been evicted to the host before the
// epoch ends.
func TestGriffinDPCOversubscribedCoherent(t *testing.T) {
	c := griffinConfig(4, 20000)
	c.Oversubscribe = 1.5
	r := mustRun(t, Options{Workload: "st", Policy: "access-counter", Scale: 0.05, Seed: 1, Config: c})
	if r.Totals.Evictions == 0 || r.PolicyStats["dpc_migrations"] == 0 {
		t.Fatalf("%d evictions, %v DPC moves", r.Totals.Evictions, r.PolicyStats["dpc_migrations"])
	}
}
