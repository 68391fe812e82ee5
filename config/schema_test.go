package config

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// resultSchemaPath documents a result's config, among its other fields.
const resultSchemaPath = "../docs/result.schema.json"

// TestResultSchemaNamesEveryKey: the config object's properties are
// Config's Go field names (it has no json tags); each description starts
// with the dotted key.
func TestResultSchemaNamesEveryKey(t *testing.T) {
	data, err := os.ReadFile(resultSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	var check func(v reflect.Value, prefix string, s map[string]any)
	check = func(v reflect.Value, prefix string, s map[string]any) {
		t0 := v.Type()
		props, _ := s["properties"].(map[string]any)
		if len(props) != len(fieldsOf(t0)) {
			t.Errorf("config %q: schema has %d properties, the config %d", prefix, len(props), len(fieldsOf(t0)))
		}
		for _, f := range fieldsOf(t0) {
			key := joinKey(prefix, f.name)
			p, ok := props[f.goName].(map[string]any)
			if !ok {
				t.Errorf("config key %s: no property %q in the schema", key, f.goName)
				continue
			}
			want := key + ": "
			if f.section {
				want = key + ".*: "
			}
			if d, _ := p["description"].(string); !strings.HasPrefix(d, want) {
				t.Errorf("config property %s: description %q does not start with %q", f.goName, d, want)
			}
			if f.section {
				check(f.value(v), key, p)
			}
		}
	}
	check(reflect.ValueOf(DefaultConfig()), "", root["properties"].(map[string]any)["config"].(map[string]any))
}
