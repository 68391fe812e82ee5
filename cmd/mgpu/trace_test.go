package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTraceRecordReplay: 'mgpu trace record' then 'mgpu run --trace'
// writes the result file of 'mgpu run --workload' byte for byte, taking
// the GPU count, scale and seed from the recording.
func TestTraceRecordReplay(t *testing.T) {
	d := t.TempDir()
	tr, a, b := filepath.Join(d, "mm.mgputrace"), filepath.Join(d, "a.json"), filepath.Join(d, "b.json")
	for _, args := range [][]string{
		{"trace", "record", "--workload", "mm", "--gpus", "2", "--scale", "0.05", "--seed", "3", "--out", tr},
		{"run", "--trace", tr, "--policy", "oasis", "--out", a},
		{"run", "--workload", "mm", "--gpus", "2", "--scale", "0.05", "--seed", "3", "--policy", "oasis", "--out", b},
	} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 0 {
			t.Fatalf("mgpu %v: exit %d: %s", args, code, errs.String())
		}
	}
	ra, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ra, rb) {
		t.Fatalf("replayed result differs from the run's:\n%.300s\n%.300s", ra, rb)
	}
}
