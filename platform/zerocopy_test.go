package platform

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// Zero-copy host access under access-counter (policy.ac_host=remote): a
// page stays on the host, is read and written over PCIe, and migrates only
// once a GPU's counter reaches the threshold; every read still sees the
// latest write (the checker is on). With ac_host=migrate no line goes to
// the host.
func TestZeroCopyAccessCounter(t *testing.T) {
	run := func(host string, threshold, gpus int) *Result {
		c := small(gpus)
		c.Policy.ACHost, c.Policy.ACThreshold = host, threshold
		return mustRun(t, Options{Workload: "private", Policy: "access-counter", Scale: 0.05, Config: c})
	}
	for _, gpus := range []int{1, 4} {
		zc := run(pagepolicy.ACHostRemote, 256, gpus)
		mig := run(pagepolicy.ACHostMigrate, 256, gpus)
		low := run(pagepolicy.ACHostRemote, 8, gpus) // UVMSmart's zero-copy migrate threshold
		if zc.Totals.HostLines == 0 || zc.Totals.HostLines != zc.Totals.RemoteLines {
			t.Errorf("%d GPUs: private data under zero-copy: %d host lines of %d remote", gpus, zc.Totals.HostLines, zc.Totals.RemoteLines)
		}
		if mig.Totals.HostLines != 0 || mig.Totals.MigrationsH2D == 0 {
			t.Errorf("%d GPUs: ac_host=migrate: %d host lines, %d migrations", gpus, mig.Totals.HostLines, mig.Totals.MigrationsH2D)
		}
		if low.Totals.MigrationsH2D <= zc.Totals.MigrationsH2D || low.Totals.HostLines >= zc.Totals.HostLines {
			t.Errorf("%d GPUs: a lower threshold must migrate more and read the host less: %d/%d migrations, %d/%d host lines",
				gpus, low.Totals.MigrationsH2D, zc.Totals.MigrationsH2D, low.Totals.HostLines, zc.Totals.HostLines)
		}
		if zc.Totals.BytesPCIe <= mig.Totals.BytesPCIe/4 {
			t.Errorf("%d GPUs: zero-copy lines must cross PCIe: %d bytes vs %d", gpus, zc.Totals.BytesPCIe, mig.Totals.BytesPCIe)
		}
	}
}
