package observuvm

import (
	"fmt"
	"math/rand/v2"

	"github.com/mgpu-sim/mgpu/recency"
)

// Geometry maps the simulator's page numbers onto ObservUVM's units: the
// 64 KB block (the paper's "page": sample, trigger and prefetch leaf) and
// the 2 MB region (eviction and observation). Region r holds pages
// r*PagesPerRegion .. (r+1)*PagesPerRegion-1. A page larger than a block
// makes the block one page; a page at least the region makes the region
// one block, and sampling it moves the whole region (degenerate, allowed).
type Geometry struct {
	PageSize        uint64
	PagesPerBlock   uint64
	PagesPerRegion  uint64
	BlocksPerRegion uint64
}

// NewGeometry returns c's geometry for pages of pageSize bytes.
func (c Config) NewGeometry(pageSize uint64) (Geometry, error) {
	if pageSize == 0 || pageSize&(pageSize-1) != 0 {
		return Geometry{}, fmt.Errorf("observuvm: page size %d bytes: must be a power of two", pageSize)
	}
	g := Geometry{PageSize: pageSize}
	g.PagesPerBlock = max(1, uint64(c.SampleSize)/pageSize)
	g.PagesPerRegion = max(g.PagesPerBlock, uint64(c.RegionSize)/pageSize)
	g.BlocksPerRegion = g.PagesPerRegion / g.PagesPerBlock
	return g, nil
}

// Region is the region that holds page.
func (g Geometry) Region(page uint64) uint64 { return page / g.PagesPerRegion }

// Block is the index, within its region, of the block that holds page.
func (g Geometry) Block(page uint64) int { return int(page % g.PagesPerRegion / g.PagesPerBlock) }

// BlockStart is the first page of block b of region r.
func (g Geometry) BlockStart(r uint64, b int) uint64 {
	return r*g.PagesPerRegion + uint64(b)*g.PagesPerBlock
}

// newRand returns the PCG stream of one GPU: a seed and a history of calls
// give the same choices whatever the other GPUs do.
func newRand(seed uint64, gpu int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6f6273657276^uint64(gpu)))
}

// olist is an ordered set of regions, head (oldest) to tail (newest), with
// O(1) membership, removal and move to the tail. Decisions walk it in
// order, never a map, so they are deterministic. Its nodes are
// recency.Lists nodes, named by int32 (recency.None: no node); a removed
// region's node is reused.
type olist struct {
	l    *recency.Lists
	node map[uint64]int32
	key  []uint64 // per node
	mark []bool   // per node, owner-defined (CP: protected)
	free []int32  // removed nodes
}

func newOList() *olist { return &olist{l: recency.NewLists(0, 1), node: map[uint64]int32{}} }

func (l *olist) len() int { return len(l.node) }

// get is k's node, or recency.None.
func (l *olist) get(k uint64) int32 {
	if n, ok := l.node[k]; ok {
		return n
	}
	return recency.None
}

func (l *olist) has(k uint64) bool { _, ok := l.node[k]; return ok }

func (l *olist) head() int32             { return l.l.Front(0) }
func (l *olist) tail() int32             { return l.l.Back(0) }
func (l *olist) next(n int32) int32      { return l.l.Next(n) }
func (l *olist) prev(n int32) int32      { return l.l.Prev(n) }
func (l *olist) marked(n int32) bool     { return l.mark[n] }
func (l *olist) setMark(n int32, m bool) { l.mark[n] = m }

// pushBack inserts k at the tail, or moves it there, and returns its node.
func (l *olist) pushBack(k uint64) int32 {
	if n, ok := l.node[k]; ok {
		l.l.MoveToBack(0, n)
		return n
	}
	var n int32
	if f := len(l.free); f > 0 {
		n, l.free = l.free[f-1], l.free[:f-1]
		l.key[n], l.mark[n] = k, false
	} else {
		n = l.l.Grow()
		l.key, l.mark = append(l.key, k), append(l.mark, false)
	}
	l.node[k] = n
	l.l.PushBack(0, n)
	return n
}

// remove deletes k and reports whether it was there.
func (l *olist) remove(k uint64) bool {
	n, ok := l.node[k]
	if !ok {
		return false
	}
	l.l.Unlink(0, n)
	delete(l.node, k)
	l.free = append(l.free, n)
	return true
}

// walk appends to dst, from node n along next (or prev when back), the
// keys for which skip is false, until dst has grown by want.
func (l *olist) walk(n int32, back bool, want int, skip func(uint64) bool, dst []uint64) []uint64 {
	for got := 0; n != recency.None && got < want; {
		if k := l.key[n]; skip == nil || !skip(k) {
			dst = append(dst, k)
			got++
		}
		if back {
			n = l.prev(n)
		} else {
			n = l.next(n)
		}
	}
	return dst
}

// first returns the first key from node n (along next, or prev when back)
// for which skip is false.
func (l *olist) first(n int32, back bool, skip func(uint64) bool) (uint64, bool) {
	var buf [1]uint64
	if r := l.walk(n, back, 1, skip, buf[:0]); len(r) == 1 {
		return r[0], true
	}
	return 0, false
}
