package gmmu

import "github.com/mgpu-sim/mgpu/cache"

// walkCache is the page-walk cache of upper-level entries. The entry of
// level l for a page is keyed (page >> 9l) << 3 | l.
type walkCache struct {
	c *cache.Cache
	// When the cache's sets are a multiple of 8, a key's set is fixed by
	// its level bits, so each level has sets of its own and the levels'
	// lookups and fills commute. Then the key a level filled last is
	// still cached and the most recent of its set, and a walk whose key
	// at that level is the same (the 1 GB and 512 GB entries, walk after
	// walk) needs no access to that level at all: the lookup would hit and
	// the fill would change nothing.
	split bool
	last  [8]uint64
}

func newWalkCache(entries, ways int) (*walkCache, error) {
	c, err := cache.New(entries, ways)
	if err != nil {
		return nil, err
	}
	return &walkCache{c: c, split: c.Sets()%8 == 0}, nil
}

// accesses is how many page-table levels a walk of page reads: all of
// them, or l when the entry of level l (the lowest cached) skips the
// levels above it. It then caches every upper level of the page.
func (w *walkCache) accesses(page uint64, levels int) int {
	n := levels
	if !w.split || levels > len(w.last) {
		for l := 1; l < levels; l++ {
			if w.c.Lookup(w.key(page, l), 0) {
				n = l
				break
			}
		}
		for l := 1; l < levels; l++ {
			w.c.Insert(w.key(page, l), 0)
		}
		return n
	}
	for l := 1; l < levels; l++ {
		key := w.key(page, l)
		hit := key == w.last[l]
		if !hit {
			hit = n == levels && w.c.Lookup(key, 0)
			w.c.Insert(key, 0)
			w.last[l] = key
		}
		if hit && n == levels {
			n = l
		}
	}
	return n
}

func (w *walkCache) key(page uint64, l int) uint64 { return (page>>(9*uint(l)))<<3 | uint64(l) }
