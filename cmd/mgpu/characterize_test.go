package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/characterize"
)

func TestCharacterizeBadInputExitsTwo(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown workload", []string{"--workload", "nope"}, "valid workloads are"},
		{"zero GPUs", []string{"--gpus", "0"}, "between 1 and 64"},
		{"too many GPUs", []string{"--gpus", "65"}, "between 1 and 64"},
		{"zero scale", []string{"--scale", "0"}, "--scale"},
		{"negative scale", []string{"--scale", "-2"}, "--scale"},
		{"bad size", []string{"--size", "3gpu"}, "valid sizes are"},
		{"bad distribution", []string{"--distribution", "random"}, "distribution"},
		{"bad set", []string{"--set", "gpu.cuss=4"}, "gpu.cus"},
		{"negative iterations", []string{"--iterations", "-1"}, "--iterations"},
		{"zero intervals", []string{"--intervals", "0"}, "--intervals"},
		{"unknown flag", []string{"--wrokload", "mm"}, "wrokload"},
		{"stray argument", []string{"mm"}, "unexpected argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"characterize", "--out", t.TempDir()}, c.args...)
			if code := run(args, &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", code, errb.String())
			}
			if !strings.Contains(errb.String(), c.want) {
				t.Fatalf("message %q does not mention %q", errb.String(), c.want)
			}
			if strings.Contains(errb.String(), "internal error") {
				t.Fatalf("bad input panicked: %s", errb.String())
			}
		})
	}
}

func TestCharacterizeWritesCSVs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	var out, errb bytes.Buffer
	code := run([]string{"characterize", "--workload", "mt", "--gpus", "2", "--scale", "0.01",
		"--distribution", "contiguous", "--out", dir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, s := range []string{"mt on 2 GPUs", "input", "output", "read-only", "write-only", "APP LEVEL", dir} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	for _, f := range characterize.CSVFiles {
		b, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(string(b), "\n"); lines < 2 {
			t.Errorf("%s: %d lines", f.Name, lines)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "objects.csv"))
	if !strings.Contains(string(b), ",input,4KB,") || !strings.Contains(string(b), "write-only") {
		t.Errorf("objects.csv:\n%s", b)
	}
}
