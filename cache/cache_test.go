package cache

import "testing"

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
