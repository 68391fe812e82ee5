package config

import (
	"os"
	"path/filepath"
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

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name string
		body string
		want func(*Config)
	}{
		{"empty", "", func(*Config) {}},
		{"comments only", "# nothing\n", func(*Config) {}},
		{"empty section", "gpu:\n", func(*Config) {}},
		{"overlay", `
gpus: 8
page_size: 2MB
placement: spread
check: true
gpu:
  memory: 8GB
  l2_size: 512KB
  freq_mhz: 1500
link:
  nvlink_gbps: 150
policy:
  ac_group: 2097152
`, func(c *Config) {
			c.GPUs = 8
			c.PageSize = 2 * units.MB
			c.Placement = "spread"
			c.Check = true
			c.GPU.Memory = 8 * units.GB
			c.GPU.L2Size = 512 * units.KB
			c.GPU.FreqMHz = 1500
			c.Link.NVLinkGBps = 150
			c.Policy.ACGroup = 2 * units.MB
		}},
		{"alias", "gpus: &n 8\nuvm:\n  fault_batch: *n\n", func(c *Config) { c.GPUs, c.UVM.FaultBatch = 8, 8 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadConfig(writeConfig(t, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			want := DefaultConfig()
			tt.want(&want)
			if got != want {
				t.Errorf("LoadConfig:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"unknown nested key", "gpus: 2\ngpu:\n  cuss: 3\n", []string{
			`:3: unknown config key "gpu.cuss"; did you mean "gpu.cus"?`,
			"valid keys in gpu: cus, freq_mhz, wavefronts_per_cu", "memory",
		}},
		{"unknown top-level key", "gpuz: 3\n", []string{
			`:1: unknown config key "gpuz"`, "valid keys at the top level: gpus, page_size", "gpu, gmmu, uvm, link, policy",
		}},
		{"unknown key under link", "link:\n  bandwidth: 3\n", []string{`"link.bandwidth"`, "valid keys in link: nvlink_gbps"}},
		{"malformed", "gpus: 4\ngpu: [1,\n", []string{"run.yaml: yaml: line"}},
		{"bad indentation", "gpu:\n  cus: 4\n freq_mhz: 3\n", []string{"run.yaml: yaml: line"}},
		{"tab indentation", "gpu:\n\tcus: 4\n", []string{"run.yaml: yaml: line 2", "YAML indents with spaces only"}},
		{"wrong type int", "gpu:\n  cus: abc\n", []string{`:2: gpu.cus: expected an integer, got "abc"`}},
		{"wrong type float", "link:\n  pcie_gbps: fast\n", []string{`link.pcie_gbps: expected a number, got "fast"`}},
		{"wrong type bool", "check: sometimes\n", []string{`check: expected true or false, got "sometimes"`}},
		{"wrong type bytes", "gpu:\n  memory: big\n", []string{`gpu.memory: expected a size such as 4GB`}},
		{"leaf given mapping", "gpus:\n  a: 1\n", []string{"gpus: expected an integer, got a mapping"}},
		{"leaf given list", "placement: [host]\n", []string{"placement: expected a string, got a list"}},
		{"leaf given null", "gpus:\n", []string{"gpus: no value given"}},
		{"section given scalar", "gpu: 4\n", []string{`gpu: expected a mapping of gpu.* keys, got "4"`}},
		{"leaf as section", "gpus:\n  cus: 4\n", []string{"gpus: expected an integer, got a mapping"}},
		{"duplicate key", "gpus: 2\ngpus: 4\n", []string{`:2: key "gpus" given twice (first on line 1)`}},
		{"top level list", "- gpus\n", []string{"expected a mapping of config keys"}},
		{"two documents", "gpus: 2\n---\ngpus: 4\n", []string{"one YAML document"}},
		{"all errors reported", "gpuz: 1\ngpu:\n  cus: x\n", []string{`"gpuz"`, "gpu.cus: expected an integer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { loadFails(t, tt.body, tt.want) })
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadConfig(missing) = %v, want an error naming %s", err, path)
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

func TestLoadConfigDottedKey(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"top-level leaf", "gpu.memory: 8GB\n", []string{
			`:1: config key "gpu.memory" is dotted; a config file nests its keys instead (dots are for --set), so write:`,
			"write:\ngpu:\n  memory: 8GB",
		}},
		{"among others", "gpus: 2\npolicy.reset_threshold: 4\n", []string{":2:", "policy:\n  reset_threshold: 4"}},
		{"quoted value", "uvm.eviction: 'lru-4kb'\nplacement.x: \"a: b\"\n", []string{"uvm:\n  eviction: lru-4kb", `unknown config key "placement.x"`}},
		{"typo", "gpu.memroy: 8GB\n", []string{`unknown config key "gpu.memroy"; did you mean "gpu.memory"?`, "gpu:\n  memory: 8GB"}},
		{"no value", "gpu.memory:\n", []string{"gpu:\n  memory: VALUE"}},
		{"inside a section", "gpu:\n  cus: 4\npolicy:\n  grit.threshold: 2\n", []string{
			`:4: unknown config key "policy.grit.threshold"; did you mean "policy.grit_threshold"?`, "policy:\n  grit_threshold: 2",
		}},
		{"not a key", "zz.top: 1\n", []string{`unknown config key "zz.top"`, "valid keys at the top level: gpus"}},
		{"with other errors", "gpuz: 1\ngpu.cus: 3\n", []string{`"gpuz"`, "gpu:\n  cus: 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { loadFails(t, tt.body, tt.want) })
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

// TestWriteYAMLRoundTrip: the YAML of a config with every key changed loads
// back to that config, so WriteYAML writes every key in a form the loader
// reads.
func TestWriteYAMLRoundTrip(t *testing.T) {
	for _, c := range []Config{DefaultConfig(), changedConfig()} {
		var b strings.Builder
		if err := WriteYAML(&b, c); err != nil {
			t.Fatal(err)
		}
		got, err := LoadConfig(writeConfig(t, b.String()))
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		if got != c {
			t.Errorf("round trip:\n got %+v\nwant %+v\nYAML:\n%s", got, c, b.String())
		}
	}
	if changedConfig() == DefaultConfig() {
		t.Fatal("changedConfig changed nothing")
	}
}

func TestWriteYAMLForm(t *testing.T) {
	var b strings.Builder
	if err := WriteYAML(&b, DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	y := b.String()
	for _, want := range []string{
		"gpus: 4  ", "# number of GPUs, 1 to 64 (OASIS baseline: 4)\n",
		"\ngpu:\n  cus: 64 ", "  memory: 4GB ", "# GPU memory capacity (OASIS Table I: 4GB)\n",
		"\npolicy:\n", "  dup_write_first: read-only-copy  # ",
	} {
		if !strings.Contains(y, want) {
			t.Errorf("YAML lacks %q:\n%s", want, y)
		}
	}
	if strings.Contains(y, "gpu.") {
		t.Errorf("YAML has a dotted key:\n%s", y)
	}
	if n := strings.Count(y, "#"); n != len(Keys(DefaultConfig())) {
		t.Errorf("%d comments, want one per key (%d)", n, len(Keys(DefaultConfig())))
	}
}

func TestYAMLScalar(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"4KB", "4KB"}, {"mgpusim", "mgpusim"}, {"1e-05", "1e-05"}, {"read-only-copy", "read-only-copy"},
		{"", `""`}, {"a: b", `"a: b"`}, {"x #y", `"x #y"`}, {"'q'", `"'q'"`}, {"- y", `"- y"`},
		{"a\nb", `"a\nb"`}, {`back\slash "q"`, `back\slash "q"`}, {`"q"`, `"\"q\""`}, {"[1]", `"[1]"`}, {" pad", `" pad"`},
		{"true", "true"}, {"~", `"~"`},
	} {
		if got := yamlScalar(tt.in); got != tt.want {
			t.Errorf("yamlScalar(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// loadFails checks that a config file with body is rejected with an error
// that names the file and holds every string in want.
func loadFails(t *testing.T, body string, want []string) {
	t.Helper()
	path := writeConfig(t, body)
	_, err := LoadConfig(path)
	if err == nil {
		t.Fatalf("LoadConfig(%q) succeeded", body)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}
