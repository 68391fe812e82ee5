package gmmu

import (
	"fmt"
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
			b := newBigPages(64<<10, 0, 4<<10, uint64(len(table)))
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
		b := newBigPages(big, big, 64<<10, 32)
		if b.shift != 0 || b.big != nil || b.hugeShift != 0 || b.huge != nil {
			t.Errorf("big and huge page %d at 64 KB pages: shifts %d and %d, want off", big, b.shift, b.hugeShift)
		}
		b.update(make([]PTE, 32), 5) // must not index the absent groups
	}
}

// TestHugePages: a 2 MB-style group (here 64 pages of four big pages) is
// one PTE exactly while every page of it is mapped alike, the group is
// whole, and it is not host memory; with or without big pages under it.
func TestHugePages(t *testing.T) {
	rw := PTE{Kind: uvmproto.LocalRW, Owner: 0}
	for _, big := range []uint64{0, 64 << 10} {
		for _, c := range []struct {
			name   string
			change func(g []PTE)
			huge   bool
		}{
			{"all local, alike", func([]PTE) {}, true},
			{"all mapped to a peer GPU", func(g []PTE) {
				for i := range g {
					g[i] = PTE{Kind: uvmproto.RemoteRO, Owner: 3}
				}
			}, true},
			{"all mapped to host memory", func(g []PTE) {
				for i := range g {
					g[i] = PTE{Kind: uvmproto.RemoteRW, Owner: uvmproto.Host}
				}
			}, false},
			{"one big page read-only", func(g []PTE) {
				for i := 16; i < 32; i++ {
					g[i].Kind = uvmproto.LocalRO
				}
			}, false},
			{"one page not resident", func(g []PTE) { g[63] = PTE{} }, false},
			{"one page's policy bits differ", func(g []PTE) { g[40].Bits = 1 }, false},
		} {
			t.Run(fmt.Sprintf("big%d/%s", big, c.name), func(t *testing.T) {
				table := make([]PTE, 160) // two whole huge pages and a part of one
				for i := range table {
					table[i] = rw
				}
				c.change(table[64:128])
				b := newBigPages(big, 256<<10, 4<<10, uint64(len(table)))
				for p := uint64(0); p < uint64(len(table)); p++ {
					b.update(table, p)
				}
				if b.hugeShift != 6 || len(b.huge) != 3 {
					t.Fatalf("huge shift %d, %d groups: want 6 and 3", b.hugeShift, len(b.huge))
				}
				if !b.huge[0] || b.huge[1] != c.huge || b.huge[2] {
					t.Errorf("groups huge %v: want [true %v false] (the last is not whole)", b.huge, c.huge)
				}
				if !c.huge {
					return
				}
				table[70] = PTE{Kind: uvmproto.LocalRO}
				b.update(table, 70)
				if b.huge[1] {
					t.Error("changing a page left its huge page whole")
				}
				table[70] = table[64]
				b.update(table, 70)
				if !b.huge[1] {
					t.Error("restoring the page did not merge its huge page again")
				}
			})
		}
	}
}
