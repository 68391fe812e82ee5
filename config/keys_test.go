package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

func TestConfigSetKinds(t *testing.T) {
	tests := []struct {
		kv   string
		want func(*Config)
	}{
		{"gpus=8", func(c *Config) { c.GPUs = 8 }},
		{" gpus = 2 ", func(c *Config) { c.GPUs = 2 }},
		{"gpu.cus=32", func(c *Config) { c.GPU.CUs = 32 }},
		{"gpu.freq_mhz=1500.5", func(c *Config) { c.GPU.FreqMHz = 1500.5 }},
		{"kernel_launch_ns=2.5e3", func(c *Config) { c.KernelLaunchNs = 2500 }},
		{"link.nvlink_gbps=150", func(c *Config) { c.Link.NVLinkGBps = 150 }},
		{"placement=spread", func(c *Config) { c.Placement = "spread" }},
		{"distribution=round-robin", func(c *Config) { c.Distribution = "round-robin" }},
		{"check=true", func(c *Config) { c.Check = true }},
		{"check=false", func(c *Config) { c.Check = false }},
		{"page_size=2MB", func(c *Config) { c.PageSize = 2 * units.MB }},
		{"gpu.memory=8GB", func(c *Config) { c.GPU.Memory = 8 * units.GB }},
		{"gpu.memory=4096", func(c *Config) { c.GPU.Memory = 4096 }},
		{"policy.ac_group=64KB", func(c *Config) { c.Policy.ACGroup = 64 * units.KB }},
		{"uvm.fault_batch=512", func(c *Config) { c.UVM.FaultBatch = 512 }},
		{"gmmu.levels=5", func(c *Config) { c.GMMU.Levels = 5 }},
	}
	for _, tt := range tests {
		t.Run(tt.kv, func(t *testing.T) {
			want := DefaultConfig()
			tt.want(&want)
			got := DefaultConfig()
			for range 2 { // applying the same setting twice is harmless
				if err := got.Set(tt.kv); err != nil {
					t.Fatalf("Set(%q): %v", tt.kv, err)
				}
			}
			if got != want {
				t.Errorf("Set(%q):\n got %+v\nwant %+v", tt.kv, got, want)
			}
		})
	}
}

func TestConfigSetErrors(t *testing.T) {
	tests := []struct {
		kv   string
		want []string // substrings of the error
		not  []string // must not appear
	}{
		{"gpu.memroy=4GB", []string{`unknown config key "gpu.memroy"; did you mean "gpu.memory"? (run 'mgpu list' for all keys)`}, nil},
		{"gpu.cuss=4", []string{`did you mean "gpu.cus"?`}, nil},
		{"memory=4GB", []string{`did you mean "gpu.memory"?`}, nil},
		{"GPUS=4", []string{`did you mean "gpus"?`}, nil},
		{"zzzzzzzz=1", []string{`unknown config key "zzzzzzzz" (run 'mgpu list' for all keys)`}, []string{"did you mean"}},
		{"gpus.extra=1", []string{`unknown config key "gpus.extra"`}, nil},
		{"gpu=4", []string{`"gpu" is a group`, "gpu.cus"}, nil},
		{"gpus", []string{`"gpus"`, "expected key=value"}, nil},
		{"=4", []string{"missing key"}, nil},
		{"gpus=abc", []string{`gpus: expected an integer, got "abc"`}, nil},
		{"gpus=4.5", []string{`gpus: expected an integer, got "4.5"`}, nil},
		{"gpus=", []string{`gpus: expected an integer, got ""`}, nil},
		{"gpus=99999999999999999999", []string{"gpus", "out of range"}, nil},
		{"gpu.freq_mhz=fast", []string{`gpu.freq_mhz: expected a number, got "fast"`}, nil},
		{"check=maybe", []string{`check: expected true or false, got "maybe"`}, nil},
		{"gpu.memory=lots", []string{`gpu.memory: expected a size such as 4GB, 64KB or 4096, got "lots"`}, nil},
		{"page_size=-4KB", []string{"page_size", `"-4KB"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.kv, func(t *testing.T) {
			c := DefaultConfig()
			err := c.Set(tt.kv)
			if err == nil {
				t.Fatalf("Set(%q) succeeded", tt.kv)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Set(%q) error %q lacks %q", tt.kv, err, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("Set(%q) error %q contains %q", tt.kv, err, n)
				}
			}
			if c != DefaultConfig() {
				t.Errorf("failed Set(%q) changed the config", tt.kv)
			}
		})
	}
}

// countLeaves counts non-struct fields independently of the package's own
// walker, and those of the sections runtimes register in uvm.Config;
// units.Bytes is a uint, so it counts as a leaf here too.
func countLeaves(t reflect.Type) int {
	n := 0
	if t == reflect.TypeFor[uvm.Config]() {
		for _, s := range uvm.Sections() {
			n += countLeaves(reflect.TypeOf(uvm.DefaultConfig().SectionValue(s.Name)))
		}
	}
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("yaml") == "-" || !t.Field(i).IsExported() {
			continue
		}
		if ft := t.Field(i).Type; ft.Kind() == reflect.Struct {
			n += countLeaves(ft)
		} else {
			n++
		}
	}
	return n
}

func TestKeys(t *testing.T) {
	keys := Keys(DefaultConfig())
	if want := countLeaves(reflect.TypeFor[Config]()); len(keys) != want {
		t.Errorf("Keys returned %d keys, want %d leaves", len(keys), want)
	}
	if keys[0].Key != "gpus" {
		t.Errorf("first key = %q, want gpus (declaration order)", keys[0].Key)
	}
	seen := map[string]bool{}
	byKey := map[string]KeyInfo{}
	for _, k := range keys {
		if seen[k.Key] {
			t.Errorf("key %q listed twice", k.Key)
		}
		seen[k.Key] = true
		byKey[k.Key] = k
		if k.Doc == "" {
			t.Errorf("key %q has no doc tag", k.Key)
		}
	}
	for key, want := range map[string]string{
		"gpu.memory":       "4GB",
		"gpus":             "4",
		"page_size":        "4KB",
		"placement":        "host",
		"check":            "false",
		"kernel_launch_ns": "5000",
		"gpu.line_size":    "64",
		"link.nvlink_gbps": "300",
		"policy.ac_group":  "64KB",
	} {
		if got := byKey[key].Value; got != want {
			t.Errorf("Keys: %s = %q, want %q", key, got, want)
		}
	}
	if i, j := indexOfKey(keys, "gpu.cus"), indexOfKey(keys, "gmmu.walkers"); i < 0 || j < 0 || i > j {
		t.Errorf("gpu.* keys should precede gmmu.* keys (declaration order)")
	}
}

func indexOfKey(keys []KeyInfo, key string) int {
	for i, k := range keys {
		if k.Key == key {
			return i
		}
	}
	return -1
}

// TestKeysRoundTrip checks every listed value can be fed back to Set, so
// `mgpu list` output is always valid --set input.
func TestKeysRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.KernelLaunchNs = 1.0 / 3
	c.GPU.Memory = 4097
	c.Placement = "spread"
	got := c
	for _, k := range Keys(c) {
		if err := got.Set(k.Key + "=" + k.Value); err != nil {
			t.Errorf("Set(%s=%s): %v", k.Key, k.Value, err)
		}
	}
	if got != c {
		t.Errorf("round trip changed the config:\n got %+v\nwant %+v", got, c)
	}
}

func TestConfigSuggest(t *testing.T) {
	cands := []string{"gpus", "gpu.memory", "gpu.cus", "link.pcie_gbps"}
	tests := []struct{ key, want string }{
		{"gpsu", "gpus"},
		{"gpu.memroy", "gpu.memory"},
		{"gpu.memory", "gpu.memory"},
		{"pcie_gbps", "link.pcie_gbps"},
		{"bandwidth", ""},
		{"x", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.key, cands); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// changedConfig returns the default config with every leaf changed, by a
// walk independent of the package's own, and strings that YAML would
// misread unquoted.
func changedConfig() Config {
	c := DefaultConfig()
	strs := []string{"true", "", "a: b # c", "4", "'x'", "- y", "null", `q"uote\`}
	n := 0
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("yaml") == "-" {
				continue // not a key (prefetch.Config.PageSize follows page_size)
			}
			f := v.Field(i)
			switch f.Kind() {
			case reflect.Struct:
				walk(f)
			case reflect.Int:
				f.SetInt(f.Int() + 3)
			case reflect.Uint64, reflect.Uint:
				f.SetUint(f.Uint()*2 + 1)
			case reflect.Float64:
				f.SetFloat(f.Float()*1.5 + 0.1)
			case reflect.Bool:
				f.SetBool(!f.Bool())
			case reflect.String:
				f.SetString(strs[n%len(strs)])
				n++
			}
		}
	}
	walk(reflect.ValueOf(&c).Elem())
	return c
}

// TestWithUnnamed: a key's listing names every valid value, once, whole
// words only ("sc" inside "scale" does not count).
func TestWithUnnamed(t *testing.T) {
	cases := []struct {
		doc    string
		values []string
		want   string
	}{
		{"none | suv (SUV) | sc (SC)", []string{"none", "suv", "sc"}, "none | suv (SUV) | sc (SC)"},
		{"none | suv (scale)", []string{"none", "suv", "sc"}, "none | suv (scale) (also: sc)"},
		{"off | tbn", []string{"off", "tbn", "toy-veto"}, "off | tbn (also: toy-veto)"},
		{"toy-veto-x only", []string{"toy-veto"}, "toy-veto-x only (also: toy-veto)"},
		{"any value", nil, "any value"},
	}
	for _, c := range cases {
		if got := withUnnamed(c.doc, c.values); got != c.want {
			t.Errorf("withUnnamed(%q, %v) = %q, want %q", c.doc, c.values, got, c.want)
		}
	}
}
