package observuvm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// small is a test configuration: 64 KB pages (one page per block, 32 per
// region), a budget of 2 eviction observations, 1 feedback, 1 trigger.
func small() Config {
	c := DefaultConfig()
	c.ObservedRegions, c.FeedbackRegions, c.TriggerRegions, c.Counters = 2, 1, 1, 8
	c.AdaptiveSamples = false
	return c
}

const page64K = 64 << 10

func mustObserver(t *testing.T, c Config, gpus int) *Observer {
	t.Helper()
	o, err := NewObserver(c, gpus, page64K)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func kinds(acts []Action) []ActionKind {
	var k []ActionKind
	for _, a := range acts {
		k = append(k, a.Kind)
	}
	return k
}

// A region's life (Fig. 4): resident, observed through a random sample,
// a hit brings the sample back, observed again, evicted unseen.
func TestObserverLife(t *testing.T) {
	o := mustObserver(t, small(), 2)
	const r = 3
	var sample uint64
	hostHit := func(p uint64) Notification { return Notification{Page: p, First: p, Size: 1, Source: HostSource()} }
	steps := []struct {
		name  string
		do    func() []Action
		state State
		acts  []ActionKind
	}{
		{"absent", func() []Action { return nil }, Absent, nil},
		{"a fault makes it resident", func() []Action { o.OnFault(0, r); return nil }, Resident, nil},
		{"observe: one sample out", func() []Action {
			acts, ok := o.Observe(0, r, ForEviction, nil, nil)
			if !ok || len(acts) != 1 {
				t.Fatalf("observe: %v %v", ok, acts)
			}
			sample = acts[0].First
			if o.geo.Region(sample) != r || acts[0].Pages != 1 || !o.IsSample(0, sample) || o.IsSample(1, sample) {
				t.Fatalf("sample %+v", acts[0])
			}
			return acts
		}, Observed, []ActionKind{SampleOut}},
		{"observing again does nothing", func() []Action {
			acts, ok := o.Observe(0, r, ForEviction, nil, nil)
			if ok {
				t.Fatal("observed twice")
			}
			return acts
		}, Observed, nil},
		{"a peer notification is no hit", func() []Action {
			_, _, hit, acts := o.OnNotification(0, Notification{Page: sample, Source: PeerSource(1)}, nil)
			if hit {
				t.Fatal("peer hit")
			}
			return acts
		}, Observed, nil},
		{"another GPU's notification is not this one's", func() []Action {
			_, _, hit, acts := o.OnNotification(1, hostHit(sample), nil)
			if hit {
				t.Fatal("hit on GPU 1")
			}
			return acts
		}, Observed, nil},
		{"a hit returns the sample", func() []Action {
			reg, p, hit, acts := o.OnNotification(0, hostHit(sample), nil)
			if !hit || reg != r || p != ForEviction || acts[0].First != sample {
				t.Fatalf("hit %v region %d purpose %v acts %v", hit, reg, p, acts)
			}
			return acts
		}, Resident, []ActionKind{SampleIn}},
		{"a second notification is stray", func() []Action {
			_, _, hit, acts := o.OnNotification(0, hostHit(sample), nil)
			if hit || o.IsSample(0, sample) {
				t.Fatal("stale sample")
			}
			return acts
		}, Resident, nil},
		{"re-armed", func() []Action {
			acts, _ := o.Observe(0, r, ForEviction, func(b int) bool { return b == 7 }, nil)
			if len(acts) != 1 || acts[0].First != 3*32+7 {
				t.Fatalf("only block 7 was eligible: %v", acts)
			}
			return acts
		}, Observed, []ActionKind{SampleOut}},
		{"evicted unseen: released", func() []Action {
			unseen, p, acts := o.OnEvicted(0, r, nil)
			if !unseen || p != ForEviction {
				t.Fatalf("unseen %v purpose %v", unseen, p)
			}
			return acts
		}, Evicted, []ActionKind{Release}},
		{"an evicted region cannot be observed", func() []Action {
			acts, ok := o.Observe(0, r, ForEviction, nil, nil)
			if ok {
				t.Fatal("observed while evicted")
			}
			return acts
		}, Evicted, nil},
		{"evicting an unobserved region", func() []Action {
			o.OnResident(0, r)
			unseen, _, acts := o.OnEvicted(0, r, nil)
			if unseen {
				t.Fatal("unseen without observation")
			}
			return acts
		}, Evicted, nil},
	}
	for _, s := range steps {
		acts := s.do()
		if got := kinds(acts); !slices.Equal(got, s.acts) {
			t.Fatalf("%s: actions %v, want %v", s.name, got, s.acts)
		}
		if got := o.State(0, r); got != s.state {
			t.Fatalf("%s: state %v, want %v", s.name, got, s.state)
		}
		if o.State(1, r) != Absent {
			t.Fatalf("%s: GPU 1 changed", s.name)
		}
	}
	st := o.Stats(0)
	if st.Observations != 2 || st.Hits != 1 || st.Unseen != 1 || st.PeerIgnored != 1 || st.Stray != 1 {
		t.Fatalf("stats %+v", st)
	}
	if o.Stats(1).Stray != 1 {
		t.Fatalf("GPU 1 stats %+v", o.Stats(1))
	}
	if o.Used(0, ForEviction) != 0 || o.per[0].armed != 0 {
		t.Fatalf("%d observed, %d armed after the end", o.Used(0, ForEviction), o.per[0].armed)
	}
}

// No budget is ever exceeded, and armed samples never exceed the counters,
// under a random history of every event.
func TestObserverBudget(t *testing.T) {
	c := small()
	c.Counters, c.ObservedRegions, c.FeedbackRegions, c.TriggerRegions = 6, 3, 2, 1
	c.AdaptiveSamples, c.MaxSamples, c.Samples, c.MonitorSet, c.AdaptPeriod = true, 4, 2, 4, 2
	o := mustObserver(t, c, 1)
	rng := rand.New(rand.NewPCG(7, 7))
	budget := map[Purpose]int{ForEviction: 3, ForFeedback: 2, ForTrigger: 1}
	for i := range 20000 {
		r := uint64(rng.IntN(12))
		p := Purpose(1 + rng.IntN(3))
		switch rng.IntN(6) {
		case 0:
			o.OnFault(0, r)
		case 1:
			o.Observe(0, r, p, nil, nil)
		case 2:
			o.ArmInPlace(0, r, rng.IntN(32), p)
		case 3:
			o.OnEvicted(0, r, nil)
		default:
			pg := r*32 + uint64(rng.IntN(32))
			o.OnNotification(0, Notification{Page: pg, Source: HostSource()}, nil)
		}
		s := o.per[0]
		armed, observed := 0, map[Purpose]int{}
		for reg := range uint64(12) {
			if rs := s.regions[reg]; rs != nil && rs.state == Observed {
				armed += len(rs.samples)
				observed[rs.purpose]++
			}
		}
		for pp, b := range budget {
			if observed[pp] > b || o.Used(0, pp) != observed[pp] {
				t.Fatalf("step %d: %v: %d observed (used %d), budget %d", i, pp, observed[pp], o.Used(0, pp), b)
			}
		}
		if armed != s.armed || armed > c.Counters || len(s.samples) != armed {
			t.Fatalf("step %d: %d samples armed (count %d, index %d), %d counters", i, armed, s.armed, len(s.samples), c.Counters)
		}
		if n := o.Samples(0); n < 1 || n > c.MaxSamples {
			t.Fatalf("step %d: samples %d", i, n)
		}
	}
}

// The adaptive sample count (Sec. V-D) doubles while recently evicted
// regions refault, halves while they do not, and stays within 1..max.
func TestAdaptiveSamples(t *testing.T) {
	c := small()
	c.AdaptiveSamples, c.MonitorSet, c.AdaptPeriod, c.MaxSamples, c.Samples, c.Counters = true, 4, 4, 4, 1, 16
	o := mustObserver(t, c, 1)
	next := uint64(0)
	// period evicts 4 new regions and refaults the first refault of them
	// while they are in the monitor set.
	period := func(refault int) {
		for i := range 4 {
			r := next + uint64(i)
			o.OnResident(0, r)
			o.OnEvicted(0, r, nil)
		}
		for i := range refault {
			o.OnFault(0, next+uint64(i))
		}
		next += 4
	}
	period(4) // fills the monitor set: no decision yet
	// Each period's 4 evictions push out the previous period's 4 regions,
	// so a period's count is decided on the previous period's refaults.
	for i, s := range []struct {
		refault, want int
	}{
		{4, 2}, // previous 4/4 > 0.5: double
		{3, 4}, // previous 4/4: double
		{4, 4}, // previous 3/4: double, but at the ceiling
		{2, 4}, // previous 4/4: ceiling
		{0, 4}, // previous 2/4 = 0.5 is not > 0.5, and 0.5 quiet < 0.8: hold
		{0, 2}, // previous 0/4: 1.0 >= 0.8 quiet: halve
		{1, 1}, // previous 0/4: halve
		{0, 1}, // previous 1/4: 0.75 quiet < 0.8: hold
		{0, 1}, // previous 0/4: at the floor
	} {
		period(s.refault)
		if got := o.Samples(0); got != s.want {
			t.Fatalf("period %d: samples %d, want %d", i, got, s.want)
		}
	}
	st := o.Stats(0)
	if st.Raises != 2 || st.Lowers != 2 {
		t.Fatalf("stats %+v", st)
	}
	// New observations take the current count, distinct blocks.
	c.Samples = 3
	o = mustObserver(t, c, 1)
	o.OnResident(0, 9)
	acts, _ := o.Observe(0, 9, ForEviction, nil, nil)
	if len(acts) != 3 || acts[0].First == acts[1].First || acts[1].First == acts[2].First || acts[0].First == acts[2].First {
		t.Fatalf("3 distinct samples: %v", acts)
	}
	// Feedback observations take one prefetched block.
	o.OnResident(0, 10)
	if acts, _ := o.Observe(0, 10, ForFeedback, nil, nil); len(acts) != 1 {
		t.Fatalf("feedback samples: %v", acts)
	}
	// Counters cap the samples: 16 - 4 armed = 12; ask for more regions.
	c.Counters, c.ObservedRegions, c.FeedbackRegions, c.TriggerRegions = 4, 2, 1, 1
	o = mustObserver(t, c, 1)
	o.OnResident(0, 1)
	o.OnResident(0, 2)
	a1, _ := o.Observe(0, 1, ForEviction, nil, nil)
	a2, ok := o.Observe(0, 2, ForEviction, nil, nil)
	if len(a1) != 3 || len(a2) != 1 || !ok || o.Free(0, ForTrigger) != 0 {
		t.Fatalf("4 counters: %d then %d samples, trigger free %d", len(a1), len(a2), o.Free(0, ForTrigger))
	}
}

func TestArmInPlace(t *testing.T) {
	o := mustObserver(t, small(), 1)
	o.OnResident(0, 1)
	if o.ArmInPlace(0, 1, 0, ForTrigger) {
		t.Fatal("armed a resident region in place")
	}
	if !o.ArmInPlace(0, 2, 5, ForTrigger) || !o.IsSample(0, 2*32+5) || o.State(0, 2) != Observed {
		t.Fatal("trigger not armed")
	}
	if o.ArmInPlace(0, 3, 5, ForTrigger) {
		t.Fatal("trigger budget (1) exceeded")
	}
	o.OnResident(0, 2) // the prefetch arrives: still observed
	reg, p, hit, acts := o.OnNotification(0, Notification{Page: 2*32 + 5, Source: HostSource()}, nil)
	if !hit || reg != 2 || p != ForTrigger || len(acts) != 1 || acts[0].Kind != SampleIn || o.State(0, 2) != Resident {
		t.Fatalf("trigger hit: %v %d %v %v", hit, reg, p, acts)
	}
}
