package gmmu

import (
	"math/rand"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

// TestWalkerPoolMatchesScan: the pool starts every walk when a scan for
// the earliest-free walker would, for pools of 1 to 64 walkers under walks
// that arrive out of time order and last different lengths.
func TestWalkerPoolMatchesScan(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8, 13, 64} {
		rng := rand.New(rand.NewSource(int64(n)))
		pool := newWalkerPool(n)
		scan := make([]sim.VTimeInSec, n)
		for k := 0; k < 5000; k++ {
			now := sim.VTimeInSec(rng.Intn(2000))
			dur := sim.VTimeInSec(1 + rng.Intn(400))
			w := 0
			for i, f := range scan {
				if f < scan[w] {
					w = i
				}
			}
			want := max(now, scan[w])
			scan[w] = want + dur
			got := max(now, pool.earliest())
			pool.occupy(got + dur)
			if got != want {
				t.Fatalf("%d walkers, walk %d at %v: starts at %v, a scan says %v", n, k, now, got, want)
			}
		}
	}
}
