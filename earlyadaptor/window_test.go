package earlyadaptor

import (
	"math"
	"math/rand/v2"
	"testing"
)

type hit struct {
	at float64
	k  uint32
}

// A window of 50 ns in 5 slices of 10 ns unless said otherwise.
func TestWindowCounts(t *testing.T) {
	for _, c := range []struct {
		name     string
		length   float64
		n        int
		hits     []hit
		at       float64
		sum, nz  uint32
		newestAt int64
	}{
		{"one slice accumulates", 50, 5, []hit{{0, 1}, {3, 2}, {9.9, 1}}, 9.9, 4, 1, 0},
		{"rollover to the next slice", 50, 5, []hit{{0, 1}, {10, 1}}, 10, 2, 2, 1},
		{"last instant of the window keeps slice 0", 50, 5, []hit{{0, 1}, {20, 1}}, 49.9, 2, 2, 4},
		{"slice 0 leaves when slice 5 starts", 50, 5, []hit{{0, 1}, {20, 1}}, 50, 1, 1, 5},
		{"partial expiry", 50, 5, []hit{{0, 2}, {15, 1}, {25, 1}}, 55, 2, 2, 5},
		{"jump of exactly n slices empties", 50, 5, []hit{{0, 1}, {10, 1}, {49, 1}}, 100, 0, 0, 10},
		{"jump larger than the window empties", 50, 5, []hit{{0, 1}, {10, 1}, {20, 1}}, 1e6, 0, 0, 1e5},
		{"count after a jump starts afresh", 50, 5, []hit{{0, 7}, {1000, 1}}, 1000, 1, 1, 100},
		{"late input counts in the newest slice", 50, 5, []hit{{30, 1}, {5, 1}}, 79, 2, 1, 7},
		{"late input leaves with the newest slice", 50, 5, []hit{{30, 1}, {5, 1}}, 80, 0, 0, 8},
		{"negative time is slice 0", 50, 5, []hit{{-5, 1}}, 0, 1, 1, 0},
		{"one slice: a tumbling window", 50, 1, []hit{{0, 1}, {49, 1}}, 49, 2, 1, 0},
		{"one slice: gone at the next", 50, 1, []hit{{0, 1}, {49, 1}}, 50, 0, 0, 1},
		// EA's geometry: 20 ms in 50 slices of 0.4 ms, 1 s in 50 of 20 ms.
		{"EA short: the last 20 ms at 20.1 ms", 20e6, 50, []hit{{0, 1}, {19.9e6, 1}, {20.1e6, 1}}, 20.1e6, 2, 2, 50},
		{"EA long: all three at 20.1 ms", 1e9, 50, []hit{{0, 1}, {19.9e6, 1}, {20.1e6, 1}}, 20.1e6, 3, 2, 1},
		{"EA long: slice 0 gone at 1.0199 s", 1e9, 50, []hit{{0, 1}, {19.9e6, 1}, {20.1e6, 1}}, 1.0199e9, 1, 1, 50},
		{"EA long: 1 s later all gone", 1e9, 50, []hit{{0, 1}, {19.9e6, 1}, {20.1e6, 1}}, 1.05e9, 0, 0, 52},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWindow(c.length, c.n, 2)
			for _, h := range c.hits {
				w.add(1, w.index(h.at), h.k)
			}
			sum, nz := w.at(1, w.index(c.at))
			if sum != c.sum || nz != c.nz || w.head[1] != c.newestAt {
				t.Errorf("at %g: sum %d nz %d newest %d, want %d %d %d", c.at, sum, nz, w.head[1], c.sum, c.nz, c.newestAt)
			}
			if s, n := w.at(0, w.index(c.at)); s != 0 || n != 0 {
				t.Errorf("untouched row: sum %d nz %d", s, n)
			}
		})
	}
}

func TestWindowIndex(t *testing.T) {
	w := newWindow(20e6, 50, 1) // 0.4 ms slices
	for _, c := range []struct {
		at   float64
		want int64
	}{{0, 0}, {399999, 0}, {400000, 1}, {20e6, 50}, {-1, 0}, {math.NaN(), 0}, {math.Inf(1), math.MaxInt64 / 2}} {
		if got := w.index(c.at); got != c.want {
			t.Errorf("index(%g) = %d, want %d", c.at, got, c.want)
		}
	}
}

// The lazy ring agrees with a brute-force count of the events whose slice
// is one of the window's n newest, for random gaps (some beyond the window).
func TestWindowMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 5, 50} {
		w := newWindow(float64(10*n), n, 1)
		var idx []int64
		now := 0.0
		for i := 0; i < 2000; i++ {
			now += []float64{0, 1, 7, 10, 33, float64(10 * n), float64(30 * n)}[r.IntN(7)]
			k := w.index(now)
			if r.IntN(3) > 0 {
				w.add(0, k, 1)
				idx = append(idx, k)
			}
			want, slices := uint32(0), map[int64]bool{}
			for _, e := range idx {
				if e > k-int64(n) && e <= k {
					want++
					slices[e] = true
				}
			}
			if sum, nz := w.at(0, k); sum != want || nz != uint32(len(slices)) {
				t.Fatalf("n %d step %d at %g: sum %d nz %d, want %d %d", n, i, now, sum, nz, want, len(slices))
			}
		}
	}
}

func TestWindowReset(t *testing.T) {
	w := newWindow(50, 5, 3)
	for r := 0; r < 3; r++ {
		w.add(r, 2, 4)
	}
	w.reset(3)
	for r := 0; r < 3; r++ {
		if s, n := w.at(r, 3); s != 0 || n != 0 || w.head[r] != 3 {
			t.Errorf("row %d after reset: sum %d nz %d head %d", r, s, n, w.head[r])
		}
	}
	w.add(0, 3, 1)
	if s, _ := w.at(0, 7); s != 1 {
		t.Errorf("after reset, a fault at slice 3 seen at 7: sum %d, want 1", s)
	}
}
