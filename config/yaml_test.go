package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

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
