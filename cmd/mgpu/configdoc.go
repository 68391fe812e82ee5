package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// configDocFile is where the repository keeps 'mgpu list' as markdown;
// TestConfigDocIsCurrent checks it is current, and make docs rewrites it.
const configDocFile = "docs/config.md"

// writeConfigDoc writes what 'mgpu list' prints as a markdown page: every
// workload, policy and distribution scheme, and every config key with its
// default and the source of that default, from the same data as cmdList.
func writeConfigDoc(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# Workloads, policies and config keys

<!-- Generated from what 'mgpu list' prints; do not edit. Regenerate with: make docs -->

What ` + "`mgpu list`" + ` prints, as tables: every workload, policy and distribution scheme, and
every config key with its default and the source of that default. ` + "`make docs`" + ` regenerates
this file, and ` + "`go test ./cmd/mgpu`" + ` fails when it is out of date. ` + "`mgpu list --yaml`" + `
prints the same keys as a config file, [configs/oasis-4gpu.yaml](../configs/oasis-4gpu.yaml);
why the defaults taken from the papers' simulator lineage are what they are is in
[defaults.md](defaults.md), and how the workloads model their kernels in
[workloads.md](workloads.md).

## Workloads

Class is the Early-Adaptor access class; labels are the names the papers give a workload,
which ` + "`--workload`" + ` accepts too; the preferred eviction is the one a paper says it prefers.

| Workload | Class | Papers' labels | Preferred eviction | Description |
|---|---|---|---|---|
`)
	for _, l := range listWorkloads() {
		ev := ""
		if l.eviction != "" {
			ev = codeCell(l.eviction) + " (" + mdCell(l.evictionSource) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", codeCell(l.name), mdCell(l.class), mdCell(l.aliases), ev, mdCell(l.desc))
	}
	b.WriteString("\n## Policies\n\n`--policy` takes one of:\n\n")
	for _, n := range pagepolicy.Names() {
		fmt.Fprintf(&b, "- %s\n", codeCell(n))
	}
	b.WriteString("\n## Distribution schemes\n\n`--set distribution=` takes one of:\n\n")
	for _, n := range benchmarks.Schemes() {
		fmt.Fprintf(&b, "- %s\n", codeCell(n))
	}
	b.WriteString("\n## Config keys\n\nEach is set with `--set key=value` or in a `--config` file.\n\n")
	b.WriteString("| Key | Default | Meaning and source |\n|---|---|---|\n")
	for _, k := range config.Keys(config.DefaultConfig()) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", codeCell(k.Key), codeCell(k.Value), mdCell(k.Doc))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes s for a markdown table cell: the table's pipe, and the
// characters that would otherwise start emphasis, code, links or HTML.
func mdCell(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '|', '*', '_', '`', '[', ']', '<', '>', '~':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codeCell is s as inline code in a table cell; a pipe is still escaped,
// as GitHub splits cells before it parses code.
func codeCell(s string) string {
	if s == "" || strings.Contains(s, "`") {
		return mdCell(s)
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}
