// Package eviction picks which pages leave a full GPU. It is pure: the
// driver tells it when a page becomes resident on a GPU and when it leaves,
// and asks it for victims when a GPU is over capacity. The driver decides
// what eviction means for the page (drop a replica, copy an owned page back
// to the host); this package only orders the candidates.
package eviction

import (
	"fmt"
	"github.com/mgpu-sim/mgpu/recency"
	"strings"
)

// Policy names, as uvm.eviction spells them.
const (
	// LRM2MB is the NVIDIA driver's policy (uvm_pmm_gpu.c,
	// pick_root_chunk_to_evict): 2 MB root chunks on a list ordered by when
	// a page last migrated into them, not by access. The victim is the
	// least recently migrated chunk, and all its pages go.
	LRM2MB = "lrm-2mb"
	// LRU4KB is true least-recently-used at page granularity. The driver
	// cannot see accesses on real hardware: this is an oracle, fed by the
	// GPUs' accesses, for comparison.
	LRU4KB = "lru-4kb"
)

// Names lists the eviction policies New accepts.
func Names() []string {
	return []string{LRM2MB, LRU4KB, LRU2MB, Random4KB, LFU2MB, SequentialLocal, TBN, LinearRandom, NRU}
}

// Policy orders the resident pages of each GPU for eviction.
type Policy interface {
	// Placed records that page p became resident on GPU g (migrated or
	// copied in).
	Placed(g int, p uint64)
	// Removed records that p is no longer resident on g.
	Removed(g int, p uint64)
	// Victims appends pages resident on g, most evictable first, until at
	// least n are listed or no candidate is left. Pages for which pinned
	// is true are skipped. A chunk policy lists whole chunks, so it may
	// return more than n.
	Victims(g, n int, pinned func(p uint64) bool, dst []uint64) []uint64
}

// Toucher is implemented by policies that need accesses (LRU4KB). The GPU
// model calls Touch for each page an instruction accesses; ObservUVM's
// engine calls it for a region an access counter saw in use.
type Toucher interface {
	Touch(g int, p uint64)
}

// Prefetcher is implemented by policies for which a page a prefetch
// brought is not a use: Prefetched lists it as Placed would, but does not
// refresh a chunk already listed. Without it a prefetch is a Placed.
type Prefetcher interface {
	Prefetched(g int, p uint64)
}

// New returns the named policy for gpus GPUs and pages pages; pagesPerChunk
// is the chunk size in pages (2 MB / page size, at least 1). The basic block
// is pagesPerChunk/32 pages (64 KB of a 2 MB chunk; at least 1) and the
// random policies use seed 1; NewWith sets both.
func New(name string, gpus int, pages uint64, pagesPerChunk uint64) (Policy, error) {
	if pagesPerChunk < 1 {
		pagesPerChunk = 1
	}
	return NewWith(name, Options{GPUs: gpus, Pages: pages, PagesPerChunk: pagesPerChunk,
		PagesPerBlock: max(1, pagesPerChunk/32), Seed: 1})
}

// Options sizes a policy.
type Options struct {
	GPUs  int
	Pages uint64 // page numbers are 0..Pages-1
	// PagesPerChunk is the chunk (2 MB / page size): the unit of lrm-2mb,
	// lru-2mb and lfu-2mb and the root of tbn's tree.
	PagesPerChunk uint64
	// PagesPerBlock is the basic block (64 KB / page size): the unit of
	// sequential-local, tbn and linear-random, and the leaf of tbn's tree.
	PagesPerBlock uint64
	// Seed seeds random-4kb and linear-random: a seed and a history of
	// calls give the same victims.
	Seed uint64
}

// NewWith returns the named policy sized by o.
func NewWith(name string, o Options) (Policy, error) {
	if o.PagesPerChunk < 1 || o.PagesPerBlock < 1 {
		return nil, fmt.Errorf("eviction: %d pages per chunk and %d per basic block: both must be at least 1", o.PagesPerChunk, o.PagesPerBlock)
	}
	switch name {
	case LRM2MB:
		return newChunkLRM(o.GPUs, o.Pages, o.PagesPerChunk), nil
	case LRU4KB:
		return newChunkLRU(o.GPUs, o.Pages, 1), nil
	case LRU2MB:
		return newChunkLRU(o.GPUs, o.Pages, o.PagesPerChunk), nil
	case LFU2MB:
		return NewLFU(o, LFUOptions{}), nil
	case Random4KB:
		return newRandom4KB(o), nil
	case SequentialLocal:
		return newSeqLocal(o), nil
	case TBN:
		return newTBN(o)
	case LinearRandom:
		return newLinearRandom(o), nil
	case NRU:
		return newNRU(o), nil
	}
	return nil, fmt.Errorf("unknown eviction policy %q: valid policies are %s", name, strings.Join(Names(), ", "))
}

// chunkLRM is LRM2MB: per GPU, chunks ordered by their last migration in.
type chunkLRM struct {
	per      uint64
	pages    uint64
	order    []*recency.List
	resident [][]int32 // per GPU, per chunk: resident page count
	isRes    [][]bool  // per GPU, per page
}

func newChunkLRM(gpus int, pages, per uint64) *chunkLRM {
	chunks := (pages + per - 1) / per
	c := &chunkLRM{per: per, pages: pages}
	for g := 0; g < gpus; g++ {
		c.order = append(c.order, recency.NewList(int(chunks)))
		c.resident = append(c.resident, make([]int32, chunks))
		c.isRes = append(c.isRes, make([]bool, pages))
	}
	return c
}

func (c *chunkLRM) Placed(g int, p uint64) {
	ch := int32(p / c.per)
	if !c.isRes[g][p] {
		c.isRes[g][p] = true
		c.resident[g][ch]++
	}
	c.order[g].Touch(ch)
}

func (c *chunkLRM) Removed(g int, p uint64) {
	if !c.isRes[g][p] {
		return
	}
	c.isRes[g][p] = false
	ch := int32(p / c.per)
	c.resident[g][ch]--
	if c.resident[g][ch] == 0 {
		c.order[g].Remove(ch)
	}
}

func (c *chunkLRM) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	l := c.order[g]
	for ch := l.Front(); ch >= 0 && len(dst)-start < n; ch = l.Next(ch) {
		dst = c.appendChunk(g, ch, pinned, dst)
	}
	return dst
}
