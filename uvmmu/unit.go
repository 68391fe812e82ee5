package uvmmu

import (
	"fmt"
	"math/rand/v2"

	"github.com/sarchlab/akita/v3/sim"
)

// Unit is one GPU's UVMMU fault handling: the Destination Allocator (IPgT,
// FrAB, DCQ and its Available Frame Manager) and the per-fault plan. It is
// a pure state machine in the style of uvm.Service: its inputs are method
// calls at non-decreasing simulated times (Fault, Complete, Release, Tick);
// what it decided comes out of Ready (plans, in decision order, and the
// time it must be ticked, if any) until Advance.
//
// Every call first replays what the AFM finished by then (refills that
// ended, faults that waited for a DCQ entry now written), in time order,
// so refills need no event of their own. Only a fault that waits for the
// DCQ needs one: Ready.WakeAt.
type Unit struct {
	cfg      Config
	hz       float64
	handling sim.VTimeInSec
	ppg      int

	tab    *tables
	q      dcq
	words  uint32 // FrAB SRAM words
	cursor uint32 // the FrAB word the next scan starts at
	// rng is the paper's PRNG, used unless victims is set; drawFn and
	// busyFn are draw and busy, made once; vbuf is the policy's scratch.
	rng     *rand.Rand
	victims *Victims
	drawFn  func(n int) int
	busyFn  func(page uint64) bool
	vbuf    []uint64

	refill  refill
	starved bool   // the last refill ran dry and nothing changed since
	changes uint64 // Completes and Releases so far

	start, now sim.VTimeInSec
	started    bool
	waiting    []pending // faults waiting for a DCQ entry, FIFO from whead
	whead      int

	c     Counters
	ready Ready
}

type pending struct {
	f  Fault
	at sim.VTimeInSec
}

// Ready is what the unit decided since the last Advance.
type Ready struct {
	// Plans are the faults served, in order.
	Plans []Plan
	// WakeAt, when Wake is set, is when Tick must be called: faults wait
	// for a DCQ entry the AFM writes then (or for the refill that ends
	// then). With faults waiting and no Wake, they wait for a Complete or
	// Release: every frame-group is busy or protected.
	WakeAt sim.VTimeInSec
	Wake   bool
}

// New makes the unit of one GPU; victims nil is the paper's PRNG (a PCG
// seeded by setup.Seed and setup.Stream). The top setup.Protected
// frame-groups are protected; Protect may add others before the first
// call.
func New(cfg Config, setup Setup, victims *Victims) (*Unit, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := setup.Validate(); err != nil {
		return nil, err
	}
	if victims != nil && (victims.Policy == nil || victims.FrameOf == nil) {
		return nil, fmt.Errorf("uvmmu: victims from a policy need the policy and FrameOf")
	}
	u := &Unit{cfg: cfg, hz: setup.ClockMHz * 1e6, ppg: cfg.PagesPerGroup(), victims: victims,
		tab: newTables(setup.Frames, uint32(cfg.GroupsPerRegion())), q: dcq{buf: make([]entry, cfg.DCQEntries)},
		start: setup.Start, now: setup.Start, waiting: make([]pending, 0, cfg.DCQEntries)}
	u.handling = u.cycles(uint64(cfg.HandlingCycles))
	u.words = (u.tab.regions + uint32(cfg.FrABWordBits) - 1) / uint32(cfg.FrABWordBits)
	u.drawFn, u.busyFn = u.draw, u.busy
	if victims == nil {
		u.rng = rand.New(rand.NewPCG(setup.Seed, setup.Stream))
	}
	for fg := setup.Frames - setup.Protected; fg < setup.Frames; fg++ {
		u.tab.setState(fg, stProtected)
	}
	return u, nil
}

// Protect sets the P flag of free frame-group fg at bring-up (cudaMalloc
// before any kernel, §IV-C). It fails once the unit has started.
func (u *Unit) Protect(fg uint32) error {
	switch {
	case u.started:
		return fmt.Errorf("uvmmu: protect frame-group %d after bring-up: the AFM owns the free list now", fg)
	case fg >= u.tab.frames():
		return fmt.Errorf("uvmmu: protect frame-group %d of %d", fg, u.tab.frames())
	case u.tab.state(fg) != stFree:
		return fmt.Errorf("uvmmu: protect frame-group %d: it is not free", fg)
	}
	u.tab.setState(fg, stProtected)
	return nil
}

// begin replays the AFM up to now; the first call brings the unit up.
func (u *Unit) begin(now sim.VTimeInSec) error {
	if now < u.now {
		return fmt.Errorf("uvmmu: called at %v, before the last call at %v", now, u.now)
	}
	if !u.started {
		u.started = true
		u.maybeRefill(u.start)
	}
	u.catchUp(now)
	u.now = now
	return nil
}

// catchUp runs, in time order up to now, the DCQ entries that waiting
// faults get and the ends of refills. At equal times faults go first, so
// a refill's end sees the entries they took.
func (u *Unit) catchUp(now sim.VTimeInSec) {
	for {
		serve := u.whead < len(u.waiting) && u.q.n > 0
		var ts sim.VTimeInSec
		if serve {
			ts = u.q.peek().readyAt
		}
		switch {
		case serve && ts <= now && (!u.refill.active || ts <= u.refill.doneAt):
			u.serveWaiting(ts)
		case u.refill.active && u.refill.doneAt <= now:
			u.endRefill(u.refill.doneAt)
		default:
			return
		}
	}
}

// serveWaiting serves waiting faults, oldest first, with the entries
// written by t.
func (u *Unit) serveWaiting(t sim.VTimeInSec) {
	for u.whead < len(u.waiting) && u.q.n > 0 && u.q.peek().readyAt <= t {
		p := u.waiting[u.whead]
		u.waiting[u.whead] = pending{}
		u.whead++
		if u.whead == len(u.waiting) {
			u.waiting, u.whead = u.waiting[:0], 0
		}
		u.serve(p, t, true)
	}
}

// Fault takes a far fault at now. It is served at once if the DCQ has an
// entry ready and no earlier fault waits; otherwise it waits (a DCQ-empty
// stall) and is served by a later call, at the time the entry is written.
func (u *Unit) Fault(now sim.VTimeInSec, f Fault) error {
	if int(f.Critical) >= u.ppg {
		return fmt.Errorf("uvmmu: fault on page %d of page-group %d, which has %d pages", f.Critical, f.Group, u.ppg)
	}
	if err := u.begin(now); err != nil {
		return err
	}
	u.c.Faults++
	if u.whead == len(u.waiting) && u.q.n > 0 && u.q.peek().readyAt <= now {
		u.serve(pending{f: f, at: now}, now, false)
	} else {
		u.c.DCQEmptyStalls++
		if u.whead > 0 && u.whead >= len(u.waiting)/2 {
			// Reuse the served front rather than grow.
			n := copy(u.waiting, u.waiting[u.whead:])
			u.waiting, u.whead = u.waiting[:n], 0
		}
		u.waiting = append(u.waiting, pending{f: f, at: now})
	}
	u.setWake()
	return nil
}

// Tick replays the AFM up to now: call it at Ready.WakeAt (calling it at
// other times is harmless).
func (u *Unit) Tick(now sim.VTimeInSec) error {
	if err := u.begin(now); err != nil {
		return err
	}
	u.setWake()
	return nil
}

// Complete reports that the migration into frame-group fg is over: every
// move of its plan is done (for a swap, the victim has left). Only then
// may fg be chosen as a victim.
func (u *Unit) Complete(now sim.VTimeInSec, fg uint32) error {
	if err := u.begin(now); err != nil {
		return err
	}
	if fg >= u.tab.frames() || !u.tab.has(fg, flagFill) {
		return fmt.Errorf("uvmmu: completion of frame-group %d, which no migration is filling", fg)
	}
	u.tab.setFlag(fg, flagFill, false)
	u.c.Completes++
	u.changed(now)
	return nil
}

// Release returns frame-group fg to the free list (§IV-C): cudaFree of a
// protected frame-group, or a page-group that left this GPU by another way
// (the software path, a peer). A frame-group queued as a victim stays in
// the DCQ and is handed out without a swap. A frame-group being filled
// cannot be released.
func (u *Unit) Release(now sim.VTimeInSec, fg uint32) error {
	if err := u.begin(now); err != nil {
		return err
	}
	if fg >= u.tab.frames() {
		return fmt.Errorf("uvmmu: release of frame-group %d of %d", fg, u.tab.frames())
	}
	st := u.tab.state(fg)
	switch {
	case u.tab.has(fg, flagFill):
		return fmt.Errorf("uvmmu: release of frame-group %d while a migration fills it", fg)
	case st != stMapped && st != stProtected:
		return fmt.Errorf("uvmmu: release of frame-group %d, which holds no page-group", fg)
	}
	next := stFree
	if u.tab.has(fg, flagQueued) {
		next = stReserved
	}
	if u.tab.setState(fg, next) {
		u.c.SRAMWrites++
	}
	u.c.IPgTWrites++
	u.c.Releases++
	u.changed(now)
	return nil
}

// changed notes that the tables gained candidates, which may end a
// starvation and start a refill.
func (u *Unit) changed(now sim.VTimeInSec) {
	u.changes++
	u.starved = false
	u.maybeRefill(now)
	u.catchUp(now)
	u.setWake()
}

func (u *Unit) setWake() {
	u.ready.Wake = false
	if u.whead == len(u.waiting) {
		return
	}
	switch {
	case u.q.n > 0:
		u.ready.WakeAt, u.ready.Wake = u.q.peek().readyAt, true
	case u.refill.active:
		u.ready.WakeAt, u.ready.Wake = u.refill.doneAt, true
	}
}

// Ready returns what the unit decided since the last Advance.
func (u *Unit) Ready() Ready { return u.ready }

// Advance tells the unit its Ready was carried out.
func (u *Unit) Advance() {
	u.ready.Plans = u.ready.Plans[:0]
	u.ready.Wake = false
}
