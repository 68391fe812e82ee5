package suv

import (
	"math"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

func TestDefaultConfigIsThePapers(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.DensityThreshold != 5 || c.TemporalCutoff != 0.5 || c.BatchBytes != 2*units.MB || c.ConcurrentFraction != 0.5 {
		t.Fatalf("defaults %+v: want threshold 5, cutoff 0.5, batch 2MB, concurrent 0.5", c)
	}
	if got := c.ForPageSize(2 * units.MB).PageSize; got != 2*units.MB {
		t.Fatalf("ForPageSize: page %v", got)
	}
}

func TestConfigValidateNamesTheKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string // "" = valid
	}{
		{"threshold 0", func(c *Config) { c.DensityThreshold = 0 }, "uvm.suv.density_threshold 0"},
		{"threshold negative", func(c *Config) { c.DensityThreshold = -5 }, "uvm.suv.density_threshold -5"},
		{"threshold NaN", func(c *Config) { c.DensityThreshold = math.NaN() }, "uvm.suv.density_threshold NaN"},
		{"threshold Inf", func(c *Config) { c.DensityThreshold = math.Inf(1) }, "uvm.suv.density_threshold +Inf"},
		{"threshold tiny", func(c *Config) { c.DensityThreshold = 1e-9 }, ""},
		{"sparse temporal host", func(c *Config) { c.SparseTemporal = SparseHost }, ""},
		{"sparse temporal unknown", func(c *Config) { c.SparseTemporal = "dram" }, `uvm.suv.sparse_temporal "dram": must be hbm or host`},
		{"sparse temporal empty", func(c *Config) { c.SparseTemporal = "" }, `uvm.suv.sparse_temporal "": must be hbm or host`},
		{"sparse beside chase hbm", func(c *Config) { c.SparseBesideChase = SparseHBM }, ""},
		{"sparse beside chase bad", func(c *Config) { c.SparseBesideChase = "dram" }, `uvm.suv.sparse_beside_chase "dram": must be hbm or host`},
		{"unknown faults remote", func(c *Config) { c.UnknownFault = UnknownRemote }, ""},
		{"unknown faults bad", func(c *Config) { c.UnknownFault = "pin" }, `uvm.suv.unknown_fault "pin": must be migrate or remote`},
		{"cutoff 0", func(c *Config) { c.TemporalCutoff = 0 }, "uvm.suv.temporal_cutoff 0: must be in (0, 1]"},
		{"cutoff over 1", func(c *Config) { c.TemporalCutoff = 1.0001 }, "uvm.suv.temporal_cutoff 1.0001"},
		{"cutoff negative", func(c *Config) { c.TemporalCutoff = -0.5 }, "uvm.suv.temporal_cutoff -0.5"},
		{"cutoff NaN", func(c *Config) { c.TemporalCutoff = math.NaN() }, "uvm.suv.temporal_cutoff NaN"},
		{"cutoff 1", func(c *Config) { c.TemporalCutoff = 1 }, ""},
		{"concurrent 0", func(c *Config) { c.ConcurrentFraction = 0 }, "uvm.suv.concurrent_fraction 0"},
		{"concurrent 2", func(c *Config) { c.ConcurrentFraction = 2 }, "uvm.suv.concurrent_fraction 2"},
		{"batch 0", func(c *Config) { c.BatchBytes = 0 }, "uvm.suv.batch_bytes 0"},
		{"batch 2TB", func(c *Config) { c.BatchBytes = 2 * units.TB }, "uvm.suv.batch_bytes"},
		{"page 3000", func(c *Config) { c.PageSize = 3000 }, "page size 3000"},
		{"page 0", func(c *Config) { c.PageSize = 0 }, "page size 0"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestPlannersRejectBadConfigAndAvail(t *testing.T) {
	c := DefaultConfig()
	c.TemporalCutoff = 0
	objs := []Object{{"A", 4096}}
	hs := Hints{{Object: "A", Density: 1}}
	if _, err := PlanLaunch(c, 1<<20, objs, hs); err == nil || !strings.Contains(err.Error(), "temporal_cutoff") {
		t.Errorf("PlanLaunch: %v", err)
	}
	if _, err := PlanSC(c, 1<<20, objs, hs); err == nil || !strings.Contains(err.Error(), "temporal_cutoff") {
		t.Errorf("PlanSC: %v", err)
	}
	if _, err := PlanLaunch(DefaultConfig(), -1, objs, hs); err == nil || !strings.Contains(err.Error(), "available HBM -1") {
		t.Errorf("negative HBM: %v", err)
	}
}
