package observuvm

import (
	"slices"
	"strings"
	"testing"
)

func tourConfig(T int, pols ...string) Config {
	c := DefaultConfig()
	c.TournamentThreshold, c.TournamentPolicies = T, strings.Join(pols, ",")
	return c
}

func standings(p Policy, g int) map[string]Standing {
	m := map[string]Standing{}
	for _, s := range p.(Contest).Standings(g) {
		m[s.Name] = s
	}
	return m
}

// Round robin, causes and blame (Algorithm 1 lines 6-12), under both
// blame readings: every fault on an evicted region (CauseMap never
// cleared), or the first after each eviction.
func TestTournamentBlame(t *testing.T) {
	for _, c := range []struct {
		blame    string
		lrm, lru uint64
	}{{BlameFault, 2, 1}, {BlameEviction, 1, 1}} {
		cfg := tourConfig(100, LRM, LRU)
		cfg.TournamentBlame = c.blame
		p := play(t, Tournament, cfg, "F1 F2 F3 A1")
		// LRM's order is 1 2 3; LRU's, after the hit on 1, is 2 3 1.
		// One request for two victims, as the driver lists them: LRM's
		// turn, then LRU's, each skipping what is already listed.
		listed := map[uint64]bool{}
		skip := func(r uint64) bool { return listed[r] }
		v, _ := victim(p, 0, skip)
		listed[v] = true
		w, _ := victim(p, 0, skip)
		if v != 1 || w != 2 {
			t.Fatalf("victims %d (LRM's turn) then %d (LRU's), want 1 then 2", v, w)
		}
		evict(p, 0, 1, false)
		evict(p, 0, 2, false) // both proposals are causes, in either order
		evict(p, 0, 3, false) // not proposed: no cause
		if _, ok := victim(p, 0, nil); ok {
			t.Fatal("a victim on an empty GPU 0")
		}
		for _, op := range []uint64{1, 1, 2, 3} { // refault 1 (LRM's) twice, 2 (LRU's), 3 (no cause)
			p.Placed(0, op)
		}
		s := standings(p, 0)
		if s[LRM].Blame != c.lrm || s[LRU].Blame != c.lru || !s[LRM].Active || !s[LRU].Active {
			t.Fatalf("%s: standings %+v, want LRM %d and LRU %d blames", c.blame, s, c.lrm, c.lru)
		}
		if g1 := standings(p, 1); g1[LRM].Blame != 0 || g1[LRU].Blame != 0 {
			t.Fatalf("%s: GPU 1 standings %+v", c.blame, g1)
		}
	}
}

// The retire rule (lines 13-17) on set blame counts: share > 1.2/|A| of
// the whole sum, retired policies' blame included; the last never retires.
func TestTournamentRetire(t *testing.T) {
	p, err := New(Tournament, tourConfig(3, LRU, LFU, CP), 1, testRegions)
	if err != nil {
		t.Fatal(err)
	}
	tr := p.(*tournament)
	s := tr.per[0]
	for i, c := range []struct {
		blame  []uint64
		active []int
	}{
		{[]uint64{1, 1, 1}, []int{0, 1, 2}}, // sum 3 is not > T = 3: no check
		{[]uint64{5, 1, 1}, []int{1, 2}},    // 5/7 > 0.4
		{[]uint64{5, 4, 1}, []int{1, 2}},    // 4/10 <= 0.6
		{[]uint64{5, 9, 1}, []int{1, 2}},    // 9/15 = 0.6, not > 0.6
		{[]uint64{5, 10, 1}, []int{2}},      // 10/16 > 0.6
		{[]uint64{5, 10, 100}, []int{2}},    // |A| = 1: 1.2 never exceeded
	} {
		copy(s.blame, c.blame)
		s.sum = 0
		for _, b := range c.blame {
			s.sum += b
		}
		if s.sum > tr.thr {
			tr.retire(s)
		}
		if !slices.Equal(s.active, c.active) {
			t.Fatalf("case %d %v: active %v, want %v", i, c.blame, s.active, c.active)
		}
	}
}

// One policy clearly wins: region 1 is hot (observed hits), the rest
// streams through once. LRM, blind to the hits, evicts 1 whenever it
// reaches the head and takes all the blame; LRU never evicts it. After T
// blame LRM retires, and the hot region stops missing.
func TestTournamentSwitches(t *testing.T) {
	p := play(t, Tournament, tourConfig(4, LRM, LRU), "")
	var seq []uint64
	for r := uint64(2); r < 400; r++ {
		seq = append(seq, r, 1)
	}
	misses := loop(p, 4, seq, true)
	s := standings(p, 0)
	if s[LRM].Active || !s[LRU].Active || s[LRU].Blame != 0 || s[LRM].Blame != 5 {
		t.Fatalf("standings %+v: want LRM retired with T+1 = 5 blame, LRU active and blameless", s)
	}
	// 398 streaming misses, the first miss of 1 and LRM's 5 blamed refaults.
	if misses != 398+1+5 {
		t.Fatalf("%d misses", misses)
	}
	// The same history on the two alone.
	if m := loop(play(t, LRU, DefaultConfig(), ""), 4, seq, true); m != 399 {
		t.Errorf("LRU alone: %d misses", m)
	}
	if m := loop(play(t, LRM, DefaultConfig(), ""), 4, seq, true); m <= 399+5 {
		t.Errorf("LRM alone: %d misses, want many refaults of 1", m)
	}
}

// On a loop larger than HBM, LRU's victim is always the region needed
// next, so its blame comes first and it retires in favour of CP.
func TestTournamentPicksCPOnLoops(t *testing.T) {
	p := play(t, Tournament, tourConfig(16, LRU, CP), "")
	loop(p, 8, cyclic(12, 30), true)
	if s := standings(p, 0); s[LRU].Active || !s[CP].Active {
		t.Fatalf("standings %+v", s)
	}
}

// Candidates interleave the active policies' lists, next turn first,
// without repeats.
func TestTournamentCandidates(t *testing.T) {
	p := play(t, Tournament, tourConfig(100, LRU, CP), "F1 F2 F3 F4")
	// LRU: 1 2 3 4; CP (window 2 of 4): 3 4.
	if got := p.Candidates(0, 4, nil, nil); !slices.Equal(got, []uint64{1, 3, 2, 4}) {
		t.Fatalf("candidates %v", got)
	}
	if got := p.Candidates(0, 3, skipSet(1), nil); !slices.Equal(got, []uint64{2, 3, 4}) {
		t.Fatalf("candidates with 1 observed %v", got)
	}
	v, _ := victim(p, 0, nil)
	evict(p, 0, v, false) // LRU's 1; CP's turn next
	if got := p.Candidates(0, 2, nil, nil); !slices.Equal(got, []uint64{3, 2}) {
		t.Fatalf("candidates on CP's turn %v", got)
	}
}
