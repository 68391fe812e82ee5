package objtable

import (
	"math/rand/v2"
	"testing"
)

func TestTaggedPointerRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		bits := 1 + r.IntN(MaxIDBits)
		tag := Tagging{IDBits: bits, ConfigBit: 1}
		addr := r.Uint64() & addrMask
		id := r.IntN(1 << bits)
		ptr := tag.Encode(addr, id)
		a, gotID, ok := tag.Decode(ptr)
		if !ok || a != addr || gotID != id || Strip(ptr) != addr {
			t.Fatalf("bits %d: Encode(%#x, %d) = %#x decodes to %#x, %d, %v", bits, addr, id, ptr, a, gotID, ok)
		}
	}
}

func TestInMemPointersStayClear(t *testing.T) {
	tag := Tagging{IDBits: 4, ConfigBit: 0}
	if p := tag.Encode(0x1234000, 9); p != 0x1234000 {
		t.Fatalf("config bit 0 must leave the upper bits clear, got %#x", p)
	}
	if _, _, ok := tag.Decode(0x1234000); ok {
		t.Fatal("a pointer without the config bit carries no ID")
	}
}

func TestTaggingValidate(t *testing.T) {
	for _, tg := range []Tagging{{0, 1}, {16, 1}, {4, 2}} {
		if tg.Validate() == nil {
			t.Errorf("%+v accepted", tg)
		}
	}
}

func TestAllocatorObjects(t *testing.T) {
	a, err := NewAllocator(Tagging{IDBits: 4, ConfigBit: 1}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	p0, _ := a.MallocManaged(100, "a")
	p1, _ := a.MallocManaged(5000, "b")
	if _, id, _ := a.Tagging().Decode(p1); id != 1 {
		t.Fatalf("IDs must follow allocation order, got %d", id)
	}
	if o := a.ObjectAt(Strip(p1) + 4999); o == nil || o.Name != "b" {
		t.Fatal("last byte of b not found")
	}
	if o := a.ObjectAt(Strip(p0) + 200); o != nil {
		t.Fatal("padding after a belongs to no object")
	}
	if Strip(p1)%4096 != 0 || a.Footprint() != 5100 {
		t.Fatalf("alignment or footprint wrong: %#x %d", Strip(p1), a.Footprint())
	}
	if _, err := a.MallocManaged(0, "zero"); err == nil {
		t.Fatal("zero-size allocation accepted")
	}
	if err := a.Free(p1); err != nil || a.Free(p1) == nil {
		t.Fatal("Free must succeed once and then fail")
	}
}
