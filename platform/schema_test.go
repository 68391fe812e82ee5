package platform

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/observuvm"
	observuvmrt "github.com/mgpu-sim/mgpu/runtimes/observuvm"
)

// resultSchemaPath documents WriteJSON's output field by field. The tests
// below keep the two in step: every result validates, and the schema
// rejects any field it does not describe.
const resultSchemaPath = "../docs/result.schema.json"

func loadResultSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(resultSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", resultSchemaPath, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("result.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("result.schema.json") // also checks it against the 2020-12 metaschema
	if err != nil {
		t.Fatalf("%s: %v", resultSchemaPath, err)
	}
	return sch
}

func decodeInstance(t *testing.T, data []byte) map[string]any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

// schemaRun is one small run whose result the schema must accept; has
// names the optional fields it must produce, so each is exercised.
type schemaRun struct {
	name string
	o    Options
	sets []string
	has  []string
}

// TestResultSchemaValidatesRuns validates fresh results of small runs that
// between them produce every optional field: iterations, sets,
// policy_stats (OASIS, OASIS-InMem, GRIT) and policy_history.
func TestResultSchemaValidatesRuns(t *testing.T) {
	sch := loadResultSchema(t)
	two := func(set func(*config.Config)) config.Config {
		c := config.DefaultConfig()
		c.GPUs = 2
		if set != nil {
			set(&c)
		}
		return c
	}
	runs := []schemaRun{
		{name: "fft_on-touch", o: Options{Workload: "fft", Policy: "on-touch", Seed: 1, Scale: 0.03, Config: two(nil)}},
		{name: "mm_oasis", o: Options{Workload: "mm", Policy: "oasis", Seed: 1, Scale: 0.03, Config: two(nil)}, has: []string{"policy_stats", "policy_history"}},
		{name: "mt_grit", o: Options{Workload: "mt", Policy: "grit", Seed: 2, Scale: 0.03, Size: "8gpu", Config: two(nil)}, has: []string{"policy_stats"}},
		{name: "st_oasis-inmem_oversubscribed", o: Options{Workload: "st", Policy: "oasis-inmem", Seed: 1, Scale: 0.03, Iterations: 2,
			Config: two(func(c *config.Config) { c.Oversubscribe = 1.5 })},
			sets: []string{"policy.reset_threshold=4", "uvm.eviction=lru-4kb", "gpu.memory=2GB"},
			has:  []string{"iterations", "sets", "policy_stats"}},
		{name: "ra_uvmmu_hardware", o: Options{Workload: "ra", Policy: "on-touch", Seed: 1, Scale: 0.1, Config: hardwareConfig(2, 1.5, "linear-random")},
			has: []string{"policy_stats"}},
		{name: "ra_uvmsmart", o: Options{Workload: "ra", Policy: "on-touch", Seed: 1, Scale: 0.05, Config: uvmsmartConfig(1, 1.5, "uvmsmart")},
			has: []string{"policy_stats"}},
		{name: "hotspot_observuvm_tm++", o: Options{Workload: "hotspot", Policy: "on-touch", Seed: 1, Scale: 0.05,
			Config: func() config.Config {
				c := observeConfig(1, 1.5, "tournament", "fdp")
				observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.Deep = "rgp" })
				return c
			}()}, has: []string{"policy_stats"}},
		{name: "st_griffin-dpc", o: Options{Workload: "st", Policy: "access-counter", Seed: 1, Scale: 0.05, Config: griffinConfig(4, 20000)},
			has: []string{"policy_stats"}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			o := r.o
			for _, kv := range r.sets {
				if err := o.Config.Set(kv); err != nil {
					t.Fatal(err)
				}
				k, v, _ := strings.Cut(kv, "=")
				if o.Sets == nil {
					o.Sets = map[string]string{}
				}
				o.Sets[k] = v
			}
			res, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := res.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			inst := decodeInstance(t, b.Bytes())
			if err := sch.Validate(inst); err != nil {
				t.Errorf("result does not match %s:\n%v", resultSchemaPath, err)
			}
			for _, k := range r.has {
				if _, ok := inst[k]; !ok {
					t.Errorf("result lacks %q, which this case is meant to cover", k)
				}
			}
		})
	}
}

// TestResultSchemaValidatesGoldens validates every stored golden result:
// all workloads under all policies and variants, without simulating.
func TestResultSchemaValidatesGoldens(t *testing.T) {
	sch := loadResultSchema(t)
	files, err := filepath.Glob(filepath.Join("testdata", "golden*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden results found: %v", err)
	}
	bad := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(decodeInstance(t, data)); err != nil {
			if bad++; bad <= 3 {
				t.Errorf("%s does not match %s:\n%v", f, resultSchemaPath, err)
			}
		}
	}
	if bad > 3 {
		t.Errorf("... %d of %d golden results fail in all", bad, len(files))
	}
}

// TestResultSchemaRejectsUndocumented: a field the schema does not
// describe, at any level, fails validation, as do a missing required
// field and a wrong type.
func TestResultSchemaRejectsUndocumented(t *testing.T) {
	sch := loadResultSchema(t)
	data, err := os.ReadFile(filepath.Join("testdata", "golden", "mm_oasis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(decodeInstance(t, data)); err != nil {
		t.Fatalf("the unchanged result fails: %v", err)
	}
	obj := func(v any, path ...any) map[string]any {
		for _, p := range path {
			switch p := p.(type) {
			case string:
				v = v.(map[string]any)[p]
			case int:
				v = v.([]any)[p]
			}
		}
		return v.(map[string]any)
	}
	for _, path := range [][]any{
		nil, {"config"}, {"config", "GPU"}, {"config", "Policy"}, {"totals"}, {"per_gpu", 0}, {"stalls_ns"},
		{"per_gpu_stalls_ns", 1}, {"links", 0}, {"objects", 0}, {"policy_stats"}, {"policy_history", 0},
	} {
		inst := decodeInstance(t, data)
		obj(inst, path...)["bogus_field"] = json.Number("1")
		err := sch.Validate(inst)
		if err == nil {
			t.Errorf("an undocumented field at %v passed validation", path)
		} else if !strings.Contains(err.Error(), "bogus_field") {
			t.Errorf("the error for an undocumented field at %v does not name it: %v", path, err)
		}
	}
	for name, change := range map[string]func(map[string]any){
		"missing totals":      func(m map[string]any) { delete(m, "totals") },
		"missing config key":  func(m map[string]any) { delete(obj(m, "config", "UVM"), "Eviction") },
		"gpus as string":      func(m map[string]any) { m["gpus"] = "4" },
		"size not a size":     func(m map[string]any) { m["footprint"] = "1.5MB" },
		"negative counter":    func(m map[string]any) { obj(m, "totals")["page_faults"] = json.Number("-1") },
		"set value no string": func(m map[string]any) { m["sets"] = map[string]any{"gpus": json.Number("8")} },
	} {
		inst := decodeInstance(t, data)
		change(inst)
		if sch.Validate(inst) == nil {
			t.Errorf("%s: passed validation", name)
		}
	}
}

// schemaKeywords are the keywords the schema uses; anything else is most
// likely a misspelt one, which JSON Schema would silently ignore.
var schemaKeywords = []string{"$schema", "$defs", "$ref", "title", "description", "type", "properties", "required",
	"additionalProperties", "propertyNames", "items", "enum", "pattern", "minimum", "maximum", "exclusiveMinimum"}

// TestResultSchemaDescribesEveryField: every property has a description
// and every object with properties forbids others. The config part is
// generated from the config keys (config.ResultSchema; config's
// TestResultSchemaIsCurrent keeps the file in step).
func TestResultSchemaDescribesEveryField(t *testing.T) {
	data, err := os.ReadFile(resultSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		for k := range s {
			if !slices.Contains(schemaKeywords, k) {
				t.Errorf("%s: unexpected keyword %q", path, k)
			}
		}
		if d, _ := s["description"].(string); d == "" && path != "#" {
			t.Errorf("%s: no description", path)
		}
		if props, ok := s["properties"].(map[string]any); ok {
			if s["additionalProperties"] != false {
				t.Errorf("%s: has properties but allows others (want additionalProperties: false)", path)
			}
			for name, p := range props {
				walk(path+"/"+name, p.(map[string]any))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(path+"/items", items)
		}
	}
	walk("#", root)
	for name, d := range root["$defs"].(map[string]any) {
		walk("#/$defs/"+name, d.(map[string]any))
	}

}
