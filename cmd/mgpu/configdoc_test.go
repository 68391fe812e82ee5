package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite "+configDocFile+" from 'mgpu list' (make docs)")

// repoConfigDoc is docs/config.md, seen from this package's directory.
var repoConfigDoc = filepath.Join("..", "..", filepath.FromSlash(configDocFile))

// TestConfigDocIsCurrent keeps docs/config.md equal to what writeConfigDoc
// makes of 'mgpu list' now, so a new workload, key, default or source
// reaches the documentation. With -update-docs it rewrites the file.
func TestConfigDocIsCurrent(t *testing.T) {
	var got bytes.Buffer
	if err := writeConfigDoc(&got); err != nil {
		t.Fatal(err)
	}
	if *updateDocs {
		if err := os.WriteFile(repoConfigDoc, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(repoConfigDoc)
	if err != nil {
		t.Fatalf("%v; create it with: make docs", err)
	}
	if bytes.Equal(got.Bytes(), want) {
		return
	}
	i, gl, wl := firstDifference(got.String(), string(want))
	t.Errorf("%s is out of date with 'mgpu list'; regenerate it with\n\tmake docs\n(or: go test ./cmd/mgpu -run TestConfigDocIsCurrent -update-docs)\nfirst difference, line %d:\n\tgenerated: %q\n\tthe file:  %q",
		configDocFile, i, gl, wl)
}

// TestConfigDocListsEverything: the page names every workload, policy,
// scheme and key that 'mgpu list' prints, with each key's default and
// source, so the markdown form leaves nothing of the list out.
func TestConfigDocListsEverything(t *testing.T) {
	var doc, out, errb bytes.Buffer
	if err := writeConfigDoc(&doc); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"list"}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	text := doc.String()
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "  ") {
			continue // a section title or a blank line
		}
		name := strings.Fields(line)[0]
		if !strings.Contains(text, "| `"+name+"` |") && !strings.Contains(text, "- `"+name+"`\n") {
			t.Errorf("%s lacks %q, which mgpu list prints", configDocFile, name)
		}
	}
	for _, k := range config.Keys(config.DefaultConfig()) {
		if row := "| " + codeCell(k.Key) + " | " + codeCell(k.Value) + " | " + mdCell(k.Doc) + " |\n"; !strings.Contains(text, row) {
			t.Errorf("%s lacks the row %q", configDocFile, row)
		}
	}
}

func TestMarkdownCells(t *testing.T) {
	for in, want := range map[string]string{
		"host | spread":     `host \| spread`,
		"the C*k*k rows":    `the C\*k\*k rows`,
		"[regular] a_b <x>": `\[regular\] a\_b \<x\>`,
		`back\slash`:        `back\\slash`,
		"":                  "",
	} {
		if got := mdCell(in); got != want {
			t.Errorf("mdCell(%q) = %q, want %q", in, got, want)
		}
	}
	if got := codeCell("a|b"); got != "`a\\|b`" {
		t.Errorf("codeCell(a|b) = %q", got)
	}
}
