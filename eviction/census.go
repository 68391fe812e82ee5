package eviction

import "math/bits"

// Census wraps a policy to measure what ObservUVM's Fig. 5 shows (Sec.
// III-C, "Observability-aided GPU Memory Oversubscription", ISCA 2026):
// for each chunk the policy gives up as a victim, how many of its blocks
// (64 KB of a 2 MB chunk) the GPU accessed while they were resident. It
// needs every access (Touch), which costs a call per accessed page, so the
// driver wraps its policy only when uvm.eviction_census asks.
type Census struct {
	Policy
	toucher                      Toucher // the policy's own, or nil
	pagesPerChunk, pagesPerBlock uint64
	// accessed is each GPU's mask of the blocks of each chunk accessed
	// since the chunk last emptied; resident counts its pages there.
	accessed [][]uint64
	resident [][]int32
	hist     []uint64
}

// NewCensus wraps p for o's GPUs, pages and chunks. A chunk of more than
// 64 blocks is counted in 64 groups of blocks.
func NewCensus(p Policy, o Options) *Census {
	ppc, ppb := max(1, o.PagesPerChunk), max(1, o.PagesPerBlock)
	ppb = max(ppb, (ppc+63)/64)
	c := &Census{Policy: p, pagesPerChunk: ppc, pagesPerBlock: ppb}
	c.toucher, _ = p.(Toucher)
	chunks := (o.Pages + ppc - 1) / ppc
	for g := 0; g < o.GPUs; g++ {
		c.accessed = append(c.accessed, make([]uint64, chunks))
		c.resident = append(c.resident, make([]int32, chunks))
	}
	c.hist = make([]uint64, (ppc+ppb-1)/ppb+1)
	return c
}

// Touch marks p's block accessed by g.
func (c *Census) Touch(g int, p uint64) {
	c.accessed[g][p/c.pagesPerChunk] |= 1 << ((p % c.pagesPerChunk) / c.pagesPerBlock)
	if c.toucher != nil {
		c.toucher.Touch(g, p)
	}
}

// Placed counts p resident on g.
func (c *Census) Placed(g int, p uint64) {
	c.resident[g][p/c.pagesPerChunk]++
	c.Policy.Placed(g, p)
}

// Removed forgets a chunk's accesses once its last page leaves g.
func (c *Census) Removed(g int, p uint64) {
	ch := p / c.pagesPerChunk
	if c.resident[g][ch]--; c.resident[g][ch] == 0 {
		c.accessed[g][ch] = 0
	}
	c.Policy.Removed(g, p)
}

// Victims counts the accessed blocks of each chunk among the victims.
func (c *Census) Victims(g, n int, pinned func(p uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	dst = c.Policy.Victims(g, n, pinned, dst)
	last := ^uint64(0) // a chunk's victims come together
	for _, p := range dst[start:] {
		if ch := p / c.pagesPerChunk; ch != last {
			last = ch
			c.hist[bits.OnesCount64(c.accessed[g][ch])]++
		}
	}
	return dst
}

// Histogram is how many victim chunks had 0, 1, ... blocks accessed; its
// last entry is every block.
func (c *Census) Histogram() []uint64 { return c.hist }
