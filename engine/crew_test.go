package engine

import (
	"github.com/sarchlab/akita/v3/sim"

	"testing"
)

// Windows follow each other with no work in them, on more threads than
// cores, so threads still finishing one window's take() overlap the next
// window's start; every window must still end. (Resetting the done count
// after the next partition to take let a straggler's count be wiped, and
// the window never ended.)
func TestCrewEndsEveryWindow(t *testing.T) {
	e := New()
	parts := make([]*Partition, 16)
	for i := range parts {
		parts[i] = e.Part(i + 1)
	}
	c := newCrew(parts, 8)
	defer c.close()
	for w := range 200000 {
		c.run(sim.VTimeInSec(1e-9 * float64(w+1)))
		if got := c.done.Load(); got != int64(len(parts)) {
			t.Fatalf("window %d: %d partitions done, want %d", w, got, len(parts))
		}
	}
}
