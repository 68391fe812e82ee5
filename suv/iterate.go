package suv

// Algorithm 2 (§V-C): at a host-loop iteration boundary, prefetch and pin
// the spans the coming iterations touch and evict those that lost their
// utility. A span under BatchBytes is batched: one boundary in k prefetches
// the next k iterations' spans (§V-C "prefetching for several iterations
// together"), so the window an Iterative structure holds in HBM is one
// batch. Everything here is a function of the hint and the HBM it may use,
// so a plan at iteration i needs no memory of iteration i-1.

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// batchIters is how many iterations one prefetch covers before HBM is
// considered: 1 for a span of at least BatchBytes, else enough spans to
// reach BatchBytes, never more than the loop has.
func batchIters(c Config, it Iteration) int {
	k := int64(1)
	if b := int64(c.BatchBytes); it.SpanBytes > 0 && it.SpanBytes < b {
		k = ceilDiv(b, it.SpanBytes)
	}
	return int(min(k, int64(max(it.Count, 1))))
}

// windowPages bounds the pages any batch of k consecutive iterations
// touches, in closed form so that a plan costs O(1) per structure however
// long the loop. Spans that overlap or touch (|stride| <= span) form one
// interval of (k-1)|stride| + span bytes; spans that do not, k separate
// spans. A start off the page grid can cost one page more per interval.
// The bound is exact for page-aligned offsets and strides that stay
// inside the object, and grows with k.
func windowPages(c Config, it Iteration, size int64, k int) int64 {
	page := c.page()
	extra := int64(1)
	if it.OffsetBytes%page == 0 && it.StrideBytes%page == 0 {
		extra = 0
	}
	s, d := it.SpanBytes, abs(it.StrideBytes)
	var n int64
	if d <= s {
		n = ceilDiv(int64(k-1)*d+s, page) + extra
	} else {
		n = int64(k) * (ceilDiv(s, page) + extra)
	}
	return min(n, alignUp(size, page)/page)
}

// fitBatch is the largest batch, at most batchIters, whose window fits in
// avail bytes, and that window in bytes; k is 0 when not even one
// iteration's span fits.
func fitBatch(c Config, it Iteration, size, avail int64) (k int, window int64) {
	lo, hi := 0, batchIters(c, it)
	for lo < hi { // largest k in 0..hi with a fitting window
		m := (lo + hi + 1) / 2
		if windowPages(c, it, size, m)*c.page() <= avail {
			lo = m
		} else {
			hi = m - 1
		}
	}
	if lo == 0 {
		return 0, 0
	}
	return lo, windowPages(c, it, size, lo) * c.page()
}

// batchRanges is the page-aligned union of the spans of batch b
// (iterations b*k .. b*k+k-1, cut at the loop's end).
func batchRanges(c Config, it Iteration, size int64, k, b int) []Range {
	var rs []Range
	for i := b * k; i < min((b+1)*k, it.Count); i++ {
		o := it.offset(i)
		rs = append(rs, pageRange(o, o+it.SpanBytes, size, c.page()))
	}
	return union(rs)
}

// boundary is Algorithm 2 at iteration it.Index with batches of k: the
// ranges to pin on the host (first iteration only: all but the first
// batch), to evict (what the previous batch held and this one does not)
// and to prefetch and pin (what this batch needs and the previous did not
// hold). Between batch starts it returns nothing: the batch is resident.
func boundary(c Config, it Iteration, size int64, k int) (host, evict, prefetch []Range) {
	if it.Index%k != 0 {
		return nil, nil, nil
	}
	b := it.Index / k
	cur := batchRanges(c, it, size, k, b)
	if b == 0 {
		return complement(cur, size), nil, cur
	}
	prev := batchRanges(c, it, size, k, b-1)
	return nil, subtract(prev, cur), subtract(cur, prev)
}
