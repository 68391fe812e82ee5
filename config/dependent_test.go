package config

import (
	"slices"
	"strings"
	"testing"
)

// Every key the rule tables name is a config key: a renamed key would
// otherwise leave its rule checking nothing.
func TestRuleTablesNameRealKeys(t *testing.T) {
	r, err := rules()
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	for i, d := range dependencies() {
		if len(r.keys[i]) == 0 {
			t.Errorf("dependency %d (%v) has no keys", i, d.keys)
		}
		for _, k := range append(slices.Clone(r.keys[i]), d.while) {
			if _, err := c.Get(k); err != nil {
				t.Errorf("dependency %v: %v", d.keys, err)
			}
		}
		if d.use == "" {
			t.Errorf("dependency %v says not what turns it on", d.keys)
		}
		// The default config keeps its defaults, so no dependency can
		// reject it; but a key whose feature is on by default must not be
		// listed as depending on a feature that is always off.
	}
	for _, q := range requirements() {
		if _, err := c.Get(q.key); err != nil {
			t.Errorf("requirement: %v", err)
		}
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("the default config: %v", err)
	}
}

// dependentCases give each a config where a key is given while the feature
// that uses it is off: Validate names the key, and the key and value whose
// setting leaves it without effect.
var dependentCases = []struct {
	name  string
	sets  []string
	key   string // the key reported
	while string // "<enabling key> = <its value>"
}{
	{"threshold, prefetch off", []string{"uvm.prefetch.threshold=75"}, "uvm.prefetch.threshold", `uvm.prefetch.policy = "off"`},
	{"threshold, sequential-local", []string{"uvm.prefetch.policy=sequential-local", "uvm.prefetch.threshold=1"}, "uvm.prefetch.threshold", `uvm.prefetch.policy = "sequential-local"`},
	{"big page fill, prefetch off", []string{"uvm.prefetch.big_page_fill=false"}, "uvm.prefetch.big_page_fill", `uvm.prefetch.policy = "off"`},
	{"va block, prefetch off", []string{"uvm.prefetch.va_block_size=4MB"}, "uvm.prefetch.va_block_size", `uvm.prefetch.policy = "off"`},
	{"block, nothing uses it", []string{"uvm.prefetch.block_size=128KB"}, "uvm.prefetch.block_size", `uvm.prefetch.policy = "off"`},
	{"threshold under Early-Adaptor", []string{"uvm.prefetch.policy=tbn", "uvm.prefetch_control=early-adaptor", "uvm.prefetch.threshold=75"},
		"uvm.prefetch.threshold", `uvm.prefetch_control = "early-adaptor"`},
	{"threshold under ObservUVM", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.prefetch.threshold=75"},
		"uvm.prefetch.threshold", `uvm.adaptive = "observuvm"`},
	{"EA key, EA off", []string{"uvm.ea.step=10"}, "uvm.ea.step", `uvm.prefetch_control = "none"`},
	{"EA key, EA off, prefetch on", []string{"uvm.prefetch.policy=tbn", "uvm.ea.mode=static"}, "uvm.ea.mode", `uvm.prefetch_control = "none"`},
	{"EA static threshold, adaptive mode", []string{"uvm.prefetch.policy=tbn", "uvm.prefetch_control=early-adaptor", "uvm.ea.static_threshold=25"},
		"uvm.ea.static_threshold", `uvm.ea.mode = "adaptive"`},
	{"EA window, static mode", []string{"uvm.prefetch.policy=tbn", "uvm.prefetch_control=early-adaptor", "uvm.ea.mode=static", "uvm.ea.short_window_ns=1000"},
		"uvm.ea.short_window_ns", `uvm.ea.mode = "static"`},
	{"UVMMU key, software handling", []string{"uvm.uvmmu.dcq_entries=32"}, "uvm.uvmmu.dcq_entries", `uvm.fault_handling = "software"`},
	{"host cost, hardware handling", []string{"uvm.fault_handling=hardware", "uvm.per_fault_ns=2000"}, "uvm.per_fault_ns", `uvm.fault_handling = "hardware"`},
	{"host threads, hardware handling", []string{"uvm.fault_handling=hardware", "uvm.host_threads=4"}, "uvm.host_threads", `uvm.fault_handling = "hardware"`},
	{"census, hardware handling", []string{"uvm.fault_handling=hardware", "uvm.eviction_census=true"}, "uvm.eviction_census", `uvm.fault_handling = "hardware"`},
	{"per-fault charge, host threads", []string{"uvm.per_fault_charge=new-pages"}, "uvm.per_fault_charge", `uvm.host_threads = 16`},
	{"thrashing key, thrashing off", []string{"uvm.thrashing_threshold=5"}, "uvm.thrashing_threshold", "uvm.thrashing = false"},
	{"eviction under ObservUVM", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.eviction=lru-4kb"}, "uvm.eviction", `uvm.adaptive = "observuvm"`},
	{"chunk, page eviction", []string{"uvm.eviction=lru-4kb", "uvm.eviction_chunk=4MB"}, "uvm.eviction_chunk", `uvm.eviction = "lru-4kb"`},
	{"UVMSmart key, off", []string{"uvm.uvmsmart.migrate_threshold=4"}, "uvm.uvmsmart.migrate_threshold", `uvm.adaptive = "none"`},
	{"SUV key, off", []string{"uvm.suv.ac_threshold=64"}, "uvm.suv.ac_threshold", `uvm.adaptive = "none"`},
	{"Griffin key, off", []string{"uvm.griffin.epoch_ns=50000"}, "uvm.griffin.epoch_ns", `uvm.adaptive = "none"`},
	{"SUV density under SC", []string{"uvm.adaptive=sc", "uvm.suv.density_threshold=1"}, "uvm.suv.density_threshold", `uvm.adaptive = "sc"`},
	{"ObservUVM key, off", []string{"uvm.observuvm.samples=2"}, "uvm.observuvm.samples", `uvm.adaptive = "none"`},
	{"tournament key, LRU", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.policy=lru", "uvm.observuvm.tournament_factor=1.5"},
		"uvm.observuvm.tournament_factor", `uvm.observuvm.policy = "lru"`},
	{"LFU key, CP", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.policy=cp", "uvm.observuvm.lfu_bins=8"},
		"uvm.observuvm.lfu_bins", `uvm.observuvm.policy = "cp"`},
	{"LFU key, tournament without LFU", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.tournament_policies=lru,cp", "uvm.observuvm.lfu_bins=8"},
		"uvm.observuvm.lfu_bins", `uvm.observuvm.tournament_policies = "lru,cp"`},
	{"CP key, LFU", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.policy=lfu", "uvm.observuvm.cp_step=2"},
		"uvm.observuvm.cp_step", `uvm.observuvm.policy = "lfu"`},
	{"CP key, tournament without CP", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.tournament_policies=lru,lfu", "uvm.observuvm.cp_victim=tail"},
		"uvm.observuvm.cp_victim", `uvm.observuvm.tournament_policies = "lru,lfu"`},
	{"TBP threshold, AP", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.shallow=ap", "uvm.observuvm.tbp_threshold=40"},
		"uvm.observuvm.tbp_threshold", `uvm.observuvm.shallow = "ap"`},
	{"AP threshold, TBP", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.ap_threshold=10"},
		"uvm.observuvm.ap_threshold", `uvm.observuvm.shallow = "tbp"`},
	{"FDP key, TBP", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.fdp_ratio=0.5"},
		"uvm.observuvm.fdp_ratio", `uvm.observuvm.shallow = "tbp"`},
	{"RGP key, no RGP", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.rgp_window=4"},
		"uvm.observuvm.rgp_window", `uvm.observuvm.deep = "none"`},
	{"adaptive sampling key, fixed samples", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.adaptive_samples=false", "uvm.observuvm.monitor_set=50"},
		"uvm.observuvm.monitor_set", "uvm.observuvm.adaptive_samples = false"},
	{"counter threshold, UVMSmart counts", []string{"uvm.adaptive=uvmsmart", "policy.ac_threshold=64"},
		"policy.ac_threshold", `uvm.adaptive = "uvmsmart"`},
	{"counter group, SUV counts", []string{"uvm.prefetch.policy=tbn", "uvm.adaptive=suv", "policy.ac_group=2MB"},
		"policy.ac_group", `uvm.adaptive = "suv"`},
	{"topology, one GPU", []string{"gpus=1", "topology=switch"}, "topology", "gpus = 1"},
	{"NVLink, one GPU", []string{"gpus=1", "link.nvlink_gbps=100"}, "link.nvlink_gbps", "gpus = 1"},
	{"switch latency, full", []string{"link.switch_latency_ns=50"}, "link.switch_latency_ns", `topology = "full"`},
	{"PCIe latency, rtt", []string{"link.pcie_model=rtt", "link.pcie_latency_ns=300"}, "link.pcie_latency_ns", `link.pcie_model = "rtt"`},
	{"PCIe rtt, oneway", []string{"link.pcie_rtt_ns=2000"}, "link.pcie_rtt_ns", `link.pcie_model = "oneway"`},
	{"PCIe switches, pairs", []string{"link.pcie_topology=pairs", "link.pcie_switch_latency_ns=100"}, "link.pcie_switch_latency_ns", `link.pcie_topology = "pairs"`},
	{"PCIe fanout, pairs", []string{"link.pcie_topology=pairs", "link.pcie_gpus_per_switch=4"}, "link.pcie_gpus_per_switch", `link.pcie_topology = "pairs"`},
	{"PCIe curve, oneway", []string{"link.pcie_curve_a=12"}, "link.pcie_curve_a", `link.pcie_model = "oneway"`},
	{"PCIe bandwidth, curve", []string{"link.pcie_model=uvmsmart", "link.pcie_gbps=16"}, "link.pcie_gbps", `link.pcie_model = "uvmsmart"`},
}

func configWith(t *testing.T, sets ...string) Config {
	t.Helper()
	c := DefaultConfig()
	for _, kv := range sets {
		if err := c.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestDependentKeyWithoutEffectIsAnError(t *testing.T) {
	for _, tc := range dependentCases {
		t.Run(tc.name, func(t *testing.T) {
			c := configWith(t, tc.sets...)
			err := c.Validate()
			if err == nil {
				t.Fatal("accepted")
			}
			want := tc.key + " = "
			var line string
			for _, l := range strings.Split(err.Error(), "\n") {
				if strings.HasPrefix(l, want) && strings.Contains(l, "has no effect") {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("no 'has no effect' error for %s:\n%v", tc.key, err)
			}
			if !strings.Contains(line, "has no effect while "+tc.while+"; set ") || !strings.Contains(line, " to use it") {
				t.Errorf("%q does not say 'while %s; set ... to use it'", line, tc.while)
			}
			if c.InEffect(tc.key) {
				t.Errorf("InEffect(%s) = true", tc.key)
			}
		})
	}
}

// Every dependency in the table has a case above that trips it.
func TestEveryDependencyHasACase(t *testing.T) {
	r, err := rules()
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dependencies() {
		found := false
		for _, tc := range dependentCases {
			if slices.Contains(r.keys[i], tc.key) && strings.HasPrefix(tc.while, d.while+" = ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no case trips the dependency of %v on %s", d.keys, d.while)
		}
	}
}

// A dependent key is fine at its default whatever its feature, and fine
// at any valid value with its feature on.
func TestDependentKeyAcceptedWhereItActs(t *testing.T) {
	for _, sets := range [][]string{
		{"uvm.prefetch.threshold=51"}, // its default, prefetch off
		{"uvm.ea.step=25", "uvm.uvmmu.dcq_entries=64", "topology=full", "link.pcie_rtt_ns=1000"},
		{"uvm.prefetch.policy=tbn", "uvm.prefetch.threshold=75", "uvm.prefetch.big_page_fill=false", "uvm.prefetch.va_block_size=4MB"},
		{"uvm.prefetch.policy=sequential-local", "uvm.prefetch.block_size=128KB"},
		{"oversubscribe=1.5", "uvm.eviction=tbn", "uvm.prefetch.block_size=128KB", "uvm.eviction_chunk=4MB"},
		{"uvm.adaptive=uvmsmart", "uvm.eviction=lru-4kb", "uvm.eviction_chunk=4MB", "uvm.prefetch.block_size=128KB", "uvm.uvmsmart.migrate_threshold=4"},
		{"uvm.prefetch.policy=tbn", "uvm.prefetch_control=early-adaptor", "uvm.ea.step=10", "uvm.ea.short_window_ns=1000"},
		{"uvm.prefetch.policy=tbn", "uvm.prefetch_control=early-adaptor", "uvm.ea.mode=static", "uvm.ea.static_threshold=25", "uvm.ea.detect=capacity"},
		{"uvm.fault_handling=hardware", "uvm.uvmmu.dcq_entries=128", "uvm.eviction=linear-random", "uvm.fault_batch=64"},
		{"uvm.thrashing=true", "uvm.thrashing_threshold=5", "uvm.thrashing_lapse_ns=1e6"},
		{"uvm.adaptive=suv", "uvm.suv.density_threshold=1", "uvm.suv.ac_threshold=64"},
		{"uvm.adaptive=sc", "uvm.suv.ac_threshold=64"},
		{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.lfu_bins=8", "uvm.observuvm.cp_step=2", "uvm.observuvm.tournament_factor=1.5"},
		{"uvm.prefetch.policy=tbn", "uvm.adaptive=observuvm", "uvm.observuvm.shallow=fdp", "uvm.observuvm.deep=rgp", "uvm.observuvm.fdp_ratio=0.5",
			"uvm.observuvm.tbp_threshold=40", "uvm.observuvm.ap_threshold=10", "uvm.observuvm.rgp_window=4", "uvm.observuvm.monitor_set=50"},
		{"uvm.adaptive=observuvm", "uvm.observuvm.shallow=off", "uvm.observuvm.policy=lru", "uvm.observuvm.adaptive_samples=false", "uvm.observuvm.samples=8",
			"uvm.observuvm.observed_regions=250"}, // fixed samples need no max_samples; idle budgets hold no counters
		{"gpus=2", "topology=switch", "link.switch_latency_ns=50", "link.nvlink_gbps=100"},
		{"link.pcie_model=rtt", "link.pcie_rtt_ns=2000", "link.pcie_gbps=16"},
		{"link.pcie_gpus_per_switch=4", "link.pcie_switch_latency_ns=0"},
		{"link.pcie_model=uvmsmart", "link.pcie_curve_a=12"},
	} {
		if err := configWith(t, sets...).Validate(); err != nil {
			t.Errorf("%v: %v", sets, err)
		}
	}
}

// A requirement unmet is reported once, on the feature's key, whatever the
// keys it drags in: ObservUVM without the tree prefetcher is rejected as
// Early-Adaptor without it is.
func TestRequirements(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"uvm.prefetch_control=early-adaptor"}, `uvm.prefetch_control = "early-adaptor": steers the tree prefetcher: set uvm.prefetch.policy=tbn`},
		{[]string{"uvm.adaptive=observuvm"}, `uvm.observuvm.shallow = "tbp": sets the tree prefetcher's threshold: set uvm.prefetch.policy=tbn`},
		{[]string{"uvm.fault_handling=hardware", "uvm.prefetch.policy=tbn"}, `uvm.fault_handling = "hardware": has no prefetcher`},
		{[]string{"uvm.fault_handling=hardware", "page_size=2MB"}, `uvm.fault_handling = "hardware": moves 4KB pages: set page_size=4KB`},
		{[]string{"uvm.fault_handling=hardware", "placement=spread"}, `set placement=host`},
		{[]string{"uvm.fault_handling=hardware", "uvm.adaptive=suv"}, `uvm.adaptive = "suv": plans for the driver's software fault handling`},
		{[]string{"uvm.fault_handling=hardware", "uvm.adaptive=uvmsmart"}, `uvm.adaptive = "uvmsmart": adapts the driver's software fault handling`},
	} {
		err := configWith(t, tc.sets...).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.sets, err, tc.want)
		}
	}
	// A key that is itself wrong is reported as wrong, not also as
	// without effect ("while gpus = 0").
	err := configWith(t, "gpus=0", "topology=ring").Validate()
	if err == nil || strings.Contains(err.Error(), "no effect") {
		t.Errorf("%v", err)
	}
}
