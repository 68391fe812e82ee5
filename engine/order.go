package engine

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"
)

// The order of simultaneous events. Events run by time; events of equal
// time run by their Order: the rank of their kind, then their source's
// fixed index, then the source's own count of the events it scheduled.
// Nothing in it depends on the queue's history, so any queue that keeps
// it (a heap, buckets by cycle, one queue per GPU merged) runs a model in
// the same order. docs/design.md, "The order of simultaneous events",
// gives the reasons for the ranks.
//
// An Order packs, from the most significant bit: the rank (4 bits), the
// source (24 bits), the sequence number (36 bits).
type Order uint64

// Rank is the place of an event kind among events of equal time.
type Rank uint8

// The ranks, first to last. What reaches a component at an instant is
// there before the component acts at it, and the wavefronts, which read
// the state everything else writes, act last.
const (
	// RankLaunch: a kernel launch, or the end of a grid barrier.
	RankLaunch Rank = iota
	// RankLink: a message arriving over a link or an on-chip wire, a
	// message held until its send date, a link retrying a freed port.
	RankLink
	// RankOutbox: a component's dated send, or its resend of what a full
	// connection refused.
	RankOutbox
	// RankDriver: the UVM driver's port drain and its core's wake-ups.
	RankDriver
	// RankGMMU: a GMMU's port drains and its translation walks.
	RankGMMU
	// RankGPU: a GPU's port drain.
	RankGPU
	// RankWavefront: a wavefront's next step, by GPU, CU and slot.
	RankWavefront
	// RankForeign: an event that carries no Order (another Akita model's),
	// in the order it was scheduled.
	RankForeign
	// RankForeignSecondary: a foreign secondary event (Akita runs them
	// after the primary ones of their time).
	RankForeignSecondary
)

const (
	seqBits    = 36
	sourceBits = 24
	// MaxSources is how many sources one engine can number.
	MaxSources = 1 << sourceBits
	seqMask    = 1<<seqBits - 1
)

// MakeOrder is the Order of the seq-th event of source at rank r.
func MakeOrder(r Rank, source uint32, seq uint64) Order {
	return Order(r)<<(sourceBits+seqBits) | Order(source)<<seqBits | Order(seq&seqMask)
}

// Rank is o's rank.
func (o Order) Rank() Rank { return Rank(o >> (sourceBits + seqBits)) }

// Source is o's source.
func (o Order) Source() uint32 { return uint32(o>>seqBits) & (MaxSources - 1) }

// Ordered is an event that carries its Order. An event without one runs
// after every ordered event of its time, in the order it was scheduled.
type Ordered interface {
	Order() Order
}

// Source numbers the events of one source. A component holds one per
// part whose events may fall at one instant with another's (a port, a
// wavefront slot) and stamps each event it schedules with Next.
type Source struct {
	id  uint32
	seq uint64
}

// Next is the Order of the source's next event at rank r.
func (s *Source) Next(r Rank) Order {
	s.seq++
	return MakeOrder(r, s.id, s.seq)
}

// ID is the source's index.
func (s *Source) ID() uint32 { return s.id }

// numberer is an engine that numbers sources: this package's.
type numberer interface {
	newSources(n int) (uint32, error)
}

// NewSources gives n consecutive sources of engine e, numbered after
// every source numbered before them, so that a model built in a fixed
// order numbers its parts the same way every run. On an engine that does
// not order events by source (Akita's own), the sources are all 0.
func NewSources(e any, n int) ([]Source, error) {
	base, err := newBase(e, n)
	if err != nil {
		return nil, err
	}
	s := make([]Source, n)
	for i := range s {
		s[i].id = base + uint32(i)
	}
	return s, nil
}

// NewSource is one source of e (NewSources); it panics when e has run out
// of sources, which only a model of millions of components does.
func NewSource(e any) Source {
	s, err := NewSources(e, 1)
	if err != nil {
		panic(err)
	}
	return s[0]
}

// NewSourceBlock reserves n consecutive sources of e and returns the
// first's index: for a part that numbers its sources from a structure
// (a link's lanes), with SourceAt.
func NewSourceBlock(e any, n int) (uint32, error) { return newBase(e, n) }

// SourceAt is the source of index id (from NewSourceBlock).
func SourceAt(id uint32) Source { return Source{id: id} }

func newBase(e any, n int) (uint32, error) {
	if n < 0 {
		return 0, fmt.Errorf("engine: %d sources", n)
	}
	if num, ok := e.(numberer); ok {
		return num.newSources(n)
	}
	return 0, nil
}

// key is the place of evt among the events of its time.
func (e *Engine) key(evt sim.Event) Order {
	if o, ok := evt.(Ordered); ok {
		if e.mul != 0 {
			return e.permute(o.Order())
		}
		return o.Order()
	}
	e.foreign++
	r := RankForeign
	if evt.IsSecondary() {
		r = RankForeignSecondary
	}
	return Order(r)<<(sourceBits+seqBits) | Order(e.foreign)&(1<<(sourceBits+seqBits)-1)
}

// PermuteSources orders the sources of each rank by a fixed permutation,
// the n-th (0: by index, the documented order), instead of by index: a
// different but equally arbitrary order of simultaneous events, so that a
// researcher can measure how much a result owes to the order. Call it
// before the first event is scheduled.
func (e *Engine) PermuteSources(n uint64) {
	if n == 0 {
		e.mul, e.add = 0, 0
		return
	}
	a, b := splitmix(n), splitmix(^n)
	e.mul, e.add = uint32(a|1)&(MaxSources-1), uint32(b)&(MaxSources-1)
}

// permute maps o's source through e's permutation: multiplying by an odd
// number and adding, modulo a power of two, is a bijection.
func (e *Engine) permute(o Order) Order {
	s := (o.Source()*e.mul + e.add) & (MaxSources - 1)
	return o&^(Order(MaxSources-1)<<seqBits) | Order(s)<<seqBits
}

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

func (e *Engine) newSources(n int) (uint32, error) {
	if uint64(e.sources)+uint64(n) > MaxSources {
		return 0, fmt.Errorf("engine: more than %d event sources (a model of millions of components or wavefront slots)", MaxSources)
	}
	base := e.sources
	e.sources += uint32(n)
	return base, nil
}

// Unordered counts the events scheduled without an Order (foreign ones):
// a model of mgpu's own components schedules none.
func (e *Engine) Unordered() uint64 { return e.foreign }
