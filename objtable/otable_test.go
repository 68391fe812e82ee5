package objtable

import (
	"math/rand/v2"
	"testing"
)

func TestOTableLRU(t *testing.T) {
	ot, _ := NewOTable(2)
	ot.Allocate(0).PFCount = 3
	ot.Allocate(1).PFCount = 5
	if _, hit := ot.Lookup(0); !hit { // 0 becomes most recent
		t.Fatal("entry 0 missing")
	}
	ot.Allocate(2) // evicts 1, the LRU entry
	if ot.Peek(1) != nil || ot.Peek(0) == nil || ot.Len() != 2 {
		t.Fatalf("LRU victim wrong: 0=%v 1=%v len %d", ot.Peek(0), ot.Peek(1), ot.Len())
	}
	e, hit := ot.Lookup(1)
	if hit || e.PFCount != 0 || e.Policy != PolicyDuplication {
		t.Fatalf("a missing object comes back fresh, got %+v hit %v", *e, hit)
	}
	if ot.Hits != 1 || ot.Misses != 1 || ot.Evictions != 2 {
		t.Fatalf("hits %d misses %d", ot.Hits, ot.Misses)
	}
	ot.Free(0)
	if ot.Peek(0) != nil {
		t.Fatal("freed entry still present")
	}
	ot.Allocate(3) // takes the freed slot, keeps 1
	if ot.Peek(1) == nil || ot.Peek(3) == nil {
		t.Fatal("allocation after free evicted a live entry")
	}
	if _, err := NewOTable(-1); err == nil {
		t.Fatal("negative size accepted")
	}
}

func TestOTableUnboundedNeverEvicts(t *testing.T) {
	ot, _ := NewOTable(0)
	for i := 0; i < 1000; i++ {
		ot.Allocate(i)
	}
	for i := 0; i < 1000; i++ {
		if _, hit := ot.Lookup(i); !hit {
			t.Fatalf("object %d lost", i)
		}
	}
}

func TestShadowMapFindsEveryObject(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a, _ := NewAllocator(Tagging{IDBits: 4, ConfigBit: 0}, 2<<20)
	m, err := NewShadowMap(16)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		p := a.MustMalloc(uint64(1+r.IntN(40<<20)), "o")
		o := a.ObjectAt(Strip(p))
		if err := m.Set(o.Base, o.Size, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 10000; i++ {
		addr := uint64(r.Int64N(int64(a.End())))
		o := a.ObjectAt(addr)
		id, ok, l1, l2 := m.Lookup(addr)
		switch {
		case o == nil && ok && addr/ShadowSegment != (o2end(a, addr)):
			t.Fatalf("%#x: no object but shadow map says %d", addr, id)
		case o != nil && (!ok || id != o.ID):
			t.Fatalf("%#x: object %d, shadow map %d %v", addr, o.ID, id, ok)
		}
		if l1 == 0 || (ok && l2 == 0) {
			t.Fatalf("lookup of %#x reported no entry addresses", addr)
		}
	}
	l1, l2 := m.Bytes()
	if l1 != 128<<20 || l2 != uint64(m.Tables())*8192 {
		t.Fatalf("memory use %d + %d", l1, l2)
	}
	if err := m.Set(0, 1, 1<<16); err == nil {
		t.Fatal("an ID wider than the entries was accepted")
	}
}

// o2end returns the 4 KB segment of the end of the object before addr: the
// shadow map works at 4 KB, so the tail of an object's last segment maps to
// the object although the allocator's byte range has ended.
func o2end(a *Allocator, addr uint64) uint64 {
	for i := len(a.Objects()) - 1; i >= 0; i-- {
		if o := a.Objects()[i]; o.Base <= addr {
			return (o.Base + o.Size - 1) / ShadowSegment
		}
	}
	return ^uint64(0)
}
