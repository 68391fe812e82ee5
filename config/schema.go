package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// The config part of the result schema (docs/result.schema.json) is made
// from the walk Keys, the YAML loader and Set share, so that it names
// every key, the registered runtimes' sections included, with the doc
// tag 'mgpu list' prints: a schema written by hand drifted from the code.

// schemaDoc describes the config object of a result.
const schemaDoc = "The full config of the run, after --config, --set and the flags (gpus, check, oversubscribe) were applied. " +
	"Property names are the Go field names; each description starts with the config key ('mgpu list', --set, YAML) the property holds. " +
	"Generated from the config package's key registry (make docs): a section appears only if its runtime is registered."

// A member is one name and value of a JSON object, which schemaObject
// writes in order: a schema reads best with type and description first.
type member struct {
	name  string
	value any
}

// schemaObject is a JSON object whose members keep their order.
type schemaObject []member

func (o schemaObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeCompact(&b, m.name); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := encodeCompact(&b, m.value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encodeCompact writes v as JSON without escaping <, > and & (which the
// descriptions hold), so that the file reads as written.
func encodeCompact(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// Schema is the JSON Schema (draft 2020-12) of a result's config object
// as the registered runtimes make it: every section an object that
// allows only its keys, every key a property named by its Go field, its
// description the dotted key and its doc tag, its type from its Go kind
// (a size a reference to #/$defs/bytes), and the values of a key Validate
// takes from a list.
func Schema() ([]byte, error) {
	var b bytes.Buffer
	err := encodeCompact(&b, sectionSchema(reflect.TypeFor[Config](), "", schemaDoc))
	return b.Bytes(), err
}

func sectionSchema(t reflect.Type, prefix, doc string) schemaObject {
	props := schemaObject{}
	var required []string
	for _, f := range fieldsOf(t) {
		key := joinKey(prefix, f.name)
		if f.section {
			props = append(props, member{f.goName, sectionSchema(f.typeIn(t), key, key+".*: "+f.doc)})
		} else {
			props = append(props, member{f.goName, leafSchema(f.typeIn(t), key, f.doc)})
		}
		required = append(required, f.goName)
	}
	return schemaObject{{"type", "object"}, {"description", doc}, {"properties", props},
		{"required", required}, {"additionalProperties", false}}
}

// leafSchema is the schema of key, of type t: its values listed where
// Validate takes one of a list.
func leafSchema(t reflect.Type, key, doc string) schemaObject {
	doc = key + ": " + doc
	if t == bytesType {
		return schemaObject{{"$ref", "#/$defs/bytes"}, {"description", doc}}
	}
	s := schemaObject{{"type", "string"}, {"description", doc}} // a string, or a value that reads itself from text
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s[0].value = "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !reflect.PointerTo(t).Implements(textUnmarshalerType) {
			s = append(s[:1], member{"minimum", 0}, s[1])
			s[0].value = "integer"
		}
	case reflect.Float32, reflect.Float64:
		s[0].value = "number"
	case reflect.Bool:
		s[0].value = "boolean"
	}
	if valid := choicesOf(key); valid != nil {
		s = append(s, member{"enum", valid})
	}
	return s
}

// ResultSchema is doc, a result schema, with the config property of its
// top-level properties replaced by Schema(), indented as the rest of doc
// (two spaces a level). Everything else in doc is kept byte for byte.
func ResultSchema(doc []byte) ([]byte, error) {
	start, end, err := configSpan(doc)
	if err != nil {
		return nil, err
	}
	gen, err := Schema()
	if err != nil {
		return nil, err
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, gen, "    ", "  "); err != nil {
		return nil, err
	}
	return bytes.Join([][]byte{doc[:start], []byte(": "), ind.Bytes(), doc[end:]}, nil), nil
}

// configSpan finds the value of properties.config in the JSON object doc:
// from just after its name to the end of its value.
func configSpan(doc []byte) (start, end int64, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	open := func() error {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return fmt.Errorf("result schema: expected an object at offset %d", dec.InputOffset())
		}
		return nil
	}
	// member finds the member named name in the object just opened, and
	// leaves the decoder before its value.
	member := func(name string) error {
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fmt.Errorf("result schema: %w", err)
			}
			if tok == name {
				return nil
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fmt.Errorf("result schema: %w", err)
			}
		}
		return fmt.Errorf("result schema: no member %q", name)
	}
	if err := open(); err != nil {
		return 0, 0, err
	}
	if err := member("properties"); err != nil {
		return 0, 0, err
	}
	if err := open(); err != nil {
		return 0, 0, err
	}
	if err := member("config"); err != nil {
		return 0, 0, fmt.Errorf("%w in properties", err)
	}
	start = dec.InputOffset()
	var skip json.RawMessage
	if err := dec.Decode(&skip); err != nil {
		return 0, 0, fmt.Errorf("result schema: properties.config: %w", err)
	}
	return start, dec.InputOffset(), nil
}
