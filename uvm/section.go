package uvm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// A runtime's own settings are a section of Config, uvm.<name>.*, that its
// package registers (RegisterSection) rather than a field uvm declares, so
// that uvm names no runtime. Every Config holds a value of every
// registered section; package config lists, parses, sets and checks a section's
// keys as it does the declared fields', and results hold it as a field.

// A SectionSpec places a registered section among Config's keys.
type SectionSpec struct {
	// Name is the section's key below uvm ("suv" for uvm.suv.*).
	Name string
	// Field is the section's property in a result's JSON config ("SUV").
	Field string
	// After is the key of Config (a yaml name, or a section's Name) the
	// section is listed after, in 'mgpu list', config files and results;
	// Order ranks the sections listed after the same key, lowest first.
	// Results are compared byte for byte, so a section keeps its place.
	After string
	Order int
	// Doc says what the section holds and when it takes effect.
	Doc string
}

// section is one registered section: its spec, its default value and
// its slot in Config.sections.
type section struct {
	SectionSpec
	def  any
	slot int
}

// MaxSections bounds the registered sections: Config holds them in an
// array, so that it stays a comparable value (a cache key) that copies
// with its sections.
const MaxSections = 16

// sections are the registered sections, in listing order.
var sections []section

// A Section is the typed handle of a registered section, by which its
// package reads and changes its value in a Config.
type Section[T comparable] struct{ name string }

// RegisterSection adds a section of type T, a struct of yaml-tagged fields
// as Config's own, with value def in DefaultConfig. Call it from an init
// function (or a package variable's initializer); it panics on a
// duplicate name or field, a name that is a key of Config already, a T
// that is not a comparable struct, or more than MaxSections.
func RegisterSection[T comparable](spec SectionSpec, def T) Section[T] {
	if reflect.TypeFor[T]().Kind() != reflect.Struct || spec.Name == "" || spec.Field == "" || len(sections) == MaxSections {
		panic(fmt.Sprintf("uvm.RegisterSection %q: want a name, a field, a struct type and at most %d sections", spec.Name, MaxSections))
	}
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		if f := ct.Field(i); f.Name == spec.Field || yamlName(f) == spec.Name {
			panic(fmt.Sprintf("uvm.RegisterSection %q: Config declares %s already", spec.Name, f.Name))
		}
	}
	for _, s := range sections {
		if s.Name == spec.Name || s.Field == spec.Field {
			panic(fmt.Sprintf("uvm.RegisterSection %q: registered twice", spec.Name))
		}
	}
	sections = append(sections, section{SectionSpec: spec, def: def, slot: len(sections)})
	slices.SortStableFunc(sections, func(a, b section) int { return a.Order - b.Order })
	return Section[T]{name: spec.Name}
}

// Sections lists the registered sections in listing order.
func Sections() []SectionSpec {
	out := make([]SectionSpec, len(sections))
	for i, s := range sections {
		out[i] = s.SectionSpec
	}
	return out
}

func sectionNamed(name string) (section, bool) {
	for _, s := range sections {
		if s.Name == name {
			return s, true
		}
	}
	return section{}, false
}

// Of is the section's value in c: its default if c was not made by
// DefaultConfig.
func (s Section[T]) Of(c Config) T { return c.SectionValue(s.name).(T) }

// Set makes v the section's value in c, leaving every copy of c as it was.
func (s Section[T]) Set(c *Config, v T) { c.SetSection(s.name, v) }

// Edit changes the section's value in c by f.
func (s Section[T]) Edit(c *Config, f func(*T)) {
	v := s.Of(*c)
	f(&v)
	s.Set(c, v)
}

// SectionValue is section name's value in c (a struct value), or nil for
// a name not registered.
func (c Config) SectionValue(name string) any {
	s, ok := sectionNamed(name)
	if !ok {
		return nil
	}
	if v := c.sections[s.slot]; v != nil {
		return v
	}
	return s.def
}

// SetSection makes v, a value of the registered section's type, the
// section's value in c. It panics on a name not registered or a value of
// another type.
func (c *Config) SetSection(name string, v any) {
	s, ok := sectionNamed(name)
	if !ok || reflect.TypeOf(v) != reflect.TypeOf(s.def) {
		panic(fmt.Sprintf("uvm.Config.SetSection %q: not a registered section of type %T", name, v))
	}
	if v == s.def {
		v = nil // the default is held as none, so that equal configs are ==
	}
	c.sections[s.slot] = v
}

// yamlName is the config key of field f, as package config's walker reads
// it.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// A ConfigPart is one part of Config in listing order: a declared field
// (Index into Config's fields) or a registered section (Index -1).
type ConfigPart struct {
	Index   int
	Section SectionSpec
}

// ConfigParts lists Config's exported fields and the registered sections
// in listing order: each section after the key its spec names (at the end
// if no part has that key).
func ConfigParts() []ConfigPart {
	ct := reflect.TypeFor[Config]()
	var out []ConfigPart
	placed := map[string]bool{}
	var after func(key string)
	after = func(key string) {
		for _, s := range sections {
			if s.After == key && !placed[s.Name] {
				placed[s.Name] = true
				out = append(out, ConfigPart{Index: -1, Section: s.SectionSpec})
				after(s.Name)
			}
		}
	}
	for i := range ct.NumField() {
		f := ct.Field(i)
		if !f.IsExported() {
			continue
		}
		out = append(out, ConfigPart{Index: i})
		after(yamlName(f))
	}
	for _, s := range sections {
		if !placed[s.Name] {
			placed[s.Name] = true
			out = append(out, ConfigPart{Index: -1, Section: s.SectionSpec})
			after(s.Name)
		}
	}
	return out
}

// JSONFields are the properties of Config's JSON object in order: its
// exported fields, and a field of each section's type named Section.Field.
func (Config) JSONFields() []reflect.StructField {
	ct := reflect.TypeFor[Config]()
	var out []reflect.StructField
	for _, p := range ConfigParts() {
		if p.Index >= 0 {
			out = append(out, ct.Field(p.Index))
			continue
		}
		s, _ := sectionNamed(p.Section.Name)
		out = append(out, reflect.StructField{Name: s.Field, Type: reflect.TypeOf(s.def)})
	}
	return out
}

// MarshalJSON writes Config as encoding/json writes a struct, with each
// section a field in its place (ConfigParts).
func (c Config) MarshalJSON() ([]byte, error) {
	v := reflect.ValueOf(c)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ConfigParts() {
		name, x := "", any(nil)
		if p.Index >= 0 {
			name, x = v.Type().Field(p.Index).Name, v.Field(p.Index).Interface()
		} else {
			name, x = p.Section.Field, c.SectionValue(p.Section.Name)
		}
		val, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes over c's values: a field or
// a section the data leaves out keeps its value.
func (c *Config) UnmarshalJSON(data []byte) error {
	type fields Config // Config's fields without its methods
	if err := json.Unmarshal(data, (*fields)(c)); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, s := range sections {
		r, ok := raw[s.Field]
		if !ok {
			continue
		}
		p := reflect.New(reflect.TypeOf(s.def))
		p.Elem().Set(reflect.ValueOf(c.SectionValue(s.Name)))
		if err := json.Unmarshal(r, p.Interface()); err != nil {
			return fmt.Errorf("%s: %w", s.Field, err)
		}
		c.SetSection(s.Name, p.Elem().Interface())
	}
	return nil
}
