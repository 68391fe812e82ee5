package platform

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/pagepolicy"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden from the current simulator")

// goldenJSON is a run's result as the golden files hold it: the whole JSON
// minus the version, which changes with every commit.
func goldenJSON(t *testing.T, o Options) []byte {
	t.Helper()
	r, err := Run(o)
	if err != nil {
		t.Fatalf("%s/%s: %v", o.Workload, o.Policy, err)
	}
	r.Version = ""
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// compareGolden checks got against testdata/golden/name, or rewrites it
// under -update-golden.
func compareGolden(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	if *updateGolden {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./platform -run Golden -update-golden to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: result differs from the golden file (%d vs %d bytes); a refactor must keep results byte-identical, a model change must say why and regenerate with -update-golden",
			name, len(got), len(want))
	}
}

// fourGPUs is the default config on 4 GPUs, changed by set if given.
func fourGPUs(set func(*config.Config)) config.Config {
	c := config.DefaultConfig()
	c.GPUs = 4
	if set != nil {
		set(&c)
	}
	return c
}

// goldenCase runs o as a parallel subtest and compares it with
// dir/name.json; gate, if not nil, may skip the subtest first.
func goldenCase(t *testing.T, dir, name string, o Options, gate func(*testing.T)) {
	t.Run(name, func(t *testing.T) {
		if gate != nil {
			gate(t)
		}
		t.Parallel()
		compareGolden(t, dir, name+".json", goldenJSON(t, o))
	})
}

// paperWorkloads are OASIS's eleven applications (Table II).
var paperWorkloads = []string{"bfs", "c2d", "fft", "i2c", "mm", "mt", "pr", "st", "lenet", "vgg16", "resnet18"}

// goldenShortPolicies are the policies every other workload runs under in
// make test: the baseline and the policy with the most paths.
var goldenShortPolicies = map[string]bool{"on-touch": true, "oasis": true}

// TestGoldenResults runs every workload under every policy at a small
// scale on 4 GPUs and compares the whole result with the stored one. It is
// the proof that a refactor changed no number. make test runs OASIS's
// eleven applications and the synthetic patterns under every policy, and
// the other suites' workloads (the oversubscription papers', GRIT's) under
// on-touch and OASIS, which covers their generators; make test-full runs
// the rest of the matrix. Those workloads under all seven policies were
// 85% of the suite's time.
func TestGoldenResults(t *testing.T) {
	if testing.Short() {
		t.Skip("golden results: skipped in -short")
	}
	long := func(t *testing.T) {
		if !*updateGolden {
			fullOnly(t)
		}
	}
	every := map[string]bool{}
	for _, w := range paperWorkloads {
		every[w] = true
	}
	for _, w := range benchmarks.Names() {
		wl, err := benchmarks.New(w)
		if err != nil {
			t.Fatal(err)
		}
		whole := every[w] || wl.Info().Suite == benchmarks.SuiteSynthetic
		for _, p := range pagepolicy.Names() {
			var gate func(*testing.T)
			if !whole && !goldenShortPolicies[p] {
				gate = long
			}
			goldenCase(t, "testdata/golden", w+"_"+p, Options{Workload: w, Policy: p, Seed: 1, Scale: 0.05, Config: fourGPUs(nil)}, gate)
		}
	}
}

// TestGoldenPaperRuns compares the full-size fig15 runs (Table II sizes,
// 4 GPUs, seed 1). It takes several minutes, so it runs only when
// MGPU_GOLDEN_FULL=1 (make golden-full).
func TestGoldenPaperRuns(t *testing.T) {
	if os.Getenv("MGPU_GOLDEN_FULL") != "1" {
		t.Skip("full-size golden runs: set MGPU_GOLDEN_FULL=1 (make golden-full)")
	}
	for _, w := range paperWorkloads {
		for _, p := range []string{"on-touch", "access-counter", "duplication", "oasis", "oasis-inmem", "ideal"} {
			goldenCase(t, "testdata/golden-full", w+"_"+p, Options{Workload: w, Policy: p, Seed: 1, Scale: 1, Config: fourGPUs(nil)}, nil)
		}
	}
}

// TestGoldenVariants covers the paths the defaults do not take: eviction,
// 2 MB pages, spread placement over a switch, 16 GPUs, 2 MB counter groups.
// make test compares every variant under every policy on pingpong and
// lenet; mt and pr, the longest runs, are make test-full's (-update-golden
// rewrites them all).
func TestGoldenVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("golden results: skipped in -short")
	}
	variants := []struct {
		name string
		set  func(*config.Config)
	}{
		{"oversub-lrm", func(c *config.Config) { c.Oversubscribe = 1.5 }},
		{"oversub-lru", func(c *config.Config) { c.Oversubscribe = 3; c.UVM.Eviction = "lru-4kb" }},
		{"page2mb", func(c *config.Config) { c.PageSize = 2 << 20 }},
		{"spread-switch", func(c *config.Config) { c.Placement = "spread"; c.Topology = "switch" }},
		{"gpus16", func(c *config.Config) { c.GPUs = 16 }},
		{"acgroup2mb", func(c *config.Config) { c.Policy.ACGroup = 2 << 20 }}, // read by access-counter, oasis and grit only
		// dated sends handed to the links at once (the fidelity ablation's
		// steps 0 to 10): a shootdown's acknowledgement is booked on PCIe as
		// the shootdown starts, dated when the GPU's drain ends
		{"reserve", func(c *config.Config) { c.Link.FutureSends = interconnect.FutureReserve }},
	}
	for _, v := range variants {
		for _, w := range []string{"mt", "pr", "pingpong", "lenet"} {
			long := w == "mt" || w == "pr"
			for _, p := range []string{"on-touch", "access-counter", "duplication", "oasis", "grit"} {
				name := v.name + "_" + w + "_" + p
				o := Options{Workload: w, Policy: p, Seed: 1, Scale: 0.05, Config: fourGPUs(v.set)}
				if checkReads(o) != nil {
					continue // the policy ignores the variant's key: the default run covers it
				}
				t.Run(name, func(t *testing.T) {
					if long && !*updateGolden {
						fullOnly(t)
					}
					t.Parallel()
					compareGolden(t, "testdata/golden-variants", name+".json", goldenJSON(t, o))
				})
			}
		}
	}
}
