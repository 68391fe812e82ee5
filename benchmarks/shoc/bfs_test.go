package shoc

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestBFSLevels checks that launch curr writes the levels of exactly the
// vertices at depth curr+1, never touches an unreachable vertex's level,
// and only reads the CSR arrays.
func TestBFSLevels(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.02, Seed: 3}
	a, ks := benchtest.Setup(t, "bfs", p)
	_, depth, src, err := bfsGraph(p)
	if err != nil {
		t.Fatal(err)
	}
	maxDepth := int32(0)
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	if len(ks) != int(maxDepth)+1 || depth[src] != 0 {
		t.Fatalf("%d launches for depth %d", len(ks), maxDepth)
	}
	levels := a.Objects()[2]
	for curr, k := range ks {
		wrote := map[int]bool{}
		for wg := 0; wg < k.Workgroups; wg++ {
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), func(x benchtest.Access) {
					if x.Write && (x.Obj.Name == "edgeArray" || x.Obj.Name == "edgeArrayAux") {
						t.Fatalf("%s written", x.Obj.Name)
					}
					if x.Write && x.Obj == levels {
						wrote[int(x.Addr-levels.Base)/4] = true
					}
				})
			}
		}
		for v, d := range depth {
			if wrote[v] != (d == int32(curr)+1) {
				t.Fatalf("launch %d: vertex %d at depth %d written %v", curr, v, d, wrote[v])
			}
		}
	}
}

func TestBFSTable(t *testing.T) { benchtest.GraphTable(t, "bfs", 5, BFSSize, bfsBytes) }
