package observuvm

import (
	"slices"
	"strings"
	"testing"
)

// RGP on 64 KB pages (one page per block, 32 per region) over allocations
// [0, 320) (regions 0-9) and [400, 460).
func mustRGP(t *testing.T, c Config) *RGP {
	t.Helper()
	geo, _ := c.NewGeometry(page64K)
	p, err := NewRGP(c, 2, geo, []Range{{400, 60}, {0, 320}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func regions(ts []Target) []uint64 {
	var r []uint64
	for _, t := range ts {
		r = append(r, t.Region)
	}
	return r
}

func TestRGPStreamDetection(t *testing.T) {
	p := mustRGP(t, DefaultConfig()) // confidence 4, window 2
	none := func(uint64) bool { return false }
	for i, s := range []struct {
		page      uint64
		streaming bool
		want      []uint64
	}{
		{0, false, nil},
		{1, false, nil},
		{1, false, nil}, // a repeat changes nothing
		{3, false, nil}, // 2 blocks on: a neighbour
		{4, false, nil},
		{5, true, []uint64{1}},  // 4 neighbours: streaming; propose region 1
		{40, false, nil},        // a jump lowers confidence to 3: no longer
		{41, true, []uint64{2}}, // back to 4
	} {
		got := p.OnFault(0, s.page, none, nil)
		if p.Streaming(0, s.page) != s.streaming || !slices.Equal(regions(got), s.want) {
			t.Fatalf("fault %d at %d: streaming %v, proposed %v", i, s.page, p.Streaming(0, s.page), regions(got))
		}
	}
	if p.Streaming(1, 0) || p.Streaming(0, 400) {
		t.Fatal("another GPU or allocation streams")
	}
	// Saturation at 2 x confidence keeps a stream through stray faults.
	for pg := uint64(41); pg < 60; pg++ {
		p.OnFault(0, pg, none, nil)
	}
	p.OnFault(0, 200, none, nil)
	p.OnFault(0, 7, none, nil)
	if !p.Streaming(0, 0) {
		t.Fatal("two stray faults ended a confident stream")
	}
}

func TestRGPProposals(t *testing.T) {
	c := DefaultConfig()
	c.RGPDegree = 2
	p := mustRGP(t, c)
	inHBM := func(rs ...uint64) func(uint64) bool { return func(r uint64) bool { return slices.Contains(rs, r) } }
	for pg := uint64(32); pg < 37; pg++ {
		p.OnFault(0, pg, inHBM(), nil)
	}
	if got := regions(p.OnFault(0, 37, inHBM(2), nil)); !slices.Equal(got, []uint64{3}) {
		t.Fatalf("fault in region 1 with 2 resident: %v, want [3]", got)
	}
	for _, c := range []struct {
		page  uint64
		inHBM []uint64
		want  []uint64
	}{
		{2*32 + 5, nil, []uint64{3, 4}},            // the next two
		{2*32 + 5, []uint64{3, 5}, []uint64{4, 6}}, // the next two not yet prefetched
		{8*32 + 1, nil, []uint64{9}},               // the allocation ends at region 9
		{9*32 + 1, nil, nil},
		{1, []uint64{1, 2, 3, 4, 5, 6, 7, 8}, nil}, // lookahead 8 exhausted
		{500, nil, nil},                            // no allocation
	} {
		if got := regions(p.OnTrigger(0, c.page, inHBM(c.inHBM...), nil)); !slices.Equal(got, c.want) {
			t.Errorf("trigger at %d with %v in HBM: %v, want %v", c.page, c.inHBM, got, c.want)
		}
	}
	// Triggers lie inside the allocation [400, 460), which holds region
	// 13 whole and blocks 0-11 (pages 448-459) of region 14.
	for range 50 {
		ts := p.OnTrigger(1, 405, inHBM(), nil)
		if !slices.Equal(regions(ts), []uint64{13, 14}) || ts[1].Block > 11 {
			t.Fatalf("trigger block outside the allocation: %+v", ts)
		}
	}
}

func TestNewRGPRejects(t *testing.T) {
	geo, _ := DefaultConfig().NewGeometry(page64K)
	for _, c := range []struct {
		allocs []Range
		want   string
	}{
		{[]Range{{0, 10}, {5, 10}}, "overlap"},
		{[]Range{{0, 0}}, "no pages"},
	} {
		if _, err := NewRGP(DefaultConfig(), 1, geo, c.allocs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v", c.allocs, err)
		}
	}
	p, err := NewRGP(DefaultConfig(), 1, geo, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.OnTrigger(0, 5, func(uint64) bool { return false }, nil); len(got) != 1 || got[0].Region != 1 {
		t.Fatalf("no allocations: %v", got)
	}
}
