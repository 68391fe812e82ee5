package eviction

import (
	"slices"
	"testing"
)

// TestCensus: a victim chunk is counted once per Victims call with the
// blocks accessed while resident; accesses before the chunk last emptied
// do not count; the wrapped policy still sees every call.
func TestCensus(t *testing.T) {
	// 2 chunks of 8 pages, blocks of 2 pages: 4 blocks per chunk.
	o := Options{GPUs: 1, Pages: 16, PagesPerChunk: 8, PagesPerBlock: 2, Seed: 1}
	inner, err := NewWith(LRM2MB, o)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCensus(inner, o)
	for p := uint64(0); p < 16; p++ {
		c.Placed(0, p)
	}
	c.Touch(0, 0)
	c.Touch(0, 1) // block 0
	c.Touch(0, 6) // block 3
	for p := uint64(8); p < 16; p++ {
		c.Touch(0, p) // every block of chunk 1
	}
	v := c.Victims(0, 1, func(uint64) bool { return false }, nil)
	if len(v) != 8 || v[0] != 0 {
		t.Fatalf("victims %v, want chunk 0's 8 pages (least recently migrated)", v)
	}
	if want := []uint64{0, 0, 1, 0, 0}; !slices.Equal(c.Histogram(), want) {
		t.Errorf("after chunk 0: %v, want %v", c.Histogram(), want)
	}
	for _, p := range v {
		c.Removed(0, p)
	}
	c.Placed(0, 3) // chunk 0 comes back, not yet accessed
	v = c.Victims(0, 9, func(uint64) bool { return false }, nil)
	if len(v) != 9 {
		t.Fatalf("victims %v, want both chunks' 9 pages", v)
	}
	if want := []uint64{1, 0, 1, 0, 1}; !slices.Equal(c.Histogram(), want) {
		t.Errorf("after both: %v, want %v", c.Histogram(), want)
	}
}
