package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCharacterizationFigures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	var out, errb bytes.Buffer
	// Table II from the set-up alone, and Fig. 4 from a quick run of mt.
	for _, args := range [][]string{{"figure", "table2", "--out", dir}, {"figure", "fig4", "--quick", "--jobs", "1", "--out", dir}} {
		out.Reset()
		errb.Reset()
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	if !strings.Contains(errb.String(), "characterized mt (8 intervals, scale 0.2, 4 GPUs)") {
		t.Errorf("stderr: %s", errb.String())
	}
	for _, s := range []string{"fig4: OASIS Fig. 4", "MT_Input read-only", "CLAIMS", "MT_Input pages are all read-only", "agrees"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	for _, f := range []string{"table2.csv", "table2.png", "table2.svg", "table2-table.csv", "table2-claims.csv",
		"fig4-quick.csv", "fig4-quick.png", "fig4-quick-strip.csv", "fig4-quick-pages.csv", "fig4-quick-claims.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "table2-claims.csv"))
	if !strings.Contains(string(b), `Table II,"MM: objects, footprint","4, 32 MB","4, 31.7 MB",agrees`) {
		t.Errorf("table2-claims.csv:\n%s", b)
	}
}

func TestCharacterizationFigureBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, args := range [][]string{
		{"figure", "fig4", "--jobs", "0"},
		{"figure", "fig3", "--out", file}, // not a directory
		{"figure", "fig8"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
