package uvmmu

import "github.com/sarchlab/akita/v3/sim"

// serve gives fault p the DCQ's head entry at t (Fig. 2 steps 3-4) and
// appends its plan to Ready.
//
// An S = 1 entry whose frame-group still holds a page-group is a swap: the
// victim's page-group is read from the IPgT (§IV-B1: the IPgT gives "the
// virtual addresses of the victim page-groups"). If the page-group left
// since the entry was queued (Release), the frame-group is filled without
// a swap. Either way the IPgT entry is rewritten with the faulting
// page-group, and the frame-group is being filled until Complete.
func (u *Unit) serve(p pending, t sim.VTimeInSec, stalled bool) {
	e := u.q.pop()
	fg := e.frame
	u.c.Pops++
	plan := Plan{Fault: p.f, Frame: fg, Stalled: stalled, RaisedAt: p.at, DestAt: t,
		StartAt: t + u.handling, ResumeOnCritical: u.cfg.Resume == ResumeCritical}
	st := u.tab.state(fg)
	if e.swap {
		u.tab.setFlag(fg, flagQueued, false)
	}
	switch {
	case e.swap && st == stMapped:
		plan.Swap, plan.Victim, plan.VictimCID = true, u.tab.vpgn[fg], u.tab.cid[fg]
		u.c.IPgTReads++
		u.c.IPgTAccesses++
		u.c.Swaps++
	case e.swap:
		u.c.VictimsGone++
		u.c.Fills++
	default:
		u.c.Fills++
	}
	if st != stMapped {
		u.tab.setState(fg, stMapped)
	}
	u.tab.vpgn[fg], u.tab.cid[fg] = p.f.Group, p.f.CID
	u.tab.setFlag(fg, flagFill, true)
	u.c.IPgTWrites++
	if stalled {
		u.c.StallTime += t - p.at
	}
	plan.moves(u.ppg)
	u.ready.Plans = append(u.ready.Plans, plan)
	u.maybeRefill(t)
}

// Counters are one unit's counts.
type Counters struct {
	// Faults is every fault taken; Fills + Swaps of them are served
	// (Waiting() wait).
	Faults, Fills, Swaps uint64
	// VictimsGone counts fills from an S = 1 entry whose page-group left
	// before it was used (part of Fills).
	VictimsGone uint64
	// DCQEmptyStalls counts faults that found no DCQ entry ready and
	// waited for the AFM; StallTime is their total wait.
	DCQEmptyStalls uint64
	StallTime      sim.VTimeInSec
	// Refills started, ended, and ended out of candidates with nothing
	// changed since (the AFM then waits for a Complete or Release);
	// RefillCycles is the AFM's busy time.
	Refills, RefillsDone, RefillsStarved uint64
	RefillCycles                         uint64
	// DCQ entries written: FreePushes (S = 0) and VictimPushes (S = 1);
	// Pops taken.
	FreePushes, VictimPushes, Pops uint64
	// SRAMReads are FrAB word reads, SRAMWrites FrAB bit changes.
	SRAMReads, SRAMWrites uint64
	// IPgTReads are entries read (8 B each), IPgTAccesses the DRAM
	// accesses that read them (a region's entries are one), IPgTWrites
	// entries written (posted).
	IPgTReads, IPgTAccesses, IPgTWrites uint64
	// VictimDraws are the AFM's victim tries (PRNG draws and probes), each
	// one IPgT read; VictimMisses found a protected, busy or queued one.
	VictimDraws, VictimMisses uint64
	// Completes and Releases taken.
	Completes, Releases uint64
}

// Counters returns the unit's counts.
func (u *Unit) Counters() Counters { return u.c }

// DCQLen is the number of DCQ entries, written or being written.
func (u *Unit) DCQLen() int { return u.q.n }

// Waiting is the number of faults waiting for a DCQ entry.
func (u *Unit) Waiting() int { return len(u.waiting) - u.whead }

// Refilling reports whether a refill is in flight and when it ends.
func (u *Unit) Refilling() (doneAt sim.VTimeInSec, ok bool) {
	return u.refill.doneAt, u.refill.active
}

// Frames is the number of frame-groups.
func (u *Unit) Frames() uint32 { return u.tab.frames() }

// FreeFrames is the number of frame-groups on the free list (free in the
// IPgT and not in the DCQ).
func (u *Unit) FreeFrames() uint32 { return u.tab.nFree }

// Candidates is the number of frame-groups a victim draw would queue.
func (u *Unit) Candidates() uint32 { return u.tab.nEligible }

// FrameInfo is one frame-group's IPgT entry and the unit's marks on it.
type FrameInfo struct {
	Free, Reserved, Mapped, Protected bool
	// Group and CID are the mapped page-group (Mapped only).
	Group uint64
	CID   uint16
	// Queued: in the DCQ as a victim. Filling: a migration into it is in
	// flight.
	Queued, Filling bool
}

// Frame returns frame-group fg's entry.
func (u *Unit) Frame(fg uint32) FrameInfo {
	st := u.tab.state(fg)
	i := FrameInfo{Free: st == stFree, Reserved: st == stReserved, Mapped: st == stMapped,
		Protected: st == stProtected, Queued: u.tab.has(fg, flagQueued), Filling: u.tab.has(fg, flagFill)}
	if i.Mapped {
		i.Group, i.CID = u.tab.vpgn[fg], u.tab.cid[fg]
	}
	return i
}

// Available reports frame-region r's FrAB bit.
func (u *Unit) Available(r uint32) bool { return u.tab.available(r) }
