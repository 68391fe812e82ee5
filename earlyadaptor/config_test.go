package earlyadaptor

import (
	"math"
	"strings"
	"testing"
)

func TestDefaultConfigIsThePapers(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.ShortWindowNs != 20e6 || c.LongWindowNs != 1e9 || c.Slices != 50 || c.ShortFactor != 10 ||
		c.LongFactor != 2 || c.Step != 25 || c.Aggressive != 1 || c.Disabled != 100 || c.StaticThreshold != 51 {
		t.Errorf("default %+v differs from EA's constants", c)
	}
	if c.Reading != RiskFirst {
		t.Errorf("default reading %q, want the recommended %q", c.Reading, RiskFirst)
	}
}

func TestValidate(t *testing.T) {
	with := func(f func(*Config)) Config { c := DefaultConfig(); f(&c); return c }
	for _, c := range []struct {
		name, want string // want: a substring of the error, "" for none
		cfg        Config
	}{
		{"default", "", DefaultConfig()},
		{"short-first", "", with(func(c *Config) { c.Reading = ShortFirst })},
		{"static 100", "", with(func(c *Config) { c.Mode, c.StaticThreshold = Static, 100 })},
		{"one slice", "", with(func(c *Config) { c.Slices, c.ConsistentSlices = 1, 1 })},
		{"short window 0", "short_window_ns 0", with(func(c *Config) { c.ShortWindowNs = 0 })},
		{"short window < 0", "short_window_ns -1", with(func(c *Config) { c.ShortWindowNs = -1 })},
		{"long window 0", "long_window_ns 0", with(func(c *Config) { c.LongWindowNs = 0 })},
		{"long window NaN", "long_window_ns NaN", with(func(c *Config) { c.LongWindowNs = math.NaN() })},
		{"long window +Inf", "long_window_ns +Inf", with(func(c *Config) { c.LongWindowNs = math.Inf(1) })},
		{"eval period 0", "eval_period_ns 0", with(func(c *Config) { c.EvalPeriodNs = 0 })},
		{"short window longer than long", "short_window_ns 2e+09 is longer than long_window_ns 1e+09", with(func(c *Config) { c.ShortWindowNs = 2e9 })},
		{"short window equal to long", "", with(func(c *Config) { c.ShortWindowNs = c.LongWindowNs })},
		{"slices 0", "slices 0: must be in 1..1000", with(func(c *Config) { c.Slices = 0 })},
		{"slices -3", "slices -3", with(func(c *Config) { c.Slices = -3 })},
		{"slices too many", "slices 1001", with(func(c *Config) { c.Slices = 1001 })},
		{"unknown reading", `reading "fig12": valid values are risk-first, short-first`, with(func(c *Config) { c.Reading = "fig12" })},
		{"empty reading", `reading ""`, with(func(c *Config) { c.Reading = "" })},
		{"unknown mode", `mode "opt"`, with(func(c *Config) { c.Mode = "opt" })},
		{"unknown detect", `detect "oom"`, with(func(c *Config) { c.Detect = "oom" })},
		{"unknown step mode", `step_mode "x"`, with(func(c *Config) { c.StepMode = "x" })},
		{"unknown average", `average "x"`, with(func(c *Config) { c.Average = "x" })},
		{"unknown reference", `short_reference "x"`, with(func(c *Config) { c.ShortReference = "x" })},
		{"unknown warm-up", `warmup "x"`, with(func(c *Config) { c.Warmup = "x" })},
		{"risk hold < 0", "risk_hold_windows -1: must be in 0..1000 long windows", with(func(c *Config) { c.RiskHoldWindows = -1 })},
		{"risk hold NaN", "risk_hold_windows NaN", with(func(c *Config) { c.RiskHoldWindows = math.NaN() })},
		{"risk hold too long", "risk_hold_windows 1001", with(func(c *Config) { c.RiskHoldWindows = 1001 })},
		{"factor 0", "short_factor 0", with(func(c *Config) { c.ShortFactor = 0 })},
		{"long factor < 0", "long_factor -2", with(func(c *Config) { c.LongFactor = -2 })},
		{"step 0", "step 0", with(func(c *Config) { c.Step = 0 })},
		{"step 100", "step 100", with(func(c *Config) { c.Step = 100 })},
		{"aggressive 0", "aggressive 0: must be a threshold in 1..100", with(func(c *Config) { c.Aggressive = 0 })},
		{"disabled 101", "disabled 101", with(func(c *Config) { c.Disabled = 101 })},
		{"static 0", "static_threshold 0", with(func(c *Config) { c.StaticThreshold = 0 })},
		{"consistent 0", "consistent_slices 0", with(func(c *Config) { c.ConsistentSlices = 0 })},
		{"consistent > slices", "consistent_slices 51: must be in 1..slices (50)", with(func(c *Config) { c.ConsistentSlices = 51 })},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestScaledWindows(t *testing.T) {
	def := DefaultConfig()
	for _, c := range []struct {
		name              string
		scale             float64
		short, long, eval float64
		valid             bool
	}{
		{"paper size", 1, 20e6, 1e9, 20e6, true},
		{"benchmarks' scale 1 (1/32)", FootprintScale(8445<<20/32, 8445<<20), 625e3, 31.25e6, 625e3, true},
		{"no Table II entry uses 8445 MiB", FootprintScale(8445<<20/4, 0), 5e6, 250e6, 5e6, true},
		{"double", 2, 40e6, 2e9, 40e6, true},
		{"zero is rejected", 0, 0, 0, 0, false},
		{"negative is rejected", -1, -20e6, -1e9, -20e6, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ScaledWindows(def, c.scale)
			if s.ShortWindowNs != c.short || s.LongWindowNs != c.long || s.EvalPeriodNs != c.eval {
				t.Errorf("windows %g %g %g, want %g %g %g", s.ShortWindowNs, s.LongWindowNs, s.EvalPeriodNs, c.short, c.long, c.eval)
			}
			if s.Slices != def.Slices || s.ShortFactor != def.ShortFactor || s.LongFactor != def.LongFactor ||
				s.Step != def.Step || s.ConsistentSlices != def.ConsistentSlices {
				t.Errorf("a dimensionless field changed: %+v", s)
			}
			if err := s.Validate(); (err == nil) != c.valid {
				t.Errorf("Validate: %v, want valid %v", err, c.valid)
			}
		})
	}
}
