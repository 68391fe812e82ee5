package uvmmu

import "math/bits"

// state is a frame-group's IPgT entry as the free and P flags give it
// (§IV-B1), with the reservation this model adds (below).
type state uint8

const (
	// stFree: free = 1, P = 0. FrAB's bit for the region is set.
	stFree state = iota
	// stReserved: taken off the free list into the DCQ as a destination
	// (S = 0). The paper does not say when the free flag drops; we clear
	// it when the AFM pushes the frame-group, so that the next FrAB scan
	// cannot push it twice and a cudaMalloc may pop it (§IV-C).
	stReserved
	// stMapped: holds page-group vpgn of context cid.
	stMapped
	// stProtected: P = 1, non-UM memory (§IV-B1); never handed out.
	stProtected
)

// Flag bits beside the state, in the same byte.
const (
	stateMask  = 3
	flagQueued = 4 // in the DCQ as a victim (S = 1)
	flagFill   = 8 // an incoming page-group is in flight into it
)

// tables are the Inverted Page-group Table (IPgT, §IV-B1; in GPU DRAM) and
// the Frame-region Availability Bitmap (FrAB, §IV-B2; on-chip SRAM) of one
// GPU, and the counts the model keeps to know when no candidate is left.
type tables struct {
	perRegion uint32
	entry     []uint8  // state | flags, per frame-group
	vpgn      []uint64 // mapped page-group, per frame-group
	cid       []uint16 // its GPU context, per frame-group
	freeIn    []uint32 // per region: frame-groups in stFree
	frab      []uint64 // bit r: freeIn[r] > 0
	regions   uint32
	nFree     uint32 // frame-groups in stFree
	nEligible uint32 // victim candidates: stMapped, neither queued nor filling
}

func newTables(frames, perRegion uint32) *tables {
	regions := (frames + perRegion - 1) / perRegion
	t := &tables{perRegion: perRegion, entry: make([]uint8, frames), vpgn: make([]uint64, frames),
		cid: make([]uint16, frames), freeIn: make([]uint32, regions), frab: make([]uint64, (regions+63)/64),
		regions: regions, nFree: frames}
	for r := range regions {
		t.freeIn[r] = min(perRegion, frames-r*perRegion)
		t.frab[r/64] |= 1 << (r % 64)
	}
	return t
}

func (t *tables) frames() uint32              { return uint32(len(t.entry)) }
func (t *tables) state(fg uint32) state       { return state(t.entry[fg] & stateMask) }
func (t *tables) has(fg uint32, f uint8) bool { return t.entry[fg]&f != 0 }
func (t *tables) region(fg uint32) uint32     { return fg / t.perRegion }

// regionFrames is region r's frame-groups [lo, hi).
func (t *tables) regionFrames(r uint32) (lo, hi uint32) {
	lo = r * t.perRegion
	return lo, min(lo+t.perRegion, t.frames())
}

func (t *tables) available(r uint32) bool { return t.frab[r/64]&(1<<(r%64)) != 0 }

// nextAvailable is the first region in [from, to) with its FrAB bit set.
func (t *tables) nextAvailable(from, to uint32) (uint32, bool) {
	for from < to {
		w := t.frab[from/64] >> (from % 64)
		if w != 0 {
			r := from + uint32(bits.TrailingZeros64(w))
			return r, r < to
		}
		from = (from/64 + 1) * 64
	}
	return 0, false
}

// setState moves fg to s, keeping the free counts and FrAB in step; it
// reports whether a FrAB bit changed (an SRAM write).
func (t *tables) setState(fg uint32, s state) (frabWrite bool) {
	old := t.state(fg)
	wasEligible := t.eligible(fg)
	t.entry[fg] = t.entry[fg]&^stateMask | uint8(s)
	if t.eligible(fg) != wasEligible {
		t.adjustEligible(!wasEligible)
	}
	r := t.region(fg)
	switch {
	case old == stFree && s != stFree:
		t.nFree--
		t.freeIn[r]--
		if t.freeIn[r] == 0 {
			t.frab[r/64] &^= 1 << (r % 64)
			return true
		}
	case old != stFree && s == stFree:
		t.nFree++
		t.freeIn[r]++
		if t.freeIn[r] == 1 {
			t.frab[r/64] |= 1 << (r % 64)
			return true
		}
	}
	return false
}

// setFlag sets or clears flag f of fg, keeping nEligible in step.
func (t *tables) setFlag(fg uint32, f uint8, on bool) {
	was := t.eligible(fg)
	if on {
		t.entry[fg] |= f
	} else {
		t.entry[fg] &^= f
	}
	if e := t.eligible(fg); e != was {
		t.adjustEligible(e)
	}
}

func (t *tables) adjustEligible(up bool) {
	if up {
		t.nEligible++
	} else {
		t.nEligible--
	}
}

// eligible reports whether the AFM may queue fg as a victim: a mapped
// unified-memory frame-group that is neither queued already nor being
// filled (the page-group migrating in is never its own victim).
func (t *tables) eligible(fg uint32) bool {
	return t.entry[fg] == uint8(stMapped)
}
