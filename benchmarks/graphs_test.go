package benchmarks

import (
	"testing"
)

func TestGraphTables(t *testing.T) {
	for _, c := range []struct {
		name    string
		objects int
		size    PaperSize
		bytes   graphBytes
	}{{"bfs", 5, BFSSize, bfsBytes}, {"pr", 6, PRSize, prBytes}} {
		for _, q := range paperColumns(c.size) {
			if q.gpus != 4 || q.size != "auto" {
				// The larger columns: the sizing alone (generating their
				// graphs takes seconds).
				fp, err := c.size.Footprint(Params{GPUs: q.gpus, Size: q.size, Scale: 1})
				if err != nil {
					t.Fatal(err)
				}
				s, e := graphScale(fp, c.bytes.vertex, c.bytes.edge)
				got := uint64(c.bytes.vertex)<<s + uint64(c.bytes.edge*e)
				checkFootprint(t, c.name, q, got)
				t.Logf("%s %2d GPUs %-5s: 2^%d vertices, %d edges, %.1f MB", c.name, q.gpus, q.size, s, e, float64(got)/MiB)
				continue
			}
			a, ks := setupTest(t, c.name, Params{GPUs: q.gpus, Size: q.size, Scale: 1, Seed: 1})
			if got := len(a.Objects()); got != c.objects {
				t.Errorf("%s: %d objects, want %d", c.name, got, c.objects)
			}
			fp := a.Footprint()
			checkFootprint(t, c.name, q, fp)
			n := 0
			if q.gpus == 4 && q.size == "auto" {
				for _, k := range ks {
					for wg := 0; wg < k.Workgroups; wg++ {
						for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
							var in Instruction
							s := k.Wavefront(wg, wf, 0)
							for s.Next(&in) {
								n++
							}
						}
					}
				}
			}
			t.Logf("%s %2d GPUs %-5s: %.1f MB (table %d MB), %d launches, %d instructions", c.name, q.gpus, q.size, float64(fp)/MiB, q.want/MiB, len(ks), n)
		}
	}
}

func TestRMATSkewed(t *testing.T) {
	g := rmatGraph(16, 1<<20, 1)
	maxDeg := 0
	for v := 0; v < g.vertices(); v++ {
		maxDeg = max(maxDeg, g.degree(v))
	}
	mean := float64(g.edges()) / float64(g.vertices())
	if float64(maxDeg) < 20*mean {
		t.Errorf("max degree %d, mean %.1f: not skewed", maxDeg, mean)
	}
	for v := 0; v < g.vertices(); v++ {
		for _, u := range g.nbrs(v) {
			if int(u) == v {
				t.Fatalf("self-loop at %d", v)
			}
		}
	}
}

// TestBFSLevels checks that launch curr writes the levels of exactly the
// vertices at depth curr+1, never touches an unreachable vertex's level,
// and only reads the CSR arrays.
func TestBFSLevels(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.02, Seed: 3}
	a, ks := setupTest(t, "bfs", p)
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
				drain(t, a, k.Wavefront(wg, wf, 0), func(x access) {
					if x.write && (x.obj.Name == "edgeArray" || x.obj.Name == "edgeArrayAux") {
						t.Fatalf("%s written", x.obj.Name)
					}
					if x.write && x.obj == levels {
						wrote[int(x.addr-levels.Base)/4] = true
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

// TestPageRankSwap checks the rank vectors' roles: in each launch one is
// only read and the other only written, each row once, and they swap.
func TestPageRankSwap(t *testing.T) {
	p := Params{GPUs: 4, Scale: 0.01, Seed: 1, Iterations: 3}
	a, ks := setupTest(t, "pr", p)
	if len(ks) != 3 {
		t.Fatalf("%d launches", len(ks))
	}
	for i, k := range ks {
		reads, writes := map[string]int{}, map[string]map[uint64]int{}
		for wg := 0; wg < k.Workgroups; wg++ {
			drain(t, a, k.Wavefront(wg, 0, 0), func(x access) {
				if !x.write {
					reads[x.obj.Name]++
					return
				}
				if writes[x.obj.Name] == nil {
					writes[x.obj.Name] = map[uint64]int{}
				}
				writes[x.obj.Name][x.addr-x.obj.Base]++
			})
		}
		in, out := "x", "y"
		if i%2 == 1 {
			in, out = "y", "x"
		}
		if reads[out] != 0 || writes[in] != nil || len(writes) != 1 || reads[in] == 0 {
			t.Fatalf("launch %d: reads %v, writes to %d objects", i, reads, len(writes))
		}
		o := a.Objects()[3]
		checkEach(t, out, writes[out], o.Size/4, 1)
	}
}

func TestGraphsDeterministic(t *testing.T) {
	for _, name := range []string{"bfs", "pr"} {
		hash := func(seed uint64) uint64 {
			_, ks := setupTest(t, name, Params{GPUs: 4, Scale: 0.01, Seed: seed})
			h, _ := streamHash(ks, 4)
			return h
		}
		a, b := hash(1), hash(1)
		if a != b || a == hash(2) {
			t.Errorf("%s: same seed must give the same accesses, another seed other ones", name)
		}
	}
}
