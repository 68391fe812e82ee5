package benchmarks

import (
	"testing"
)

func TestRMATSkewed(t *testing.T) {
	g := RMATGraph(16, 1<<20, 1)
	maxDeg := 0
	for v := 0; v < g.Vertices(); v++ {
		maxDeg = max(maxDeg, g.Degree(v))
	}
	mean := float64(g.Edges()) / float64(g.Vertices())
	if float64(maxDeg) < 20*mean {
		t.Errorf("max degree %d, mean %.1f: not skewed", maxDeg, mean)
	}
	for v := 0; v < g.Vertices(); v++ {
		for _, u := range g.Nbrs(v) {
			if int(u) == v {
				t.Fatalf("self-loop at %d", v)
			}
		}
	}
}
