package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/figures"
	"github.com/mgpu-sim/mgpu/sweep"
)

// TestEstimateFigure: before a figure at another size, the estimate counts
// only the runs not yet kept, says how long they take and that the figure
// resumes.
func TestEstimateFigure(t *testing.T) {
	f, err := figures.Lookup("uvmmu-fig6")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.RunsAt(nil, figures.SizePaper, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(sweep.ResultPath(dir, runs[0]), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := estimateFigure(&out, f.Name, figures.SizePaper, runs, dir, 2); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"uvmmu-fig6 at --size paper", " runs to simulate", "G memory instructions", "with --jobs 2", "resumes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("estimate %q: no %q", out.String(), want)
		}
	}
	if want := fmt.Sprintf("%d of %d runs", len(runs)-1, len(runs)); !strings.Contains(out.String(), want) {
		t.Errorf("estimate %q: want %q", out.String(), want)
	}
}
