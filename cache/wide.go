package cache

import (
	"math/bits"

	"github.com/mgpu-sim/mgpu/recency"
)

// wideWays is the associativity from which a cache finds keys through a
// hash index and keeps each set's LRU order in a list: a fully associative
// 128-entry TLB (UVMMU Table I) scanned every access was 40% of a run.
// Below it the byte-indexed sets are faster: the index and lists of the
// 32-way L1 TLB, the 16-way L2 TLB and L2 sit in five arrays, whose lines
// missed the host's caches on every access (mm under OASIS, paired runs:
// 33.9 and 32.4 s with the index from 16 ways, 24.5 and 28.6 s with it
// from 64).
const wideWays = 64

// useWide reports whether a cache of this geometry gets the index.
func useWide(ways int) bool {
	return ways >= wideWays
}

// wide is the O(1) bookkeeping of a highly associative cache. It gives the
// same answers as the byte-indexed sets: a hit refreshes the entry; a miss
// fills a free way of the set, else the least recently used. The lists
// hold the order; entries stay where they were filled.
type wide struct {
	// index maps a key to its way (open addressing, linear probing,
	// backward-shift deletion); slots hold way+1, 0 is empty.
	index []int32
	shift uint
	// order links each set's valid ways from least to most recently
	// used, a list per set.
	order *recency.Lists
	// free has a bit per way of each set, set while the way is invalid.
	free  []uint64
	words int // free words per set
}

func newWide(sets, ways int) *wide {
	n := sets * ways
	// The index is kept at most 1/8 full: a TLB that misses on most
	// accesses deletes and adds a key on each, and at half full the probe
	// runs of deletion were 10% of mvt's run (8x: 13.7 s against 18.6 s
	// at 2x on the RTX 3090 preset). A 32-entry TLB's index is 1 KB.
	size := 1
	for size < 8*n {
		size <<= 1
	}
	w := &wide{index: make([]int32, size), shift: uint(64 - bits.TrailingZeros(uint(size))),
		order: recency.NewLists(n, sets), words: (ways + 63) / 64}
	w.free = make([]uint64, sets*w.words)
	w.reset(ways)
	return w
}

// reset marks every way free.
func (w *wide) reset(ways int) {
	clear(w.index)
	w.order.Reset()
	for s := 0; s < len(w.free)/w.words; s++ {
		for i := 0; i < ways; i++ {
			w.free[s*w.words+i/64] |= 1 << (i % 64)
		}
	}
}

func (w *wide) slot(key uint64) int { return int((key * 0x9E3779B97F4A7C15) >> w.shift) }

// find returns the way holding key, or -1.
func (c *Cache) find(key uint64) int {
	w := c.wide
	mask := len(w.index) - 1
	for h := w.slot(key); ; h = (h + 1) & mask {
		e := w.index[h]
		if e == 0 {
			return -1
		}
		if c.e[e-1].key == key {
			return int(e - 1)
		}
	}
}

// indexAdd records that way i holds its key.
func (c *Cache) indexAdd(i int) {
	w := c.wide
	mask := len(w.index) - 1
	h := w.slot(c.e[i].key)
	for w.index[h] != 0 {
		h = (h + 1) & mask
	}
	w.index[h] = int32(i + 1)
}

// indexRemove forgets way i's key, shifting later probes back into the hole.
func (c *Cache) indexRemove(i int) {
	w := c.wide
	mask := len(w.index) - 1
	h := w.slot(c.e[i].key)
	for w.index[h] != int32(i+1) {
		h = (h + 1) & mask
	}
	for j := (h + 1) & mask; w.index[j] != 0; j = (j + 1) & mask {
		home := w.slot(c.e[w.index[j]-1].key)
		// Move j back to h unless its home lies cyclically in (h, j].
		if (j > h && (home <= h || home > j)) || (j < h && home <= h && home > j) {
			w.index[h] = w.index[j]
			h = j
		}
	}
	w.index[h] = 0
}

// touch makes valid way i the most recently used.
func (c *Cache) touch(i int) {
	s, o := c.setOfWay(i), c.wide.order
	if o.Back(s) != int32(i) { // MoveToBack, written out so that it inlines
		o.Unlink(s, int32(i))
		o.PushBack(s, int32(i))
	}
}

// drop invalidates valid way i.
func (c *Cache) drop(i int) {
	w := c.wide
	s := c.setOfWay(i)
	c.indexRemove(i)
	w.order.Unlink(s, int32(i))
	o := i - s*c.ways
	w.free[s*w.words+o/64] |= 1 << (o % 64)
	c.e[i].valid = false
}

// wideVictim is the way a miss of set s fills: the lowest free way, else
// the least recently used.
func (c *Cache) wideVictim(s int) int {
	w := c.wide
	for k := 0; k < w.words; k++ {
		if f := w.free[s*w.words+k]; f != 0 {
			return s*c.ways + k*64 + bits.TrailingZeros64(f)
		}
	}
	return int(w.order.Front(s))
}

// wideInsert is Insert through the index.
func (c *Cache) wideInsert(key uint64, gen uint32) (victim uint64, evicted bool) {
	w := c.wide
	if c.absentOK && c.absent == key {
		c.absentOK = false
	} else if i := c.find(key); i >= 0 {
		c.e[i].gen = gen
		c.touch(i)
		return 0, false
	}
	s := c.setOf(key)
	i := c.wideVictim(s)
	if c.e[i].valid {
		victim, evicted = c.e[i].key, true
		c.indexRemove(i)
		w.order.Unlink(s, int32(i))
	} else {
		o := i - s*c.ways
		w.free[s*w.words+o/64] &^= 1 << (o % 64)
	}
	c.e[i] = entry{key: key, gen: gen, valid: true}
	c.indexAdd(i)
	w.order.PushBack(s, int32(i))
	return victim, evicted
}
