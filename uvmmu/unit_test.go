package uvmmu

import (
	"slices"
	"strings"
	"testing"
)

// drain ticks the unit at every wake-up it asks for and returns the plans.
func drain(t *testing.T, u *Unit) []Plan {
	t.Helper()
	var plans []Plan
	for {
		rd := u.Ready()
		plans = append(plans, take(u)...)
		if !rd.Wake {
			return plans
		}
		if err := u.Tick(rd.WakeAt); err != nil {
			t.Fatal(err)
		}
	}
}

// fill faults groups base.. into every unprotected frame-group of u at
// time nanoseconds and completes them, so that the memory is full; then
// it lets the AFM run for 100 us.
func fill(t *testing.T, u *Unit, base uint64, nanoseconds float64) {
	t.Helper()
	n := uint64(u.FreeFrames()) + uint64(u.DCQLen())
	for g := uint64(0); g < n; g++ {
		if err := u.Fault(at(nanoseconds), Fault{Group: base + g, Remote: 1000 + g}); err != nil {
			t.Fatal(err)
		}
	}
	plans := drain(t, u)
	last := plans[len(plans)-1].DestAt
	for _, p := range plans {
		if err := u.Complete(last, p.Frame); err != nil {
			t.Fatal(err)
		}
	}
	// Let the AFM queue its victims.
	if err := u.Tick(last + at(1e5)); err != nil {
		t.Fatal(err)
	}
}

func TestHandlingLatency(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mhz    float64
		wantNs float64
	}{
		{"1 GHz", 1000, 10},
		{"Table I: 1481 MHz", 1481, 6.752}, // "10 cycles at 1.4GHz" (§V-A2)
	} {
		s := smallSetup(40)
		s.ClockMHz = tc.mhz
		u := mustNew(t, small(), s)
		if err := u.Fault(at(5000), Fault{Group: 7, Critical: 3}); err != nil {
			t.Fatal(err)
		}
		p := take(u)[0]
		if p.Stalled || p.DestAt != p.RaisedAt || ns(p.DestAt) != 5000 || ns(p.StartAt-p.DestAt) != tc.wantNs {
			t.Errorf("%s: raised %v, destination %v, start %v", tc.name, ns(p.RaisedAt), ns(p.DestAt), ns(p.StartAt))
		}
	}
}

func TestCriticalPageFirst(t *testing.T) {
	onePage := small()
	onePage.PageBytes = onePage.GroupBytes
	wide := small()
	wide.PageBytes = wide.GroupBytes / 64
	for _, tc := range []struct {
		name     string
		cfg      Config
		critical uint8
		in       [][]uint64 // pages of each host-to-device move, in order
	}{
		{"first page", small(), 0, [][]uint64{{32}, {33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47}}},
		{"a middle page", small(), 5, [][]uint64{{37}, {32, 33, 34, 35, 36, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47}}},
		{"last page", small(), 15, [][]uint64{{47}, {32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46}}},
		{"a one-page group", onePage, 0, [][]uint64{{2}}},
		{"a 64-page group", wide, 63, [][]uint64{{191}, nil}},
	} {
		u := mustNew(t, tc.cfg, smallSetup(40))
		if err := u.Fault(at(1000), Fault{Group: 2, Critical: tc.critical}); err != nil {
			t.Fatal(err)
		}
		p := take(u)[0]
		if p.NMoves != len(tc.in) {
			t.Fatalf("%s: %d moves, want %d", tc.name, p.NMoves, len(tc.in))
		}
		for i, mv := range p.Transfers() {
			got := mv.AppendPages(nil)
			if tc.in[i] == nil { // every page but the critical one
				if len(got) != 63 || slices.Contains(got, 191) {
					t.Errorf("%s: rest %v", tc.name, got)
				}
				continue
			}
			if mv.Dir != HostToDevice || mv.Group != 2 || !slices.Equal(got, tc.in[i]) {
				t.Errorf("%s: move %d: %v %v, want %v", tc.name, i, mv.Dir, got, tc.in[i])
			}
		}
		if !p.ResumeOnCritical {
			t.Errorf("%s: the default resumes on the critical page", tc.name)
		}
	}
	c := small()
	c.Resume = ResumeGroup
	u := mustNew(t, c, smallSetup(40))
	if err := u.Fault(0, Fault{}); err != nil {
		t.Fatal(err)
	}
	if p := drain(t, u)[0]; p.ResumeOnCritical {
		t.Error("resume: group resumes on the critical page")
	}
}

// TestBurstStallsOnEmptyDCQ: a burst of faults larger than the DCQ
// drains it; the faults beyond wait for the AFM, each is counted once, and
// each gets its destination when the AFM writes the entry.
func TestBurstStallsOnEmptyDCQ(t *testing.T) {
	u := mustNew(t, small(), smallSetup(40))
	for g := uint64(0); g < 12; g++ {
		if err := u.Fault(at(1000), Fault{Group: g}); err != nil {
			t.Fatal(err)
		}
	}
	if u.Waiting() != 4 || !u.Ready().Wake || ns(u.Ready().WakeAt) != 1102 {
		t.Fatalf("%d waiting, wake %v at %v ns", u.Waiting(), u.Ready().Wake, ns(u.Ready().WakeAt))
	}
	plans := drain(t, u)
	var dest []float64
	frames := map[uint32]bool{}
	for i, p := range plans {
		if p.Group != uint64(i) || frames[p.Frame] || p.Stalled != (i >= 8) {
			t.Errorf("plan %d: %+v", i, p)
		}
		frames[p.Frame] = true
		if p.Stalled {
			dest = append(dest, ns(p.DestAt))
		}
	}
	if !slices.Equal(dest, []float64{1102, 1103, 1104, 1105}) {
		t.Errorf("stalled faults got their destinations at %v ns", dest)
	}
	c := u.Counters()
	if c.DCQEmptyStalls != 4 || ns(c.StallTime) != 102+103+104+105 {
		t.Errorf("%d stalls for %v ns", c.DCQEmptyStalls, ns(c.StallTime))
	}
	if err := checkCounters(u, small()); err != nil {
		t.Error(err)
	}
}

func TestSwapWhenFull(t *testing.T) {
	u := mustNew(t, small(), smallSetup(8))
	fill(t, u, 100, 1000)
	if u.FreeFrames() != 0 || u.Candidates()+uint32(u.DCQLen()) != 8 {
		t.Fatalf("%d free, %d candidates, DCQ %d", u.FreeFrames(), u.Candidates(), u.DCQLen())
	}
	before := map[uint32]uint64{}
	for fg := uint32(0); fg < 8; fg++ {
		before[fg] = u.Frame(fg).Group
	}
	if err := u.Fault(at(2e5), Fault{Group: 300, Critical: 4, Remote: 77}); err != nil {
		t.Fatal(err)
	}
	p := drain(t, u)[0]
	switch {
	case !p.Swap || p.Victim != before[p.Frame] || p.Remote != 77:
		t.Errorf("plan %+v: want a swap of the group in frame-group %d (%d)", p, p.Frame, before[p.Frame])
	case p.NMoves != 3 || p.Moves[2].Dir != DeviceToHost || p.Moves[2].Group != p.Victim:
		t.Errorf("moves %+v", p.Transfers())
	case p.Moves[0].Count()+p.Moves[1].Count() != p.Moves[2].Count() || p.Moves[2].Count() != 16:
		t.Errorf("%d + %d pages in, %d out", p.Moves[0].Count(), p.Moves[1].Count(), p.Moves[2].Count())
	case !slices.Equal(p.Moves[2].AppendPages(nil)[:3], []uint64{p.Victim * 16, p.Victim*16 + 1, p.Victim*16 + 2}):
		t.Errorf("victim pages not in order: %v", p.Moves[2].AppendPages(nil))
	}
	if f := u.Frame(p.Frame); f.Group != 300 || !f.Filling || f.Queued {
		t.Errorf("frame-group after the swap: %+v", f)
	}
	if err := checkCounters(u, small()); err != nil {
		t.Error(err)
	}
}

// TestStarvedUntilComplete: with every frame-group being filled, the AFM
// finds no victim; the fault waits, with no wake-up, until a migration
// completes.
func TestStarvedUntilComplete(t *testing.T) {
	u := mustNew(t, small(), smallSetup(8))
	for g := uint64(0); g < 8; g++ {
		if err := u.Fault(at(1000), Fault{Group: g}); err != nil {
			t.Fatal(err)
		}
	}
	first := drain(t, u)
	if err := u.Fault(at(2000), Fault{Group: 50}); err != nil {
		t.Fatal(err)
	}
	if drain(t, u); u.Waiting() != 1 || u.Ready().Wake || !u.starved {
		t.Fatalf("%d waiting, wake %v, starved %v", u.Waiting(), u.Ready().Wake, u.starved)
	}
	draws := u.Counters().VictimDraws
	if err := u.Complete(at(3000), first[5].Frame); err != nil {
		t.Fatal(err)
	}
	p := drain(t, u)
	// The refill reads FrAB (1 cycle), draws until it finds the one
	// candidate (100 cycles each) and writes it (1 cycle).
	d := float64(u.Counters().VictimDraws - draws)
	if len(p) != 1 || !p[0].Swap || !p[0].Stalled || p[0].Victim != 5 || p[0].Frame != first[5].Frame || ns(p[0].DestAt) != 3000+1+100*d+1 {
		t.Errorf("plans after the completion (%v draws): %+v", d, p)
	}
	if c := u.Counters(); c.RefillsStarved == 0 || c.DCQEmptyStalls != 1 {
		t.Errorf("counters %+v", c)
	}
}

// TestReleasedVictim: a queued victim whose page-group leaves is handed
// out without a swap.
func TestReleasedVictim(t *testing.T) {
	u := mustNew(t, small(), smallSetup(8))
	fill(t, u, 100, 1000)
	if u.DCQLen() < small().RefillTo || !u.q.peek().swap {
		t.Fatalf("DCQ of %d entries, head %+v: want victims", u.DCQLen(), *u.q.peek())
	}
	victim := u.q.peek().frame
	if !u.Frame(victim).Queued {
		t.Fatalf("frame-group %d: %+v", victim, u.Frame(victim))
	}
	if err := u.Release(at(2e5), victim); err != nil {
		t.Fatal(err)
	}
	if f := u.Frame(victim); !f.Reserved || !f.Queued || u.FreeFrames() != 0 {
		t.Fatalf("released queued victim: %+v, %d free", f, u.FreeFrames())
	}
	if err := u.Fault(at(3e5), Fault{Group: 9}); err != nil {
		t.Fatal(err)
	}
	p := take(u)[0]
	if p.Frame != victim || p.Swap || u.Counters().VictimsGone != 1 {
		t.Errorf("plan %+v, %d victims gone", p, u.Counters().VictimsGone)
	}
}

func TestProtectedNeverUsed(t *testing.T) {
	u := mustNew(t, small(), Setup{Frames: 12, Protected: 3, ClockMHz: 1000, Seed: 3})
	if err := u.Protect(0); err != nil {
		t.Fatal(err)
	}
	fill(t, u, 0, 1000)
	for g := uint64(100); g < 300; g++ {
		if err := u.Fault(at(float64(2e5+1000*g)), Fault{Group: g}); err != nil {
			t.Fatal(err)
		}
		for _, p := range drain(t, u) {
			if p.Frame == 0 || p.Frame >= 9 {
				t.Fatalf("protected frame-group %d handed out: %+v", p.Frame, p)
			}
			if err := u.Complete(p.DestAt, p.Frame); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := u.Protect(1); err == nil {
		t.Error("protect after bring-up accepted")
	}
	for _, fg := range []uint32{0, 9, 10, 11} {
		if !u.Frame(fg).Protected {
			t.Errorf("frame-group %d: %+v", fg, u.Frame(fg))
		}
	}
	if err := u.Release(at(1e6), 0); err != nil || !u.Frame(0).Free && !u.Frame(0).Reserved {
		t.Errorf("cudaFree of a protected frame-group: %v, %+v", err, u.Frame(0))
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		do         func(u *Unit) error
	}{
		{"time goes back", "before the last call", func(u *Unit) error {
			_ = u.Tick(at(100))
			return u.Tick(at(99))
		}},
		{"critical page out of the group", "has 16 pages", func(u *Unit) error { return u.Fault(0, Fault{Critical: 16}) }},
		{"complete an idle frame-group", "no migration is filling", func(u *Unit) error { return u.Complete(at(300), 3) }},
		{"complete twice", "no migration is filling", func(u *Unit) error {
			_ = u.Fault(at(300), Fault{})
			_ = u.Complete(at(300), 0)
			return u.Complete(at(300), 0)
		}},
		{"complete out of range", "no migration is filling", func(u *Unit) error { return u.Complete(at(300), 99) }},
		{"release a free frame-group", "holds no page-group", func(u *Unit) error { return u.Release(at(300), 20) }},
		{"release a frame-group being filled", "while a migration fills it", func(u *Unit) error {
			_ = u.Fault(at(300), Fault{})
			return u.Release(at(300), 0)
		}},
		{"release out of range", "of 40", func(u *Unit) error { return u.Release(at(300), 40) }},
		{"protect a taken frame-group", "not free", func(u *Unit) error { return u.Protect(39) }},
	} {
		u := mustNew(t, small(), Setup{Frames: 40, Protected: 1, ClockMHz: 1000})
		err := tc.do(u)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
