package papers

import (
	"math"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestBTreeDescent checks every lookup: it reads one whole 128-byte node
// per level, the root (pool slot 0) first, each node a child of the one
// before, ending in the leaf whose key range holds the key (the rightmost
// for keys past the last).
func TestBTreeDescent(t *testing.T) {
	p := benchmarks.Params{GPUs: 1, Scale: 0.005, Seed: 2}
	n, _ := BTreeKeys(p)
	tr := buildBTree(n, p.Seed)
	type where struct{ level, index int }
	at := map[uint32]where{}
	for li, l := range tr.levels {
		for i, s := range l.slot {
			at[s] = where{li, i}
		}
	}
	if len(at) != tr.nodes {
		t.Fatalf("%d pool slots for %d nodes", len(at), tr.nodes)
	}
	a, ks := benchtest.Setup(t, "btree", p)
	k := ks[0]
	levels := len(tr.levels)
	for wg := 0; wg < k.Workgroups; wg++ {
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			ins := benchtest.InstructionAccesses(t, a, k.Wavefront(wg, wf, 0))
			if len(ins) != 3+btreeNodeWords*levels || ins[0][0].Obj.Name != "d_queries" || ins[1][0].Obj.Name != "d_root" ||
				!ins[len(ins)-1][0].Write || ins[len(ins)-1][0].Obj.Name != "d_results" {
				t.Fatalf("wavefront %d/%d: %d instructions", wg, wf, len(ins))
			}
			q0 := int(benchtest.LaneElems(ins[0], 4)[0])
			for h := 0; h < 2; h++ {
				for j := 0; j < btreeNodeWords; j++ {
					key := btreeQueryKey(p.Seed, q0+h*btreeNodeWords+j, n)
					prev := where{-1, -1}
					for l := 0; l < levels; l++ {
						lanes := ins[2+j*levels+l][h*btreeNodeWords : (h+1)*btreeNodeWords]
						off := lanes[0].Addr - lanes[0].Obj.Base
						if lanes[0].Obj.Name != "d_pool" || off%btreeNodeBytes != 0 {
							t.Fatalf("query %d level %d reads %s+%d", q0+h*32+j, l, lanes[0].Obj.Name, off)
						}
						for w, x := range lanes {
							if x.Addr != lanes[0].Addr+4*uint64(w) {
								t.Fatalf("query %d level %d: lane %d reads %#x", q0+h*32+j, l, w, x.Addr)
							}
						}
						node := at[uint32(off/btreeNodeBytes)]
						if node.level != levels-1-l {
							t.Fatalf("query %d reads a node of level %d at depth %d", q0+h*32+j, node.level, l)
						}
						if l > 0 {
							up := tr.levels[prev.level]
							if node.index < int(up.start[prev.index]) || node.index >= int(up.start[prev.index+1]) {
								t.Fatalf("query %d: node %d of level %d is no child of node %d", q0+h*32+j, node.index, node.level, prev.index)
							}
						}
						prev = node
					}
					leaves := tr.levels[0].first
					lo, hi := leaves[prev.index], uint32(math.MaxUint32)
					if prev.index+1 < len(leaves) {
						hi = leaves[prev.index+1]
					}
					if key < lo || key >= hi {
						t.Fatalf("query %d: key %d ends in leaf [%d, %d)", q0+h*32+j, key, lo, hi)
					}
				}
			}
		}
	}
}
