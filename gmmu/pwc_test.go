package gmmu

import (
	"math/rand"
	"testing"
)

// TestWalkCacheSkipMatchesPlain: skipping a level whose key the previous
// walk filled gives every walk the same access count, and leaves the same
// entries cached, as looking every level up and filling it, for page
// streams with locality at every level. Geometries whose sets are not a
// multiple of 8 take the plain path and are checked the same way.
func TestWalkCacheSkipMatchesPlain(t *testing.T) {
	for _, g := range [][2]int{{128, 8}, {64, 4}, {16, 2}, {8, 1}, {40, 4}, {6, 2}} {
		for _, levels := range []int{2, 4, 5} {
			fast, _ := newWalkCache(g[0], g[1])
			plain, _ := newWalkCache(g[0], g[1])
			plain.split = false
			rng := rand.New(rand.NewSource(int64(g[0]*10 + levels)))
			seen := map[uint64]bool{}
			page := uint64(0)
			for k := 0; k < 20000; k++ {
				switch r := rng.Intn(100); {
				case r < 60: // the next pages
					page += uint64(rng.Intn(4))
				case r < 85: // another 2 MB region nearby
					page += uint64(rng.Intn(8)) << 9
				case r < 95: // another 1 GB region
					page = uint64(rng.Intn(6)) << 18
				default: // far away
					page = rng.Uint64() >> 20
				}
				a, b := fast.accesses(page, levels), plain.accesses(page, levels)
				if a != b {
					t.Fatalf("%v, %d levels, walk %d of page %#x: %d accesses, plain %d", g, levels, k, page, a, b)
				}
				for l := 1; l < levels; l++ {
					seen[fast.key(page, l)] = true
				}
			}
			for key := range seen {
				if fast.c.Contains(key) != plain.c.Contains(key) {
					t.Fatalf("%v, %d levels: key %#x cached %v, plain %v", g, levels, key, fast.c.Contains(key), plain.c.Contains(key))
				}
			}
			if want := g[0]/g[1]%8 == 0; fast.split != want {
				t.Fatalf("%v: split %v, want %v", g, fast.split, want)
			}
		}
	}
}
