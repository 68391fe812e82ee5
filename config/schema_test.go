package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// resultSchemaPath is the result schema whose config part Schema writes.
const resultSchemaPath = "../docs/result.schema.json"

var updateDocs = flag.Bool("update-docs", false, "rewrite the config part of "+resultSchemaPath+" (make docs)")

// TestResultSchemaIsCurrent: the checked-in schema's config part is what
// the keys make now; -update-docs rewrites it (make docs).
func TestResultSchemaIsCurrent(t *testing.T) {
	doc, err := os.ReadFile(resultSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ResultSchema(doc)
	if err != nil {
		t.Fatal(err)
	}
	if *updateDocs {
		if err := os.WriteFile(resultSchemaPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(doc, want) {
		t.Errorf("%s's config part is out of date with the config keys: run make docs", resultSchemaPath)
	}
	again, err := ResultSchema(want)
	if err != nil || !bytes.Equal(again, want) {
		t.Errorf("generating over a generated schema changes it (%v)", err)
	}
}

// compileConfigSchema compiles the config part of the result schema doc
// with its config part generated, to validate configs alone.
func compileConfigSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := os.ReadFile(resultSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := ResultSchema(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(gen))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("result.schema.json", v); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("result.schema.json#/properties/config")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func configInstance(t *testing.T, c Config) any {
	t.Helper()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The generated schema accepts the configs Validate accepts (the defaults
// and the shipped presets), as a result writes them, and rejects a value
// no key takes: one outside a key's list, a size that is
// no size, a key of no section.
func TestSchemaValidatesConfigs(t *testing.T) {
	sch := compileConfigSchema(t)
	valid := map[string]Config{"defaults": DefaultConfig()}
	for _, f := range configFiles(t) {
		c, err := LoadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		valid[f] = c
	}
	for name, c := range valid {
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := sch.Validate(configInstance(t, c)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, change := range map[string]func(m map[string]any){
		"placement out of its list": func(m map[string]any) { m["Placement"] = "elsewhere" },
		"runtime not registered":    func(m map[string]any) { m["UVM"].(map[string]any)["Adaptive"] = "no-such-runtime" },
		"size not a size":           func(m map[string]any) { m["PageSize"] = "4 KB" },
		"section not registered":    func(m map[string]any) { m["UVM"].(map[string]any)["Toy"] = map[string]any{} },
		"key missing":               func(m map[string]any) { delete(m["GPU"].(map[string]any), "CUs") },
		"integer as number":         func(m map[string]any) { m["GPUs"] = json.Number("1.5") },
	} {
		inst := configInstance(t, DefaultConfig()).(map[string]any)
		change(inst)
		if sch.Validate(inst) == nil {
			t.Errorf("%s: passed validation", name)
		}
	}
}

// Every key is in the schema, where a result's JSON holds it, and its
// description starts with the key; every section says what it holds.
func TestSchemaNamesEveryKey(t *testing.T) {
	gen, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(gen, &root); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var inst map[string]any
	if err := json.Unmarshal(data, &inst); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(path string, s, v map[string]any)
	walk = func(path string, s, v map[string]any) {
		props := s["properties"].(map[string]any)
		if len(props) != len(v) {
			t.Errorf("%s: the schema has %d properties, a result's config %d", path, len(props), len(v))
		}
		for name, p := range props {
			p := p.(map[string]any)
			d, _ := p["description"].(string)
			key, text, _ := strings.Cut(d, ": ")
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s.%s: description %q says nothing after the key", path, name, d)
			}
			sub, ok := v[name].(map[string]any)
			if p["type"] == "object" {
				if !ok {
					t.Errorf("%s.%s: an object in the schema, %v in a result", path, name, v[name])
					continue
				}
				walk(path+"."+name, p, sub)
				continue
			}
			if _, ok := v[name]; !ok {
				t.Errorf("%s.%s: in the schema, not in a result's config", path, name)
			}
			keys = append(keys, key)
		}
	}
	walk("config", root, inst)
	var want []string
	for _, k := range Keys(DefaultConfig()) {
		want = append(want, k.Key)
	}
	slices.Sort(keys)
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("the schema's leaf descriptions name %d keys, the config has %d:\nschema %v\nconfig %v", len(keys), len(want), keys, want)
	}
}

// Each key of the choices table is a key, read by its getter, and its
// default is one of its values.
func TestChoicesAreKeys(t *testing.T) {
	for _, ch := range choices {
		c := DefaultConfig()
		def, err := c.Get(ch.key)
		if err != nil {
			t.Errorf("%s: %v", ch.key, err)
			continue
		}
		if !slices.Contains(ch.valid(), def) {
			t.Errorf("%s: default %q is not among %v", ch.key, def, ch.valid())
		}
		if err := c.Set(ch.key + "=probe-value"); err != nil {
			t.Fatal(err)
		}
		if got := ch.get(&c); got != "probe-value" {
			t.Errorf("%s: the getter reads %q, not the key's value", ch.key, got)
		}
	}
}
