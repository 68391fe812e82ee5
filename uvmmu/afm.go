package uvmmu

import (
	"math/rand/v2"

	"github.com/mgpu-sim/mgpu/eviction"

	"github.com/sarchlab/akita/v3/sim"
)

// entry is one DCQ entry: a frame-group and its swap (S) flag (§IV-D),
// and when the AFM has written it (it cannot be popped before).
type entry struct {
	frame   uint32
	swap    bool
	readyAt sim.VTimeInSec
}

// dcq is the Destination Candidate Queue: a FIFO ring of a power-of-two
// size.
type dcq struct {
	buf     []entry
	head, n int
}

func (q *dcq) full() bool   { return q.n == len(q.buf) }
func (q *dcq) peek() *entry { return &q.buf[q.head] }

func (q *dcq) push(e entry) {
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = e
	q.n++
}

func (q *dcq) pop() entry {
	e := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return e
}

// VictimPicker proposes the frame-groups the AFM's second phase tries as
// victims. The paper's is a pseudo-random number generator over the
// frame-groups (§IV-D, "Linear-Random", §V-C1); another policy (for the
// Fig. 5 sensitivity study) can be plugged in. The AFM checks each
// proposal against the IPgT, so a picker may propose anything.
type VictimPicker interface {
	// Next returns a frame-group number in [0, frames).
	Next(frames uint32) uint32
}

// pcgPicker is the paper's PRNG: uniform over the frame-groups.
type pcgPicker struct{ r *rand.Rand }

func (p pcgPicker) Next(frames uint32) uint32 { return p.r.Uint32N(frames) }

// refill is the AFM's refill in flight. A refill is computed when it
// starts, from the tables as they are then (a snapshot): every DCQ entry
// it will write is pushed at once, each with the time the AFM writes it,
// and the refill ends at doneAt. Pops during the refill do not make it go
// further; if the DCQ is below the watermark when it ends, the next one
// starts then.
type refill struct {
	active    bool
	doneAt    sim.VTimeInSec
	changes   uint64 // Unit.changes when it started
	exhausted bool   // it ran out of candidates before RefillTo
}

// cycles is a duration of n GPU cycles.
func (u *Unit) cycles(n uint64) sim.VTimeInSec { return sim.VTimeInSec(float64(n) / u.hz) }

// maybeRefill starts a refill at t if the DCQ is below the watermark, none
// is in flight and the last one did not run dry since the tables changed.
func (u *Unit) maybeRefill(t sim.VTimeInSec) {
	if u.refill.active || u.starved || u.q.n >= u.cfg.Watermark {
		return
	}
	u.c.Refills++
	var cyc uint64
	done := u.scanFree(t, &cyc) || u.drawVictims(t, &cyc)
	u.refill = refill{active: true, doneAt: t + u.cycles(cyc), changes: u.changes, exhausted: !done}
	u.c.RefillCycles += cyc
}

// endRefill ends the refill in flight at its doneAt, t.
func (u *Unit) endRefill(t sim.VTimeInSec) {
	r := u.refill
	u.refill = refill{}
	u.c.RefillsDone++
	if r.exhausted && r.changes == u.changes {
		u.starved = true
		u.c.RefillsStarved++
	}
	u.maybeRefill(t)
}

// scanFree is the AFM's first phase (§IV-D): FrAB words from the cursor,
// and for each region whose bit is set, its IPgT entries; every free,
// unprotected frame-group goes to the DCQ with S = 0. It reports whether
// the DCQ reached RefillTo; otherwise it has been over all of FrAB once.
func (u *Unit) scanFree(t sim.VTimeInSec, cyc *uint64) bool {
	W := uint32(u.cfg.FrABWordBits)
	for i := uint32(0); i < u.words; i++ {
		w := (u.cursor + i) % u.words
		*cyc += uint64(u.cfg.FrABReadCycles)
		u.c.SRAMReads++
		lo := w * W
		hi := min(lo+W, u.tab.regions)
		for r, ok := u.tab.nextAvailable(lo, hi); ok; r, ok = u.tab.nextAvailable(r+1, hi) {
			*cyc += uint64(u.cfg.IPgTReadCycles)
			first, end := u.tab.regionFrames(r)
			u.c.IPgTAccesses++
			u.c.IPgTReads += uint64(end - first)
			u.pushFree(r, t, cyc)
			if u.q.n >= u.cfg.RefillTo {
				u.cursor = w
				return true
			}
		}
	}
	return false
}

// pushFree pushes region r's free frame-groups, in order, while the DCQ
// has room.
func (u *Unit) pushFree(r uint32, t sim.VTimeInSec, cyc *uint64) {
	first, end := u.tab.regionFrames(r)
	for fg := first; fg < end && !u.q.full(); fg++ {
		if u.tab.state(fg) == stFree {
			u.reserve(fg, t, cyc)
		}
	}
}

// reserve takes free frame-group fg off the free list into the DCQ.
func (u *Unit) reserve(fg uint32, t sim.VTimeInSec, cyc *uint64) {
	*cyc += uint64(u.cfg.PushCycles)
	if u.tab.setState(fg, stReserved) {
		u.c.SRAMWrites++
	}
	u.c.IPgTWrites++
	u.c.FreePushes++
	u.q.push(entry{frame: fg, readyAt: t + u.cycles(*cyc)})
}

// drawVictims is the AFM's second phase (§IV-D): "a pseudo-random number
// generator to select a random victim from frame-groups. Then it accesses
// IPgT to check the protection flag": each try is one IPgT read. A mapped
// frame-group goes to the DCQ with S = 1 unless it is queued already or
// being filled (choices; the paper is silent). It runs right after a full
// FrAB pass of the same refill, so no frame-group is free. Each victim is
// Linear-Random's choice (eviction.Pick): VictimTries draws, then the
// frame-groups after the last try, in order. It reports whether the DCQ
// reached RefillTo; it stops short only when no candidate is left (the
// model knows; the hardware would go on drawing until a Complete or a
// Release).
func (u *Unit) drawVictims(t sim.VTimeInSec, cyc *uint64) bool {
	frames := u.tab.frames()
	taken := func(i int) bool {
		*cyc += uint64(u.cfg.IPgTReadCycles)
		u.c.IPgTAccesses++
		u.c.IPgTReads++
		u.c.VictimDraws++
		if !u.tab.eligible(uint32(i)) {
			u.c.VictimMisses++
			return true
		}
		return false
	}
	for u.q.n < u.cfg.RefillTo {
		if u.tab.nEligible == 0 {
			return false
		}
		i := eviction.Pick(u.drawFn, int(frames), u.cfg.VictimTries, taken)
		if i < 0 {
			return false
		}
		fg := uint32(i)
		*cyc += uint64(u.cfg.PushCycles)
		u.tab.setFlag(fg, flagQueued, true)
		u.c.VictimPushes++
		u.q.push(entry{frame: fg, swap: true, readyAt: t + u.cycles(*cyc)})
	}
	return true
}

// draw is one proposal of the picker, in [0, n).
func (u *Unit) draw(n int) int { return int(u.picker.Next(uint32(n)) % uint32(n)) }
