package gmmu

import (
	"testing"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// TestBigPages: a group of 16 pages of 4 KB is one big page of 64 KB
// exactly while every page is mapped alike, not to host memory, and the
// group is whole; any change to one page splits it.
func TestBigPages(t *testing.T) {
	rw := PTE{Kind: uvmproto.LocalRW, Owner: 0}
	for _, c := range []struct {
		name   string
		change func(g []PTE)
		big    bool
	}{
		{"all local, alike", func([]PTE) {}, true},
		{"all read-only replicas", func(g []PTE) {
			for i := range g {
				g[i].Kind = uvmproto.LocalRO
			}
		}, true},
		{"all mapped to a peer GPU", func(g []PTE) {
			for i := range g {
				g[i] = PTE{Kind: uvmproto.RemoteRW, Owner: 2}
			}
		}, true},
		{"all mapped to host memory", func(g []PTE) {
			for i := range g {
				g[i] = PTE{Kind: uvmproto.RemoteRW, Owner: uvmproto.Host}
			}
		}, false},
		{"one page not resident", func(g []PTE) { g[15] = PTE{} }, false},
		{"one page read-only", func(g []PTE) { g[3].Kind = uvmproto.LocalRO }, false},
		{"one page's policy bits differ", func(g []PTE) { g[7].Bits = 1 }, false},
		{"one page on a peer", func(g []PTE) { g[0] = PTE{Kind: uvmproto.RemoteRW, Owner: 1} }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			table := make([]PTE, 40) // two whole groups and a part of one
			for i := range table {
				table[i] = rw
			}
			c.change(table[16:32])
			b := newBigPages(64<<10, 4<<10, uint64(len(table)))
			for p := uint64(0); p < uint64(len(table)); p++ {
				b.update(table, p)
			}
			if b.shift != 4 || len(b.big) != 3 {
				t.Fatalf("shift %d, %d groups: want 4 and 3", b.shift, len(b.big))
			}
			if !b.big[0] || b.big[1] != c.big || b.big[2] {
				t.Errorf("groups big %v: want [true %v false] (the last is not whole)", b.big, c.big)
			}
			if !c.big {
				return
			}
			table[20] = PTE{}
			b.update(table, 20)
			if b.big[1] {
				t.Error("unmapping a page left its big page whole")
			}
		})
	}
}

// TestBigPagesOff: a big page no larger than the page translates every
// page alone.
func TestBigPagesOff(t *testing.T) {
	for _, big := range []uint64{0, 4 << 10, 64 << 10} {
		b := newBigPages(big, 64<<10, 32)
		if b.shift != 0 || b.big != nil {
			t.Errorf("big page %d at 64 KB pages: shift %d, want off", big, b.shift)
		}
		b.update(make([]PTE, 32), 5) // must not index the absent groups
	}
}
