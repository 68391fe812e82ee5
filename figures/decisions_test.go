package figures

import (
	"math"
	"testing"

	"github.com/mgpu-sim/mgpu/characterize"
	"github.com/mgpu-sim/mgpu/pagepolicy"
)

func TestRuleFor(t *testing.T) {
	for _, c := range []struct {
		s    characterize.Sharing
		a    characterize.Access
		want string
	}{
		{characterize.Private, characterize.ReadOnly, "on-touch"},
		{characterize.Private, characterize.WriteOnly, "on-touch"},
		{characterize.Private, characterize.RWMix, "on-touch"},
		{characterize.Shared, characterize.ReadOnly, "duplication"},
		{characterize.Shared, characterize.WriteOnly, "access-counter"},
		{characterize.Shared, characterize.RWMix, "access-counter"},
		{characterize.PrivateSharedMix, characterize.ReadOnly, ""},
		{characterize.NoSharing, characterize.NoAccess, ""},
	} {
		if got := RuleFor(c.s, c.a); got != c.want {
			t.Errorf("RuleFor(%v, %v) = %q, want %q", c.s, c.a, got, c.want)
		}
	}
}

// TestPolicyShares weighs each policy by the time it was held, from the
// object's first decision to the end, and ignores other objects.
func TestPolicyShares(t *testing.T) {
	h := []pagepolicy.PolicyChange{
		{TimeNs: 100, Object: 1, Policy: "duplication"},
		{TimeNs: 150, Object: 2, Policy: "access-counter"},
		{TimeNs: 400, Object: 1, Policy: "access-counter"},
		{TimeNs: 500, Object: 1, Policy: "duplication"},
	}
	shares, n := PolicyShares(h, 1, 1100)
	if n != 3 {
		t.Errorf("%d decisions, want 3", n)
	}
	want := map[string]float64{"duplication": 0.9, "access-counter": 0.1}
	for p, w := range want {
		if math.Abs(shares[p]-w) > 1e-12 {
			t.Errorf("%s share %g, want %g", p, shares[p], w)
		}
	}
	if len(shares) != 2 || dominant(shares) != "duplication" {
		t.Errorf("shares %v", shares)
	}
	if s, n := PolicyShares(h, 3, 1100); s != nil || n != 0 {
		t.Errorf("an object with no decision: %v, %d", s, n)
	}
	if s, _ := PolicyShares(h, 2, 150); s["access-counter"] != 1 {
		t.Errorf("a decision at the end: %v", s)
	}
}

// TestMoveProfile counts moves per page, the gaps between a page's moves,
// the moves straight back, and the GPUs a page visited.
func TestMoveProfile(t *testing.T) {
	m := NewMoveProfile()
	m.Moved(7, 0, 1, 1e-6) // page 7: 0 -> 1 -> 0 -> 2
	m.Moved(7, 1, 0, 1.5e-6)
	m.Moved(7, 0, 2, 30e-6)
	m.Moved(9, 2, 3, 2e-6) // page 9 moves once
	s := m.Summary()
	if s.Pages != 2 || s.Moves != 4 || s.PerPageMax != 3 || s.PerPageP50 != 3 {
		t.Fatalf("summary %+v", s)
	}
	// Gaps: 500 ns and 28.5 µs; one of two moves back.
	if s.Within != [3]float64{0.5, 0.5, 1} || s.Back != 0.5 || math.Abs(s.GapP50Ns-28500) > 1e-6 {
		t.Errorf("gaps %+v back %g p50 %g", s.Within, s.Back, s.GapP50Ns)
	}
	if s.GPUs != 2.5 { // page 7 visited 3 GPUs, page 9 two
		t.Errorf("GPUs per page %g", s.GPUs)
	}
	if e := NewMoveProfile().Summary(); e.Pages != 0 || e.Moves != 0 {
		t.Errorf("empty %+v", e)
	}
}
