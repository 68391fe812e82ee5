package uvmmu

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

// model is what a driver knows: which page-group each frame-group holds,
// which are being filled, and where every other page-group lives.
type model struct {
	cfg       Config
	u         *Unit
	owner     []int64 // per frame-group: page-group, or -1
	filling   []bool
	slot      map[uint64]uint64 // remote page-groups: their remote slot
	requested map[uint64]bool   // faulted, not served
	inflight  []uint32
	stalled   uint64
	lastDest  sim.VTimeInSec
	now       sim.VTimeInSec
	hash      uint64
	// wake is the last wake-up asked for, as the adapter scheduled it.
	wake   bool
	wakeAt sim.VTimeInSec
	last   sim.VTimeInSec // the last call's time
}

type geometry struct {
	name  string
	cfg   Config
	setup Setup
}

func geometries() []geometry {
	full := small()
	full.RefillTo, full.FrABWordBits = 8, 1
	tiny := small()
	tiny.DCQEntries, tiny.Watermark, tiny.RefillTo, tiny.FrABWordBits = 4, 1, 2, 64
	tiny.RegionBytes = 2 * tiny.GroupBytes
	oneTry := small()
	oneTry.VictimTries = 1
	paper := DefaultConfig()
	return []geometry{
		{"small", small(), smallSetup(8)},
		{"partial region, protected", small(), Setup{Frames: 37, Protected: 3, ClockMHz: 1000}},
		{"fill to capacity, 1-bit FrAB words", full, smallSetup(16)},
		{"tiny DCQ", tiny, smallSetup(5)},
		{"one draw, then probes", oneTry, Setup{Frames: 20, Protected: 12, ClockMHz: 1000}},
		{"paper DCQ, 100 frame-groups", paper, Setup{Frames: 100, ClockMHz: 1481}},
	}
}

// TestRandomHistories drives units with random faults, completions,
// releases and ticks, as a driver would, and checks every plan and the
// state after every call against the model.
func TestRandomHistories(t *testing.T) {
	for _, g := range geometries() {
		for seed := uint64(1); seed <= 4; seed++ {
			if _, err := run(g, seed, 3000); err != nil {
				t.Fatalf("%s, seed %d: %v", g.name, seed, err)
			}
		}
	}
}

// TestDeterminism: a seed and a history give the same plans; other seeds
// give other victims.
func TestDeterminism(t *testing.T) {
	g := geometries()[1]
	a, err := run(g, 7, 2000)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := run(g, 7, 2000)
	if a != b {
		t.Error("the same seed gave different plans")
	}
	g.setup.Seed = 8
	if c, _ := run(g, 7, 2000); c == a {
		t.Error("another victim seed gave the same plans")
	}
}

// run plays steps random calls, with the history drawn from hseed, and
// returns a hash of the plans.
func run(g geometry, hseed uint64, steps int) (uint64, error) {
	m, err := play(g, hseed, steps)
	if err != nil {
		return 0, err
	}
	h := fnv.New64a()
	fmt.Fprint(h, m.hash, m.u.Counters())
	return h.Sum64(), nil
}

func play(g geometry, hseed uint64, steps int) (*model, error) {
	u, err := New(g.cfg, g.setup, nil)
	if err != nil {
		return nil, err
	}
	m := &model{cfg: g.cfg, u: u, owner: make([]int64, g.setup.Frames), filling: make([]bool, g.setup.Frames),
		slot: map[uint64]uint64{}, requested: map[uint64]bool{}}
	for i := range m.owner {
		m.owner[i] = -1
	}
	groups := uint64(3*g.setup.Frames + 5)
	for v := uint64(0); v < groups; v++ {
		m.slot[v] = 10000 + v
	}
	r := rand.New(rand.NewPCG(hseed, 5))
	for step := 0; step < steps; step++ {
		if err := m.step(r, groups); err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
	}
	return m, nil
}

// step advances time (ticking at every wake-up on the way, as an adapter
// does) and makes one random call.
func (m *model) step(r *rand.Rand, groups uint64) error {
	next := m.now + at(float64(r.IntN(400)))
	for m.wake && m.wakeAt <= next {
		if err := m.call(m.wakeAt, m.u.Tick); err != nil {
			return err
		}
	}
	m.now = next
	switch k := r.IntN(10); {
	case k < 5:
		v := r.Uint64N(groups)
		if _, remote := m.slot[v]; !remote || m.requested[v] {
			return nil
		}
		m.requested[v] = true
		f := Fault{Group: v, Critical: uint8(r.IntN(m.cfg.PagesPerGroup())), Remote: m.slot[v], CID: uint16(v % 3)}
		return m.call(next, func(t sim.VTimeInSec) error { return m.u.Fault(t, f) })
	case k < 8 && len(m.inflight) > 0:
		i := r.IntN(len(m.inflight))
		fg := m.inflight[i]
		m.inflight[i] = m.inflight[len(m.inflight)-1]
		m.inflight = m.inflight[:len(m.inflight)-1]
		m.filling[fg] = false
		return m.call(next, func(t sim.VTimeInSec) error { return m.u.Complete(t, fg) })
	case k == 8:
		fg := uint32(r.IntN(len(m.owner)))
		if m.owner[fg] < 0 || m.filling[fg] {
			return nil
		}
		m.slot[uint64(m.owner[fg])] = 20000 + uint64(m.owner[fg])
		m.owner[fg] = -1
		return m.call(next, func(t sim.VTimeInSec) error { return m.u.Release(t, fg) })
	}
	return m.call(next, m.u.Tick)
}

// call makes one call at t and checks and applies its plans.
func (m *model) call(t sim.VTimeInSec, f func(sim.VTimeInSec) error) error {
	if err := f(t); err != nil {
		return err
	}
	m.last = t
	rd := m.u.Ready()
	for _, p := range rd.Plans {
		if err := m.plan(p, t); err != nil {
			return fmt.Errorf("plan %+v: %w", p, err)
		}
	}
	m.wake, m.wakeAt = rd.Wake, rd.WakeAt
	if rd.Wake && rd.WakeAt <= t {
		return fmt.Errorf("wake-up at %v asked at %v", rd.WakeAt, t)
	}
	m.u.Advance()
	return nil
}

func (m *model) plan(p Plan, now sim.VTimeInSec) error {
	fg := p.Frame
	switch {
	case !m.requested[p.Group]:
		return fmt.Errorf("page-group %d was not waiting", p.Group)
	case int(fg) >= len(m.owner) || m.u.Frame(fg).Protected:
		return fmt.Errorf("frame-group %d is protected or out of range", fg)
	case m.filling[fg]:
		return fmt.Errorf("frame-group %d handed out while being filled", fg)
	case p.Swap != (m.owner[fg] >= 0) || p.Swap && p.Victim != uint64(m.owner[fg]):
		return fmt.Errorf("frame-group %d holds %d", fg, m.owner[fg])
	case p.Remote != m.slot[p.Group]:
		return fmt.Errorf("remote slot %d, the PTE says %d", p.Remote, m.slot[p.Group])
	case p.RaisedAt > p.DestAt || p.DestAt > now || p.DestAt < m.lastDest || p.Stalled != (p.DestAt > p.RaisedAt):
		return fmt.Errorf("times: raised %v, destination %v, at %v, last %v", p.RaisedAt, p.DestAt, now, m.lastDest)
	case ns(p.StartAt-p.DestAt) != ns(m.u.handling):
		return fmt.Errorf("handling took %v ns", ns(p.StartAt-p.DestAt))
	}
	if err := checkMoves(p, m.cfg.PagesPerGroup()); err != nil {
		return err
	}
	if p.Stalled {
		m.stalled++
	}
	delete(m.requested, p.Group)
	delete(m.slot, p.Group)
	if p.Swap {
		m.slot[p.Victim] = p.Remote // the victim takes the slot the group left
	}
	m.owner[fg], m.filling[fg] = int64(p.Group), true
	m.inflight = append(m.inflight, fg)
	m.lastDest = p.DestAt
	m.hash = m.hash*1099511628211 ^ uint64(fg)<<32 ^ p.Victim<<1 ^ uint64(ns(p.DestAt))
	return nil
}

// checkMoves: the critical page first, then the rest of the group, and for
// a swap the victim's whole group out, as many pages as come in.
func checkMoves(p Plan, ppg int) error {
	all := groupMask(ppg)
	crit := uint64(1) << p.Critical
	want := 1
	if ppg > 1 {
		want++
	}
	if p.Swap {
		want++
	}
	mv := p.Transfers()
	switch {
	case len(mv) != want:
		return fmt.Errorf("%d moves, want %d", len(mv), want)
	case mv[0].Dir != HostToDevice || mv[0].Pages != crit || mv[0].Group != p.Group:
		return fmt.Errorf("first move %+v is not the critical page", mv[0])
	case ppg > 1 && (mv[1].Dir != HostToDevice || mv[1].Pages != all&^crit || mv[1].Group != p.Group):
		return fmt.Errorf("second move %+v is not the rest of the group", mv[1])
	case p.Swap && (mv[want-1].Dir != DeviceToHost || mv[want-1].Pages != all || mv[want-1].Group != p.Victim):
		return fmt.Errorf("last move %+v is not the victim", mv[want-1])
	case p.Swap && mv[want-1].Count() != ppg:
		return fmt.Errorf("swap of %d pages in, %d out", ppg, mv[want-1].Count())
	}
	return nil
}

// check compares the unit's state with the model and checks the DCQ
// invariants.
func (m *model) check() error {
	u := m.u
	var free, eligible uint32
	for fg := range m.owner {
		f := u.Frame(uint32(fg))
		mapped := m.owner[fg] >= 0
		switch {
		case f.Mapped != mapped || mapped && f.Group != uint64(m.owner[fg]) || f.Filling != m.filling[fg]:
			return fmt.Errorf("frame-group %d: unit %+v, model holds %d filling %v", fg, f, m.owner[fg], m.filling[fg])
		case f.Queued && !(f.Mapped || f.Reserved):
			return fmt.Errorf("frame-group %d queued as a victim: %+v", fg, f)
		}
		if f.Free {
			free++
		}
		if mapped && !m.filling[fg] && !f.Queued {
			eligible++
		}
	}
	done, refilling := u.Refilling()
	c := u.Counters()
	switch {
	case free != u.FreeFrames() || eligible != u.Candidates():
		return fmt.Errorf("%d free, %d candidates; unit says %d, %d", free, eligible, u.FreeFrames(), u.Candidates())
	case u.DCQLen() > m.cfg.DCQEntries:
		return fmt.Errorf("DCQ of %d entries", u.DCQLen())
	case refilling && done <= m.last:
		return fmt.Errorf("a refill ended at %v, by the last call at %v, and was not replayed", done, m.last)
	case !refilling && u.DCQLen() < m.cfg.Watermark && (free > 0 || eligible > 0):
		return fmt.Errorf("DCQ of %d entries, below the watermark, with candidates and no refill", u.DCQLen())
	case u.Waiting() > 0 && !m.wake && (u.DCQLen() > 0 || refilling || free > 0 || eligible > 0):
		return fmt.Errorf("%d faults wait with no wake-up: DCQ %d refilling %v %v free %d eligible %d starved %v now %v", u.Waiting(), u.DCQLen(), refilling, done, free, eligible, u.starved, m.now)
	case c.DCQEmptyStalls != m.stalled+uint64(u.Waiting()):
		return fmt.Errorf("%d DCQ-empty stalls, %d stalled plans and %d waiting", c.DCQEmptyStalls, m.stalled, u.Waiting())
	}
	if err := m.checkDCQ(); err != nil {
		return err
	}
	return checkCounters(u, m.cfg)
}

// checkDCQ: entries are distinct frame-groups, none protected nor being
// filled; S = 1 exactly on the queued ones; written in time order.
func (m *model) checkDCQ() error {
	q := &m.u.q
	seen := map[uint32]bool{}
	var last sim.VTimeInSec
	for i := 0; i < q.n; i++ {
		e := q.buf[(q.head+i)&(len(q.buf)-1)]
		f := m.u.Frame(e.frame)
		switch {
		case seen[e.frame]:
			return fmt.Errorf("frame-group %d twice in the DCQ", e.frame)
		case f.Protected || f.Filling || f.Free:
			return fmt.Errorf("DCQ entry %+v: frame-group %+v", e, f)
		case e.swap != f.Queued || !e.swap && !f.Reserved:
			return fmt.Errorf("DCQ entry %+v: frame-group %+v", e, f)
		case e.readyAt < last:
			return fmt.Errorf("DCQ entries out of time order")
		}
		seen[e.frame] = true
		last = e.readyAt
	}
	return nil
}
