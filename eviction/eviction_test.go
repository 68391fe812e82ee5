package eviction

import (
	"slices"
	"testing"
)

func none(uint64) bool { return false }

func TestChunkLRMOrdersByLastMigrationIn(t *testing.T) {
	// 4 pages per chunk: chunk 0 = pages 0-3, chunk 1 = 4-7, chunk 2 = 8-11.
	for _, c := range []struct {
		name   string
		placed []uint64
		n      int
		pinned []uint64
		want   []uint64
	}{
		{"oldest chunk goes whole", []uint64{0, 1, 4, 8}, 1, nil, []uint64{0, 1}},
		{"a new page refreshes its chunk", []uint64{0, 4, 1}, 1, nil, []uint64{4}},
		{"enough chunks for n", []uint64{0, 4, 5, 8}, 2, nil, []uint64{0, 4, 5}},
		{"pinned pages stay", []uint64{0, 1, 4}, 1, []uint64{0}, []uint64{1}},
		{"fully pinned chunk is skipped", []uint64{0, 4}, 1, []uint64{0}, []uint64{4}},
		{"fewer candidates than n", []uint64{0}, 3, nil, []uint64{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(LRM2MB, 2, 12, 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, pg := range c.placed {
				p.Placed(1, pg)
			}
			p.Placed(0, 9) // another GPU's residency is separate
			got := p.Victims(1, c.n, func(pg uint64) bool { return slices.Contains(c.pinned, pg) }, nil)
			if !slices.Equal(got, c.want) {
				t.Fatalf("victims %v, want %v", got, c.want)
			}
		})
	}
}

func TestChunkLRMForgetsRemovedPages(t *testing.T) {
	p, _ := New(LRM2MB, 1, 8, 4)
	p.Placed(0, 0)
	p.Placed(0, 4)
	p.Removed(0, 0)
	p.Removed(0, 0) // idempotent
	if got := p.Victims(0, 1, none, nil); !slices.Equal(got, []uint64{4}) {
		t.Fatalf("victims %v after chunk 0 emptied, want [4]", got)
	}
	p.Removed(0, 4)
	if got := p.Victims(0, 1, none, nil); len(got) != 0 {
		t.Fatalf("victims %v from an empty GPU", got)
	}
}

func TestPageLRUFollowsAccesses(t *testing.T) {
	p, _ := New(LRU4KB, 1, 8, 512)
	for _, pg := range []uint64{3, 5, 7} {
		p.Placed(0, pg)
	}
	p.(Toucher).Touch(0, 3)
	p.(Toucher).Touch(0, 6) // not resident: ignored
	if got := p.Victims(0, 2, none, nil); !slices.Equal(got, []uint64{5, 7}) {
		t.Fatalf("victims %v, want [5 7]", got)
	}
	p.Removed(0, 5)
	if got := p.Victims(0, 1, func(pg uint64) bool { return pg == 7 }, nil); !slices.Equal(got, []uint64{3}) {
		t.Fatalf("victims %v, want [3]", got)
	}
	if _, ok := any(&chunkLRM{}).(Toucher); ok {
		t.Fatal("the NVIDIA policy must not need accesses")
	}
}

func TestUnknownPolicy(t *testing.T) {
	if _, err := New("fifo", 1, 1, 1); err == nil {
		t.Fatal("unknown policy accepted")
	}
}
