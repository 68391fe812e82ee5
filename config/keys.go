package config

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

// Config keys are the yaml tag names of Config's fields, joined with dots
// through nested structs ("gpu.memory"). The YAML loader, Set and Keys all
// walk the struct by reflection, so a field added to any sub-config is
// loadable, settable and listed without touching this file, and every path
// reports errors the same way.

// KeyInfo is one leaf config key as `mgpu list` prints it.
type KeyInfo struct {
	Key   string // dotted key, e.g. "gpu.memory"
	Value string // current value, in a form Set accepts back
	Doc   string // the field's doc tag, and the valid values it does not name
}

// Keys returns every leaf key of c in struct declaration order, with its
// current value and doc tag. A key that takes one of a list gets the
// values its doc tag does not name appended, so that a runtime registered
// from outside (uvm.adaptive's, say) is listed with the rest.
func Keys(c Config) []KeyInfo {
	ls := leaves(reflect.ValueOf(&c).Elem(), "", nil)
	out := make([]KeyInfo, len(ls))
	for i, l := range ls {
		out[i] = KeyInfo{Key: l.key, Value: formatValue(l.v), Doc: withUnnamed(l.doc, choicesOf(l.key))}
	}
	return out
}

// withUnnamed appends to doc the values it does not name as a word.
func withUnnamed(doc string, values []string) string {
	var missing []string
	for _, v := range values {
		if !namesWord(doc, v) {
			missing = append(missing, v)
		}
	}
	if len(missing) == 0 {
		return doc
	}
	return doc + " (also: " + strings.Join(missing, " | ") + ")"
}

// namesWord reports whether w occurs in s with no letter, digit, '-' or
// '_' on either side.
func namesWord(s, w string) bool {
	part := func(r byte) bool {
		return r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		if (i == 0 || !part(s[i-1])) && (end == len(s) || !part(s[end])) {
			return true
		}
		from = i + 1
	}
}

// Set applies one "key=value" override (the --set flag). Spaces around the
// key and the value are ignored. On error c is unchanged.
func (c *Config) Set(kv string) error {
	key, val, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("setting %q: expected key=value, e.g. gpus=8", kv)
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if key == "" {
		return fmt.Errorf("setting %q: missing key before '='", kv)
	}
	return editKey(reflect.ValueOf(c).Elem(), key, func(v reflect.Value) error { return setScalar(v, key, val) })
}

// Get returns the value of one dotted key, in the form Set accepts back.
func (c Config) Get(key string) (string, error) {
	v, err := lookupKey(reflect.ValueOf(&c).Elem(), key)
	if err != nil {
		return "", err
	}
	return formatValue(v), nil
}

// field is one yaml-tagged field at one level of the config tree, or a
// section a runtime registered (uvm.RegisterSection), which the walk
// treats as a nested struct field.
type field struct {
	name    string
	doc     string
	index   int  // the struct field's index; -1 for a registered section
	section bool // a nested struct whose fields make dotted keys
	goName  string
}

var uvmConfigType = reflect.TypeFor[uvm.Config]()

// value is f's value in struct value v: for a registered section a copy,
// which set writes back.
func (f field) value(v reflect.Value) reflect.Value {
	if f.index >= 0 {
		return v.Field(f.index)
	}
	return reflect.ValueOf(v.Interface().(uvm.Config).SectionValue(f.name))
}

// edit calls change on an addressable f of addressable struct value v,
// and writes a registered section's copy back to v.
func (f field) edit(v reflect.Value, change func(fv reflect.Value)) {
	if f.index >= 0 {
		change(v.Field(f.index))
		return
	}
	cp := reflect.New(reflect.TypeOf(v.Interface().(uvm.Config).SectionValue(f.name))).Elem()
	cp.Set(f.value(v))
	change(cp)
	v.Addr().Interface().(*uvm.Config).SetSection(f.name, cp.Interface())
}

// typeIn is f's type, a field of struct type t.
func (f field) typeIn(t reflect.Type) reflect.Type {
	if f.index >= 0 {
		return t.Field(f.index).Type
	}
	return reflect.TypeOf(uvm.DefaultConfig().SectionValue(f.name))
}

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// fieldsByType memoizes fieldsOf: reading struct tags is most of the time
// a sweep of a million runs takes to check them (every run's keys are
// listed), and a type's fields never change.
var fieldsByType sync.Map // reflect.Type -> []field

// fieldsOf lists the config fields of struct type t in declaration order.
// Untagged exported fields use the lowercased field name, as yaml.v3 does.
// The list is shared: callers must not change it.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldsByType.Load(t); ok {
		return fs.([]field)
	}
	fs := readFields(t)
	fieldsByType.Store(t, fs)
	return fs
}

func readFields(t reflect.Type) []field {
	if t == uvmConfigType {
		return uvmFields()
	}
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		if name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ","); name == "-" {
			continue
		}
		fs = append(fs, structField(sf, i))
	}
	return fs
}

// uvmFields are uvm.Config's fields and registered sections, in listing
// order (uvm.ConfigParts).
func uvmFields() []field {
	var fs []field
	for _, p := range uvm.ConfigParts() {
		if p.Index >= 0 {
			fs = append(fs, structField(uvmConfigType.Field(p.Index), p.Index))
			continue
		}
		fs = append(fs, field{name: p.Section.Name, doc: p.Section.Doc, index: -1, section: true, goName: p.Section.Field})
	}
	return fs
}

// structField is struct field sf, the i-th, as a config field.
func structField(sf reflect.StructField, i int) field {
	name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
	if name == "" {
		name = strings.ToLower(sf.Name)
	}
	section := sf.Type.Kind() == reflect.Struct && !reflect.PointerTo(sf.Type).Implements(textUnmarshalerType)
	return field{name: name, doc: sf.Tag.Get("doc"), index: i, section: section, goName: sf.Name}
}

func findField(t reflect.Type, name string) (field, bool) {
	for _, f := range fieldsOf(t) {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

func fieldNames(fs []field) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// leaf is one value with its dotted key (of a registered section: a copy,
// which Set and the YAML loader write back through field.edit).
type leaf struct {
	key, doc string
	v        reflect.Value
}

func leaves(v reflect.Value, prefix string, out []leaf) []leaf {
	for _, f := range fieldsOf(v.Type()) {
		key := joinKey(prefix, f.name)
		if f.section {
			out = leaves(f.value(v), key, out)
		} else {
			out = append(out, leaf{key: key, doc: f.doc, v: f.value(v)})
		}
	}
	return out
}

// lookupKey finds the leaf value for a dotted key in struct value v, to
// read it (a registered section's value is a copy).
func lookupKey(v reflect.Value, key string) (reflect.Value, error) {
	var leaf reflect.Value
	err := walkKey(v, key, func(f field, v reflect.Value, inner func(reflect.Value) error) error {
		return inner(f.value(v))
	}, func(fv reflect.Value) error { leaf = fv; return nil })
	return leaf, err
}

// editKey calls change on the leaf value of a dotted key in addressable
// struct value v, writing a registered section's copy back.
func editKey(v reflect.Value, key string, change func(reflect.Value) error) error {
	return walkKey(v, key, func(f field, v reflect.Value, inner func(reflect.Value) error) error {
		var err error
		f.edit(v, func(fv reflect.Value) { err = inner(fv) })
		return err
	}, change)
}

// walkKey resolves a dotted key in v level by level. enter hands each
// level's field value to inner (the next level, or act at the key's own
// field), so that the caller chooses to read the values or edit them.
func walkKey(v reflect.Value, key string, enter func(f field, v reflect.Value, inner func(reflect.Value) error) error,
	act func(reflect.Value) error) error {
	parts := strings.Split(key, ".")
	var walk func(v reflect.Value, i int) error
	walk = func(v reflect.Value, i int) error {
		f, ok := findField(v.Type(), parts[i])
		if !ok || (!f.section && i < len(parts)-1) {
			return unknownKeyError(key)
		}
		if f.section && i == len(parts)-1 {
			var subs []string
			for _, l := range leaves(f.value(v), key, nil) {
				subs = append(subs, l.key)
			}
			return fmt.Errorf("config key %q is a group, not a value; set one of its keys: %s", key, strings.Join(subs, ", "))
		}
		if i == len(parts)-1 {
			return enter(f, v, act)
		}
		return enter(f, v, func(fv reflect.Value) error { return walk(fv, i+1) })
	}
	return walk(v, 0)
}

// unknownKeyError suggests the closest real key, since most unknown keys
// are typos or a missing section prefix ("memory" for "gpu.memory").
func unknownKeyError(key string) error {
	var all []string
	for _, l := range leaves(reflect.ValueOf(DefaultConfig()), "", nil) {
		all = append(all, l.key)
	}
	if s := suggest(key, all); s != "" {
		return fmt.Errorf("unknown config key %q; did you mean %q? (run 'mgpu list' for all keys)", key, s)
	}
	return fmt.Errorf("unknown config key %q (run 'mgpu list' for all keys)", key)
}

// suggest returns the candidate closest to key by edit distance
// (case-insensitive; a dotless key is also compared with each candidate's
// last component), or "" when none is within about a third of key's length.
func suggest(key string, candidates []string) string {
	k := strings.ToLower(key)
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(k, c)
		if !strings.Contains(k, ".") {
			if i := strings.LastIndexByte(c, '.'); i >= 0 {
				d = min(d, editDistance(k, c[i+1:]))
			}
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(1, len([]rune(k))/3) {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and adjacent transpositions each cost 1, so
// "memroy" is one edit from "memory".
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	rows := make([][]int, len(s)+1)
	for i := range rows {
		rows[i] = make([]int, len(t)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(s)][len(t)]
}

var bytesType = reflect.TypeFor[units.Bytes]()

// kindName describes what a field of type t accepts, for error messages.
func kindName(t reflect.Type) string {
	if t == bytesType {
		return "a size such as 4GB, 64KB or 4096"
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return "a " + t.String()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	}
	return "a " + t.String()
}

// setScalar parses s into v according to v's type. It is the single parse
// path for both YAML scalars and --set values.
func setScalar(v reflect.Value, key, s string) error {
	t := v.Type()
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		// Decode into a fresh value so a failed parse leaves v unchanged.
		nv := reflect.New(t)
		if err := nv.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			if t == bytesType {
				if errors.Is(err, strconv.ErrRange) || errors.Is(err, units.ErrNotWhole) {
					return fmt.Errorf("%s: %w", key, err)
				}
				return fmt.Errorf("%s: expected %s, got %q", key, kindName(t), s)
			}
			return fmt.Errorf("%s: expected %s, got %q: %v", key, kindName(t), s, err)
		}
		v.Set(nv.Elem())
		return nil
	}
	bad := func(err error) error {
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%s: %q is out of range for %s", key, s, kindName(t))
		}
		return fmt.Errorf("%s: expected %s, got %q", key, kindName(t), s)
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// Base 10 only: base 0 would read "010" as octal 8.
		n, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			return bad(err)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, t.Bits())
		if err != nil {
			return bad(err)
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, t.Bits())
		if err != nil {
			return bad(err)
		}
		v.SetFloat(f)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad(err)
		}
		v.SetBool(b)
	case reflect.String:
		v.SetString(s)
	default:
		return fmt.Errorf("%s: config fields of type %s are not supported", key, t)
	}
	return nil
}

// formatValue prints v so that setScalar reads it back unchanged.
func formatValue(v reflect.Value) string {
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits())
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.String:
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}
