package eviction

import (
	"fmt"
	"slices"
)

// TBN is UVMSmart's tree-based neighbourhood eviction, the mirror image of
// the TBN prefetcher: Ganguly et al. ISCA'19, described by UVMMU §II-B
// ("maintains binary trees among basic blocks within a 2MB memory region
// and dynamically adjusts the eviction granularity based on the eviction
// history"); UVMSmart's -eviction_policy 1. The simulator
// (gpgpu-sim_UVMSmart gpu-sim.cc page_eviction_procedure, TBN branch)
// evicts the first evictable basic block in Sequential-local's order, then
// walks that block's 2 MB tree in post-order (traverse_and_remove_lp_tree)
// and empties every non-leaf node whose valid size is non-zero and below
// half its size (valid_size != 0 && valid_size < size/2), recomputing each
// node from its children, so emptying a subtree can cascade upward.
//
// Our reading: the same, with valid size counted in resident pages (our
// blocks may be partly resident; UVMSmart's are whole) and a node's size
// clamped to the footprint, as the prefetcher clamps its subtrees. The
// LRU page's block is listed first, then the pages the cascade empties, in
// address order. Pinned pages stay, count as valid, and are never listed.
// The chunk (tree root) and basic block (leaf) are Options.PagesPerChunk
// and PagesPerBlock; their ratio must be a power of two.
const TBN = "tbn"

// tbnEvict is TBN: Sequential-local's choice of block, then the tree.
type tbnEvict struct {
	*seqLocal
	perChunk uint64
}

func newTBN(o Options) (Policy, error) {
	r := o.PagesPerChunk / o.PagesPerBlock
	if o.PagesPerChunk%o.PagesPerBlock != 0 || r&(r-1) != 0 {
		return nil, fmt.Errorf("eviction %s: a chunk of %d pages is not a power-of-two number of %d-page basic blocks", TBN, o.PagesPerChunk, o.PagesPerBlock)
	}
	return &tbnEvict{seqLocal: newSeqLocal(o), perChunk: o.PagesPerChunk}, nil
}

func (t *tbnEvict) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	t.listed.next()
	o := t.order[g]
	for p := o.Front(); p >= 0 && len(dst)-start < n; p = o.Next(p) {
		if t.listed.has(uint64(p)) || pinned(uint64(p)) {
			continue
		}
		b := uint64(p) / t.per
		dst = t.appendRange(g, b*t.per, min((b+1)*t.per, t.pages), pinned, dst)
		cascade := len(dst)
		_, dst = t.prune(g, uint64(p)/t.perChunk*t.perChunk, t.perChunk, pinned, dst)
		slices.Sort(dst[cascade:])
	}
	return dst
}

// prune walks the subtree of size pages at lo in post-order, lists the
// pages of every non-leaf node left non-empty and under half full, and
// returns the node's remaining valid pages.
func (t *tbnEvict) prune(g int, lo, size uint64, pinned func(uint64) bool, dst []uint64) (uint64, []uint64) {
	if lo >= t.pages {
		return 0, dst
	}
	hi := min(lo+size, t.pages)
	if size <= t.per {
		return t.live(g, lo, hi), dst
	}
	left, dst := t.prune(g, lo, size/2, pinned, dst)
	right, dst := t.prune(g, lo+size/2, size/2, pinned, dst)
	valid := left + right
	if valid != 0 && 2*valid < hi-lo {
		dst = t.appendRange(g, lo, hi, pinned, dst)
		valid = t.live(g, lo, hi)
	}
	return valid, dst
}
