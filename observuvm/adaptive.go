package observuvm

// adaptive is one GPU's sample-count controller (Sec. V-D). If an actively
// used region is evicted although it was sampled, it faults again soon, so
// the refault rate of recently evicted regions measures how often sampling
// missed activity.
//
// The paper keeps the MonitorSet (100) most recently evicted regions and
// "periodically" computes the fraction accessed again "quickly", without
// defining either word. Here "quickly" is before MonitorSet further
// evictions on the same GPU (while the region is still in the set), and
// the period is AdaptPeriod regions leaving the set: each leaving region
// has had its whole window, so the fraction is not biased by regions
// evicted a moment ago. No wall clock is needed.
//
// At the end of a period, with f the refaulted fraction: f > RefaultRaise
// (0.5) doubles the samples, up to MaxSamples; 1-f >= QuietLower (0.8)
// halves them, down to 1 (the paper's "presumably" floor). New
// observations use the new count; armed ones keep theirs.
type adaptive struct {
	ring       []monEntry
	start, n   int
	slot       map[uint64]int // region -> ring slot of its latest eviction
	period     int
	seen, hits int
	samples    int
	lo, hi     int
	raise      float64
	lower      float64
}

type monEntry struct {
	region    uint64
	refaulted bool
}

func newAdaptive(c Config) adaptive {
	return adaptive{ring: make([]monEntry, c.MonitorSet), slot: map[uint64]int{}, period: c.AdaptPeriod,
		samples: c.Samples, lo: 1, hi: c.MaxSamples, raise: c.RefaultRaise, lower: c.QuietLower}
}

// fault marks r refaulted if it is in the monitor set.
func (a *adaptive) fault(r uint64) {
	if i, ok := a.slot[r]; ok {
		a.ring[i].refaulted = true
	}
}

// evicted adds r to the monitor set, retiring the oldest entry into the
// period's tally, and returns +1 or -1 when the sample count changed.
func (a *adaptive) evicted(r uint64) int {
	change := 0
	if a.n == len(a.ring) {
		old := a.ring[a.start]
		if a.slot[old.region] == a.start {
			delete(a.slot, old.region)
		}
		a.start = (a.start + 1) % len(a.ring)
		a.n--
		a.seen++
		if old.refaulted {
			a.hits++
		}
		if a.seen >= a.period {
			change = a.decide()
		}
	}
	i := (a.start + a.n) % len(a.ring)
	a.ring[i] = monEntry{region: r}
	a.slot[r] = i
	a.n++
	return change
}

func (a *adaptive) decide() int {
	f := float64(a.hits) / float64(a.seen)
	a.seen, a.hits = 0, 0
	switch {
	case f > a.raise && a.samples < a.hi:
		a.samples = min(2*a.samples, a.hi)
		return +1
	case 1-f >= a.lower && a.samples > a.lo:
		a.samples = max(a.samples/2, a.lo)
		return -1
	}
	return 0
}
