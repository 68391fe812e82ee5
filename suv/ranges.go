package suv

import "slices"

// Range is [Off, Off+Len) bytes inside one object.
type Range struct {
	Off, Len int64
}

// End is the first byte after r.
func (r Range) End() int64 { return r.Off + r.Len }

func alignDown(x, page int64) int64 { return x / page * page }

func alignUp(x, page int64) int64 { return (x + page - 1) / page * page }

// pages is how many pages r covers.
func (r Range) pages(page int64) int64 {
	if r.Len <= 0 {
		return 0
	}
	return (alignUp(r.End(), page) - alignDown(r.Off, page)) / page
}

// pagesOf sums pages over disjoint page-aligned ranges.
func pagesOf(rs []Range, page int64) int64 {
	var n int64
	for _, r := range rs {
		n += r.pages(page)
	}
	return n
}

// pageRange widens [off, end) to whole pages and clips it to an object of
// size bytes; the end stops at the object's last byte.
func pageRange(off, end, size, page int64) Range {
	off = max(0, alignDown(off, page))
	end = min(size, alignUp(end, page))
	if end <= off {
		return Range{}
	}
	return Range{Off: off, Len: end - off}
}

// union merges rs (in any order) into sorted disjoint ranges, joining
// ranges that touch.
func union(rs []Range) []Range {
	rs = slices.DeleteFunc(slices.Clone(rs), func(r Range) bool { return r.Len <= 0 })
	slices.SortFunc(rs, func(a, b Range) int {
		if a.Off != b.Off {
			if a.Off < b.Off {
				return -1
			}
			return 1
		}
		return 0
	})
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && r.Off <= out[n-1].End() {
			out[n-1].Len = max(out[n-1].End(), r.End()) - out[n-1].Off
			continue
		}
		out = append(out, r)
	}
	return out
}

// subtract is a minus b, both sorted and disjoint.
func subtract(a, b []Range) []Range {
	var out []Range
	j := 0
	for _, r := range a {
		off, end := r.Off, r.End()
		for j < len(b) && b[j].End() <= off {
			j++
		}
		for k := j; k < len(b) && b[k].Off < end; k++ {
			if b[k].Off > off {
				out = append(out, Range{Off: off, Len: b[k].Off - off})
			}
			off = max(off, b[k].End())
		}
		if off < end {
			out = append(out, Range{Off: off, Len: end - off})
		}
	}
	return out
}

// complement is [0, size) minus rs (sorted and disjoint).
func complement(rs []Range, size int64) []Range {
	return subtract([]Range{{Off: 0, Len: size}}, rs)
}
