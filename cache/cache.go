// Package cache is a set-associative tag store with true LRU replacement.
//
// It is the functional core of every cache-like structure in the GPU model:
// the L1 and L2 TLBs, the L1 vector and L2 data caches and the page-walk
// cache. It stores tags only; latencies are added by the caller. All state is
// in flat slices so a lookup allocates nothing.
//
// Every entry also stores a generation number given at insert. A lookup
// with a different generation misses (and frees the entry). Callers keep one
// generation per page and bump it to invalidate all of a page's entries in
// every cache at once, instead of probing each cache: a shootdown of a 2 MB
// page then costs the same as one of a 4 KB page.
package cache

import (
	"fmt"
	"math/bits"
)

// Cache is a set-associative array of keys. A key's set is key mod sets.
type Cache struct {
	sets, ways int
	keys       []uint64 // sets*ways; valid only where used[i] != 0
	gens       []uint32
	used       []uint64 // last-use stamp; 0 means invalid (wide: 1, valid)
	clock      uint64
	wide       *wide // the hash index and LRU lists, from wideWays up
	// setMask is sets-1 when sets is a power of two (setPow2): a mask
	// instead of a 64-bit division on every access.
	setMask uint64
	setPow2 bool
	// waysShift is log2(ways) when ways is a power of two, else -1.
	waysShift int
	// absent is the key of the last wide Lookup that missed, while
	// absentOK: nothing but an Insert of that key makes it present again,
	// so the Insert that follows a missed Lookup (a TLB fill after a walk)
	// skips the index probe.
	absent   uint64
	absentOK bool
}

// New makes a cache of the given number of entries and ways. Entries must be
// a positive multiple of ways.
func New(entries, ways int) (*Cache, error) {
	if entries <= 0 || ways <= 0 || entries%ways != 0 {
		return nil, fmt.Errorf("cache of %d entries and %d ways: entries must be a positive multiple of ways", entries, ways)
	}
	c := &Cache{
		sets: entries / ways, ways: ways,
		keys: make([]uint64, entries), gens: make([]uint32, entries), used: make([]uint64, entries),
	}
	c.setPow2 = c.sets&(c.sets-1) == 0
	c.setMask = uint64(c.sets - 1)
	c.waysShift = -1
	if ways&(ways-1) == 0 {
		c.waysShift = bits.TrailingZeros(uint(ways))
	}
	if useWide(entries, ways) {
		c.wide = newWide(c.sets, ways)
	}
	return c, nil
}

// Sets and Ways describe the geometry.
func (c *Cache) Sets() int { return c.sets }

// Ways is the associativity.
func (c *Cache) Ways() int { return c.ways }

func (c *Cache) set(key uint64) int { return c.setOf(key) * c.ways }

// setOfWay is the set number of way index i.
func (c *Cache) setOfWay(i int) int {
	if c.waysShift >= 0 {
		return i >> c.waysShift
	}
	return i / c.ways
}

// setOf is key's set number.
func (c *Cache) setOf(key uint64) int {
	if c.setPow2 {
		return int(key & c.setMask)
	}
	return int(key % uint64(c.sets))
}

// Lookup reports whether key is present with generation gen and, if so,
// marks it most recently used. An entry of another generation is stale: it
// is dropped and the lookup misses.
func (c *Cache) Lookup(key uint64, gen uint32) bool {
	if c.wide != nil {
		i := c.find(key)
		if i < 0 {
			c.absent, c.absentOK = key, true
			return false
		}
		if c.gens[i] != gen {
			c.drop(i)
			c.absent, c.absentOK = key, true
			return false
		}
		c.touch(i)
		return true
	}
	s := c.set(key)
	for i := s; i < s+c.ways; i++ {
		if c.keys[i] == key && c.used[i] != 0 {
			if c.gens[i] != gen {
				c.used[i] = 0
				return false
			}
			c.clock++
			c.used[i] = c.clock
			return true
		}
	}
	return false
}

// Contains reports presence without touching LRU state.
func (c *Cache) Contains(key uint64) bool {
	if c.wide != nil {
		return c.find(key) >= 0
	}
	s := c.set(key)
	for i := s; i < s+c.ways; i++ {
		if c.keys[i] == key && c.used[i] != 0 {
			return true
		}
	}
	return false
}

// Insert puts key in, with generation gen, as most recently used. It
// returns the key it evicted, if any.
func (c *Cache) Insert(key uint64, gen uint32) (victim uint64, evicted bool) {
	if c.wide != nil {
		return c.wideInsert(key, gen)
	}
	s := c.set(key)
	lru := s
	for i := s; i < s+c.ways; i++ {
		if c.keys[i] == key && c.used[i] != 0 {
			lru = i
			break
		}
		if c.used[i] < c.used[lru] {
			lru = i
		}
	}
	if c.used[lru] != 0 && c.keys[lru] != key {
		victim, evicted = c.keys[lru], true
	}
	c.clock++
	c.keys[lru] = key
	c.gens[lru] = gen
	c.used[lru] = c.clock
	return victim, evicted
}

// Invalidate removes key if present and reports whether it was.
func (c *Cache) Invalidate(key uint64) bool {
	if c.wide != nil {
		i := c.find(key)
		if i >= 0 {
			c.drop(i)
		}
		return i >= 0
	}
	s := c.set(key)
	for i := s; i < s+c.ways; i++ {
		if c.keys[i] == key && c.used[i] != 0 {
			c.used[i] = 0
			return true
		}
	}
	return false
}

// Flush empties the cache.
func (c *Cache) Flush() {
	clear(c.used)
	if c.wide != nil {
		c.wide.reset(c.ways)
	}
}

// Len counts valid entries (for tests and stats, not the hot path).
func (c *Cache) Len() int {
	n := 0
	for _, u := range c.used {
		if u != 0 {
			n++
		}
	}
	return n
}
