package config

import (
	"math"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

func TestValidateAcceptsDefaults(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
}

func TestValidateAcceptsVariants(t *testing.T) {
	tests := []struct {
		name string
		mut  func(*Config)
	}{
		{"one GPU", func(c *Config) { c.GPUs = 1 }},
		{"64 GPUs", func(c *Config) { c.GPUs = 64 }},
		{"large pages", func(c *Config) { c.PageSize = 2 * units.MB }},
		{"1GB pages", func(c *Config) { c.PageSize = units.GB }},
		{"page equals line", func(c *Config) { c.PageSize = 64 }},
		{"spread switch", func(c *Config) { c.Placement, c.Topology = "spread", "switch" }},
		{"contiguous", func(c *Config) { c.Distribution = "contiguous" }},
		{"round-robin", func(c *Config) { c.Distribution = "round-robin" }},
		{"2MB groups", func(c *Config) { c.Policy.ACGroup = 2 * units.MB }},
		{"zero latencies", func(c *Config) {
			c.KernelLaunchNs, c.GPU.L2Cycles, c.Topology, c.Link.SwitchLatencyNs = 0, 0, "switch", 0
		}},
		{"pcie rtt", func(c *Config) { c.Link.PCIeModel, c.Link.PCIeGBps, c.Link.PCIeRTTNs = "rtt", 16, 1000 }},
		{"pcie rtt zero", func(c *Config) { c.Link.PCIeModel, c.Link.PCIeRTTNs = "rtt", 0 }},
		{"pcie uvmsmart", func(c *Config) { c.Link.PCIeModel, c.Link.PCIeCurveA = "uvmsmart", 12 }},
		{"pcie oneway", func(c *Config) { c.Link.PCIeModel = "oneway" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.mut(&c)
			if err := c.Validate(); err != nil {
				t.Errorf("Validate() = %v", err)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		mut  func(*Config)
		want string // substring of the error; always starts with the key
	}{
		{"no GPUs", func(c *Config) { c.GPUs = 0 }, "gpus = 0: must be between 1 and 64"},
		{"too many GPUs", func(c *Config) { c.GPUs = 65 }, "gpus = 65: must be between 1 and 64"},
		{"page not power of two", func(c *Config) { c.PageSize = 3 * units.KB }, "page_size = 3KB: must be a power of two"},
		{"page zero", func(c *Config) { c.PageSize = 0 }, "page_size = 0: must be a power of two"},
		{"page below line", func(c *Config) { c.PageSize = 32 }, "page_size = 32: must be >= gpu.line_size"},
		{"page above 1GB", func(c *Config) { c.PageSize = 2 * units.GB }, "page_size = 2GB: must be <= 1GB"},
		{"placement", func(c *Config) { c.Placement = "hots" }, `placement = "hots": must be one of host, spread`},
		{"distribution", func(c *Config) { c.Distribution = "random" }, `distribution = "random": must be one of greedy, contiguous, round-robin`},
		{"topology", func(c *Config) { c.Topology = "ring" }, `topology = "ring": must be one of full, switch`},
		{"empty topology", func(c *Config) { c.Topology = "" }, `topology = "": must be one of`},
		{"negative cycles", func(c *Config) { c.GPU.L1TLBCycles = -1 }, "gpu.l1tlb_cycles = -1: must be >= 0"},
		{"negative drain", func(c *Config) { c.GPU.DrainCycles = -5 }, "gpu.drain_cycles = -5: must be >= 0"},
		{"negative level cycles", func(c *Config) { c.GMMU.LevelCycles = -100 }, "gmmu.level_cycles = -100: must be >= 0"},
		{"negative ns", func(c *Config) { c.KernelLaunchNs = -1 }, "kernel_launch_ns = -1: must be >= 0"},
		{"negative link latency", func(c *Config) { c.Link.PCIeLatencyNs = -0.5 }, "link.pcie_latency_ns = -0.5: must be >= 0"},
		{"negative header", func(c *Config) { c.Link.HeaderBytes = -1 }, "link.header_bytes = -1: must be >= 0"},
		{"NaN ns", func(c *Config) { c.UVM.FaultServiceNs = nan }, "uvm.fault_service_ns = NaN: must be a finite number"},
		{"Inf ns", func(c *Config) { c.GPU.DRAMLatencyNs = inf }, "gpu.dram_latency_ns = +Inf: must be a finite number"},
		{"zero bandwidth", func(c *Config) { c.Link.NVLinkGBps = 0 }, "link.nvlink_gbps = 0: must be a bandwidth between 0.001 and"},
		{"vanishing bandwidth", func(c *Config) { c.Link.PCIeGBps = 1e-300 }, "link.pcie_gbps = 1e-300: must be a bandwidth between"},
		{"absurd bandwidth", func(c *Config) { c.Link.NVLinkGBps = 1e12 }, "link.nvlink_gbps = 1e+12: must be a bandwidth between"},
		{"latency of years", func(c *Config) { c.UVM.PerFaultNs = 1e15 }, "uvm.per_fault_ns = 1e+15: must be at most 1e+12 ns"},
		{"absurd cycles", func(c *Config) { c.GPU.L2Cycles = 2e9 }, "gpu.l2_cycles = 2000000000: must be at most 1e+09 cycles"},
		{"absurd freq", func(c *Config) { c.GPU.FreqMHz = 1e7 }, "gpu.freq_mhz = 1e+07: must be between 1 and 100000 MHz"},
		{"negative bandwidth", func(c *Config) { c.GPU.DRAMGBps = -1 }, "gpu.dram_gbps = -1: must be a bandwidth between"},
		{"Inf bandwidth", func(c *Config) { c.Link.PCIeGBps = inf }, "link.pcie_gbps = +Inf: must be a finite number"},
		{"NaN bandwidth", func(c *Config) { c.Link.PCIeGBps = nan }, "link.pcie_gbps = NaN: must be a finite number"},
		{"zero freq", func(c *Config) { c.GPU.FreqMHz = 0 }, "gpu.freq_mhz = 0: must be between 1 and 100000 MHz"},
		{"NaN freq", func(c *Config) { c.GPU.FreqMHz = nan }, "gpu.freq_mhz = NaN: must be a finite number"},
		{"zero CUs", func(c *Config) { c.GPU.CUs = 0 }, "gpu.cus = 0: must be >= 1"},
		{"negative walkers", func(c *Config) { c.GMMU.Walkers = -2 }, "gmmu.walkers = -2: must be >= 1"},
		{"zero threshold", func(c *Config) { c.Policy.ACThreshold = 0 }, "policy.ac_threshold = 0: must be >= 1"},
		{"l1v size", func(c *Config) { c.GPU.L1VSize = 1000 }, "gpu.l1v_size = 1000: must be a positive multiple of gpu.line_size x gpu.l1v_ways (256 bytes)"},
		{"l1v size zero", func(c *Config) { c.GPU.L1VSize = 0 }, "gpu.l1v_size = 0: must be a positive multiple"},
		{"l2 size", func(c *Config) { c.GPU.L2Size = 256*units.KB + 512 }, "gpu.l2_size = 262656: must be a positive multiple of gpu.line_size x gpu.l2_ways (1024 bytes)"},
		{"l2 ways break size", func(c *Config) { c.GPU.L2Ways = 24 }, "gpu.l2_size = 256KB: must be a positive multiple of gpu.line_size x gpu.l2_ways (1536 bytes)"},
		{"l1 tlb entries", func(c *Config) { c.GPU.L1TLBEntries = 30 }, "gpu.l1tlb_entries = 30: must be a multiple of gpu.l1tlb_ways (32)"},
		{"l2 tlb entries", func(c *Config) { c.GPU.L2TLBEntries = 500 }, "gpu.l2tlb_entries = 500: must be a multiple of gpu.l2tlb_ways (16)"},
		{"pwc entries", func(c *Config) { c.GMMU.PWCEntries = 100 }, "gmmu.pwc_entries = 100: must be a multiple of gmmu.pwc_ways (8)"},
		{"line not power of two", func(c *Config) { c.GPU.LineSize = 48 }, "gpu.line_size = 48: must be a power of two"},
		{"line zero", func(c *Config) { c.GPU.LineSize = 0 }, "gpu.line_size = 0: must be a power of two"},
		{"no memory", func(c *Config) { c.GPU.Memory = 0 }, "gpu.memory = 0: must be > 0"},
		{"ac group small", func(c *Config) { c.Policy.ACGroup = 32 * units.KB }, "policy.ac_group = 32KB: must be a power of two from 64KB to 2MB"},
		{"ac group large", func(c *Config) { c.Policy.ACGroup = 4 * units.MB }, "policy.ac_group = 4MB: must be a power of two from 64KB to 2MB"},
		{"ac group not power of two", func(c *Config) { c.Policy.ACGroup = 96 * units.KB }, "policy.ac_group = 96KB: must be a power of two"},
		{"pcie model", func(c *Config) { c.Link.PCIeModel = "fixed" }, `link.pcie_model = "fixed": must be one of oneway, rtt, uvmsmart`},
		{"pcie model empty", func(c *Config) { c.Link.PCIeModel = "" }, `link.pcie_model = "": must be one of oneway, rtt, uvmsmart`},
		{"pcie model case", func(c *Config) { c.Link.PCIeModel = "RTT" }, `link.pcie_model = "RTT": must be one of`},
		{"negative rtt", func(c *Config) { c.Link.PCIeRTTNs = -1 }, "link.pcie_rtt_ns = -1: must be >= 0"},
		{"zero curve a", func(c *Config) { c.Link.PCIeCurveA = 0 }, "link.pcie_curve_a = 0: must be > 0 GiB/s"},
		{"negative curve b", func(c *Config) { c.Link.PCIeCurveB = -0.07 }, "link.pcie_curve_b = -0.07: must be > 0"},
		{"NaN curve b", func(c *Config) { c.Link.PCIeCurveB = nan }, "link.pcie_curve_b = NaN: must be a finite number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.mut(&c)
			err := c.Validate()
			if err == nil {
				t.Fatalf("Validate() = nil, want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestValidatePositiveCounts sets each must-be-positive key to 0 through Set,
// which also proves the hard-coded keys in positiveCounts exist.
func TestValidatePositiveCounts(t *testing.T) {
	for _, p := range positiveCounts {
		t.Run(p.key, func(t *testing.T) {
			c := DefaultConfig()
			if err := c.Set(p.key + "=0"); err != nil {
				t.Fatalf("positiveCounts key %q: %v", p.key, err)
			}
			if p.get(&c) != 0 {
				t.Fatalf("positiveCounts getter for %q does not read that key", p.key)
			}
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), p.key+" = 0: must be >= 1") {
				t.Errorf("Validate() = %v, want it to reject %s = 0", err, p.key)
			}
		})
	}
}

// TestValidateBySuffix checks the generic rules reach every latency and
// bandwidth key, including ones added after this test was written.
func TestValidateBySuffix(t *testing.T) {
	n := 0
	for _, k := range Keys(DefaultConfig()) {
		var val, want string
		switch {
		case strings.HasSuffix(k.Key, "_cycles") || strings.HasSuffix(k.Key, "_ns"):
			val, want = "-1", k.Key+" = -1: must be >= 0"
		case strings.HasSuffix(k.Key, "_gbps"):
			val, want = "0", k.Key+" = 0: must be a bandwidth between"
		default:
			continue
		}
		n++
		c := DefaultConfig()
		if err := c.Set(k.Key + "=" + val); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() with %s=%s = %v, want %q", k.Key, val, err, want)
		}
	}
	if n < 10 {
		t.Errorf("only %d latency/bandwidth keys found; suffix rules look broken", n)
	}
}

func TestValidateReportsAll(t *testing.T) {
	c := DefaultConfig()
	c.GPUs = 0
	c.Topology = "ring"
	c.GPU.L2Cycles = -1
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	for _, key := range []string{"gpus = 0", "topology = ", "gpu.l2_cycles = -1"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("Validate() = %q, missing %q", err, key)
		}
	}
	if got := strings.Count(err.Error(), "\n") + 1; got != 3 {
		t.Errorf("Validate() reported %d problems, want 3:\n%v", got, err)
	}
}
