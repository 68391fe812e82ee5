package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAMLError is a YAML parse error of the file at path, with a hint where
// the parser's own words do not say what to change: a tab in the
// indentation reads "found character that cannot start any token".
func YAMLError(path string, data []byte, err error) error {
	if bytes.ContainsRune(data, '\t') && strings.Contains(err.Error(), "cannot start any token") {
		return fmt.Errorf("%s: %w (the file has a tab: YAML indents with spaces only)", path, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// LoadConfig returns DefaultConfig() overlaid with the YAML file at path.
// Keys the file leaves out keep their defaults. Unknown keys, duplicate keys
// and values of the wrong type are errors, reported with the file, line and
// full dotted key; all such problems in the file are reported together.
// LoadConfig does not call Validate, so --set overrides can still fix values
// before the combined result is checked.
func LoadConfig(path string) (Config, error) { return LoadConfigOver(path, DefaultConfig()) }

// LoadConfigOver is LoadConfig with base in place of the defaults: the
// keys the file leaves out keep base's values, so a caller can tell the
// keys the file sets to another value (a replay's recorded GPU count).
func LoadConfigOver(path string, base Config) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("reading config: %w", err)
	}
	return parseConfigOver(path, data, base)
}

// parseConfig is LoadConfig on the file's contents; path names the file in
// errors.
func parseConfig(path string, data []byte) (Config, error) {
	return parseConfigOver(path, data, DefaultConfig())
}

// parseConfigOver is parseConfig over base.
func parseConfigOver(path string, data []byte, base Config) (Config, error) {
	c := base
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF { // empty or comment-only file
			return c, nil
		}
		return c, YAMLError(path, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return c, YAMLError(path, data, err)
		}
		return c, fmt.Errorf("%s:%d: a config file holds one YAML document, found another", path, extra.Line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return c, nil
		}
		root = root.Content[0]
	}
	root = resolve(root)
	if isNull(root) {
		return c, nil
	}
	if root.Kind != yaml.MappingNode {
		return c, fmt.Errorf("%s:%d: expected a mapping of config keys at the top level, got %s", path, root.Line, nodeKind(root))
	}
	var errs []error
	applyMapping(reflect.ValueOf(&c).Elem(), "", root, func(line int, err error) {
		errs = append(errs, fmt.Errorf("%s:%d: %w", path, line, err))
	})
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	return c, nil
}

// applyMapping overlays YAML mapping n onto struct value v, reporting every
// problem (with its line) through report rather than stopping at the first.
func applyMapping(v reflect.Value, prefix string, n *yaml.Node, report func(line int, err error)) {
	fs := fieldsOf(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), resolve(n.Content[i+1])
		if kn.Kind != yaml.ScalarNode {
			report(kn.Line, fmt.Errorf("config keys must be plain names, got %s", nodeKind(kn)))
			continue
		}
		key := joinKey(prefix, kn.Value)
		if prev, dup := seen[kn.Value]; dup {
			report(kn.Line, fmt.Errorf("key %q given twice (first on line %d)", key, prev))
			continue
		}
		seen[kn.Value] = kn.Line
		f, ok := findField(v.Type(), kn.Value)
		if !ok {
			if strings.Contains(kn.Value, ".") {
				report(kn.Line, dottedKeyError(v, prefix, kn.Value, vn, fs))
			} else {
				report(kn.Line, unknownNodeKeyError(key, prefix, kn.Value, fs))
			}
			continue
		}
		fv := f.value(v)
		switch {
		case f.section && isNull(vn):
			// "gpu:" with nothing under it overrides nothing.
		case f.section && vn.Kind == yaml.MappingNode:
			f.edit(v, func(fv reflect.Value) { applyMapping(fv, key, vn, report) })
		case f.section:
			report(vn.Line, fmt.Errorf("%s: expected a mapping of %s.* keys, got %s", key, key, nodeKind(vn)))
		case isNull(vn):
			report(vn.Line, fmt.Errorf("%s: no value given; expected %s", key, kindName(fv.Type())))
		case vn.Kind != yaml.ScalarNode:
			report(vn.Line, fmt.Errorf("%s: expected %s, got %s", key, kindName(fv.Type()), nodeKind(vn)))
		default:
			f.edit(v, func(fv reflect.Value) {
				if err := setScalar(fv, key, vn.Value); err != nil {
					report(vn.Line, err)
				}
			})
		}
	}
}

// unknownNodeKeyError names the full key and lists the valid keys at its
// level, because a config file's typo is usually fixed by seeing its
// siblings.
func unknownNodeKeyError(key, prefix, name string, fs []field) error {
	names := fieldNames(fs)
	where := "at the top level"
	if prefix != "" {
		where = "in " + prefix
	}
	msg := fmt.Sprintf("unknown config key %q", key)
	if s := suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", joinKey(prefix, s))
	}
	return fmt.Errorf("%s (valid keys %s: %s)", msg, where, strings.Join(names, ", "))
}

// dottedKeyError answers a dotted key in a config file ("gpu.memory: 8GB",
// as --set and 'mgpu list' spell it) with the nested form the file needs,
// value included, so the fix can be pasted. A dotted key that is no key
// gets the nested form of the closest one, or the unknown-key error.
func dottedKeyError(v reflect.Value, prefix, name string, vn *yaml.Node, fs []field) error {
	full := joinKey(prefix, name)
	target, msg := name, ""
	if _, err := lookupKey(v, name); err != nil {
		var rel []string
		for _, l := range leaves(v, "", nil) {
			rel = append(rel, l.key)
		}
		target = suggest(name, rel)
		if target == "" {
			return unknownNodeKeyError(full, prefix, name, fs)
		}
		msg = fmt.Sprintf("unknown config key %q; did you mean %q? ", full, joinKey(prefix, target))
	} else {
		msg = fmt.Sprintf("config key %q is dotted; ", full)
	}
	val := "VALUE"
	if vn.Kind == yaml.ScalarNode && !isNull(vn) {
		val = yamlScalar(vn.Value)
	}
	return fmt.Errorf("%sa config file nests its keys instead (dots are for --set), so write:\n%s",
		msg, nestedForm(strings.Split(joinKey(prefix, target), "."), val))
}

// nestedForm renders a dotted key's parts and its value as nested YAML
// ("gpu:\n  memory: 8GB"), without a final newline.
func nestedForm(parts []string, val string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(strings.Repeat("  ", i) + p + ":")
	}
	b.WriteString(" " + val)
	return b.String()
}

// WriteYAML writes c as a complete config file in the nested form
// LoadConfig reads: every key in declaration order, each with its value
// and its doc tag (the meaning and source 'mgpu list' shows) as a comment.
// Loading the output gives c back.
func WriteYAML(w io.Writer, c Config) error {
	var b strings.Builder
	writeYAMLLevel(&b, reflect.ValueOf(c), 0)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeYAMLLevel(b *strings.Builder, v reflect.Value, depth int) {
	indent := strings.Repeat("  ", depth)
	fs := fieldsOf(v.Type())
	// Align the comments of each run of consecutive values.
	lines := make([]string, len(fs))
	width := 0
	for i, f := range fs {
		if f.section {
			continue
		}
		lines[i] = indent + f.name + ": " + yamlScalar(formatValue(f.value(v)))
		width = max(width, len(lines[i]))
	}
	for i, f := range fs {
		if f.section {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(indent + f.name + ":\n")
			writeYAMLLevel(b, f.value(v), depth+1)
			continue
		}
		b.WriteString(lines[i])
		if doc := strings.Join(strings.Fields(f.doc), " "); doc != "" {
			b.WriteString(strings.Repeat(" ", width-len(lines[i])+2) + "# " + doc)
		}
		b.WriteString("\n")
	}
}

// yamlScalar returns s as a YAML value that reads back as exactly s: plain
// when YAML takes it so (4KB, mgpusim, 1e-05), else double-quoted.
func yamlScalar(s string) string {
	var doc struct {
		K yaml.Node `yaml:"k"`
	}
	if yaml.Unmarshal([]byte("k: "+s+"  # c\n"), &doc) == nil && doc.K.Kind == yaml.ScalarNode &&
		doc.K.Style == 0 && doc.K.Value == s && !isNull(&doc.K) && !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	// A JSON string is a YAML double-quoted scalar, and never wraps.
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(q.String(), "\n")
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unsupported YAML node"
}
