package observuvm

import (
	"fmt"
	"math/rand/v2"
)

// State is a region's observability state on one GPU (Fig. 4).
type State uint8

// States. A region is Absent until it first becomes resident.
const (
	Absent   State = iota
	Resident       // in HBM, unobserved
	Observed       // in HBM but for its samples, which are on the host, remote-mapped and armed
	Evicted        // left HBM
)

func (s State) String() string { return [...]string{"absent", "resident", "observed", "evicted"}[s] }

// Purpose is why a region is observed. Each has its own budget; a hit
// reaches the eviction policy whatever the purpose, and also the owner.
type Purpose uint8

// Purposes.
const (
	ForEviction Purpose = iota + 1 // setObservabilityCandidate: a policy's key region
	ForFeedback                    // setFeedbackCandidate: an FDP-sampled prefetched region
	ForTrigger                     // an RGP trigger page in a prefetched region
)

func (p Purpose) String() string {
	return [...]string{"none", "eviction", "feedback", "trigger"}[p]
}

// ActionKind is what the driver must do.
type ActionKind uint8

// Action kinds. Pages are First .. First+Pages-1 of the simulator.
const (
	// SampleOut sets up an observation (Fig. 4 steps 2-3): migrate the
	// block from the GPU's HBM to host DRAM, pin it, map it remotely in the
	// GPU's page table and arm its counter. Cost: one 64 KB migration and a
	// remap (Sec. IV-A, Sec. V-A).
	SampleOut ActionKind = iota + 1
	// SampleIn ends one on a hit (Fig. 4 step 6): migrate the block back
	// to the GPU, unpin it and clear its counter.
	SampleIn
	// Release ends one on eviction: the region is leaving for the host,
	// where the block already is; unpin it and clear its counter.
	Release
	// PrefetchRegion is RGP's setPrefetchRegion: migrate Region's pages to
	// the GPU, except the trigger block First.., which stays on the host,
	// pinned, remote-mapped and armed.
	PrefetchRegion
	// SetThreshold is setPrefetchThreshold: the GPU's tree prefetcher
	// threshold becomes Threshold (prefetch.Tree.SetAllThresholds).
	SetThreshold
)

func (k ActionKind) String() string {
	return [...]string{"?", "sample-out", "sample-in", "release", "prefetch-region", "set-threshold"}[k]
}

// Action is one thing the driver must do on GPU.
type Action struct {
	Kind         ActionKind
	GPU          int
	Region       uint64
	First, Pages uint64
	Threshold    int
}

// ObserverStats are one GPU's observation counts.
type ObserverStats struct {
	Observations, Hits, Unseen uint64 // set up, ended by a hit, ended by eviction
	SamplesOut, SamplesIn      uint64
	PeerIgnored, Stray         uint64 // notifications from a peer, or for no armed sample
	Raises, Lowers             uint64 // adaptive sample count changes
}

// Observer is the sampled-observability mechanism (Sec. IV-A, V-D): per
// GPU, each region's state, the armed samples, the per-purpose budgets,
// the counters in use and the adaptive sample count.
type Observer struct {
	cfg Config
	geo Geometry
	per []*gpuObs
}

type gpuObs struct {
	regions map[uint64]*regionObs
	samples map[uint64]uint64 // first page of an armed sample -> its region
	used    [ForTrigger + 1]int
	armed   int
	rng     *rand.Rand
	adapt   adaptive
	pick    []int
	stats   ObserverStats
}

type regionObs struct {
	state   State
	purpose Purpose
	samples []uint64 // first pages of the armed samples
}

// NewObserver returns an observer for gpus GPUs whose pages are pageSize
// bytes.
func NewObserver(cfg Config, gpus int, pageSize uint64) (*Observer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if gpus < 1 {
		return nil, fmt.Errorf("observuvm: %d GPUs: need at least 1", gpus)
	}
	geo, err := cfg.NewGeometry(pageSize)
	if err != nil {
		return nil, err
	}
	o := &Observer{cfg: cfg, geo: geo}
	for g := range gpus {
		o.per = append(o.per, &gpuObs{regions: map[uint64]*regionObs{}, samples: map[uint64]uint64{},
			rng: newRand(cfg.Seed, g), adapt: newAdaptive(cfg)})
	}
	return o, nil
}

// Geometry is the observer's page geometry.
func (o *Observer) Geometry() Geometry { return o.geo }

func (o *Observer) region(g int, r uint64) *regionObs {
	s := o.per[g].regions[r]
	if s == nil {
		s = &regionObs{}
		o.per[g].regions[r] = s
	}
	return s
}

// State is region r's state on GPU g.
func (o *Observer) State(g int, r uint64) State {
	if s := o.per[g].regions[r]; s != nil {
		return s.state
	}
	return Absent
}

// Observed reports whether r is under observation on g.
func (o *Observer) Observed(g int, r uint64) bool { return o.State(g, r) == Observed }

// InHBM reports whether r is resident on g, observed or not.
func (o *Observer) InHBM(g int, r uint64) bool {
	s := o.State(g, r)
	return s == Resident || s == Observed
}

// IsSample reports whether page lies in an armed sample on g: it is on the
// host, pinned, and must not migrate.
func (o *Observer) IsSample(g int, page uint64) bool {
	_, ok := o.per[g].samples[o.blockStart(page)]
	return ok
}

func (o *Observer) blockStart(page uint64) uint64 { return page - page%o.geo.PagesPerBlock }

// budget is purpose p's region budget.
func (o *Observer) budget(p Purpose) int {
	switch p {
	case ForEviction:
		return o.cfg.ObservedRegions
	case ForFeedback:
		return o.cfg.FeedbackRegions
	}
	return o.cfg.TriggerRegions
}

// Free is how many more regions g may observe for p: the purpose's budget
// left, and no more than the counters left.
func (o *Observer) Free(g int, p Purpose) int {
	s := o.per[g]
	return max(0, min(o.budget(p)-s.used[p], o.cfg.Counters-s.armed))
}

// Used is how many regions g observes for p.
func (o *Observer) Used(g int, p Purpose) int { return o.per[g].used[p] }

// Samples is g's current samples per new observation.
func (o *Observer) Samples(g int) int { return o.per[g].adapt.samples }

// Stats are g's counts.
func (o *Observer) Stats(g int) ObserverStats { return o.per[g].stats }

// OnResident records that r became resident on g (a fault or a prefetch
// migrated a page into it). An observed region stays observed.
func (o *Observer) OnResident(g int, r uint64) {
	if s := o.region(g, r); s.state == Absent || s.state == Evicted {
		s.state = Resident
	}
}

// OnFault records a demand fault in r on g: a fault on a recently evicted
// region is the adaptive controller's signal (Sec. V-D).
func (o *Observer) OnFault(g int, r uint64) {
	if o.cfg.AdaptiveSamples {
		o.per[g].adapt.fault(r)
	}
	o.OnResident(g, r)
}

// Observe makes resident region r observable on g for p (Fig. 4 steps
// 1-3): it picks distinct random blocks among those for which eligible is
// true (nil: all; the driver should offer only blocks wholly resident) and
// returns their SampleOut actions. An eviction observation takes
// Samples(g) blocks (Sec. V-D); a feedback one takes one prefetched block
// (Sec. IV-B: "sample a prefetched page"). It does nothing, and reports
// false, if r is not Resident, p's budget or the counters are used up, or
// no block is eligible.
func (o *Observer) Observe(g int, r uint64, p Purpose, eligible func(block int) bool, dst []Action) ([]Action, bool) {
	s := o.per[g]
	rs := s.regions[r]
	k := 1
	if p == ForEviction {
		k = s.adapt.samples
	}
	k = min(k, o.cfg.Counters-s.armed)
	if rs == nil || rs.state != Resident || o.Free(g, p) == 0 || k < 1 {
		return dst, false
	}
	s.pick = s.pick[:0]
	for b := range int(o.geo.BlocksPerRegion) {
		if eligible == nil || eligible(b) {
			s.pick = append(s.pick, b)
		}
	}
	k = min(k, len(s.pick))
	if k == 0 {
		return dst, false
	}
	for i := range k { // partial Fisher-Yates: k distinct blocks
		j := i + s.rng.IntN(len(s.pick)-i)
		s.pick[i], s.pick[j] = s.pick[j], s.pick[i]
	}
	rs.state, rs.purpose, rs.samples = Observed, p, rs.samples[:0]
	for _, b := range s.pick[:k] {
		first := o.geo.BlockStart(r, b)
		rs.samples = append(rs.samples, first)
		s.samples[first] = r
		dst = append(dst, Action{Kind: SampleOut, GPU: g, Region: r, First: first, Pages: o.geo.PagesPerBlock})
	}
	s.armed += k
	s.used[p]++
	s.stats.Observations++
	s.stats.SamplesOut += uint64(k)
	return dst, true
}

// ArmInPlace observes region r, not yet resident on g, through block b,
// which the driver leaves on the host when it migrates the rest (RGP's
// trigger: no SampleOut migration). It reports false if r is in HBM or the
// budget or counters are used up.
func (o *Observer) ArmInPlace(g int, r uint64, b int, p Purpose) bool {
	s := o.per[g]
	if o.InHBM(g, r) || o.Free(g, p) == 0 || b < 0 || b >= int(o.geo.BlocksPerRegion) {
		return false
	}
	rs := o.region(g, r)
	first := o.geo.BlockStart(r, b)
	rs.state, rs.purpose, rs.samples = Observed, p, append(rs.samples[:0], first)
	s.samples[first] = r
	s.armed++
	s.used[p]++
	s.stats.Observations++
	return true
}

// end returns r to Resident or Evicted and frees its samples, appending
// one action of kind k per sample.
func (o *Observer) end(g int, r uint64, rs *regionObs, to State, k ActionKind, dst []Action) []Action {
	s := o.per[g]
	for _, first := range rs.samples {
		delete(s.samples, first)
		dst = append(dst, Action{Kind: k, GPU: g, Region: r, First: first, Pages: o.geo.PagesPerBlock})
	}
	s.armed -= len(rs.samples)
	s.used[rs.purpose]--
	rs.state, rs.purpose, rs.samples = to, 0, rs.samples[:0]
	return dst
}

// OnNotification handles a counter notification of GPU g (Fig. 4 steps
// 4-6). A host notification on an armed sample is a hit: the region was
// accessed, its samples return (SampleIn) and it is Resident, unobserved,
// again. It returns the region and its observation's purpose. Peer
// notifications are never hits: samples live on the host (Sec. VIII-A).
func (o *Observer) OnNotification(g int, n Notification, dst []Action) (r uint64, p Purpose, hit bool, acts []Action) {
	s := o.per[g]
	if n.Source.Kind != Host {
		s.stats.PeerIgnored++
		return 0, 0, false, dst
	}
	r, ok := s.samples[o.blockStart(n.Page)]
	if !ok {
		s.stats.Stray++
		return 0, 0, false, dst
	}
	rs := s.regions[r]
	p = rs.purpose
	s.stats.Hits++
	s.stats.SamplesIn += uint64(len(rs.samples))
	return r, p, true, o.end(g, r, rs, Resident, SampleIn, dst)
}

// OnEvicted records that r left g. If it was observed, its sample saw no
// access since it was armed: unseen is true (the negative feedback of Sec.
// IV-B) and its samples are released. The eviction enters the adaptive
// controller's monitor set.
func (o *Observer) OnEvicted(g int, r uint64, dst []Action) (unseen bool, p Purpose, acts []Action) {
	s := o.per[g]
	rs := o.region(g, r)
	if rs.state == Observed {
		unseen, p = true, rs.purpose
		s.stats.Unseen++
		dst = o.end(g, r, rs, Evicted, Release, dst)
	}
	rs.state = Evicted
	if o.cfg.AdaptiveSamples {
		switch s.adapt.evicted(r) {
		case +1:
			s.stats.Raises++
		case -1:
			s.stats.Lowers++
		}
	}
	return unseen, p, dst
}
