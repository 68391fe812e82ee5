package observuvm

import (
	"fmt"
	"math/rand/v2"
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
// order, never a map, so they are deterministic.
type olist struct {
	nodes      map[uint64]*onode
	head, tail *onode
	free       *onode // removed nodes, reused
}

type onode struct {
	key        uint64
	prev, next *onode
	mark       bool // owner-defined (CP: protected)
}

func newOList() *olist { return &olist{nodes: map[uint64]*onode{}} }

func (l *olist) len() int { return len(l.nodes) }

func (l *olist) get(k uint64) *onode { return l.nodes[k] }

func (l *olist) has(k uint64) bool { _, ok := l.nodes[k]; return ok }

// unlink detaches n without forgetting it.
func (l *olist) unlink(n *onode) {
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		l.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		l.tail = n.prev
	}
	n.prev, n.next = nil, nil
}

func (l *olist) linkBack(n *onode) {
	n.prev, n.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = n
	} else {
		l.head = n
	}
	l.tail = n
}

// pushBack inserts k at the tail, or moves it there, and returns its node.
func (l *olist) pushBack(k uint64) *onode {
	if n, ok := l.nodes[k]; ok {
		if n != l.tail {
			l.unlink(n)
			l.linkBack(n)
		}
		return n
	}
	n := l.free
	if n != nil {
		l.free = n.next
		*n = onode{}
	} else {
		n = &onode{}
	}
	n.key = k
	l.nodes[k] = n
	l.linkBack(n)
	return n
}

// remove deletes k and reports whether it was there.
func (l *olist) remove(k uint64) bool {
	n, ok := l.nodes[k]
	if !ok {
		return false
	}
	l.unlink(n)
	delete(l.nodes, k)
	n.next, l.free = l.free, n
	return true
}

// walk appends to dst, from n along next (or prev when back), the keys for
// which skip is false, until dst has grown by want.
func walk(n *onode, back bool, want int, skip func(uint64) bool, dst []uint64) []uint64 {
	for got := 0; n != nil && got < want; {
		if skip == nil || !skip(n.key) {
			dst = append(dst, n.key)
			got++
		}
		if back {
			n = n.prev
		} else {
			n = n.next
		}
	}
	return dst
}

// first returns the first key from n (along next, or prev when back) for
// which skip is false.
func first(n *onode, back bool, skip func(uint64) bool) (uint64, bool) {
	var buf [1]uint64
	if r := walk(n, back, 1, skip, buf[:0]); len(r) == 1 {
		return r[0], true
	}
	return 0, false
}
