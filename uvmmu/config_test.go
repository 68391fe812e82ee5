package uvmmu

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

func TestDefaultConfigIsThePaper(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		name      string
		got, want int
	}{
		{"handling cycles (Table I)", c.HandlingCycles, 10},
		{"DCQ entries (§IV-D)", c.DCQEntries, 64},
		{"watermark (§IV-D)", c.Watermark, 32},
		{"refill to: more than the threshold (§IV-D)", c.RefillTo, 33},
		{"FrAB word (§IV-D)", c.FrABWordBits, 256},
		{"pages per group (64 KB / 4 KB)", c.PagesPerGroup(), 16},
		{"groups per region (§IV-B2)", c.GroupsPerRegion(), 32},
	} {
		if k.got != k.want {
			t.Errorf("%s: %d, want %d", k.name, k.got, k.want)
		}
	}
	// §IV-B: 80 GB of GPU memory is 1.25 M IPgT entries and 40 K FrAB bits.
	if n := FramesFor(80*units.GB, c); n != 1310720 || n/uint32(c.GroupsPerRegion()) != 40960 {
		t.Errorf("80 GB: %d frame-groups", n)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		key string
		set func(*Config)
	}{
		{"handling_cycles", func(c *Config) { c.HandlingCycles = -1 }},
		{"dcq_entries", func(c *Config) { c.DCQEntries = 48 }},
		{"dcq_entries", func(c *Config) { c.DCQEntries = 0 }},
		{"watermark", func(c *Config) { c.Watermark = 64 }},
		{"watermark", func(c *Config) { c.Watermark = 0 }},
		{"refill_to", func(c *Config) { c.RefillTo = 32 }},
		{"refill_to", func(c *Config) { c.RefillTo = 65 }},
		{"frab_word_bits", func(c *Config) { c.FrABWordBits = 100 }},
		{"frab_word_bits", func(c *Config) { c.FrABWordBits = 1 << 17 }},
		{"frab_read_cycles", func(c *Config) { c.FrABReadCycles = -1 }},
		{"ipgt_read_cycles", func(c *Config) { c.IPgTReadCycles = -1 }},
		{"push_cycles", func(c *Config) { c.PushCycles = -1 }},
		{"victim_tries", func(c *Config) { c.VictimTries = 0 }},
		{"page_bytes", func(c *Config) { c.PageBytes = 3000 }},
		{"group_bytes", func(c *Config) { c.GroupBytes = 96 * units.KB }},
		{"group_bytes", func(c *Config) { c.GroupBytes = 2 * units.KB }},
		{"group_bytes", func(c *Config) { c.GroupBytes = 512 * units.KB }},
		{"region_bytes", func(c *Config) { c.RegionBytes = 3 * units.MB }},
		{"region_bytes", func(c *Config) { c.RegionBytes = 32 * units.KB }},
		{"resume", func(c *Config) { c.Resume = "never" }},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: got %v, want an error naming it", tc.key, err)
		}
	}
	c := DefaultConfig()
	c.RefillTo, c.Resume, c.HandlingCycles = 64, ResumeGroup, 0
	if err := c.Validate(); err != nil {
		t.Errorf("fill to capacity, resume on group, free handling: %v", err)
	}
}

func TestSetupValidate(t *testing.T) {
	good := smallSetup(8)
	for _, tc := range []struct {
		name string
		set  func(*Setup)
		ok   bool
	}{
		{"good", func(*Setup) {}, true},
		{"no frames", func(s *Setup) { s.Frames = 0 }, false},
		{"all protected", func(s *Setup) { s.Protected = 8 }, false},
		{"all but one protected", func(s *Setup) { s.Protected = 7 }, true},
		{"no clock", func(s *Setup) { s.ClockMHz = 0 }, false},
		{"negative start", func(s *Setup) { s.Start = -1 }, false},
	} {
		s := good
		tc.set(&s)
		_, err := New(small(), s, nil)
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
}
