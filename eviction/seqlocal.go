package eviction

// SequentialLocal evicts the least recently used page's whole 64 KB basic
// block: Ganguly et al., "Interplay between hardware prefetcher and page
// eviction policy in CPU-GPU unified virtual memory", ISCA'19, as UVMMU
// §II-B describes it ("maintains an LRU page list and evicts the basic
// block which the LRU page belongs to"); UVMSmart's -eviction_policy 2.
// The page list is refreshed on arrival and on every access (Toucher), as
// lru-4kb's is.
//
// UVMSmart's simulator orders its basic blocks hierarchically instead
// (gpu-sim.cc sort_valid_pages): 2 MB regions by their most recent access,
// then the blocks inside by recency. We follow the paper's rule; the two
// differ only when a region's newest access is older than another's
// oldest. Pinned pages are skipped one by one, so a block holding a page of
// the current batch still gives up its other pages (UVMSmart skips such a
// block whole, is_block_evictable); this keeps every unpinned page
// reachable, so the driver can always get back within capacity.
const SequentialLocal = "sequential-local"

// seqLocal is SequentialLocal: lru-4kb's page list, evicted by block.
type seqLocal struct {
	chunkLRU   // one page a chunk: lru-4kb
	per, pages uint64
	listed     *marks // pages listed by the current Victims call
}

func newSeqLocal(o Options) *seqLocal {
	return &seqLocal{chunkLRU: newChunkLRU(o.GPUs, o.Pages, 1), per: o.PagesPerBlock, pages: o.Pages, listed: newMarks(o.Pages)}
}

func (s *seqLocal) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	s.listed.next()
	o := s.order[g]
	for p := o.Front(); p >= 0 && len(dst)-start < n; p = o.Next(p) {
		if !s.listed.has(uint64(p)) && !pinned(uint64(p)) {
			b := uint64(p) / s.per
			dst = s.appendRange(g, b*s.per, min((b+1)*s.per, s.pages), pinned, dst)
		}
	}
	return dst
}

// appendRange lists the pages in [lo, hi) resident on g, not pinned and not
// yet listed, in address order, and marks them listed.
func (s *seqLocal) appendRange(g int, lo, hi uint64, pinned func(uint64) bool, dst []uint64) []uint64 {
	o := s.order[g]
	for q := lo; q < hi; q++ {
		if o.Contains(int32(q)) && !s.listed.has(q) && !pinned(q) {
			s.listed.set(q)
			dst = append(dst, q)
		}
	}
	return dst
}

// live counts the pages in [lo, hi) resident on g and not yet listed.
func (s *seqLocal) live(g int, lo, hi uint64) uint64 {
	o, n := s.order[g], uint64(0)
	for q := lo; q < hi; q++ {
		if o.Contains(int32(q)) && !s.listed.has(q) {
			n++
		}
	}
	return n
}
