package pagepolicy

import "testing"

// table is a PageView over a slice of pages.
type table []Page

func (t table) Page(p uint64) Page { return t[p] }
func (t table) Len() uint64        { return uint64(len(t)) }

// apply records a decision on page as the driver does: the updates of
// other pages in order, then the page's own bits.
func (t table) apply(page uint64, d Decision) {
	for _, u := range d.Updates {
		t[u.Page].Bits = u.Bits
	}
	t[page].Bits = d.Bits
}

func newGRITFixture(t *testing.T, pages int, c Config) (*grit, table) {
	t.Helper()
	tab := make(table, pages)
	for i := range tab {
		tab[i] = Page{Owner: 0, Copies: 1}
	}
	p, err := New("grit", c, Env{Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*grit), tab
}

// faults sends n faults on page from alternating GPUs, applying each
// decision, and returns the last decision.
func faults(g *grit, tab table, page uint64, n int, write bool) Decision {
	var d Decision
	for i := 0; i < n; i++ {
		d = g.Decide(Fault{GPU: 1 + i%2, Page: page, Write: write}, tab[page])
		tab.apply(page, d)
	}
	return d
}

func TestGRITFaultAwareInitiator(t *testing.T) {
	for _, c := range []struct {
		name      string
		threshold int
		writes    []bool
		want      []Bits
	}{
		{"reads stay on-touch until the threshold, then duplicate", 4, []bool{false, false, false, false}, []Bits{OnTouch, OnTouch, OnTouch, Duplication}},
		{"any write picks access-counter", 4, []bool{false, true, false, false}, []Bits{OnTouch, OnTouch, OnTouch, AccessCounter}},
		{"threshold 2", 2, []bool{false, false, true, true}, []Bits{OnTouch, Duplication, Duplication, AccessCounter}},
		{"the PA entry is deleted after a decision", 2, []bool{true, true, false, false}, []Bits{OnTouch, AccessCounter, AccessCounter, Duplication}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.GRITThreshold = c.threshold
			g, tab := newGRITFixture(t, 8, cfg)
			for i, w := range c.writes {
				d := g.Decide(Fault{GPU: 1, Page: 3, Write: w}, tab[3])
				tab.apply(3, d)
				if d.Bits != c.want[i] {
					t.Fatalf("fault %d: bits %v, want %v", i, d.Bits, c.want[i])
				}
				if !d.Overlapped || d.LookupNs <= 0 {
					t.Fatalf("PA lookups run beside the walk and cost time: %+v", d)
				}
			}
		})
	}
}

func TestGRITNeighborPrediction(t *testing.T) {
	cfg := DefaultConfig()
	g, tab := newGRITFixture(t, 1024, cfg)
	// Four pages of block 0 (pages 0-7) reach duplication: no majority yet.
	for p := uint64(0); p < 4; p++ {
		faults(g, tab, p, 4, false)
	}
	if tab[5].Bits != OnTouch || g.level[0] != 0 {
		t.Fatalf("promoted with only 4 of 8: page 5 %v level %d", tab[5].Bits, g.level[0])
	}
	faults(g, tab, 4, 4, false) // the fifth: majority, the whole block
	for p := 0; p < 8; p++ {
		if tab[p].Bits != Duplication {
			t.Fatalf("page %d not promoted: %v", p, tab[p].Bits)
		}
	}
	if g.level[0] != 1 || tab[8].Bits != OnTouch {
		t.Fatalf("group bits %d, page 8 %v", g.level[0], tab[8].Bits)
	}
	// A neighbour applies the predicted scheme at its next fault.
	if d := g.Decide(Fault{GPU: 1, Page: 6}, tab[6]); d.Action != Duplicate {
		t.Fatalf("predicted neighbour resolved with %v", d.Action)
	}
	// Five 8-page blocks of the first 64 in duplication lift the 64-group.
	for b := uint64(1); b < 5; b++ {
		for p := b * 8; p < b*8+5; p++ {
			faults(g, tab, p, 4, false)
		}
	}
	if g.level[0] != 2 || tab[63].Bits != Duplication {
		t.Fatalf("64-page group not promoted: level %d, page 63 %v", g.level[0], tab[63].Bits)
	}
	// A write-shared page inside demotes: its 8-block splits to pages, the
	// other seven blocks stay 8-page groups.
	faults(g, tab, 10, 4, true)
	if tab[10].Bits != AccessCounter || g.level[0] != 1 || g.level[8] != 0 || g.level[16] != 1 {
		t.Fatalf("demotion: page 10 %v, levels %d %d %d", tab[10].Bits, g.level[0], g.level[8], g.level[16])
	}
	st := g.Report().Stats
	if st["promotions"] != 6 || st["demotions"] != 1 || st["predicted_pages"] == 0 {
		t.Fatalf("stats %v", st)
	}
}

func TestGRITPACache(t *testing.T) {
	g, tab := newGRITFixture(t, 256, DefaultConfig())
	faults(g, tab, 1, 2, false)
	if st := g.Report().Stats; st["pa_cache_hits"] != 1 || st["pa_cache_misses"] != 1 {
		t.Fatalf("a second fault on a page must hit: %v", st)
	}
	// 5 pages mapping to one set of a 4-way cache: the first is evicted.
	for p := uint64(16); p <= 16*5; p += 16 {
		faults(g, tab, p, 1, false)
	}
	before := g.Report().Stats["pa_cache_misses"]
	faults(g, tab, 16, 1, false)
	if st := g.Report().Stats; st["pa_cache_misses"] != before+1 || st["pa_cache_writebacks"] == 0 {
		t.Fatalf("LRU eviction and write-back not modelled: %v", st)
	}
}

// TestGRITUpdatesComeBackInDecision checks that neighbour prediction asks
// for its PTE writes in the Decision instead of making them: the table is
// untouched until the caller applies them, and the buffer is reused.
func TestGRITUpdatesComeBackInDecision(t *testing.T) {
	g, tab := newGRITFixture(t, 64, DefaultConfig())
	for p := uint64(0); p < 4; p++ {
		if d := faults(g, tab, p, 4, false); len(d.Updates) != 0 {
			t.Fatalf("page %d: updates %v before any majority", p, d.Updates)
		}
	}
	faults(g, tab, 4, 3, false)
	before := append(table(nil), tab...)
	d := g.Decide(Fault{GPU: 1, Page: 4}, tab[4]) // the fifth page decides: majority
	for i := range tab {
		if tab[i] != before[i] {
			t.Fatalf("Decide wrote page %d of the table: %+v", i, tab[i])
		}
	}
	want := []BitsUpdate{{5, Duplication}, {6, Duplication}, {7, Duplication}}
	if d.Bits != Duplication || len(d.Updates) != len(want) {
		t.Fatalf("bits %v, updates %v, want %v", d.Bits, d.Updates, want)
	}
	for i, u := range want {
		if d.Updates[i] != u {
			t.Fatalf("update %d: %v, want %v", i, d.Updates[i], u)
		}
	}
	tab.apply(4, d)
	if d := g.Decide(Fault{GPU: 1, Page: 20}, tab[20]); len(d.Updates) != 0 {
		t.Fatalf("the next Decide must start with no updates: %v", d.Updates)
	}
}

// TestGRITReadsItsOwnPendingWrites checks read-your-writes within one
// Decide: a promotion to 8 pages writes the block's base page, and the
// 64-page check that follows must see that write before the driver has
// applied it.
func TestGRITReadsItsOwnPendingWrites(t *testing.T) {
	g, tab := newGRITFixture(t, 128, DefaultConfig())
	for b := uint64(0); b < 4; b++ { // blocks 0-3 in duplication, bases included
		for p := b * 8; p < b*8+5; p++ {
			faults(g, tab, p, 4, false)
		}
	}
	if g.level[0] != 1 {
		t.Fatalf("4 of 8 blocks lifted the 64-page group: level %d", g.level[0])
	}
	for p := uint64(33); p < 37; p++ { // block 4 without its base page 32
		faults(g, tab, p, 4, false)
	}
	faults(g, tab, 37, 3, false)
	d := g.Decide(Fault{GPU: 1, Page: 37}, tab[37])
	if tab[32].Bits != OnTouch {
		t.Fatalf("Decide wrote page 32: %v", tab[32].Bits)
	}
	if g.level[0] != 2 {
		t.Fatalf("the pending write of base page 32 was not seen: level %d", g.level[0])
	}
	tab.apply(37, d)
	for p := 0; p < 64; p++ {
		if tab[p].Bits != Duplication {
			t.Fatalf("page %d after applying: %v", p, tab[p].Bits)
		}
	}
	if tab[64].Bits != OnTouch {
		t.Fatalf("page 64 outside the group: %v", tab[64].Bits)
	}
}

func TestGRITNeedsTheTable(t *testing.T) {
	if _, err := New("grit", DefaultConfig(), Env{}); err == nil {
		t.Fatal("grit without a page table must fail to build, not panic later")
	}
}

// TestGRITDecideDoesNotAllocate: the updates buffer is reused, so the
// per-fault path stays allocation-free once it has grown.
func TestGRITDecideDoesNotAllocate(t *testing.T) {
	g, tab := newGRITFixture(t, 64, DefaultConfig())
	cycle := func() { // every page flips scheme twice, promoting its block each time
		for _, write := range []bool{true, false} {
			for p := uint64(0); p < 8; p++ {
				faults(g, tab, p, 4, write)
			}
		}
	}
	cycle()
	if n := testing.AllocsPerRun(10, cycle); n != 0 {
		t.Fatalf("%v allocations per cycle", n)
	}
	if g.Report().Stats["promotions"] == 0 {
		t.Fatal("the cycle never promoted: the test checks nothing")
	}
}

// grit_pa_lookup=serial puts the PA-Cache/PA-Table lookup after the walk
// (not Overlapped), with the same cost: a miss reads host memory.
func TestGRITSerialLookup(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GRITPALookup = GRITLookupSerial
	g, tab := newGRITFixture(t, 8, cfg)
	d := g.Decide(Fault{GPU: 1, Page: 3}, tab[3])
	if d.Overlapped || d.LookupNs != cfg.PACacheNs+cfg.HostMemNs {
		t.Fatalf("a first lookup misses and reads the PA-Table after the walk: %+v", d)
	}
}
