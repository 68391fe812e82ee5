package gmmu

import "github.com/sarchlab/akita/v3/sim"

// walkerPool holds the time each page-table walker becomes free, as a
// min-heap. A walk takes the earliest-free walker, and which walker that is
// never matters, only the multiset of free times. A heap makes a walk
// O(log n) instead of a scan of every walker: UVMMU's 64 walkers made the
// scan a visible share of a run.
type walkerPool []sim.VTimeInSec

// free is the earliest time a walker is free.
func (p walkerPool) free() sim.VTimeInSec { return p[0] }

// occupy gives the earliest-free walker a walk that ends at end.
func (p walkerPool) occupy(end sim.VTimeInSec) {
	p[0] = end
	i, n := 0, len(p)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && p[r] < p[c] {
			c = r
		}
		if p[i] <= p[c] {
			return
		}
		p[i], p[c] = p[c], p[i]
		i = c
	}
}
