// Package runtimes_test registers a runtime with config keys of its own
// from outside uvm and platform, as a new runtime's package would, and
// checks that the rest of mgpu treats its keys as its own: parsed, set,
// validated, listed, written to results and described by the result
// schema.
package runtimes_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

// toyConfig is the runtime's section, uvm.toy.*.
type toyConfig struct {
	Every int `yaml:"every" doc:"veto the prefetch of every n-th page, 1..64 (toy: 2)"`
}

var toyName = "toy-veto"

var toySection = uvm.RegisterSection(uvm.SectionSpec{Name: "toy", Field: "Toy", After: "adaptive", Order: 99,
	Doc: "the toy runtime's parameters, used with uvm.adaptive=toy-veto."}, toyConfig{Every: 2})

// toyVeto keeps the prefetcher off every n-th page.
type toyVeto struct {
	uvm.Stages
	every  uint64
	vetoed uint64
}

func (r *toyVeto) Prefetchable(_ int, p uint64) bool {
	if p%r.every == 0 {
		r.vetoed++
		return false
	}
	return true
}

func (r *toyVeto) Report(m map[string]float64) { m["toy_vetoed"] = float64(r.vetoed) }

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, toyName, uvm.RuntimeSpec{
		New: func(env uvm.RuntimeEnv) (uvm.Runtime, error) {
			return &toyVeto{every: uint64(toySection.Of(env.Config).Every)}, nil
		},
		Requires: []uvm.Requirement{{Key: "uvm.prefetch.policy", Value: "tbn", Why: "vetoes prefetches"}},
		Validate: func(c uvm.Config, _ units.Bytes) error {
			if e := toySection.Of(c).Every; e < 1 || e > 64 {
				return fmt.Errorf("uvm.toy.every = %d: must be 1..64", e)
			}
			return nil
		},
		Dependencies: []uvm.Dependency{{Keys: []string{"uvm.toy.*"}, On: uvm.SelectedIs(uvm.KeyAdaptive, toyName),
			While: uvm.KeyAdaptive, Use: "uvm.adaptive=" + toyName}},
	})
}

func set(t *testing.T, c *config.Config, kvs ...string) {
	t.Helper()
	for _, kv := range kvs {
		if err := c.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
}

// The key is listed (what 'mgpu list' and docs/config.md print) after
// uvm.adaptive's sections, with its default and doc, and a config file
// and --set reach it without changing the config they were applied to.
func TestOwnedKeyIsListedAndParsed(t *testing.T) {
	var found, adaptive *config.KeyInfo
	keys := config.Keys(config.DefaultConfig())
	for i, k := range keys {
		switch k.Key {
		case "uvm.toy.every":
			found = &keys[i]
		case uvm.KeyAdaptive:
			adaptive = &keys[i]
		}
	}
	if found == nil || found.Value != "2" || !strings.Contains(found.Doc, "every n-th page") {
		t.Fatalf("uvm.toy.every listed as %+v", found)
	}
	// uvm.adaptive's doc tag names mgpu's runtimes by hand; the listing adds
	// the toy, registered from here.
	if adaptive == nil || !strings.Contains(adaptive.Doc, "(also: toy-veto)") {
		t.Errorf("uvm.adaptive listed as %+v, without toy-veto", adaptive)
	}
	path := filepath.Join(t.TempDir(), "toy.yaml")
	if err := os.WriteFile(path, []byte("uvm:\n  adaptive: toy-veto\n  toy:\n    every: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Get("uvm.toy.every"); v != "3" || toySection.Of(c.UVM).Every != 3 {
		t.Errorf("the file's uvm.toy.every read as %q", v)
	}
	d := c
	set(t, &d, "uvm.toy.every=5")
	if toySection.Of(c.UVM).Every != 3 || toySection.Of(d.UVM).Every != 5 {
		t.Errorf("setting a copy: original %d, copy %d (want 3 and 5)", toySection.Of(c.UVM).Every, toySection.Of(d.UVM).Every)
	}
	if err := c.Set("uvm.toy.evry=4"); err == nil || !strings.Contains(err.Error(), `did you mean "uvm.toy.every"`) {
		t.Errorf("a misspelt key: %v", err)
	}
	var b bytes.Buffer
	if err := config.WriteYAML(&b, d); err != nil || !strings.Contains(b.String(), "  toy:\n    every: 5") {
		t.Errorf("WriteYAML: %v\n%s", err, b.String())
	}
}

// Validation applies the runtime's rules: its own check while it is
// selected, and its keys' dependency on it while it is not.
func TestOwnedKeyIsValidated(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string // "" for valid
	}{
		{[]string{"uvm.adaptive=toy-veto", "uvm.prefetch.policy=tbn", "uvm.toy.every=4"}, ""},
		{[]string{"uvm.adaptive=toy-veto", "uvm.prefetch.policy=tbn", "uvm.toy.every=0"}, "uvm.toy.every = 0: must be 1..64"},
		{[]string{"uvm.adaptive=toy-veto", "uvm.toy.every=4"}, `uvm.adaptive = "toy-veto": vetoes prefetches: set uvm.prefetch.policy=tbn`},
		{[]string{"uvm.toy.every=4"}, `uvm.toy.every = 4: has no effect while uvm.adaptive = "none"; set uvm.adaptive=toy-veto to use it`},
	} {
		c := config.DefaultConfig()
		set(t, &c, tc.sets...)
		err := c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.sets, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: got %v, want %q", tc.sets, err, tc.want)
		}
	}
}

// A run with the runtime selected reads its key, and the result's config
// carries the section under its field, which reads back.
func TestOwnedKeyReachesTheRunAndTheResult(t *testing.T) {
	three, sixtyFour := runToy(t, "3"), runToy(t, "64")
	if three.PolicyStats["toy_vetoed"] <= sixtyFour.PolicyStats["toy_vetoed"] || sixtyFour.PolicyStats["toy_vetoed"] == 0 {
		t.Errorf("vetoed %v of every 3rd page, %v of every 64th: the runtime did not read its key",
			three.PolicyStats["toy_vetoed"], sixtyFour.PolicyStats["toy_vetoed"])
	}
	var b bytes.Buffer
	if err := three.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\"Toy\": {\n        \"Every\": 3\n") {
		t.Errorf("the result's config has no Toy section with Every 3")
	}
	var back platform.Result
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got := toySection.Of(back.Config.UVM); got.Every != 3 {
		t.Errorf("the result's config reads back with %+v", got)
	}
}

// runToy runs a small workload with the toy runtime vetoing every n-th
// page's prefetch.
func runToy(t *testing.T, every string) *platform.Result {
	t.Helper()
	c := config.DefaultConfig()
	c.GPUs = 1
	set(t, &c, "uvm.adaptive=toy-veto", "uvm.prefetch.policy=tbn", "uvm.prefetch.threshold=1", "uvm.toy.every="+every)
	r, err := platform.Run(platform.Options{Workload: "private", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// resultSchemaPath is the checked-in result schema, generated without
// the toy (a test's runtime).
const resultSchemaPath = "../docs/result.schema.json"

// compileSchema compiles the schema in the file at path.
func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	sch, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// The schema generated with the toy registered (config.ResultSchema, as
// make docs writes it) describes uvm.toy.every and lists the toy among
// uvm.adaptive's values, and a result with the toy's section validates
// against it (but for the toy's counter: policy_stats is listed by hand);
// the checked-in schema, generated without the toy, allows only the
// sections and runtimes registered then, and rejects that result.
func TestOwnedKeyIsInTheSchema(t *testing.T) {
	doc, err := os.ReadFile(resultSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := config.ResultSchema(doc)
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		Properties struct {
			Config struct {
				Properties struct {
					UVM struct {
						Properties map[string]struct {
							Type        string
							Enum        []string
							Description string
							Properties  map[string]struct{ Type, Description string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(gen, &root); err != nil {
		t.Fatal(err)
	}
	uvmProps := root.Properties.Config.Properties.UVM.Properties
	every := uvmProps["Toy"].Properties["Every"]
	if uvmProps["Toy"].Type != "object" || every.Type != "integer" || !strings.HasPrefix(every.Description, "uvm.toy.every: veto the prefetch") {
		t.Errorf("the generated schema describes config.UVM.Toy as %+v", uvmProps["Toy"])
	}
	if !slices.Contains(uvmProps["Adaptive"].Enum, toyName) {
		t.Errorf("the generated schema's uvm.adaptive values %v lack %s", uvmProps["Adaptive"].Enum, toyName)
	}

	var b bytes.Buffer
	if err := runToy(t, "3").WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// The config part is generated; the counters in policy_stats are
	// listed by hand, and a test's runtime's counter is not among them.
	inst := v.(map[string]any)
	stats := inst["policy_stats"].(map[string]any)
	delete(stats, "toy_vetoed")
	if len(stats) == 0 {
		delete(inst, "policy_stats")
	}
	withToy := filepath.Join(t.TempDir(), "result.schema.json")
	if err := os.WriteFile(withToy, gen, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := compileSchema(t, withToy).Validate(inst); err != nil {
		t.Errorf("the toy's result does not match the schema generated with the toy: %v", err)
	}
	if err := compileSchema(t, resultSchemaPath).Validate(inst); err == nil || !strings.Contains(err.Error(), "Toy") {
		t.Errorf("the checked-in schema, without the toy, on the toy's result: %v; want an error naming Toy", err)
	}
}
