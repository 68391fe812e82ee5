package observuvm

import (
	"math/rand/v2"
	"testing"
)

func fdpConfig(T int) Config {
	c := DefaultConfig()
	c.FDPThreshold = T
	return c
}

// feed gives g's FDP hits accessed events and misses unseen evictions, in
// that order, and returns the threshold changes.
func feed(f *FDP, g, hits, misses int) []int {
	var changes []int
	for i := range hits + misses {
		if thr, ok := f.Feedback(g, i < hits); ok {
			changes = append(changes, thr)
		}
	}
	return changes
}

// Useful prefetches raise aggressiveness (AP, threshold 1), useless ones
// lower it (TBP, 51), always one of the two (Algorithm 2).
func TestFDPFeedbackLoop(t *testing.T) {
	f := NewFDP(fdpConfig(10), 2)
	if f.Threshold(0) != 51 {
		t.Fatalf("start %d, want TBP 51", f.Threshold(0))
	}
	for i, s := range []struct {
		hits, misses int
		want         int
		changed      bool
	}{
		{11, 0, 1, true},   // all used: > T events, 100% > 80%: AP
		{11, 0, 1, false},  // stays AP
		{0, 11, 51, true},  // none used: back to TBP
		{9, 2, 1, true},    // 9/11 = 0.82 > 0.8
		{8, 3, 51, true},   // 8/11 = 0.73
		{10, 0, 51, false}, // only 10 events: not > T, no decision yet
		{1, 0, 1, true},    // the 11th event decides: 11/11
	} {
		ch := feed(f, 0, s.hits, s.misses)
		if f.Threshold(0) != s.want || (len(ch) > 0) != s.changed {
			t.Fatalf("step %d: threshold %d changes %v, want %d changed %v", i, f.Threshold(0), ch, s.want, s.changed)
		}
	}
	if f.Threshold(1) != 51 {
		t.Fatal("GPU 1 moved")
	}
	if d, flips := f.Decisions(0); d != 6 || flips != 5 {
		t.Fatalf("%d decisions, %d flips", d, flips)
	}
}

func TestFDPBounds(t *testing.T) {
	f := NewFDP(fdpConfig(5), 1)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 5000 {
		f.Feedback(0, rng.IntN(10) < 8)
		if thr := f.Threshold(0); thr != 1 && thr != 51 {
			t.Fatalf("event %d: threshold %d", i, thr)
		}
		if ac, ev, sum := f.Counts(0); ac+ev != sum || sum > 5 {
			t.Fatalf("event %d: counts %d %d %d", i, ac, ev, sum)
		}
	}
}

// Algorithm 2 as printed counts CountSum only with evictions: a run of
// useful prefetches never reaches T.
func TestFDPLiteralCountSum(t *testing.T) {
	c := fdpConfig(10)
	c.FDPLiteralCountSum = true
	f := NewFDP(c, 1)
	if ch := feed(f, 0, 1000, 0); len(ch) != 0 || f.Threshold(0) != 51 {
		t.Fatalf("literal: changes %v", ch)
	}
	if ac, _, sum := f.Counts(0); ac != 1000 || sum != 0 {
		t.Fatalf("literal counts %d %d", ac, sum)
	}
}

// Without reset the counts accumulate and every later event re-decides.
func TestFDPNoReset(t *testing.T) {
	c := fdpConfig(10)
	c.FDPReset = false
	f := NewFDP(c, 1)
	feed(f, 0, 11, 0)
	if f.Threshold(0) != 1 {
		t.Fatal("not AP")
	}
	// 11 hits then 2 misses: 11/13 = 0.85 still AP; a third: 11/14 = 0.79.
	if ch := feed(f, 0, 0, 2); len(ch) != 0 {
		t.Fatalf("changes %v", ch)
	}
	if ch := feed(f, 0, 0, 1); len(ch) != 1 || ch[0] != 51 {
		t.Fatalf("changes %v", ch)
	}
}
