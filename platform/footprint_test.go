package platform

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/units"
)

// An absurd footprint under oversubscription, which lifts the GPU memory
// check, fails with a message before the page tables are allocated (it
// died in the allocation with a Go stack trace).
func TestBuildRejectsAbsurdFootprint(t *testing.T) {
	c := config.DefaultConfig()
	c.GPUs = 1
	c.Oversubscribe = 1.5
	_, err := Build(Options{Workload: "mt", Policy: "on-touch", Scale: 1e6, Config: c})
	if err == nil || !strings.Contains(err.Error(), "lower --scale") {
		t.Fatalf("Build at scale 1e6: %v, want an error saying to lower --scale", err)
	}
}

// Capacity errors speak in units and give advice that fits the case.
func TestCapacityMessages(t *testing.T) {
	for _, c := range []struct {
		mem, page units.Bytes
		over      float64
		want      []string
	}{
		{1, 4 * units.KB, 0, []string{"total GPU memory 4B", "31.69MB"}},
		{units.MB, units.GB, 0, []string{"exceeds the total GPU memory 4.00MB"}},
		{units.GB, units.GB, 1.5, []string{"less than one 1.00GB page", "lower --oversubscribe"}},
		{16 * units.MB, units.GB, 0, []string{"less than one 1.00GB page", "raise gpu.memory or lower page_size"}},
	} {
		cfg := config.DefaultConfig()
		cfg.GPU.Memory, cfg.PageSize, cfg.Oversubscribe = c.mem, c.page, c.over
		_, err := Build(Options{Workload: "mm", Policy: "on-touch", Config: cfg})
		if err == nil {
			t.Fatalf("%+v: no error", c)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: missing %q", err, w)
			}
		}
	}
}
