package platform

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

func simTime(t *testing.T, w, p string) float64 {
	t.Helper()
	return mustRun(t, Options{Workload: w, Policy: p, Config: small(4)}).SimTimeNs
}

// TestObservation3 checks the papers' Observation 3 on the synthetic
// patterns: no single policy wins everywhere.
func TestObservation3(t *testing.T) {
	t.Parallel()
	if ot, ac := simTime(t, "private", "on-touch"), simTime(t, "private", "access-counter"); ot > ac {
		t.Errorf("private: on-touch %.0f ns slower than access-counter %.0f ns", ot, ac)
	}
	dup := simTime(t, "shared-read", "duplication")
	for _, p := range []string{"on-touch", "access-counter"} {
		if other := simTime(t, "shared-read", p); dup >= other {
			t.Errorf("shared-read: duplication %.0f ns not faster than %s %.0f ns", dup, p, other)
		}
	}
	if ac, ot := simTime(t, "pingpong", "access-counter"), simTime(t, "pingpong", "on-touch"); ac >= ot {
		t.Errorf("pingpong: access-counter %.0f ns does not beat on-touch %.0f ns", ac, ot)
	}
}

func TestAccessCounterMigratesAtThreshold(t *testing.T) {
	c := small(4)
	r := mustRun(t, Options{Workload: "pingpong", Policy: "access-counter", Config: c})
	tot := r.Totals
	if tot.RemoteLines == 0 || tot.ACNotifications == 0 {
		t.Fatalf("no remote traffic or notification: %d lines, %d notifications", tot.RemoteLines, tot.ACNotifications)
	}
	// Every notification needs threshold remote lines of one GPU first.
	if max := tot.RemoteLines / uint64(c.Policy.ACThreshold); tot.ACNotifications > max {
		t.Errorf("%d notifications from %d remote lines: a counter fired below its threshold", tot.ACNotifications, tot.RemoteLines)
	}
	if tot.MigrationsD2D == 0 {
		t.Error("notifications migrated nothing")
	}
	// A threshold no run can reach: remote mappings, never migrations.
	c.Policy.ACThreshold = 1 << 30
	r = mustRun(t, Options{Workload: "pingpong", Policy: "access-counter", Config: c})
	if r.Totals.ACNotifications != 0 || r.Totals.MigrationsD2D != 0 {
		t.Errorf("unreachable threshold still notified %d times and migrated %d pages", r.Totals.ACNotifications, r.Totals.MigrationsD2D)
	}
}

func TestDuplicationReplicatesAndCollapses(t *testing.T) {
	r := mustRun(t, Options{Workload: "shared-read", Policy: "duplication", Config: small(4)})
	if r.Totals.Duplications == 0 || r.Totals.MigrationsD2D != 0 {
		t.Errorf("shared-read under duplication: %d duplications, %d migrations", r.Totals.Duplications, r.Totals.MigrationsD2D)
	}
	r = mustRun(t, Options{Workload: "prodcons", Policy: "duplication", Config: small(4)})
	if r.Totals.Collapses == 0 {
		t.Error("producer writes after consumer reads never collapsed")
	}
	if r.Totals.L2MissDuplication == 0 {
		t.Error("no L2 TLB miss recorded under duplication bits")
	}
}

func TestIdealNeverCollapsesOrInvalidates(t *testing.T) {
	for _, w := range []string{"pingpong", "prodcons", "shared-read"} {
		r := mustRun(t, Options{Workload: w, Policy: "ideal", Config: small(4)})
		if r.Totals.Collapses != 0 || r.Totals.Invalidations != 0 || r.Totals.ProtectionFaults != 0 {
			t.Errorf("%s: ideal paid %d collapses, %d invalidations, %d protection faults", w, r.Totals.Collapses, r.Totals.Invalidations, r.Totals.ProtectionFaults)
		}
	}
}

// Under duplication with OASIS's read-only first copy, a write that is a
// page's first touch makes a read-only copy and then takes a protection
// fault, so there are more protection faults (each a collapse) than when
// the write migrates the page; the checker stays clean either way.
func TestDuplicationWriteFirstTakesAProtectionFault(t *testing.T) {
	prot := map[string]uint64{}
	for _, mode := range []string{pagepolicy.DupMigrate, pagepolicy.DupReadOnlyCopy} {
		for _, w := range []string{"private", "prodcons", "mt"} {
			c := small(2)
			c.Policy.DupWriteFirst = mode
			r := mustRun(t, Options{Workload: w, Policy: "duplication", Scale: 0.05, Config: c})
			if r.Totals.Collapses < r.Totals.ProtectionFaults {
				t.Errorf("%s/%s: %d protection faults but %d collapses", mode, w, r.Totals.ProtectionFaults, r.Totals.Collapses)
			}
			prot[mode] += r.Totals.ProtectionFaults
		}
	}
	if prot[pagepolicy.DupReadOnlyCopy] <= prot[pagepolicy.DupMigrate] {
		t.Errorf("read-only first copies gave %d protection faults, migrating writes %d", prot[pagepolicy.DupReadOnlyCopy], prot[pagepolicy.DupMigrate])
	}
}

// With remote reads cached in L1V (MGPUSim's R9 Nano), re-read remote
// lines hit in L1V: fewer lines cross NVLink, more L1V hits, and fewer
// access-counter notifications, since hits never reach the counters.
func TestRemoteReadsCachedInL1V(t *testing.T) {
	t.Parallel()
	run := func(on bool) *Result {
		c := small(4)
		c.GPU.RemoteL1V = on
		return mustRun(t, Options{Workload: "pr", Policy: "access-counter", Scale: 0.05, Config: c})
	}
	off, on := run(false), run(true)
	if on.Totals.RemoteLines >= off.Totals.RemoteLines || on.Totals.L1VHits <= off.Totals.L1VHits {
		t.Fatalf("remote lines %d -> %d, L1V hits %d -> %d: L1V caching of remote reads had no effect",
			off.Totals.RemoteLines, on.Totals.RemoteLines, off.Totals.L1VHits, on.Totals.L1VHits)
	}
	if on.Totals.MemInstructions != off.Totals.MemInstructions {
		t.Fatalf("the workload changed: %d vs %d instructions", on.Totals.MemInstructions, off.Totals.MemInstructions)
	}
}

// Per-page access-counter migration (GRIT §II-B) moves only the page that
// reached the threshold, so it migrates fewer pages per notification than
// the driver's group migration, and both stay coherent.
func TestAccessCounterMigrationUnit(t *testing.T) {
	t.Parallel()
	perNote := map[string]float64{}
	for _, unit := range []string{pagepolicy.ACMigrateGroup, pagepolicy.ACMigratePage} {
		c := small(4)
		c.Policy.ACMigrate = unit
		r := mustRun(t, Options{Workload: "pr", Policy: "access-counter", Scale: 0.05, Config: c})
		if r.Totals.ACNotifications == 0 {
			t.Fatalf("%s: no notification", unit)
		}
		perNote[unit] = float64(r.Totals.MigrationsD2D) / float64(r.Totals.ACNotifications)
	}
	if perNote[pagepolicy.ACMigratePage] > 1 || perNote[pagepolicy.ACMigratePage] >= perNote[pagepolicy.ACMigrateGroup] {
		t.Fatalf("GPU-to-GPU migrations per notification: page %.2f, group %.2f", perNote[pagepolicy.ACMigratePage], perNote[pagepolicy.ACMigrateGroup])
	}
}

// The driver's thrashing control ignores access-counter notifications for
// pages that keep moving: with it on, pingpong's pages migrate less and
// notifications are throttled; the run stays coherent.
func TestAccessCounterThrashingControl(t *testing.T) {
	t.Parallel()
	run := func(on bool) *Result {
		c := small(4)
		if c.UVM.Thrashing = on; on {
			c.UVM.ThrashingLapseNs = 1e9 // every repeat move counts: the synthetic run is short
		}
		return mustRun(t, Options{Workload: "pingpong", Policy: "access-counter", Iterations: 8, Config: c})
	}
	off, on := run(false), run(true)
	if off.Totals.ACThrottled != 0 || on.Totals.ACThrottled == 0 {
		t.Fatalf("throttled notifications: off %d, on %d", off.Totals.ACThrottled, on.Totals.ACThrottled)
	}
	if on.Totals.MigrationsD2D >= off.Totals.MigrationsD2D {
		t.Fatalf("GPU-to-GPU migrations: off %d, on %d", off.Totals.MigrationsD2D, on.Totals.MigrationsD2D)
	}
}

// With the driver's thrashing detection applied to faults, on-touch stops
// moving pingpong's pages once they thrash: faults on them map the page
// remotely where it is, so GPU-to-GPU migrations fall and remote lines
// appear; the coherence checker runs throughout.
func TestOnTouchThrashingFaults(t *testing.T) {
	t.Parallel()
	run := func(on bool) *Result {
		c := small(4)
		c.Check = true
		if on {
			c.UVM.Thrashing, c.UVM.ThrashingFaults = true, true
			c.UVM.ThrashingLapseNs = 1e9 // every repeat move counts: the synthetic run is short
		}
		return mustRun(t, Options{Workload: "pingpong", Policy: "on-touch", Iterations: 8, Config: c})
	}
	off, on := run(false), run(true)
	if on.Totals.MigrationsD2D >= off.Totals.MigrationsD2D || off.Totals.RemoteLines != 0 || on.Totals.RemoteLines == 0 {
		t.Fatalf("GPU-to-GPU migrations off %d, on %d; remote lines off %d, on %d",
			off.Totals.MigrationsD2D, on.Totals.MigrationsD2D, off.Totals.RemoteLines, on.Totals.RemoteLines)
	}
}

// MGPUSim's command processor invalidates whole caches on a shootdown: with
// it, a workload whose pages move between GPUs hits less in L2.
func TestShootdownFlushesCaches(t *testing.T) {
	run := func(all bool) *Result {
		c := small(4)
		c.GPU.ShootdownFlushAll = all
		return mustRun(t, Options{Workload: "pingpong", Policy: "on-touch", Config: c})
	}
	page, all := run(false), run(true)
	if all.Totals.Invalidations == 0 || all.Totals.L2Hits >= page.Totals.L2Hits {
		t.Fatalf("L2 hits with page-only invalidation %d, with whole-cache flushes %d (%d shootdowns)",
			page.Totals.L2Hits, all.Totals.L2Hits, all.Totals.Invalidations)
	}
}
