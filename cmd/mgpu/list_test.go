package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
)

// repoConfig is the shipped config file, seen from this package's directory.
var repoConfig = filepath.Join("..", "..", filepath.FromSlash(configFile))

// TestConfigFileIsListYAML keeps configs/oasis-4gpu.yaml byte-identical to
// 'mgpu list --yaml', so a changed default or source reaches the file.
func TestConfigFileIsListYAML(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"list", "--yaml"}, &out, &errb); code != 0 {
		t.Fatalf("list --yaml: exit %d: %s", code, errb.String())
	}
	want, err := os.ReadFile(repoConfig)
	if err != nil {
		t.Fatalf("%v; create it with: make configs", err)
	}
	if got := out.Bytes(); !bytes.Equal(got, want) {
		i, gl, wl := firstDifference(string(got), string(want))
		t.Errorf("%s is out of date with 'mgpu list --yaml'; regenerate it with\n\tmake configs\n(or: go build -o bin/mgpu ./cmd/mgpu && bin/mgpu list --yaml > %s)\nfirst difference, line %d:\n\tmgpu list --yaml: %q\n\tthe file:         %q",
			configFile, configFile, i, gl, wl)
	}
}

// TestConfigFileHoldsEveryKey: loading the shipped file gives exactly the
// default config, and it names every key in its nested form.
func TestConfigFileHoldsEveryKey(t *testing.T) {
	got, err := config.LoadConfig(repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	if want := config.DefaultConfig(); got != want {
		t.Errorf("%s loads to\n%+v\nwant the defaults\n%+v", configFile, got, want)
	}
	data, err := os.ReadFile(repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, k := range config.Keys(config.DefaultConfig()) {
		name := k.Key[strings.LastIndexByte(k.Key, '.')+1:]
		if !strings.Contains(text, "\n"+strings.Repeat("  ", strings.Count(k.Key, "."))+name+": "+k.Value+" ") {
			t.Errorf("%s lacks %s: %s", configFile, k.Key, k.Value)
		}
		if !strings.Contains(text, "# "+k.Doc+"\n") {
			t.Errorf("%s lacks the source of %s: %q", configFile, k.Key, k.Doc)
		}
	}
	for _, want := range []string{"mgpu run --policy oasis --config configs/oasis-4gpu.yaml", "--policy", "oasis-inmem"} {
		if !strings.Contains(text, want) {
			t.Errorf("%s header lacks %q", configFile, want)
		}
	}
}

// TestConfigDottedKeyIsInputError: a dotted key in a --config file exits 2
// and shows the nested form to write.
func TestConfigDottedKeyIsInputError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("gpus: 2\ngpu.memory: 8GB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"run", "characterize"} {
		var out, errb bytes.Buffer
		code := run([]string{cmd, "--workload", "private", "--scale", "0.05", "--config", path, "--out", filepath.Join(t.TempDir(), "x")}, &out, &errb)
		if code != 2 {
			t.Fatalf("%s: exit %d, want 2; stderr: %s", cmd, code, errb.String())
		}
		for _, want := range []string{path + ":2:", `"gpu.memory" is dotted`, "gpu:\n  memory: 8GB\n"} {
			if !strings.Contains(errb.String(), want) {
				t.Errorf("%s: stderr %q lacks %q", cmd, errb.String(), want)
			}
		}
	}
}

func TestListYAMLFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"list", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "-yaml") {
		t.Errorf("list --help: exit %d, lacks -yaml:\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"list", "--yaml", "extra"}, &out, &errb); code != 2 {
		t.Errorf("list --yaml extra: exit %d, want 2", code)
	}
}

// mgpu list shows each oversubscription workload's Early-Adaptor class, and
// none for the OASIS workloads, which no paper classes.
func TestListShowsClass(t *testing.T) {
	code, out, errs := mgpu("list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rest := listed(out)
	for name, class := range map[string]string{"2dconv": "[regular]", "atax": "[irregular]", "rbfs": "[mixed]", "ra": "[irregular]"} {
		if !strings.HasPrefix(rest[name], class) {
			t.Errorf("list shows %s as %q, want class %s", name, rest[name], class)
		}
	}
	if strings.HasPrefix(rest["mm"], "[") {
		t.Errorf("mm shows a class: %q", rest["mm"])
	}
}

// mgpu list shows the papers' names and preferred evictions (issue 16).
func TestListShowsPaperNames(t *testing.T) {
	_, out, _ := mgpu("list")
	rest := listed(out)
	if !strings.Contains(rest["mm-tiled"], "(MM; prefers lru eviction") {
		t.Errorf("mm-tiled: %q", rest["mm-tiled"])
	}
	if strings.Contains(rest["mm"], "(") {
		t.Errorf("mm (AMDAPPSDK) shows paper names: %q", rest["mm"])
	}
	if code, _, errs := mgpu("run", "--workload", "GMV", "--scale", "0.01", "--gpus", "1"); code != 0 {
		t.Errorf("run --workload GMV (gemv's alias): exit %d: %s", code, errs)
	}
}

// listed maps each workload of 'mgpu list' to the rest of its line.
func listed(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(strings.SplitN(out, "\nPOLICIES", 2)[0], "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 {
			m[f[0]] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), f[0]))
		}
	}
	return m
}

// firstDifference is the first line (from 1) where got and want differ,
// and that line of each ("" past the end).
func firstDifference(got, want string) (line int, g, w string) {
	gs, ws := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(gs) && i < len(ws) && gs[i] == ws[i] {
		i++
	}
	if i < len(gs) {
		g = gs[i]
	}
	if i < len(ws) {
		w = ws[i]
	}
	return i + 1, g, w
}
