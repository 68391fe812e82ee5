package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepCollectAndEmit(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	res := filepath.Join(dir, "res")
	os.WriteFile(spec, []byte("name: tiny\nworkloads: [private]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.05\nresults: "+res+"\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"sweep", spec, "--jobs", "2"}, &out, &errb); code != 0 {
		t.Fatalf("sweep: exit %d: %s %s", code, out.String(), errb.String())
	}
	csv, err := os.ReadFile(filepath.Join(res, "tiny.csv"))
	if err != nil || strings.Count(string(csv), "\n") != 3 {
		t.Fatalf("merged CSV: %v\n%s", err, csv)
	}
	out.Reset()
	if code := run([]string{"sweep", spec}, &out, &errb); code != 0 || !strings.Contains(out.String(), "2 already done") {
		t.Fatalf("resume: exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"collect", res, "--csv", filepath.Join(dir, "all.csv")}, &out, &errb); code != 0 || !strings.Contains(out.String(), "collected 2 results") {
		t.Fatalf("collect: exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"sweep", spec, "--emit", "slurm"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "#SBATCH --array=0-1") {
		t.Fatalf("emit slurm: exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"sweep", spec, "--emit", "list"}, &out, &errb); code != 0 || strings.Count(out.String(), "mgpu run ") != 2 {
		t.Fatalf("emit list: exit %d: %s", code, out.String())
	}
	// A listed command writes exactly the file the sweep would skip on.
	line := strings.Fields(strings.Split(out.String(), "\n")[0])
	target := line[len(line)-1]
	os.Remove(target)
	out.Reset()
	if code := run(line[1:], &out, &errb); code != 0 {
		t.Fatalf("listed command: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("listed command did not write %s", target)
	}
}

func TestExperimentBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("workloads: [mm]\npolicies: [on-touch]\ngpus: []\n"), 0o644)
	for _, args := range [][]string{
		{"sweep"}, {"sweep", bad}, {"sweep", filepath.Join(dir, "missing.yaml")},
		{"figure", "fig99"}, {"plot", filepath.Join(dir, "none.csv")}, {"plot", bad, "--kind", "pie"},
		{"collect", filepath.Join(dir, "nodir")},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// A figure's --size and --scale are checked before anything runs: a size
// the figure does not have names the ones it has.
func TestFigureSizeAndScale(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"figure", "fig15", "--size", "similar"}, `valid sizes are default, paper`},
		{[]string{"figure", "fig15", "--size", "huge"}, `size "huge"`},
		{[]string{"figure", "fig15", "--scale", "0"}, "--scale 0: must be a positive number"},
		{[]string{"figure", "fig15", "--scale", "2", "--quick"}, "give one of them"},
		{[]string{"figure", "fig3", "--size", "paper"}, "characterisation figures"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// A figure at a paper or similar size may build workloads at that size
// before its estimate, minutes at --size paper: its first words on stderr
// say so, and come before any run.
func TestFigureSizingIsAnnounced(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"figure", "uvmmu-fig1", "--size", "paper", "--results", t.TempDir(), "--emit", "list"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "uvmmu-fig1 at --size paper: sizing its runs"; !strings.HasPrefix(errb.String(), want) {
		t.Errorf("stderr starts %q, want %q", firstLine(errb.String()), want)
	}
	if !strings.Contains(out.String(), "mgpu run ") {
		t.Errorf("no runs listed: %q", firstLine(out.String()))
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
