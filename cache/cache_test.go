package cache

import (
	"math/rand/v2"
	"testing"
)

func TestGeometryErrors(t *testing.T) {
	for _, c := range []struct{ entries, ways int }{{0, 1}, {4, 0}, {6, 4}, {-4, 2}} {
		if _, err := New(c.entries, c.ways); err == nil {
			t.Errorf("New(%d, %d) accepted a bad geometry", c.entries, c.ways)
		}
	}
}

func TestLRUReplacement(t *testing.T) {
	// One set of 2 ways: keys 0, 1, 2 all map to it.
	c, _ := New(2, 2)
	c.Insert(0, 0)
	c.Insert(1, 0)
	c.Lookup(0, 0) // 1 is now least recently used
	victim, evicted := c.Insert(2, 0)
	if !evicted || victim != 1 {
		t.Fatalf("evicted %d (%v), want 1", victim, evicted)
	}
	if !c.Contains(0) || !c.Contains(2) || c.Contains(1) {
		t.Fatalf("wrong contents after eviction")
	}
}

func TestSetIndexing(t *testing.T) {
	// 4 sets of 1 way: keys that differ mod 4 never conflict.
	c, _ := New(4, 1)
	for k := uint64(0); k < 4; k++ {
		if _, ev := c.Insert(k, 0); ev {
			t.Fatalf("insert %d evicted in an empty set", k)
		}
	}
	if _, ev := c.Insert(4, 0); !ev {
		t.Fatalf("key 4 should conflict with key 0")
	}
	if c.Len() != 4 {
		t.Fatalf("Len = %d, want 4", c.Len())
	}
}

func TestGenerationInvalidates(t *testing.T) {
	c, _ := New(8, 2)
	c.Insert(5, 3)
	if !c.Lookup(5, 3) {
		t.Fatal("miss on the generation it was inserted with")
	}
	if c.Lookup(5, 4) {
		t.Fatal("hit on a newer generation: a shootdown would be missed")
	}
	if c.Lookup(5, 3) {
		t.Fatal("stale entry survived its generation miss")
	}
}

func TestInvalidateAndFlush(t *testing.T) {
	c, _ := New(16, 4)
	c.Insert(9, 0)
	if !c.Invalidate(9) || c.Invalidate(9) || c.Contains(9) {
		t.Fatal("Invalidate should remove exactly once")
	}
	c.Insert(1, 0)
	c.Flush()
	if c.Len() != 0 {
		t.Fatal("Flush left entries")
	}
}

func BenchmarkLookup(b *testing.B) {
	c, _ := New(512, 16)
	for k := uint64(0); k < 512; k++ {
		c.Insert(k, 0)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Lookup(uint64(i)&1023, 0)
	}
}

func BenchmarkFullyAssociativeTLB(b *testing.B) {
	c, _ := New(128, 128)
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, 4096)
	for i := range keys {
		keys[i] = r.Uint64N(160)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := keys[i&4095]
		if !c.Lookup(k, 0) {
			c.Insert(k, 0)
		}
	}
}

// lruModel is true LRU written the plainest way: each set a slice of
// entries from least to most recently used. It is the reference the
// cache's layouts are checked against.
type lruModel struct {
	sets, ways int
	s          [][]entry
}

func newModel(entries, ways int) *lruModel {
	return &lruModel{sets: entries / ways, ways: ways, s: make([][]entry, entries/ways)}
}

func (m *lruModel) find(key uint64) (int, int) {
	set := int(key % uint64(m.sets))
	for i, e := range m.s[set] {
		if e.key == key {
			return set, i
		}
	}
	return set, -1
}

func (m *lruModel) remove(set, i int) { m.s[set] = append(m.s[set][:i], m.s[set][i+1:]...) }

func (m *lruModel) lookup(key uint64, gen uint32) bool {
	set, i := m.find(key)
	if i < 0 {
		return false
	}
	e := m.s[set][i]
	m.remove(set, i)
	if e.gen != gen {
		return false
	}
	m.s[set] = append(m.s[set], e)
	return true
}

func (m *lruModel) insert(key uint64, gen uint32) (uint64, bool) {
	set, i := m.find(key)
	var victim uint64
	evicted := false
	if i >= 0 {
		m.remove(set, i)
	} else if len(m.s[set]) == m.ways {
		victim, evicted = m.s[set][0].key, true
		m.remove(set, 0)
	}
	m.s[set] = append(m.s[set], entry{key: key, gen: gen})
	return victim, evicted
}

func (m *lruModel) invalidate(key uint64) bool {
	set, i := m.find(key)
	if i >= 0 {
		m.remove(set, i)
	}
	return i >= 0
}

// TestMatchesLRUModel drives caches of both layouts (byte-indexed sets and
// the hash index) and the model with one random history of lookups,
// inserts, stale generations, invalidations and flushes: every answer,
// victim and the contents must agree, so results do not depend on which
// bookkeeping a geometry gets.
func TestMatchesLRUModel(t *testing.T) {
	type geo struct {
		entries, ways int
		wide          bool
	}
	var geos []geo
	for _, g := range [][2]int{{256, 4}, {24, 6}, {4096, 16}, {32, 32}, {512, 16}, {60, 6}, {16, 8},
		{1, 1}, {128, 128}, {256, 64}, {36, 12}, {200, 100}, {18, 9}, {255, 255}} {
		geos = append(geos, geo{g[0], g[1], false}, geo{g[0], g[1], true})
	}
	for _, g := range geos {
		c, _ := newCache(g.entries, g.ways, g.wide)
		m := newModel(g.entries, g.ways)
		r := rand.New(rand.NewPCG(uint64(g.entries), uint64(g.ways)))
		span := uint64(3 * g.entries)
		for step := 0; step < 100000; step++ {
			k, gen := r.Uint64N(span), uint32(r.IntN(3))
			switch op := r.IntN(100); {
			case op < 50:
				if a, b := c.Lookup(k, gen), m.lookup(k, gen); a != b {
					t.Fatalf("%v step %d: Lookup(%d, %d) = %v, model %v", g, step, k, gen, a, b)
				}
			case op < 92:
				v1, e1 := c.Insert(k, gen)
				v2, e2 := m.insert(k, gen)
				if v1 != v2 || e1 != e2 {
					t.Fatalf("%v step %d: Insert(%d) evicted %d,%v; model %d,%v", g, step, k, v1, e1, v2, e2)
				}
			case op < 98:
				if a, b := c.Invalidate(k), m.invalidate(k); a != b {
					t.Fatalf("%v step %d: Invalidate(%d) = %v, model %v", g, step, k, a, b)
				}
			case op < 99:
				_, i := m.find(k)
				if c.Contains(k) != (i >= 0) {
					t.Fatalf("%v step %d: Contains(%d) = %v, model %v", g, step, k, !(i >= 0), i >= 0)
				}
			default:
				if r.IntN(50) == 0 {
					c.Flush()
					m.s = make([][]entry, m.sets)
				}
			}
		}
		n := 0
		for k := uint64(0); k < span; k++ {
			_, i := m.find(k)
			if c.Contains(k) != (i >= 0) {
				t.Fatalf("%v: key %d differs at the end", g, k)
			}
			if i >= 0 {
				n++
			}
		}
		if c.Len() != n {
			t.Fatalf("%v: %d entries, model %d", g, c.Len(), n)
		}
	}
}
