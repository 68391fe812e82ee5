package platform

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// small returns a checked config for quick end-to-end runs.
func small(gpus int) config.Config {
	c := config.DefaultConfig()
	c.GPUs = gpus
	c.Check = true
	return c
}

// spreadAll gives a coherence matrix's run the contiguous split, so that
// its small grids reach every GPU: at the matrices' scales MGPUSim's split,
// which fills 64 CUs' worth of workgroups per GPU, keeps most grids on
// fewer GPUs than the run has (25 of the 47 workloads whose kernels are not
// per-device at 0.01 on two GPUs, 40 at 0.02 on sixteen), and the checker
// would see no sharing there. The goldens and the paper-size runs cover
// MGPUSim's split. Not used by TestBigPagesCoherent, which needs big PTEs
// to form (sharing keeps them from forming).
func spreadAll(c *config.Config) { c.Distribution = benchmarks.SchemeContiguous }

func mustRun(t *testing.T, o Options) *Result {
	t.Helper()
	r, err := Run(o)
	if err != nil {
		t.Fatalf("%s/%s on %d GPUs: %v", o.Workload, o.Policy, o.Config.GPUs, err)
	}
	return r
}

// touches records the distinct (GPU, page) pairs a run accesses.
type touches map[[2]uint64]bool

func (t touches) Access(g int, page uint64, _ bool, _ int) { t[[2]uint64{uint64(g), page}] = true }

func TestPrivateFaultsEqualFirstTouches(t *testing.T) {
	for _, gpus := range []int{1, 2, 4} {
		seen := touches{}
		r := mustRun(t, Options{Workload: "private", Policy: "on-touch", Config: small(gpus), Observer: seen})
		if r.Totals.PageFaults != uint64(len(seen)) {
			t.Errorf("%d GPUs: %d faults, %d first touches", gpus, r.Totals.PageFaults, len(seen))
		}
		if r.Totals.MigrationsD2D != 0 || r.Totals.Invalidations != 0 {
			t.Errorf("%d GPUs: private pages moved between GPUs (%d d2d, %d invalidations)", gpus, r.Totals.MigrationsD2D, r.Totals.Invalidations)
		}
		if r.Totals.MigrationsH2D != r.Totals.PageFaults {
			t.Errorf("%d GPUs: %d faults but %d host-to-GPU migrations", gpus, r.Totals.PageFaults, r.Totals.MigrationsH2D)
		}
	}
}

func TestSpreadPrivateNeverFaults(t *testing.T) {
	c := small(4)
	c.Placement = "spread"
	r := mustRun(t, Options{Workload: "private", Policy: "on-touch", Config: c})
	if r.Totals.PageFaults != 0 || r.Totals.MigrationsH2D != 0 {
		t.Fatalf("pages placed on their only user still faulted: %d faults, %d h2d", r.Totals.PageFaults, r.Totals.MigrationsH2D)
	}
}

func TestPingpongMigrationsGrowWithAlternations(t *testing.T) {
	prev := uint64(0)
	for _, it := range []int{1, 2, 4, 8} {
		r := mustRun(t, Options{Workload: "pingpong", Policy: "on-touch", Iterations: it, Config: small(4)})
		d2d := r.Totals.MigrationsD2D
		if it > 1 && d2d <= prev {
			t.Errorf("%d alternations: %d GPU-to-GPU migrations, not more than %d", it, d2d, prev)
		}
		if it == 1 && d2d != 0 {
			t.Errorf("one pass cannot migrate between GPUs, got %d", d2d)
		}
		prev = d2d
	}
}

// TestEveryWorkloadCoherent runs every workload on 1, 2, 4 and 16 GPUs
// with the checker on: no stale read, no lost page, never two writable
// copies, and the run finishes. make test runs each workload on 2 GPUs
// under one policy, the policies taken in turn (so every workload and every
// policy runs); make test-full runs the whole matrix; every run takes the
// contiguous split (spreadAll).
func TestEveryWorkloadCoherent(t *testing.T) {
	policies := pagepolicy.Names()
	for i, w := range benchmarks.Names() {
		for _, gpus := range []int{1, 2, 4, 16} {
			for j, p := range policies {
				quick := gpus == 2 && j == i%len(policies)
				t.Run(fmt.Sprintf("%s/%dgpu/%s", w, gpus, p), func(t *testing.T) {
					if !quick {
						fullOnly(t)
					}
					t.Parallel()
					scale := 0.01
					if gpus == 16 {
						scale = 0.02
					}
					c := small(gpus)
					spreadAll(&c)
					r := mustRun(t, Options{Workload: w, Policy: p, Scale: scale, Config: c})
					if r.Totals.MemInstructions == 0 || r.SimTimeNs <= 0 {
						t.Fatalf("nothing ran: %d instructions in %.0f ns", r.Totals.MemInstructions, r.SimTimeNs)
					}
				})
			}
		}
	}
}

func TestSwitchTopologyRuns(t *testing.T) {
	c := small(4)
	c.Topology = "switch"
	r := mustRun(t, Options{Workload: "pingpong", Policy: "on-touch", Config: c})
	if r.Totals.BytesNVLink == 0 {
		t.Fatal("no traffic crossed the switch")
	}
}

func TestSameSeedByteIdentical(t *testing.T) {
	run := func() []byte {
		r := mustRun(t, Options{Workload: "mm", Policy: "on-touch", Scale: 0.02, Seed: 7, Config: small(4)})
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := run(), run()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed and config differ")
	}
	for _, field := range []string{`"seed": 7`, `"version"`, `"config"`, `"sim_time_ns"`, `"stalls_ns"`, `"per_gpu"`} {
		if !strings.Contains(string(a), field) {
			t.Errorf("result JSON lacks %s", field)
		}
	}
}

func TestFootprintOverCapacityIsAnError(t *testing.T) {
	c := small(2)
	c.GPU.Memory = 1 << 20
	_, err := Build(Options{Workload: "mt", Policy: "on-touch", Scale: 0.05, Config: c})
	if err == nil || !strings.Contains(err.Error(), "exceeds the total GPU memory") {
		t.Fatalf("want a capacity error, got %v", err)
	}
}
