package benchmarks_test

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// A scale below a workload's smallest shape runs that shape; ClampNote is
// how the user learns it, and it must stay quiet at sizes that fit.
func TestClampNote(t *testing.T) {
	cases := []struct {
		workload string
		scale    float64
		clamped  bool
	}{
		{"fft", 1e-300, true},
		{"mm", 1e-5, true},
		{"resnet18", 0.001, true},
		{"fft", 0.05, false},
		{"mm", 0.05, false},
		{"bfs", 0.05, false},
		{"lenet", 0.2, false},
		{"private", 1e-300, false}, // synthetic: no PaperSize; its minimum is documented
	}
	for _, c := range cases {
		p := benchmarks.Params{GPUs: 4, Scale: c.scale, Size: benchmarks.SizeAuto, Seed: 1}
		a, _ := benchtest.Setup(t, c.workload, p)
		w, _ := benchmarks.New(c.workload)
		note := benchmarks.ClampNote(w, p, a.Footprint())
		if (note != "") != c.clamped {
			t.Errorf("%s at scale %g (footprint %d): note %q, want clamped=%v", c.workload, c.scale, a.Footprint(), note, c.clamped)
		}
		if c.clamped && !strings.Contains(note, "smallest shape") {
			t.Errorf("%s: note %q does not say why", c.workload, note)
		}
	}
}
