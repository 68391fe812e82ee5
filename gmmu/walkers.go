package gmmu

import "github.com/sarchlab/akita/v3/sim"

// walkerPool holds the time each page-table walker becomes free, sorted,
// in a ring. A walk takes the earliest-free walker, and which walker that
// is never matters, only the multiset of free times. A new walk ends at
// least a walk's length after the earliest free time, so its end sorts at
// or near the back of the ring: when walks queue for walkers (mvt's column
// walk on UVMMU's 64 walkers) the insert is one comparison, where a heap's
// sift-down ran to the bottom on every walk and a scan read every walker.
type walkerPool struct {
	free []sim.VTimeInSec // free[(head+k)%n] is the k-th earliest
	head int
}

func newWalkerPool(n int) *walkerPool {
	return &walkerPool{free: make([]sim.VTimeInSec, n)}
}

// earliest is the earliest time a walker is free.
func (p *walkerPool) earliest() sim.VTimeInSec { return p.free[p.head] }

// occupy gives the earliest-free walker a walk that ends at end.
func (p *walkerPool) occupy(end sim.VTimeInSec) {
	n := len(p.free)
	// The earliest walker's slot becomes the back of the ring; end moves
	// forward past every later time, one slot at a time.
	j := p.head
	p.head++
	if p.head == n {
		p.head = 0
	}
	for j != p.head {
		prev := j - 1
		if prev < 0 {
			prev = n - 1
		}
		if p.free[prev] <= end {
			break
		}
		p.free[j] = p.free[prev]
		j = prev
	}
	p.free[j] = end
}
