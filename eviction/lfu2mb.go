package eviction

import "math"

// LFU2MB is least-frequently-used at 2 MB chunk granularity: UVMSmart's
// -eviction_policy 4 (gpgpu-sim_UVMSmart gpu-sim.cc). There, every access
// to managed memory increments the 2 MB tree root's access_counter
// (inc_bb_access_counter, called from shader.cc before the TLB lookup), and
// sort_valid_pages orders chunks by (access_counter, RW, cycle) ascending:
// fewest accesses first, then read-only before written, then least
// recently used. The whole chunk goes.
//
// Our choices, where the interface differs:
//   - Counts come from Touch, which the GPU model calls for accesses to
//     locally resident pages; the faulting access itself is not counted, its
//     replay after the migration is.
//   - Counts are per GPU and survive eviction: UVMSmart's evict_whole_tree
//     clears only valid_size, never access_counter. A count about to
//     overflow halves all of that GPU's counts, as UVMSmart halves its
//     counters when one saturates (reset_bb_access_counter).
//   - Touch carries no read/write bit, so ties go straight to least recently
//     used: the chunk order of LRU2MB (last arrival or access).
const LFU2MB = "lfu-2mb"

// chunkLFU is LFU2MB.
type chunkLFU struct {
	*chunkLRM
	count  [][]uint32 // per GPU, per chunk: accesses
	picked *marks     // chunks listed by the current Victims call
}

func newChunkLFU(o Options) *chunkLFU {
	c := &chunkLFU{chunkLRM: newChunkLRM(o.GPUs, o.Pages, o.PagesPerChunk)}
	chunks := (o.Pages + o.PagesPerChunk - 1) / o.PagesPerChunk
	for range o.GPUs {
		c.count = append(c.count, make([]uint32, chunks))
	}
	c.picked = newMarks(chunks)
	return c
}

// Touch counts an access to p's chunk and refreshes the chunk's recency if p
// is resident.
func (c *chunkLFU) Touch(g int, p uint64) {
	ch := int32(p / c.per)
	cnt := c.count[g]
	if cnt[ch] == math.MaxUint32 {
		for i := range cnt {
			cnt[i] >>= 1
		}
	}
	cnt[ch]++
	if c.isRes[g][p] && c.order[g].Back() != ch {
		c.order[g].Touch(ch)
	}
}

// Victims lists whole chunks, fewest accesses first; among equal counts the
// least recently used first.
func (c *chunkLFU) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	c.picked.next()
	l, cnt := c.order[g], c.count[g]
	for len(dst)-start < n {
		best := int32(-1)
		for ch := l.Front(); ch >= 0; ch = l.Next(ch) {
			if !c.picked.has(uint64(ch)) && (best < 0 || cnt[ch] < cnt[best]) {
				best = ch
			}
		}
		if best < 0 {
			break
		}
		c.picked.set(uint64(best))
		dst = c.appendChunk(g, best, pinned, dst)
	}
	return dst
}
