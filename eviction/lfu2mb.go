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

// LFUOptions are the readings of LFU that differ between LFU2MB and
// ObservUVM's approximate LFU (Sec. VI-A, Fig. 7b, over 2 MB regions); the
// zero value is LFU2MB. ObservUVM's frequency bins are counts compared
// capped at the top bin, and a bin's order, oldest bump first, is the
// order of last use, so one list sorted by (capped count, recency) serves
// both.
type LFUOptions struct {
	// Bins caps counts at Bins-1 when chunks are compared (ObservUVM's top
	// bin saturates); 0 compares them whole.
	Bins int
	// Forget clears a chunk's count when its last page leaves (ObservUVM's
	// lfu_keep_history false); LFU2MB keeps counts across evictions.
	Forget bool
	// FaultsCount makes Placed count one use of a chunk already known
	// (listed, or counted before): ObservUVM tracks frequency from the
	// fault stream, a refault being one more access.
	FaultsCount bool
	// ResidentOnly ignores Touch on a chunk with no resident page
	// (ObservUVM's access counters count resident regions); LFU2MB counts
	// every access.
	ResidentOnly bool
}

// chunkLFU is LFU2MB, and ObservUVM's LFU over regions.
type chunkLFU struct {
	*chunkLRM
	opt    LFUOptions
	cap    uint32
	count  [][]uint32 // per GPU, per chunk: accesses
	known  [][]bool   // per GPU, per chunk: counted or listed since the last Forget (FaultsCount)
	picked *marks     // chunks listed by the current Victims call
}

// NewLFU returns an LFU sized by o and read as l says.
func NewLFU(o Options, l LFUOptions) Policy {
	c := &chunkLFU{chunkLRM: newChunkLRM(o.GPUs, o.Pages, max(1, o.PagesPerChunk)), opt: l, cap: math.MaxUint32}
	if l.Bins > 0 {
		c.cap = uint32(l.Bins - 1)
	}
	chunks := (o.Pages + c.per - 1) / c.per
	for range o.GPUs {
		c.count = append(c.count, make([]uint32, chunks))
		if l.FaultsCount {
			c.known = append(c.known, make([]bool, chunks))
		}
	}
	c.picked = newMarks(chunks)
	return c
}

// Touch counts an access to p's chunk and refreshes the chunk's recency if p
// is resident.
func (c *chunkLFU) Touch(g int, p uint64) {
	if c.opt.ResidentOnly && !c.isRes[g][p] {
		return
	}
	c.bump(g, int32(p/c.per))
	if c.isRes[g][p] && c.order[g].Back() != int32(p/c.per) {
		c.order[g].Touch(int32(p / c.per))
	}
}

// bump counts one use of chunk ch on g. A count about to overflow halves
// all of g's counts.
func (c *chunkLFU) bump(g int, ch int32) {
	cnt := c.count[g]
	if cnt[ch] == math.MaxUint32 {
		for i := range cnt {
			cnt[i] >>= 1
		}
	}
	cnt[ch]++
}

// Placed lists p; under FaultsCount a fault on a known chunk is a use.
func (c *chunkLFU) Placed(g int, p uint64) {
	if c.opt.FaultsCount {
		ch := p / c.per
		if c.known[g][ch] {
			c.bump(g, int32(ch))
		}
		c.known[g][ch] = true
	}
	c.chunkLRM.Placed(g, p)
}

// Prefetched lists p without counting it or refreshing a listed chunk.
func (c *chunkLFU) Prefetched(g int, p uint64) {
	if c.opt.FaultsCount {
		c.known[g][p/c.per] = true
	}
	c.placeQuiet(g, p)
}

// Removed unlists p; under Forget a chunk left empty loses its count.
func (c *chunkLFU) Removed(g int, p uint64) {
	c.chunkLRM.Removed(g, p)
	if ch := p / c.per; c.opt.Forget && c.resident[g][ch] == 0 {
		c.count[g][ch] = 0
		if c.known != nil {
			c.known[g][ch] = false
		}
	}
}

// Victims lists whole chunks, fewest accesses first; among equal counts the
// least recently used first.
func (c *chunkLFU) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	c.picked.next()
	l, cnt := c.order[g], c.count[g]
	for len(dst)-start < n {
		best, bc := int32(-1), uint32(0)
		for ch := l.Front(); ch >= 0; ch = l.Next(ch) {
			if k := min(cnt[ch], c.cap); !c.picked.has(uint64(ch)) && (best < 0 || k < bc) {
				best, bc = ch, k
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
