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
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Cache is a set-associative array of keys. A key's set is key mod sets.
type Cache struct {
	sets, ways int
	// e holds the entries set by set, 16 bytes each; an entry stays in
	// its way from fill to eviction.
	e []entry
	// A set's bookkeeping is two byte arrays of stride bytes each: fp, a
	// one-byte fingerprint of each way's key, searched eight ways per
	// word, so a miss in a 32-way set reads four words and no key; and
	// ord, the set's ways from the most to the least recently used, its
	// first n[set] valid and the rest free. A hit moves one byte of ord,
	// a fill takes the last. (A scan of every key was a quarter of a
	// run's instructions; per-way stamps cost a scan for the victim.)
	fp, ord []byte
	n       []uint8
	stride  int
	wide    *wide // the hash index and LRU lists, from wideWays up
	// setMask is sets-1 when sets is a power of two (setPow2): a mask
	// instead of a 64-bit division on every access.
	setMask uint64
	setPow2 bool
	// waysShift is log2(ways) when ways is a power of two, else -1.
	waysShift int
	// absent is the key of the last Lookup that missed, while absentOK:
	// nothing but an Insert of that key makes it present again, so the
	// Insert that follows a missed Lookup (a fill after a miss) skips the
	// search.
	absent   uint64
	absentOK bool
}

// entry is one way.
type entry struct {
	key   uint64
	gen   uint32
	valid bool
}

// New makes a cache of the given number of entries and ways. Entries must be
// a positive multiple of ways.
func New(entries, ways int) (*Cache, error) {
	return newCache(entries, ways, useWide(ways))
}

// newCache makes a cache with the hash index if wide, else byte-indexed
// sets (at most 255 ways: ord and n hold way numbers and counts in bytes).
func newCache(entries, ways int, wide bool) (*Cache, error) {
	if entries <= 0 || ways <= 0 || entries%ways != 0 {
		return nil, fmt.Errorf("cache of %d entries and %d ways: entries must be a positive multiple of ways", entries, ways)
	}
	c := &Cache{sets: entries / ways, ways: ways, e: make([]entry, entries)}
	c.setPow2 = c.sets&(c.sets-1) == 0
	c.setMask = uint64(c.sets - 1)
	c.waysShift = -1
	if ways&(ways-1) == 0 {
		c.waysShift = bits.TrailingZeros(uint(ways))
	}
	if wide {
		c.wide = newWide(c.sets, ways)
		return c, nil
	}
	c.stride = (ways + 7) &^ 7
	c.fp = make([]byte, c.sets*c.stride)
	c.ord = make([]byte, c.sets*c.stride)
	c.n = make([]uint8, c.sets)
	c.resetOrder()
	return c, nil
}

// resetOrder frees every way: each set's ord is 0, 1, ... ways-1.
func (c *Cache) resetOrder() {
	clear(c.n)
	for s := 0; s < c.sets; s++ {
		for w := 0; w < c.ways; w++ {
			c.ord[s*c.stride+w] = byte(w)
		}
	}
}

// Sets and Ways describe the geometry.
func (c *Cache) Sets() int { return c.sets }

// Ways is the associativity.
func (c *Cache) Ways() int { return c.ways }

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

// fingerprint is the byte of key that fp holds: keys of one set share
// their low bits, so it is taken from a multiplicative hash.
func fingerprint(key uint64) byte { return byte((key * 0x9E3779B97F4A7C15) >> 56) }

const (
	bytesOnes = 0x0101010101010101
	bytesHigh = 0x8080808080808080
)

// byteMatches has the high bit set in every byte of w equal to b, and
// possibly in bytes above such a byte (the borrow of the zero-byte test),
// never elsewhere: callers check each candidate.
func byteMatches(w uint64, b byte) uint64 {
	x := w ^ bytesOnes*uint64(b)
	return (x - bytesOnes) &^ x & bytesHigh
}

// way returns the way of set s holding key, or -1.
func (c *Cache) way(s int, key uint64) int {
	f := fingerprint(key)
	fps := c.fp[s*c.stride : s*c.stride+c.stride]
	e := c.e[s*c.ways : s*c.ways+c.ways]
	for w := 0; w < len(fps); w += 8 {
		for m := byteMatches(binary.LittleEndian.Uint64(fps[w:]), f); m != 0; m &= m - 1 {
			k := w + bits.TrailingZeros64(m)>>3
			if k < len(e) && e[k].valid && e[k].key == key {
				return k
			}
		}
	}
	return -1
}

// rank is the position of way k in set s's order; k must be valid.
func (c *Cache) rank(s, k int) int {
	ord := c.ord[s*c.stride : s*c.stride+c.stride]
	for w := 0; ; w += 8 {
		for m := byteMatches(binary.LittleEndian.Uint64(ord[w:]), byte(k)); m != 0; m &= m - 1 {
			if p := w + bits.TrailingZeros64(m)>>3; int(ord[p]) == k {
				return p
			}
		}
	}
}

// toFront makes valid way k of set s the most recently used.
func (c *Cache) toFront(s, k int) {
	ord := c.ord[s*c.stride : s*c.stride+c.stride]
	if int(ord[0]) == k {
		return
	}
	p := c.rank(s, k)
	copy(ord[1:p+1], ord[:p])
	ord[0] = byte(k)
}

// free invalidates valid way k of set s: it joins the free ways.
func (c *Cache) free(s, k int) {
	ord := c.ord[s*c.stride : s*c.stride+c.stride]
	p, n := c.rank(s, k), int(c.n[s])
	copy(ord[p:n-1], ord[p+1:n])
	ord[n-1] = byte(k)
	c.n[s]--
	c.e[s*c.ways+k].valid = false
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
		if c.e[i].gen != gen {
			c.drop(i)
			c.absent, c.absentOK = key, true
			return false
		}
		c.touch(i)
		return true
	}
	s := c.setOf(key)
	k := c.way(s, key)
	if k < 0 {
		c.absent, c.absentOK = key, true
		return false
	}
	if c.e[s*c.ways+k].gen != gen {
		c.free(s, k)
		c.absent, c.absentOK = key, true
		return false
	}
	c.toFront(s, k)
	return true
}

// Contains reports presence without touching LRU state.
func (c *Cache) Contains(key uint64) bool {
	if c.wide != nil {
		return c.find(key) >= 0
	}
	return c.way(c.setOf(key), key) >= 0
}

// Insert puts key in, with generation gen, as most recently used. It
// returns the key it evicted, if any.
func (c *Cache) Insert(key uint64, gen uint32) (victim uint64, evicted bool) {
	if c.wide != nil {
		return c.wideInsert(key, gen)
	}
	s := c.setOf(key)
	k := -1
	if c.absentOK && c.absent == key {
		c.absentOK = false
	} else {
		k = c.way(s, key)
	}
	if k >= 0 {
		c.e[s*c.ways+k].gen = gen
		c.toFront(s, k)
		return 0, false
	}
	ord := c.ord[s*c.stride : s*c.stride+c.stride]
	n := int(c.n[s])
	if n < c.ways {
		k = int(ord[n]) // a free way
		c.n[s]++
	} else {
		n--
		k = int(ord[n]) // the least recently used
		victim, evicted = c.e[s*c.ways+k].key, true
	}
	copy(ord[1:n+1], ord[:n])
	ord[0] = byte(k)
	c.e[s*c.ways+k] = entry{key: key, gen: gen, valid: true}
	c.fp[s*c.stride+k] = fingerprint(key)
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
	s := c.setOf(key)
	k := c.way(s, key)
	if k >= 0 {
		c.free(s, k)
	}
	return k >= 0
}

// Flush empties the cache.
func (c *Cache) Flush() {
	for i := range c.e {
		c.e[i].valid = false
	}
	c.absentOK = false
	if c.wide != nil {
		c.wide.reset(c.ways)
		return
	}
	c.resetOrder()
}

// Len counts valid entries (for tests and stats, not the hot path).
func (c *Cache) Len() int {
	n := 0
	for i := range c.e {
		if c.e[i].valid {
			n++
		}
	}
	return n
}
