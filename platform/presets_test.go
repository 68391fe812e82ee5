package platform

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
)

// configsDir holds the shipped config files, seen from this package
// (config's tests check that they load, validate and cite their sources).
const configsDir = "../configs"

// TestPresetsRun simulates a small workload on each preset, and checks that
// the PCIe model reaches the link: with rtt, a 1 us RTT is the one-way
// model with 500 ns of latency, to the bit, and a longer RTT is slower.
func TestPresetsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("preset runs: skipped in -short")
	}
	run := func(t *testing.T, c config.Config) *Result {
		t.Helper()
		r, err := Run(Options{Workload: "mm", Policy: "on-touch", Seed: 1, Scale: 0.03, Config: c})
		if err != nil {
			t.Fatal(err)
		}
		if r.SimTimeNs <= 0 || r.Totals.PageFaults == 0 {
			t.Fatalf("sim time %v ns, %d page faults: the run did nothing", r.SimTimeNs, r.Totals.PageFaults)
		}
		return r
	}
	sch := loadResultSchema(t)
	presets, err := filepath.Glob(filepath.Join(configsDir, "*.yaml"))
	if err != nil || len(presets) < 3 {
		t.Fatalf("the presets in %s: %v, %v", configsDir, presets, err)
	}
	for _, path := range presets {
		name := filepath.Base(path)
		if name == "oasis-4gpu.yaml" {
			continue // every key at its default: the runs of every other test
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := config.LoadConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := run(t, c).WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(decodeInstance(t, b.Bytes())); err != nil {
				t.Errorf("the result does not match %s:\n%v", resultSchemaPath, err)
			}
		})
	}
	t.Run("rtt wiring", func(t *testing.T) {
		t.Parallel()
		c, err := config.LoadConfig(filepath.Join(configsDir, "gtx1080ti.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		rtt := run(t, c)
		same := c
		same.Link.PCIeModel, same.Link.PCIeLatencyNs = "oneway", 500
		if r := run(t, same); r.SimTimeNs != rtt.SimTimeNs || r.Totals != rtt.Totals {
			t.Errorf("rtt with a 1000 ns RTT ran %v ns, oneway with 500 ns %v ns; they are the same model", rtt.SimTimeNs, r.SimTimeNs)
		}
		longer := c
		longer.Link.PCIeRTTNs = 4000
		if r := run(t, longer); !(r.SimTimeNs > rtt.SimTimeNs) {
			t.Errorf("a 4 us RTT ran %v ns, not longer than 1 us's %v ns: the PCIe link ignores link.pcie_model", r.SimTimeNs, rtt.SimTimeNs)
		}
		curve := c
		curve.Link.PCIeModel, curve.Link.PCIeCurveA = "uvmsmart", 12
		curve.Link.PCIeGBps = config.DefaultConfig().Link.PCIeGBps // the curve's 16 GB/s is its a = 12
		if r := run(t, curve); r.SimTimeNs == rtt.SimTimeNs {
			t.Errorf("uvmsmart ran exactly as long as rtt (%v ns): the PCIe link ignores link.pcie_model", r.SimTimeNs)
		}
	})
}
