package uvmmu

import "testing"

// TestFirstRefill checks the bring-up refill (§IV-C: every frame-group
// free, every FrAB bit set; the AFM fills the DCQ) against hand-computed
// counts and times: 1 cycle per FrAB read and DCQ push, 100 per IPgT read,
// 1 ns per cycle.
type refillCase struct {
	name      string
	cfg       Config
	setup     Setup
	protect   []uint32
	len       int
	frames    []uint32 // the first entries, in order
	sram      uint64   // FrAB words read
	regions   uint64   // IPgT region reads
	doneNs    float64
	firstNs   float64 // the first entry is written
	exhausted bool
}

func refillCases() []refillCase {
	fillAll := small()
	fillAll.RefillTo = fillAll.DCQEntries
	bitWord := small()
	bitWord.FrABWordBits = 1
	return []refillCase{
		{name: "paper rule: stop past the watermark, a region at a time", cfg: small(), setup: smallSetup(40),
			len: 8, frames: []uint32{0, 1, 2, 3, 4}, sram: 1, regions: 2, doneNs: 209, firstNs: 102},
		{name: "fill to capacity", cfg: fillAll, setup: smallSetup(40),
			len: 8, sram: 1, regions: 2, doneNs: 209, firstNs: 102},
		{name: "paper rule, 6 frame-groups: a partial region", cfg: small(), setup: smallSetup(6),
			len: 6, sram: 1, regions: 2, doneNs: 207, firstNs: 102},
		{name: "fill to capacity, 6 frame-groups: min(capacity, free)", cfg: fillAll, setup: smallSetup(6),
			len: 6, sram: 1, regions: 2, doneNs: 207, firstNs: 102, exhausted: true},
		{name: "protected frame-groups are skipped", cfg: small(), setup: Setup{Frames: 8, Protected: 2, ClockMHz: 1000},
			len: 6, frames: []uint32{0, 1, 2, 3, 4, 5}, sram: 1, regions: 2, doneNs: 207, firstNs: 102},
		{name: "FrAB skips full regions", cfg: small(), setup: smallSetup(40), protect: []uint32{0, 1, 2, 3, 4, 5, 6, 7},
			len: 8, frames: []uint32{8, 9, 10, 11, 12}, sram: 1, regions: 2, doneNs: 209, firstNs: 102},
		{name: "one region per FrAB word", cfg: bitWord, setup: smallSetup(40), protect: []uint32{0, 1, 2, 3},
			len: 8, frames: []uint32{4, 5}, sram: 3, regions: 2, doneNs: 211, firstNs: 103},
	}
}

func TestFirstRefill(t *testing.T) {
	for _, tc := range refillCases() {
		t.Run(tc.name, func(t *testing.T) {
			u := mustNew(t, tc.cfg, tc.setup)
			for _, fg := range tc.protect {
				if err := u.Protect(fg); err != nil {
					t.Fatal(err)
				}
			}
			if err := u.Tick(0); err != nil {
				t.Fatal(err)
			}
			done, ok := u.Refilling()
			if !ok || ns(done) != tc.doneNs {
				t.Fatalf("refill in flight %v, ends at %v ns, want %v", ok, ns(done), tc.doneNs)
			}
			if u.DCQLen() != tc.len || ns(u.q.peek().readyAt) != tc.firstNs {
				t.Errorf("DCQ %d entries, first at %v ns; want %d, %v ns", u.DCQLen(), ns(u.q.peek().readyAt), tc.len, tc.firstNs)
			}
			for i, fg := range tc.frames {
				if e := u.q.buf[i]; e.frame != fg || e.swap {
					t.Errorf("entry %d: %+v, want frame-group %d, S = 0", i, e, fg)
				}
			}
			c := u.Counters()
			if c.SRAMReads != tc.sram || c.IPgTAccesses != tc.regions {
				t.Errorf("%d FrAB reads, %d IPgT reads; want %d, %d", c.SRAMReads, c.IPgTAccesses, tc.sram, tc.regions)
			}
			if err := u.Tick(done); err != nil {
				t.Fatal(err)
			}
			if _, ok := u.Refilling(); ok || u.starved != tc.exhausted {
				t.Errorf("after the refill: in flight %v, starved %v; want false, %v", ok, u.starved, tc.exhausted)
			}
			if err := checkCounters(u, tc.cfg); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestPaperScaleRefill: at bring-up on Table I's 11 GB GPU the first two
// regions fill the 64-entry DCQ (32 entries are not "more than" 32).
func TestPaperScaleRefill(t *testing.T) {
	u := mustNew(t, DefaultConfig(), paperSetup())
	if err := u.Tick(0); err != nil {
		t.Fatal(err)
	}
	c := u.Counters()
	if u.DCQLen() != 64 || c.IPgTAccesses != 2 || c.IPgTReads != 64 || c.SRAMReads != 1 {
		t.Errorf("DCQ %d, %d region reads of %d entries, %d FrAB reads", u.DCQLen(), c.IPgTAccesses, c.IPgTReads, c.SRAMReads)
	}
	if u.Frames() != 180224 || u.FreeFrames() != 180224-64 || u.Available(0) || u.Available(1) || !u.Available(2) {
		t.Errorf("%d frame-groups, %d free; FrAB bits %v %v %v", u.Frames(), u.FreeFrames(), u.Available(0), u.Available(1), u.Available(2))
	}
}

// TestRefillTrigger follows the DCQ through faults: a refill starts when
// it drops below the watermark, only one is in flight, and one that ends
// below the watermark starts the next.
func TestRefillTrigger(t *testing.T) {
	u := mustNew(t, small(), smallSetup(40))
	type step struct {
		name      string
		do        func() error
		len       int
		refills   uint64
		inFlight  bool
		doneNs    float64
		waiting   int
		plans     int
		wakeAtNs  float64 // 0: no wake
		stalledAt float64 // DestAt of the stalled plan served, if any
	}
	fault := func(n int, t float64) func() error {
		return func() error {
			for i := 0; i < n; i++ {
				if err := u.Fault(at(t), Fault{Group: uint64(100 + i)}); err != nil {
					return err
				}
			}
			return nil
		}
	}
	tick := func(t float64) func() error { return func() error { return u.Tick(exact(u, t)) } }
	for _, s := range []step{
		{name: "bring-up", do: tick(0), len: 8, refills: 1, inFlight: true, doneNs: 209},
		{name: "bring-up done", do: tick(209), len: 8, refills: 1},
		{name: "4 faults: at the watermark", do: fault(4, 1000), len: 4, refills: 1, plans: 4},
		{name: "a 5th: below it", do: fault(1, 1000), len: 7, refills: 2, inFlight: true, doneNs: 1105, plans: 1},
		{name: "3 more take the old entries", do: fault(3, 1000), len: 4, refills: 2, inFlight: true, doneNs: 1105, plans: 3},
		{name: "the next waits for the AFM", do: fault(1, 1000), len: 4, refills: 2, inFlight: true, doneNs: 1105,
			waiting: 1, wakeAtNs: 1102},
		{name: "the entry is written", do: tick(1102), len: 3, refills: 2, inFlight: true, doneNs: 1105,
			plans: 1, stalledAt: 1102},
		{name: "the refill ends below the watermark: the next starts", do: tick(1105), len: 7, refills: 3,
			inFlight: true, doneNs: 1210},
	} {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		done, ok := u.Refilling()
		rd := u.Ready()
		plans := take(u)
		switch {
		case u.DCQLen() != s.len || u.Counters().Refills != s.refills || ok != s.inFlight || ok && ns(done) != s.doneNs:
			t.Errorf("%s: DCQ %d, %d refills, in flight %v until %v ns; want %d, %d, %v, %v ns", s.name,
				u.DCQLen(), u.Counters().Refills, ok, ns(done), s.len, s.refills, s.inFlight, s.doneNs)
		case u.Waiting() != s.waiting || len(plans) != s.plans || rd.Wake != (s.wakeAtNs > 0) || rd.Wake && ns(rd.WakeAt) != s.wakeAtNs:
			t.Errorf("%s: %d waiting, %d plans, wake %v at %v ns", s.name, u.Waiting(), len(plans), rd.Wake, ns(rd.WakeAt))
		case s.stalledAt > 0 && (!plans[0].Stalled || ns(plans[0].DestAt) != s.stalledAt || ns(plans[0].RaisedAt) != 1000):
			t.Errorf("%s: %+v", s.name, plans[0])
		}
		if err := checkCounters(u, small()); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
	if c := u.Counters(); c.DCQEmptyStalls != 1 || ns(c.StallTime) != 102 {
		t.Errorf("%d DCQ-empty stalls for %v ns, want 1 for 102 ns", c.DCQEmptyStalls, ns(c.StallTime))
	}
}
