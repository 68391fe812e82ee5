package uvmmu

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/eviction"
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

// Victims is where the AFM's second phase takes its victims from when
// they are not the paper's pseudo-random draw over the frame-groups
// (§IV-D, "Linear-Random", §V-C1): an eviction policy over the pages of
// GPU (UVMMU Fig. 5's alternatives), whose first victim's frame-group the
// AFM tries. The policy skips the pages whose page-group has no
// frame-group here (FrameOf) or one queued or being filled; the AFM still
// checks each proposal against the IPgT.
type Victims struct {
	Policy eviction.Policy
	GPU    int
	// FrameOf is the frame-group page-group group is resident in, if any
	// (the GPU page table's forward map, which the unit does not keep).
	FrameOf func(group uint64) (frame uint32, ok bool)
}

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

// draw is one proposal, in [0, n): the PRNG's, or the frame-group of the
// victims policy's first page (0 when it has none: the AFM's miss and
// probe take over).
func (u *Unit) draw(n int) int {
	v := u.victims
	if v == nil {
		return int(u.rng.Uint32N(uint32(n)))
	}
	u.vbuf = v.Policy.Victims(v.GPU, 1, u.busyFn, u.vbuf[:0])
	if len(u.vbuf) == 0 {
		return 0
	}
	fg, _ := v.FrameOf(u.vbuf[0] / uint64(u.ppg))
	return int(fg % uint32(n))
}

// busy reports whether page's group has no frame-group here, or one the
// AFM may not queue: the pages a victims policy skips.
func (u *Unit) busy(page uint64) bool {
	fg, ok := u.victims.FrameOf(page / uint64(u.ppg))
	return !ok || u.tab.has(fg, flagQueued) || u.tab.has(fg, flagFill)
}
