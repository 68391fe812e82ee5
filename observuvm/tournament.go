package observuvm

import "github.com/mgpu-sim/mgpu/eviction"

// tournament is the meta-policy of Algorithm 1 (Sec. VI-B, Fig. 7d). Every
// constituent sees every event and keeps its own order (lines 1-2). Each
// eviction request, one Victim call, is taken from the active policies in
// turn (round robin, line 7) and the victim's "cause" is recorded (line 9).
// A fault on a region a policy evicted blames that policy (lines 10-12);
// once the blame sum exceeds T, every active policy whose share of the
// blame exceeds factor/|A| (20% above the average) retires (lines 13-17).
//
// The driver asks for several victims at once (one Victim call per region
// until it has the pages it needs), so every proposal is remembered until
// its region leaves. Until 2026-11-28 only the last proposal was, and the
// turn passed only when that region left first: most evictions carried no
// cause and one policy kept the turn for long stretches (at ObservUVM's
// similar size, 0 to 2,059 blames per run, BTR 19).
//
// Details Algorithm 1 leaves open, chosen here: the shares are of the sum
// over all policies, retired ones included, as the algorithm writes
// ΣBlmPts; so the active shares add up to at most 1, every one of them
// exceeding factor/|A| > 1/|A| is impossible, and the last policy never
// retires. Blame is never reset, and a policy never returns. A cause is
// recorded when a proposed region leaves (to its last proposer), not at
// the proposal, so that a region listed but not evicted is never blamed;
// by default a region is blamed once per eviction, on its first fault
// (TournamentBlame; "fault" blames every fault, as Algorithm 1 prints it).
// Observation candidates interleave the active policies' lists, starting
// with the policy whose turn is next, without repeats; notifications and
// feedback reach every policy.
type tournament struct {
	pols   []Policy
	thr    uint64
	factor float64
	once   bool // blame only the first fault after an eviction
	per    []*tourGPU
}

type tourGPU struct {
	active []int // indices into pols
	rr     int   // index into active of the next eviction's policy
	blame  []uint64
	sum    uint64
	cause  map[uint64]int
	prop   map[uint64]int // proposed victims not yet evicted, and their policy
	lists  [][]uint64
	seen   map[uint64]bool
	one    []uint64 // a constituent's victim
}

// Standing is one constituent's record on one GPU.
type Standing struct {
	Name   string
	Blame  uint64
	Active bool
}

// Contest is implemented by the Tournament policy.
type Contest interface {
	// Standings lists gpu's constituents in configuration order.
	Standings(gpu int) []Standing
}

func newTournament(c Config, gpus int, regions uint64) (*tournament, error) {
	t := &tournament{thr: uint64(c.TournamentThreshold), factor: c.TournamentFactor,
		once: c.TournamentBlame == BlameEviction}
	for _, name := range c.Constituents() {
		if name == Tournament {
			return nil, errNested
		}
		p, err := New(name, c, gpus, regions)
		if err != nil {
			return nil, err
		}
		t.pols = append(t.pols, p)
	}
	if len(t.pols) == 0 {
		return nil, errEmpty
	}
	for range gpus {
		s := &tourGPU{blame: make([]uint64, len(t.pols)),
			cause: map[uint64]int{}, prop: map[uint64]int{}, lists: make([][]uint64, len(t.pols)), seen: map[uint64]bool{}}
		for i := range t.pols {
			s.active = append(s.active, i)
		}
		t.per = append(t.per, s)
	}
	return t, nil
}

type tourErr string

func (e tourErr) Error() string { return string(e) }

const (
	errNested = tourErr("observuvm.tournament_policies: a tournament cannot hold a tournament")
	errEmpty  = tourErr("observuvm.tournament_policies: empty")
)

func (*tournament) Name() string { return Tournament }

func (t *tournament) Placed(g int, r uint64) {
	s := t.per[g]
	if pi, ok := s.cause[r]; ok {
		if t.once {
			delete(s.cause, r)
		}
		s.blame[pi]++
		s.sum++
		if s.sum > t.thr {
			t.retire(s)
		}
	}
	for _, p := range t.pols {
		p.Placed(g, r)
	}
}

// retire applies lines 14-17.
func (t *tournament) retire(s *tourGPU) {
	w := t.factor / float64(len(s.active))
	keep := s.active[:0]
	for _, x := range s.active {
		if float64(s.blame[x])/float64(s.sum) > w {
			continue // retired
		}
		keep = append(keep, x)
	}
	s.active = keep
	s.rr %= len(s.active)
}

// Touch passes an access-counter hit to the constituents that take them.
func (t *tournament) Touch(g int, r uint64) {
	for _, p := range t.pols {
		if x, ok := p.(eviction.Toucher); ok {
			x.Touch(g, r)
		}
	}
}

// Unseen passes the negative feedback to the constituents that take it.
func (t *tournament) Unseen(g int, r uint64) {
	for _, p := range t.pols {
		if f, ok := p.(Feedback); ok {
			f.Unseen(g, r)
		}
	}
}

// Removed records the cause of a proposed region's eviction.
func (t *tournament) Removed(g int, r uint64) {
	s := t.per[g]
	if pi, ok := s.prop[r]; ok {
		s.cause[r] = pi
		delete(s.prop, r)
	}
	for _, p := range t.pols {
		p.Removed(g, r)
	}
}

// Prefetched passes a prefetch on, as each constituent reads one.
func (t *tournament) Prefetched(g int, r uint64) {
	for _, p := range t.pols {
		prefetched(p, g, r)
	}
}

// OnHit passes HBM hits to constituents that take them (OracleLRU).
func (t *tournament) OnHit(g int, r uint64) {
	for _, p := range t.pols {
		if h, ok := p.(HitObserver); ok {
			h.OnHit(g, r)
		}
	}
}

// victim is one eviction request: it asks the active policy whose turn it
// is (if it has no victim, the next active ones in turn), passes the turn
// on, and remembers the proposal, so that Removed can record the cause.
func (t *tournament) victim(g int, skip func(uint64) bool) (uint64, bool) {
	s := t.per[g]
	for i := range s.active {
		k := (s.rr + i) % len(s.active)
		pi := s.active[k]
		s.one = t.pols[pi].Victims(g, 1, skip, s.one[:0])
		if v := s.one; len(v) == 1 {
			s.prop[v[0]] = pi
			s.rr = (k + 1) % len(s.active)
			return v[0], true
		}
	}
	return 0, false
}

func (t *tournament) Victims(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	return requests(t.victim, g, n, skip, dst)
}

func (t *tournament) Candidates(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	s := t.per[g]
	for i, pi := range s.active {
		s.lists[i] = t.pols[pi].Candidates(g, n, skip, s.lists[i][:0])
	}
	clear(s.seen)
	start := len(dst)
	for k := 0; len(dst)-start < n; k++ {
		any := false
		for i := range s.active {
			l := s.lists[(s.rr+i)%len(s.active)]
			if k >= len(l) {
				continue
			}
			any = true
			if r := l[k]; !s.seen[r] && len(dst)-start < n {
				s.seen[r] = true
				dst = append(dst, r)
			}
		}
		if !any {
			break
		}
	}
	return dst
}

func (t *tournament) Standings(g int) []Standing {
	s := t.per[g]
	out := make([]Standing, len(t.pols))
	for i, p := range t.pols {
		out[i] = Standing{Name: p.Name(), Blame: s.blame[i]}
	}
	for _, pi := range s.active {
		out[pi].Active = true
	}
	return out
}
