package observuvm

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

func mustEngine(t *testing.T, c Config, o Options) *Engine {
	t.Helper()
	if o.GPUs == 0 {
		o.GPUs = 2
	}
	if o.PageSize == 0 {
		o.PageSize = page64K
	}
	if o.Pages == 0 {
		o.Pages = 1 << 16
	}
	e, err := NewEngine(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// act is an action's kind and region, for comparisons.
type act struct {
	k ActionKind
	r uint64
}

func acts(as []Action) []act {
	var out []act
	for _, a := range as {
		out = append(out, act{a.Kind, a.Region})
	}
	return out
}

// LRU through the engine: the regions nearest the head are observed, a
// hit promotes and re-arms the budget on the next region, an eviction of
// an observed region releases its sample (Listing 1).
func TestEngineLRU(t *testing.T) {
	c := small()
	c.Policy, c.Shallow, c.Deep = LRU, ShallowTBP, DeepNone
	e := mustEngine(t, c, Options{})
	steps := []struct {
		name string
		do   func() []Action
		want []act
	}{
		{"fault 0: observed", func() []Action { return e.OnPageFault(0, 0, nil) }, []act{{SampleOut, 0}}},
		{"fault 1: observed", func() []Action { return e.OnPageFault(0, 32, nil) }, []act{{SampleOut, 1}}},
		{"fault 2: budget full", func() []Action { return e.OnPageFault(0, 64, nil) }, nil},
		{"hit on 0's sample", func() []Action {
			var pg uint64
			for p := uint64(0); p < 32; p++ {
				if e.Observer().IsSample(0, p) {
					pg = p
				}
			}
			return e.OnRemoteAccess(0, pg, HostSource(), nil)
		}, []act{{SampleIn, 0}, {SampleOut, 2}}},
		{"evict LRU's 1: released, 0 observed", func() []Action {
			if v, _ := e.Victim(0, nil); v != 1 {
				t.Fatalf("victim %d, want 1", v)
			}
			return e.OnEviction(0, 1, nil)
		}, []act{{Release, 1}, {SampleOut, 0}}},
	}
	for _, s := range steps {
		if got := acts(s.do()); !slices.Equal(got, s.want) {
			t.Fatalf("%s: %v, want %v", s.name, got, s.want)
		}
	}
	if v, _ := e.Victim(0, nil); v != 2 {
		t.Fatalf("victim %d, want 2", v)
	}
	if e.Counter(0).Tracked() != 0 || e.Observer().Used(1, ForEviction) != 0 {
		t.Fatal("counters left in use, or GPU 1 touched")
	}
	st := e.Observer().Stats(0)
	if st.Hits != 1 || st.Unseen != 1 || st.Observations != 4 {
		t.Fatalf("stats %+v", st)
	}
}

// FDP through the engine: hits on sampled prefetched blocks switch GPU 0
// to AP; unseen evictions switch it back.
func TestEngineFDP(t *testing.T) {
	c := small()
	c.Policy, c.Shallow, c.Deep, c.FDPThreshold = LRM, ShallowFDP, DeepNone, 2
	e := mustEngine(t, c, Options{})
	if e.Threshold(0) != 51 {
		t.Fatalf("start %d", e.Threshold(0))
	}
	var thresholds []int
	for r := uint64(0); r < 6; r++ {
		e.OnPageFault(0, r*32, nil)
		as := e.OnPrefetch(0, r, 0b1110, nil) // blocks 1-3 prefetched
		if len(as) != 1 || as[0].Kind != SampleOut || as[0].First < r*32+1 || as[0].First > r*32+3 {
			t.Fatalf("region %d: feedback sample %v", r, as)
		}
		var out []Action
		if r < 3 {
			out = e.OnRemoteAccess(0, as[0].First, HostSource(), nil)
		} else {
			out = e.OnEviction(0, r, nil)
		}
		for _, a := range out {
			if a.Kind == SetThreshold {
				thresholds = append(thresholds, a.Threshold)
			}
		}
	}
	if !slices.Equal(thresholds, []int{1, 51}) || e.Threshold(0) != 51 || e.Threshold(1) != 51 {
		t.Fatalf("threshold changes %v, now %d", thresholds, e.Threshold(0))
	}
}

// RGP through the engine: a stream of faults prefetches the next region
// with a trigger left on the host; the trigger's hit prefetches the next.
func TestEngineRGP(t *testing.T) {
	c := small()
	c.Policy, c.Shallow, c.Deep = LRM, ShallowTBP, DeepRGP
	e := mustEngine(t, c, Options{Allocations: []Range{{0, 32 * 4}}})
	var out []Action
	for pg := uint64(0); pg < 6; pg++ {
		out = e.OnPageFault(0, pg, out) // the 5th fault (4 neighbours) streams
	}
	if len(out) != 1 || out[0].Kind != PrefetchRegion || out[0].Region != 1 || out[0].Pages != 1 ||
		e.Observer().Geometry().Region(out[0].First) != 1 || !e.Observer().IsSample(0, out[0].First) {
		t.Fatalf("stream: %+v", out)
	}
	trigger := out[0].First
	if got := e.OnPrefetch(0, 1, ^uint64(0), nil); len(got) != 0 {
		t.Fatalf("prefetch arrival: %v", got)
	}
	if e.OnPageFault(0, 6, nil) != nil {
		t.Fatal("region 1 proposed twice")
	}
	got := acts(e.OnRemoteAccess(0, trigger, HostSource(), nil))
	if !slices.Equal(got, []act{{SampleIn, 1}, {PrefetchRegion, 2}}) {
		t.Fatalf("trigger hit: %v", got)
	}
	// Region 3 is the allocation's last; its trigger proposes nothing.
	e.OnPrefetch(0, 2, ^uint64(0), nil)
	for pg := uint64(2 * 32); pg < 2*32+32; pg++ {
		if e.Observer().IsSample(0, pg) {
			got = acts(e.OnRemoteAccess(0, pg, HostSource(), nil))
		}
	}
	if !slices.Equal(got, []act{{SampleIn, 2}, {PrefetchRegion, 3}}) {
		t.Fatalf("second trigger: %v", got)
	}
	if s := e.Stats(0); s.RGPRegions != 3 || s.RGPNoTrigger != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// Peer notifications never hit and never hold a counter; with the
// samples scope, other accesses are not even counted.
func TestEnginePeerAndScope(t *testing.T) {
	c := small()
	c.Policy, c.Shallow, c.Deep = LRU, ShallowTBP, DeepNone
	e := mustEngine(t, c, Options{})
	e.OnPageFault(0, 0, nil)
	for pg := uint64(0); pg < 32; pg++ {
		if got := e.OnRemoteAccess(0, pg, PeerSource(1), nil); len(got) != 0 {
			t.Fatalf("peer access: %v", got)
		}
	}
	if e.Observer().Stats(0).PeerIgnored != 32 || e.Counter(0).Tracked() != 0 || e.Observer().Used(0, ForEviction) != 1 {
		t.Fatalf("stats %+v, %d counters", e.Observer().Stats(0), e.Counter(0).Tracked())
	}
	c.CounterScope = ScopeSamples
	e = mustEngine(t, c, Options{})
	e.OnPageFault(0, 0, nil)
	for pg := uint64(0); pg < 32; pg++ {
		e.OnRemoteAccess(0, pg, PeerSource(1), nil)
		if !e.Observer().IsSample(0, pg) {
			e.OnRemoteAccess(0, pg, HostSource(), nil)
		}
	}
	if e.Counter(0).Stats().Accesses != 0 {
		t.Fatalf("samples scope counted %d accesses", e.Counter(0).Stats().Accesses)
	}
}

// The Resident option limits samples to wholly resident blocks.
func TestEngineResident(t *testing.T) {
	c := small()
	c.Policy, c.Shallow, c.Deep = LRU, ShallowTBP, DeepNone
	// 4 KB pages: 16 per block; only block 5 of region 0 is wholly resident.
	res := func(g int, p uint64) bool { return p/16 == 5 || p == 7 }
	e := mustEngine(t, c, Options{PageSize: 4096, Resident: res})
	out := e.OnPageFault(0, 80, nil)
	if len(out) != 1 || out[0].First != 80 || out[0].Pages != 16 {
		t.Fatalf("sample %+v, want block 5 (pages 80-95)", out)
	}
}

func TestEngineOracle(t *testing.T) {
	c := small()
	c.Policy, c.Shallow, c.Deep = OracleLRU, ShallowOff, DeepNone
	e := mustEngine(t, c, Options{})
	e.OnPageFault(0, 0, nil)
	e.OnPageFault(0, 32, nil)
	e.OnHit(0, 5)
	if v, _ := e.Victim(0, nil); v != 1 || e.Threshold(0) != OffThreshold {
		t.Fatalf("victim %d, threshold %d", v, e.Threshold(0))
	}
}

// driver is a minimal UVM driver with 64 KB pages: it faults pages in,
// prefetches like TBP at the engine's threshold, evicts whole regions when
// a GPU is full, executes the engine's actions and logs them.
type driver struct {
	e      *Engine
	cap    int
	res    []map[uint64]uint64 // per GPU: resident regions -> bitmap of resident blocks
	onHost []map[uint64]bool   // per GPU: armed sample pages
	log    []string
}

const full = 1<<32 - 1

func newDriver(t *testing.T, c Config, gpus, cap int) *driver {
	d := &driver{cap: cap}
	d.e = mustEngine(t, c, Options{GPUs: gpus, Allocations: []Range{{0, 32 * 64}, {32 * 64, 32 * 64}},
		Resident: func(g int, p uint64) bool { return d.res[g][p/32]&(1<<(p%32)) != 0 }})
	for range gpus {
		d.res = append(d.res, map[uint64]uint64{})
		d.onHost = append(d.onHost, map[uint64]bool{})
	}
	return d
}

func (d *driver) evictFor(t *testing.T, g int) {
	for len(d.res[g]) >= d.cap {
		v, ok := d.e.Victim(g, nil)
		if _, in := d.res[g][v]; !ok || !in {
			t.Fatalf("GPU %d: victim %d %v not resident", g, v, ok)
		}
		d.log = append(d.log, fmt.Sprintf("g%d evict r%d", g, v))
		delete(d.res[g], v)
		d.apply(t, d.e.OnEviction(g, v, nil))
	}
}

// apply carries out as in order. A region prefetch, which may evict, comes
// after the rest, as the driver's batch evicts after it has carried out
// the engine's actions: otherwise a prefetch listed before a SampleOut
// could evict that sample's region before the sample left.
func (d *driver) apply(t *testing.T, as []Action) {
	var later []Action
	for _, a := range as {
		d.log = append(d.log, fmt.Sprintf("g%d %v r%d p%d t%d", a.GPU, a.Kind, a.Region, a.First, a.Threshold))
		g, bit := a.GPU, uint64(1)<<(a.First%32)
		switch a.Kind {
		case SampleOut:
			if d.res[g][a.Region]&bit == 0 {
				t.Fatalf("sample %d not resident", a.First)
			}
			d.res[g][a.Region] &^= bit
			d.onHost[g][a.First] = true
		case SampleIn, Release:
			if !d.onHost[g][a.First] {
				t.Fatalf("%v of page %d not on the host", a.Kind, a.First)
			}
			delete(d.onHost[g], a.First)
			if a.Kind == SampleIn {
				d.res[g][a.Region] |= bit
			}
		case PrefetchRegion:
			later = append(later, a)
		}
	}
	for _, a := range later {
		g, bit := a.GPU, uint64(1)<<(a.First%32)
		d.evictFor(t, g)
		d.res[g][a.Region] = full &^ bit
		d.onHost[g][a.First] = true
		d.apply(t, d.e.OnPrefetch(g, a.Region, full&^bit, nil))
	}
}

func (d *driver) touch(t *testing.T, g int, page uint64) {
	r, bit := page/32, uint64(1)<<(page%32)
	m, in := d.res[g][r]
	switch {
	case d.onHost[g][page]:
		d.apply(t, d.e.OnRemoteAccess(g, page, HostSource(), nil))
		return
	case in && m&bit != 0:
		d.e.OnHit(g, page)
		return
	case !in:
		d.evictFor(t, g)
	}
	d.res[g][r] |= bit
	d.apply(t, d.e.OnPageFault(g, page, nil))
	// TBP, coarsely: past the threshold, the rest of the region.
	m = d.res[g][r]
	if n := bits.OnesCount64(m); n*100 > 32*d.e.Threshold(g) {
		var host uint64
		for p := r * 32; p < r*32+32; p++ {
			if d.onHost[g][p] {
				host |= 1 << (p % 32)
			}
		}
		if rest := full &^ m &^ host; rest != 0 {
			d.res[g][r] |= rest
			d.apply(t, d.e.OnPrefetch(g, r, rest, nil))
		}
	}
}

// run drives TM++ on 2 GPUs with a mixed trace (a hot set, a loop, a
// stream) and returns the log.
func run(t *testing.T, seed uint64) []string {
	c := DefaultConfig()
	c.Seed, c.ObservedRegions, c.TournamentThreshold, c.FDPThreshold = seed, 8, 16, 8
	d := newDriver(t, c, 2, 24)
	trace := rand.New(rand.NewPCG(42, 42))
	var loopPos, streamPos [2]uint64
	for i := range 40000 {
		g := i % 2
		var page uint64
		switch trace.IntN(3) {
		case 0:
			page = uint64(trace.IntN(4 * 32)) // hot: regions 0-3
		case 1:
			page = 32*4 + loopPos[g]%(40*32) // loop over regions 4-43
			loopPos[g]++
		default:
			page = 32*64 + streamPos[g]%(64*32) // stream through the second allocation
			streamPos[g]++
		}
		d.touch(t, g, page)
		for gg := range 2 {
			o := d.e.Observer()
			if o.Used(gg, ForEviction) > 8 || o.Used(gg, ForFeedback) > c.FeedbackRegions || o.Used(gg, ForTrigger) > c.TriggerRegions {
				t.Fatalf("step %d: GPU %d over budget", i, gg)
			}
		}
	}
	return d.log
}

// The same seed and history give the same victims, samples and
// thresholds; another seed gives other samples.
func TestEngineDeterminism(t *testing.T) {
	a, b := run(t, 1), run(t, 1)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different decisions")
	}
	if c := run(t, 2); slices.Equal(a, c) {
		t.Fatal("the seed changes nothing")
	}
	n := map[string]int{}
	for _, l := range a {
		var g, r int
		var k string
		fmt.Sscanf(l, "g%d %s r%d", &g, &k, &r)
		n[k]++
	}
	for _, k := range []string{"evict", SampleOut.String(), SampleIn.String(), Release.String(), PrefetchRegion.String(), SetThreshold.String()} {
		if n[k] == 0 {
			t.Errorf("the trace never caused %q: %v", k, n)
		}
	}
}
