package config

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mgpu-sim/mgpu/units"
)

// The config fuzz targets check the property every input path promises:
// a value is either rejected with a message that names what was wrong, or
// recorded exactly as asked. "As asked" is read here independently of
// setScalar (asked), so the loader, Set and the parser behind them are
// each checked against a second reading, not against themselves.
//
// go test runs the seed corpora (f.Add below and testdata/fuzz) as unit
// tests; make fuzz explores from them.

// fuzzPath names the config file in FuzzLoadConfig's errors.
const fuzzPath = "fuzz.yaml"

// configSeeds are values drawn from issue 30's catalogue: octal-looking
// and non-decimal numbers, infinite and absurd values, sizes at and past
// 2^64, empty, spaced and non-ASCII text.
var configSeeds = []string{
	"", "=", "gpus=8", "gpus=010", "gpus=08", "gpus=0x10", "gpus=0o10", "gpus=+4", "gpus=-0", "gpus=1e3", "gpus=4.0", "gpus=",
	"gpus=99999999999999999999", "seed=010", " gpus = 2 ", "gpus", "=4", "gpus=4=5", "gpus\t=\t4",
	"link.pcie_gbps=1e-300", "link.pcie_gbps=+Inf", "link.pcie_gbps=NaN", "link.pcie_gbps=-Inf", "link.nvlink_gbps=1e309",
	"link.pcie_gbps=0x1p-2", "link.pcie_gbps=1_0", "kernel_launch_ns=2.5e3", "gpu.freq_mhz=-0",
	"gpu.memory=4GB", "gpu.memory=1.5GB", "gpu.memory=1.3KB", "gpu.memory=0.5B", "gpu.memory=18446744073709551615",
	"gpu.memory=18446744073709551616", "gpu.memory=16777216TB", "gpu.memory=16777217TB", "gpu.memory=+Inf",
	"gpu.memory=NaN", "gpu.memory=1e30", "gpu.memory=1e3KB", "gpu.memory=-0", "gpu.memory=2 mb", "gpu.memory=1.00000000000000001KB",
	"page_size=010KB", "page_size=3000", "policy.ac_group=64KiB", "check=true", "check=1", "check=yes",
	"placement=spread", "placement= host ", "placement=h\u00f6st", "gpu.memroy=4GB", "gpu=4", "uvm.prefetch=tbn",
	"uvm.prefetch.threshold=075", "uvm.ea.window_ms=1e-300", "nope.nope.nope=1", "gpu..memory=1", ".gpus=1",
}

// FuzzConfigSet: Config.Set either fails, leaving the config unchanged,
// with a message naming the key or the setting, or changes exactly the key
// named, to exactly the value given (Get reads it back in a form Set
// takes again).
func FuzzConfigSet(f *testing.F) {
	for _, s := range configSeeds {
		f.Add(s)
	}
	defaults := keyValues(DefaultConfig())
	f.Fuzz(func(t *testing.T, kv string) {
		c := DefaultConfig()
		err := c.Set(kv)
		rawKey, val, _ := strings.Cut(kv, "=")
		key, val := strings.TrimSpace(rawKey), strings.TrimSpace(val)
		if err != nil {
			if !namesOneOf(err.Error(), key, kv) {
				t.Fatalf("Set(%q): error %q names neither the key nor the setting", kv, err)
			}
			if got := keyValues(c); !reflect.DeepEqual(got, defaults) {
				t.Fatalf("Set(%q) failed (%v) but changed the config", kv, err)
			}
			return
		}
		got, gerr := c.Get(key)
		if gerr != nil {
			t.Fatalf("Set(%q) succeeded but Get(%q) fails: %v", kv, key, gerr)
		}
		v, _ := lookupKey(reflect.ValueOf(&c).Elem(), key)
		if aerr := asked(v.Type(), val, got); aerr != nil {
			t.Fatalf("Set(%q): recorded %q: %v", kv, got, aerr)
		}
		for k, dv := range keyValues(c) {
			if k != key && dv != defaults[k] {
				t.Fatalf("Set(%q) changed %s too: %q, default %q", kv, k, dv, defaults[k])
			}
		}
		again := DefaultConfig()
		if err := again.Set(key + "=" + got); err != nil {
			t.Fatalf("Set(%q) recorded %q, which Set rejects: %v", kv, got, err)
		}
		if g2, _ := again.Get(key); g2 != got {
			t.Fatalf("Set(%q) recorded %q; setting that back records %q", kv, got, g2)
		}
		checkValidate(t, c)
	})
}

// FuzzLoadConfig: a config file either fails with a message naming the
// file, or loads to the defaults overlaid with exactly the values the
// file gives, each at the key its nesting spells; and WriteYAML of the
// result loads back to it.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"", "\n", "# only a comment\n", "---\n", "~\n", "gpus: 8\n", "gpus: 010\n", "gpus: 08\n", "gpus: 0x10\n", "gpus: 0o10\n",
		"gpus: '010'\n", "gpus: !!str 010\n", "gpus: 8\ngpus: 4\n", "gpus: [1, 2\n", "gpus:\n\t- 4\n", "gpu:\n\tcus: 4\n",
		"gpu:\n  cus: 32\n  memory: 8GB\n", "gpu:\n  cuss: 4\n", "gpu.memory: 8GB\n", "gpu:\n", "gpu: 4\n", "gpus:\n",
		"gpus: [4]\n", "link:\n  pcie_gbps: 1e-300\n", "link:\n  pcie_gbps: .inf\n", "link:\n  pcie_gbps: +Inf\n",
		"link:\n  pcie_gbps: .nan\n", "gpu:\n  memory: 16777217TB\n", "gpu:\n  memory: NaN\n", "gpu:\n  memory: 1.3KB\n",
		"a: &x {cus: 4}\ngpu: *x\n", "gpu: &x\n  cus: 4\nlink: *x\n", "<<: {gpus: 2}\n", "[1, 2]\n", "gpus: 4\n---\ngpus: 8\n",
		"placement: \" host\"\n", "uvm:\n  prefetch:\n    policy: tbn\n    threshold: 075\n", "? [a]\n: 1\n", "gpus: 4 # comment\n",
		"\ufeffgpus: 4\n", "gpus: 99999999999999999999\n", "check: yes\n", "check: on\n", "oversubscribe: 1.5\n",
		"uvm:\n  prefetch_control: early-adaptor\n  prefetch:\n    policy: tbn\n  ea:\n    short_window_ns: 2e9\n",
		"uvm:\n  ea:\n    short_window_ns: 1e6\n    long_window_ns: 1e6\n",
	} {
		f.Add([]byte(s))
	}
	defaults := keyValues(DefaultConfig())
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(fuzzPath, data)
		if err != nil {
			if !strings.Contains(err.Error(), fuzzPath) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		given, ok := fileValues(data)
		if !ok {
			t.Fatalf("loaded %q, whose YAML is not a mapping of config keys", data)
		}
		got := keyValues(c)
		for k, text := range given {
			v, err := lookupKey(reflect.ValueOf(&c).Elem(), k)
			if err != nil {
				t.Fatalf("loaded %q, which gives %s, not a config key", data, k)
			}
			if aerr := asked(v.Type(), text, got[k]); aerr != nil {
				t.Fatalf("%s: file gives %q, loaded %q: %v", k, text, got[k], aerr)
			}
		}
		for k, v := range got {
			if _, ok := given[k]; !ok && v != defaults[k] {
				t.Fatalf("loaded %q: %s = %q, which the file does not give (default %q)", data, k, v, defaults[k])
			}
		}
		var out bytes.Buffer
		if err := WriteYAML(&out, c); err != nil {
			t.Fatal(err)
		}
		back, err := parseConfig(fuzzPath, out.Bytes())
		if err != nil {
			t.Fatalf("WriteYAML's output does not load: %v\n%s", err, out.String())
		}
		if b := keyValues(back); !reflect.DeepEqual(b, got) {
			t.Fatalf("WriteYAML's output loads to another config:\n%s", out.String())
		}
		checkValidate(t, c)
	})
}

// checkValidate: Validate must not panic, and what it rejects it names.
func checkValidate(t *testing.T, c Config) {
	t.Helper()
	if err := c.Validate(); err != nil && strings.TrimSpace(err.Error()) == "" {
		t.Fatalf("Validate failed with an empty message")
	}
}

// keyValues is every key of c with its value as Get prints it.
func keyValues(c Config) map[string]string {
	m := map[string]string{}
	for _, k := range Keys(c) {
		m[k.Key] = k.Value
	}
	return m
}

// namesOneOf says whether msg contains one of the names, as given or
// quoted (messages quote what they echo with %q).
func namesOneOf(msg string, names ...string) bool {
	for _, n := range names {
		if strings.Contains(msg, strconv.Quote(n)) || n != "" && strings.Contains(msg, n) {
			return true
		}
	}
	return false
}

// fileValues flattens a YAML config into dotted keys and the scalar text
// each is given, following aliases. ok is false if the document is not a
// mapping (or empty).
func fileValues(data []byte) (map[string]string, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, false
	}
	out := map[string]string{}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return out, true
		}
		root = root.Content[0]
	}
	root = resolve(root)
	if root.Kind == 0 || isNull(root) {
		return out, true
	}
	var walk func(n *yaml.Node, prefix string) bool
	walk = func(n *yaml.Node, prefix string) bool {
		if n.Kind != yaml.MappingNode {
			return false
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
			key := joinKey(prefix, k.Value)
			switch {
			case v.Kind == yaml.MappingNode:
				if !walk(v, key) {
					return false
				}
			case isNull(v):
				// an empty section
			case v.Kind == yaml.ScalarNode:
				out[key] = v.Value
			default:
				return false
			}
		}
		return true
	}
	return out, walk(root, "")
}

var (
	intText  = regexp.MustCompile(`^[+-]?[0-9]+$`)
	uintText = regexp.MustCompile(`^[0-9]+$`)
	// sizeText is a size's number: decimal digits, an optional fraction
	// and exponent.
	sizeText = regexp.MustCompile(`^\+?([0-9]*)(\.[0-9]*)?([eE][+-]?[0-9]+)?$`)
)

// asked checks that got, a value of type t as Get prints it, is what text
// asks for, reading text independently of setScalar: integers are decimal
// digits only, a size is a whole number of bytes below 2^64, and the
// others read back equal.
func asked(t reflect.Type, text, got string) error {
	if t == bytesType {
		want, ok := exactBytes(text)
		if !ok {
			return fmt.Errorf("%q is not a whole number of bytes below 2^64, but was accepted", text)
		}
		if want.String() != got {
			return fmt.Errorf("%q is %d bytes (%v)", text, uint64(want), want)
		}
		return nil
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil // the round trip through Set is checked by the caller
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		re := intText
		if t.Kind() >= reflect.Uint {
			re = uintText
		}
		if !re.MatchString(text) {
			return fmt.Errorf("%q is not a decimal integer, but was accepted", text)
		}
		n, _ := new(big.Int).SetString(strings.TrimPrefix(text, "+"), 10)
		if n.String() != got {
			return fmt.Errorf("%q is %s in decimal", text, n)
		}
	case reflect.Float32, reflect.Float64:
		want, err := strconv.ParseFloat(text, t.Bits())
		g, gerr := strconv.ParseFloat(got, t.Bits())
		if err != nil || gerr != nil || !(want == g || math.IsNaN(want) && math.IsNaN(g)) {
			return fmt.Errorf("%q reads as %v (%v)", text, want, err)
		}
	case reflect.Bool:
		want, err := strconv.ParseBool(text)
		if err != nil || strconv.FormatBool(want) != got {
			return fmt.Errorf("%q reads as %v (%v)", text, want, err)
		}
	case reflect.String:
		if text != got {
			return fmt.Errorf("string %q recorded as %q", text, got)
		}
	}
	return nil
}

// exactBytes reads a size as units documents it, exactly: a decimal
// number with an optional binary suffix. ok is false unless it is a whole
// number of bytes below 2^64.
func exactBytes(text string) (units.Bytes, bool) {
	t := strings.ToUpper(strings.TrimSpace(text))
	shift := uint(0)
	for _, s := range []struct {
		suf   string
		shift uint
	}{{"TIB", 40}, {"GIB", 30}, {"MIB", 20}, {"KIB", 10}, {"TB", 40}, {"GB", 30}, {"MB", 20}, {"KB", 10}, {"B", 0}} {
		if strings.HasSuffix(t, s.suf) {
			t, shift = strings.TrimSpace(strings.TrimSuffix(t, s.suf)), s.shift
			break
		}
	}
	m := sizeText.FindStringSubmatch(t)
	if m == nil {
		return 0, false
	}
	frac := strings.TrimPrefix(m[2], ".")
	digits := strings.TrimLeft(m[1]+frac, "0")
	if m[1]+frac == "" {
		return 0, false
	}
	if digits == "" {
		return 0, true // zero, whatever the exponent
	}
	exp := 0
	if m[3] != "" {
		n, err := strconv.Atoi(m[3][1:])
		if err != nil || n > 10000 || n < -10000 {
			return 0, false // beyond what this check computes
		}
		exp = n
	}
	exp -= len(frac)
	n, _ := new(big.Int).SetString(digits, 10)
	r := new(big.Rat).SetInt(n.Lsh(n, shift))
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(exp, -exp))), nil))
	if exp >= 0 {
		r.Mul(r, p)
	} else {
		r.Quo(r, p)
	}
	if !r.IsInt() || r.Num().BitLen() > 64 {
		return 0, false
	}
	return units.Bytes(r.Num().Uint64()), true
}
