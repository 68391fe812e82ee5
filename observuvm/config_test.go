package observuvm

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

func TestDefaultConfigIsThePapers(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Counters != 256 || c.CounterThreshold != 1 || c.ObservedRegions != 100 || c.Samples != 1 ||
		c.MonitorSet != 100 || c.RefaultRaise != 0.5 || c.QuietLower != 0.8 || c.TournamentFactor != 1.2 ||
		c.TBPThreshold != 51 || c.APThreshold != 1 || c.FDPRatio != 0.8 ||
		c.SampleSize != 64*units.KB || c.RegionSize != 2*units.MB {
		t.Errorf("default %+v differs from the paper's constants", c)
	}
	if !reflect.DeepEqual(c.Constituents(), []string{LRU, LFU, CP}) {
		t.Errorf("tournament policies %v", c.TournamentPolicies)
	}
}

// Every field but the run's seed has a yaml key and a doc tag, and silent
// choices say so.
func TestConfigTags(t *testing.T) {
	ty := reflect.TypeOf(Config{})
	for i := range ty.NumField() {
		f := ty.Field(i)
		if f.Tag.Get("yaml") == "-" {
			continue
		}
		if f.Tag.Get("yaml") == "" || f.Tag.Get("doc") == "" {
			t.Errorf("field %s lacks a yaml or doc tag", f.Name)
		}
	}
}

func TestValidate(t *testing.T) {
	with := func(f func(*Config)) Config { c := DefaultConfig(); f(&c); return c }
	for _, c := range []struct {
		name, want string // want: a substring of the error, "" for none
		cfg        Config
	}{
		{"default", "", DefaultConfig()},
		{"2MB granularity", "", with(func(c *Config) { c.CounterGranularity = 2 * units.MB })},
		{"1GB granularity", "", with(func(c *Config) { c.CounterGranularity = units.GB })},
		{"tail cp", "", with(func(c *Config) { c.CPVictim = CPTail })},
		{"budget 0", "observuvm.observed_regions 0: must be in 1..256", with(func(c *Config) { c.ObservedRegions = 0 })},
		{"budget < 0", "observuvm.observed_regions -5", with(func(c *Config) { c.ObservedRegions = -5 })},
		{"budget > counters", "observuvm.observed_regions 300: must be in 1..256", with(func(c *Config) { c.ObservedRegions = 300 })},
		{"budgets sum > counters", "observed_regions + feedback_regions + trigger_regions = 266", with(func(c *Config) { c.FeedbackRegions = 150 })},
		{"feedback < 0", "observuvm.feedback_regions -1", with(func(c *Config) { c.FeedbackRegions = -1 })},
		{"samples 0", "observuvm.samples 0: must be in 1..4", with(func(c *Config) { c.Samples = 0 })},
		{"samples < 0", "observuvm.samples -1", with(func(c *Config) { c.Samples = -1 })},
		{"samples > max", "observuvm.samples 5", with(func(c *Config) { c.Samples = 5 })},
		{"max samples > blocks", "observuvm.max_samples 33: must be in 1..32", with(func(c *Config) { c.MaxSamples = 33 })},
		{"counters 0", "observuvm.counters 0", with(func(c *Config) { c.Counters = 0 })},
		{"counter threshold 0", "observuvm.counter_threshold 0: must be in 1..65535", with(func(c *Config) { c.CounterThreshold = 0 })},
		{"counter threshold 65536", "observuvm.counter_threshold 65536", with(func(c *Config) { c.CounterThreshold = 65536 })},
		{"granularity 4KB", "observuvm.counter_granularity 4KB: valid values are 64KB, 2MB, 16MB, 1GB", with(func(c *Config) { c.CounterGranularity = 4 * units.KB })},
		{"granularity 0", "observuvm.counter_granularity", with(func(c *Config) { c.CounterGranularity = 0 })},
		{"unknown policy", `observuvm.policy "mru": valid values are lrm, lru, lfu, cp, tournament, oracle-lru`, with(func(c *Config) { c.Policy = "mru" })},
		{"empty policy", `observuvm.policy ""`, with(func(c *Config) { c.Policy = "" })},
		{"unknown constituent", `observuvm.tournament_policies "arc"`, with(func(c *Config) { c.TournamentPolicies = LRU + ",arc" })},
		{"nested tournament", `observuvm.tournament_policies "tournament"`, with(func(c *Config) { c.TournamentPolicies = LRU + "," + Tournament })},
		{"one constituent", "observuvm.tournament_policies [lru]: need at least 2", with(func(c *Config) { c.TournamentPolicies = LRU })},
		{"duplicate constituent", `"lru" appears twice`, with(func(c *Config) { c.TournamentPolicies = "lru,lfu,lru" })},
		{"bad constituents ignored off tournament", "", with(func(c *Config) { c.Policy, c.TournamentPolicies = LRU, "" })},
		{"tournament T 0", "observuvm.tournament_threshold 0", with(func(c *Config) { c.TournamentThreshold = 0 })},
		{"factor 1", "observuvm.tournament_factor 1: must be a finite number > 1", with(func(c *Config) { c.TournamentFactor = 1 })},
		{"factor NaN", "observuvm.tournament_factor NaN", with(func(c *Config) { c.TournamentFactor = math.NaN() })},
		{"factor Inf", "observuvm.tournament_factor +Inf", with(func(c *Config) { c.TournamentFactor = math.Inf(1) })},
		{"raise 1", "observuvm.refault_raise 1: must be 0 <= x < 1", with(func(c *Config) { c.RefaultRaise = 1 })},
		{"raise < 0", "observuvm.refault_raise -0.1", with(func(c *Config) { c.RefaultRaise = -0.1 })},
		{"lower 0", "observuvm.quiet_lower 0: must be 0 < x < 1", with(func(c *Config) { c.QuietLower = 0 })},
		{"lower NaN", "observuvm.quiet_lower NaN", with(func(c *Config) { c.QuietLower = math.NaN() })},
		{"monitor 0", "observuvm.monitor_set 0", with(func(c *Config) { c.MonitorSet = 0 })},
		{"period 0", "observuvm.adapt_period 0", with(func(c *Config) { c.AdaptPeriod = 0 })},
		{"cp protected 1", "observuvm.cp_protected 1", with(func(c *Config) { c.CPProtected = 1 })},
		{"cp step 0", "observuvm.cp_step 0", with(func(c *Config) { c.CPStep = 0 })},
		{"cp victim", `observuvm.cp_victim "head": valid values are boundary, tail`, with(func(c *Config) { c.CPVictim = "head" })},
		{"tournament blame", `observuvm.tournament_blame "once": valid values are eviction, fault`, with(func(c *Config) { c.TournamentBlame = "once" })},
		{"lfu bins 0", "observuvm.lfu_bins 0", with(func(c *Config) { c.LFUBins = 0 })},
		{"shallow", `observuvm.shallow "ea": valid values are tbp, ap, off, fdp`, with(func(c *Config) { c.Shallow = "ea" })},
		{"deep", `observuvm.deep "next-line": valid values are none, rgp`, with(func(c *Config) { c.Deep = "next-line" })},
		{"tbp 0", "observuvm.tbp_threshold 0: must be in 1..100", with(func(c *Config) { c.TBPThreshold = 0 })},
		{"ap 101", "observuvm.ap_threshold 101", with(func(c *Config) { c.APThreshold = 101 })},
		{"fdp T < 0", "observuvm.fdp_threshold -1", with(func(c *Config) { c.FDPThreshold = -1 })},
		{"fdp ratio 1", "observuvm.fdp_ratio 1", with(func(c *Config) { c.FDPRatio = 1 })},
		{"rgp degree 0", "observuvm.rgp_degree 0", with(func(c *Config) { c.RGPDegree = 0 })},
		{"rgp confidence 0", "observuvm.rgp_confidence 0", with(func(c *Config) { c.RGPConfidence = 0 })},
		{"rgp window 0", "observuvm.rgp_window 0", with(func(c *Config) { c.RGPWindow = 0 })},
		{"rgp lookahead 0", "observuvm.rgp_lookahead 0", with(func(c *Config) { c.RGPLookahead = 0 })},
		{"scope", `observuvm.counter_scope "peer"`, with(func(c *Config) { c.CounterScope = "peer" })},
		{"sample size 3", "observuvm.sample_size 3 bytes: must be a power of two", with(func(c *Config) { c.SampleSize = 3 })},
		{"region smaller than sample", "observuvm.region_size 32KB", with(func(c *Config) { c.RegionSize = 32 * units.KB })},
		{"region of 128 samples", "observuvm.region_size 8MB", with(func(c *Config) { c.RegionSize = 8 * units.MB })},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("no error, want %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestPresets(t *testing.T) {
	want := map[string][3]string{
		PresetUVM:    {LRM, ShallowTBP, DeepNone},
		PresetTM:     {Tournament, ShallowTBP, DeepNone},
		PresetTMPlus: {Tournament, ShallowFDP, DeepNone},
		PresetTMPP:   {Tournament, ShallowFDP, DeepRGP},
		PresetLRU:    {LRU, ShallowOff, DeepNone},
		PresetLFU:    {LFU, ShallowOff, DeepNone},
		PresetCP:     {CP, ShallowOff, DeepNone},
		PresetTMNoPF: {Tournament, ShallowOff, DeepNone},
	}
	for _, name := range PresetNames() {
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if got := [3]string{c.Policy, c.Shallow, c.Deep}; got != want[name] {
			t.Errorf("%s: %v, want %v", name, got, want[name])
		}
	}
	if len(want) != len(PresetNames()) {
		t.Errorf("presets %v", PresetNames())
	}
	if _, err := Preset("tm+++"); err == nil || !strings.Contains(err.Error(), "valid presets are uvm, tm, tm+, tm++") {
		t.Errorf("unknown preset: %v", err)
	}
	if d, _ := Preset(PresetTMPP); !reflect.DeepEqual(d, DefaultConfig()) {
		t.Error("DefaultConfig is not TM++")
	}
}

func TestGeometry(t *testing.T) {
	c := DefaultConfig()
	for _, tc := range []struct {
		page                      uint64
		perBlock, perRegion, nblk uint64
	}{
		{4096, 16, 512, 32},
		{64 << 10, 1, 32, 32},
		{2 << 20, 1, 1, 1},
		{1 << 30, 1, 1, 1},
	} {
		g, err := c.NewGeometry(tc.page)
		if err != nil {
			t.Fatal(err)
		}
		if g.PagesPerBlock != tc.perBlock || g.PagesPerRegion != tc.perRegion || g.BlocksPerRegion != tc.nblk {
			t.Errorf("page %d: %+v", tc.page, g)
		}
	}
	g, _ := c.NewGeometry(4096)
	if g.Region(1023) != 1 || g.Block(512+33) != 2 || g.BlockStart(1, 2) != 512+32 {
		t.Errorf("mapping: region %d block %d start %d", g.Region(1023), g.Block(512+33), g.BlockStart(1, 2))
	}
	if _, err := c.NewGeometry(3000); err == nil {
		t.Error("page size 3000 accepted")
	}
}
