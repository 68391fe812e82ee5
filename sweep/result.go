package sweep

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mgpu-sim/mgpu/platform"
)

// ReadResult reads a result file whole: every field a run writes must be
// there, at every depth (a missing one would read as zero, and a stub
// file would become a row of zeros in a merged CSV), of its type, and
// consistent (a counter per GPU, a config that validates). The error
// names the first field that is missing or wrong.
func ReadResult(data []byte) (*platform.Result, error) {
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil, jsonError(data, err)
	}
	if path := missing(tree, reflect.TypeFor[platform.Result](), ""); path != "" {
		return nil, fmt.Errorf("missing field %s", path)
	}
	var r platform.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, jsonError(data, err)
	}
	if err := checkResult(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// jsonError says where a JSON file is not JSON, or which field has the
// wrong type.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON at byte %d of %d: %v", syn.Offset, len(data), err)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("field %s: a JSON %s where a result has %s", typ.Field, typ.Value, typ.Type)
	case errors.As(err, &typ):
		return fmt.Errorf("a JSON %s where a result is an object", typ.Value)
	}
	return err
}

// checkResult checks what the fields' types do not: the counts that must
// agree, the values that must be positive, and the config.
func checkResult(r *platform.Result) error {
	switch {
	case r.Workload == "":
		return errors.New("field workload: empty")
	case r.Policy == "":
		return errors.New("field policy: empty")
	case r.Version == "":
		return errors.New("field version: empty")
	case r.GPUs < 1:
		return fmt.Errorf("field gpus: %d, must be at least 1", r.GPUs)
	case r.Config.GPUs != r.GPUs:
		return fmt.Errorf("field config.GPUs: %d, but gpus is %d", r.Config.GPUs, r.GPUs)
	case len(r.PerGPU) != r.GPUs:
		return fmt.Errorf("field per_gpu: %d entries for %d GPUs", len(r.PerGPU), r.GPUs)
	case len(r.PerGPUStal) != r.GPUs:
		return fmt.Errorf("field per_gpu_stalls_ns: %d entries for %d GPUs", len(r.PerGPUStal), r.GPUs)
	case !(r.Scale > 0):
		return fmt.Errorf("field scale: %v, must be above 0", r.Scale)
	case r.SimTimeNs < 0:
		return fmt.Errorf("field sim_time_ns: %v, must be at least 0", r.SimTimeNs)
	case r.Kernels < 0 || r.Barriers < 0:
		return fmt.Errorf("fields kernel_launches and grid_barriers: %d and %d, must be at least 0", r.Kernels, r.Barriers)
	}
	if err := r.Config.Validate(); err != nil {
		return fmt.Errorf("field config: %w", err)
	}
	return nil
}

var (
	// jsonFielder is a type whose JSON object's fields are not its Go
	// fields, and which lists them (uvm.Config, with its runtimes'
	// sections).
	jsonFielder     = reflect.TypeFor[interface{ JSONFields() []reflect.StructField }]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// missing is the dotted path of the first field of type t that the JSON
// value v (as decoded into an any) lacks, looking into objects and arrays
// of objects, or "". A field tagged omitempty may be absent; null is
// absent but for a slice or map, which Go writes as null when empty. A
// type that decodes itself (units.Bytes) is not looked into. Keys match
// fields as encoding/json matches them: exactly, else ignoring case.
func missing(v any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(jsonFielder) { // its JSON fields are not its Go fields
		if obj, ok := v.(map[string]any); ok {
			return missingFields(obj, reflect.Zero(t).Interface().(interface{ JSONFields() []reflect.StructField }).JSONFields(), path)
		}
		return ""
	}
	if decodesItself(t) {
		return ""
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		elems, _ := v.([]any) // not an array: Unmarshal says which field
		for i, e := range elems {
			if p := missing(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Struct:
		if obj, ok := v.(map[string]any); ok { // not an object: Unmarshal says
			return missingField(obj, t, path)
		}
	}
	return ""
}

// missingField is missing for the fields of struct type t in obj.
func missingField(obj map[string]any, t reflect.Type, path string) string {
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		fields[i] = t.Field(i)
	}
	return missingFields(obj, fields, path)
}

// missingFields is missing for fields in obj.
func missingFields(obj map[string]any, fields []reflect.StructField, path string) string {
	for _, f := range fields {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		at := name
		if path != "" {
			at = path + "." + name
		}
		v, ok := lookup(obj, name)
		if !ok || v == nil && !nullable(f.Type) {
			if strings.Contains(","+opts+",", ",omitempty,") {
				continue
			}
			return at
		}
		if p := missing(v, f.Type, at); p != "" {
			return p
		}
	}
	return ""
}

// nullable is whether Go writes a value of type t as null: an empty slice
// or map, which a whole result may have.
func nullable(t reflect.Type) bool { return t.Kind() == reflect.Slice || t.Kind() == reflect.Map }

// lookup finds key name in obj as encoding/json does: exactly, else
// ignoring case.
func lookup[V any](obj map[string]V, name string) (V, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// decodesItself is whether t has its own JSON or text decoding.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler) ||
		t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler)
}
