package accelsim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
)

// span is an address range [lo, hi), or a range of page numbers.
type span struct{ lo, hi uint64 }

// page is the granularity at which touched addresses are grouped into
// objects: touches in one page, or in a run of touched pages, are one
// buffer.
const page = 4 << 10

// granule is cudaMalloc's alignment: every allocation starts on a
// multiple of 256 bytes, so the granules a copy covers hold no other
// allocation.
const granule = 256

// addrLimit is where the address space the conversion models ends: every
// copy and global address lies below it, so that a page's end, and a
// range's, fits in 64 bits.
const addrLimit = 1<<64 - 64<<10

// origin is how an object was inferred.
type origin int

const (
	// fromCopy: the range of one or more MemcpyHtoD, widened to
	// cudaMalloc's 256-byte granules.
	fromCopy origin = iota
	// fromTouches: no copy holds it; the pages the kernels touch outside
	// every copy, one object per run of touched pages.
	fromTouches
)

// object is one object of the recording, in CUDA addresses: how it was
// inferred, and for a copy, its line of kernelslist.g, how many copies
// made it and whether touches past the copied bytes (within its
// granules) extend it.
type object struct {
	span
	origin   origin
	line     int
	copies   int
	copied   span
	extended bool
}

// runs are sorted, disjoint ranges of page numbers: what a kernel
// touches, held compactly (a kernel streaming over an array is one run).
type runs []span

// runsOf is a set of page numbers as runs.
func runsOf(set map[uint64]bool) runs {
	var out runs
	for _, c := range slices.Sorted(maps.Keys(set)) {
		if n := len(out); n > 0 && out[n-1].hi == c {
			out[n-1].hi++
			continue
		}
		out = append(out, span{c, c + 1})
	}
	return out
}

// copyObjects makes the copies objects: each widened to its granules
// (the allocation it went to covers them), and those that then overlap
// (repeated copies of one buffer, or copies into one allocation) one
// object, sorted. Copies that only meet end to end stay apart: two
// allocations side by side.
func copyObjects(copies []object) []object {
	cs := slices.Clone(copies)
	for i := range cs {
		cs[i].copied, cs[i].copies = cs[i].span, 1
		cs[i].lo = cs[i].lo / granule * granule
		cs[i].hi = (cs[i].hi + granule - 1) / granule * granule
	}
	slices.SortStableFunc(cs, func(a, b object) int { return cmp.Compare(a.lo, b.lo) })
	var out []object
	for _, c := range cs {
		if n := len(out); n > 0 && c.lo < out[n-1].hi {
			p := &out[n-1]
			p.hi, p.copies = max(p.hi, c.hi), p.copies+c.copies
			p.copied = span{min(p.copied.lo, c.copied.lo), max(p.copied.hi, c.copied.hi)}
			continue
		}
		out = append(out, c)
	}
	return out
}

// extent is the first and last offset touched in a page.
type extent struct{ first, last uint16 }

// layout gathers where the kernels touch global memory: in which copy,
// or, outside every copy, in which pages.
type layout struct {
	copies  []object
	outside map[uint64]extent
}

func newLayout(copies []object) *layout {
	return &layout{copies: copyObjects(copies), outside: map[uint64]extent{}}
}

// touch records a global address.
func (l *layout) touch(a uint64) {
	i := sort.Search(len(l.copies), func(i int) bool { return l.copies[i].hi > a })
	if i < len(l.copies) && a >= l.copies[i].lo {
		c := &l.copies[i]
		c.extended = c.extended || a < c.copied.lo || a >= c.copied.hi
		return
	}
	if len(l.outside) > maxPages {
		return // objects refuses the trace
	}
	off := uint16(a % page)
	e, ok := l.outside[a/page]
	if !ok {
		e = extent{off, off}
	}
	l.outside[a/page] = extent{min(e.first, off), max(e.last, off)}
}

// objects are the copies' objects and those the touches outside them
// make, disjoint and in address order, so that every touched address is
// in exactly one. Touched spans in consecutive pages are one; a span
// that a copy cuts is two; each is then widened to its pages, up to its
// neighbours.
func (l *layout) objects() ([]object, error) {
	if n := len(l.outside); n > maxPages {
		return nil, fmt.Errorf("the kernels touch more than %d pages of 4 KB outside the copies, the most a conversion holds", maxPages)
	}
	var spans []span
	for _, p := range slices.Sorted(maps.Keys(l.outside)) {
		e := l.outside[p]
		s := span{p*page + uint64(e.first), p*page + uint64(e.last) + 1}
		if n := len(spans); n > 0 && (spans[n-1].hi-1)/page+1 == p {
			spans[n-1].hi = s.hi
			continue
		}
		spans = append(spans, s)
	}
	objs := slices.Clone(l.copies)
	for _, s := range spans {
		objs = append(objs, cutByCopies(s, l.copies)...)
	}
	slices.SortFunc(objs, func(a, b object) int { return cmp.Compare(a.lo, b.lo) })
	for i := range objs {
		o := &objs[i]
		if o.origin != fromTouches {
			continue
		}
		o.lo = o.lo / page * page
		if i > 0 {
			o.lo = max(o.lo, objs[i-1].hi)
		}
		o.hi = (o.hi + page - 1) / page * page
		if i+1 < len(objs) {
			o.hi = min(o.hi, objs[i+1].lo)
		}
	}
	return objs, nil
}

// cutByCopies is s less the copies it overlaps, as touched objects.
func cutByCopies(s span, copies []object) []object {
	var out []object
	cur := s.lo
	j := sort.Search(len(copies), func(j int) bool { return copies[j].hi > cur })
	for ; j < len(copies) && copies[j].lo < s.hi; j++ {
		if cur < copies[j].lo {
			out = append(out, object{span: span{cur, copies[j].lo}, origin: fromTouches})
		}
		cur = max(cur, copies[j].hi)
	}
	if cur < s.hi {
		out = append(out, object{span: span{cur, s.hi}, origin: fromTouches})
	}
	return out
}

// name is o's name in the recording: how it was inferred, its ID and
// its CUDA address.
func (o object) name(id int) string {
	if o.origin == fromTouches {
		return fmt.Sprintf("touched%d@%#x", id, o.lo)
	}
	return fmt.Sprintf("memcpy%d@%#x", id, o.lo)
}

// describe says how o was inferred, for the conversion's report.
func (o object) describe(list string) string {
	if o.origin == fromTouches {
		return "inferred from touches alone: no MemcpyHtoD holds it; its touched pages, widened to whole pages"
	}
	s := fmt.Sprintf("from MemcpyHtoD (%s:%d) of %d bytes", list, o.line, o.copied.hi-o.copied.lo)
	if o.copies > 1 {
		s += fmt.Sprintf(", %d copies of one range merged", o.copies)
	}
	if o.extended {
		s += ", extended to cover touches past the copied bytes (within its 256-byte cudaMalloc granules)"
	}
	return s
}

// memory translates CUDA addresses to the recording's pointers.
type memory struct {
	objs []object
	ptrs []uint64
}

// find is the object holding a, or -1.
func (m *memory) find(a uint64) int {
	i := sort.Search(len(m.objs), func(i int) bool { return m.objs[i].hi > a })
	if i < len(m.objs) && a >= m.objs[i].lo {
		return i
	}
	return -1
}

// args are the objects that r touches, in ID order.
func (m *memory) args(r runs) []int {
	var out []int
	j := 0
	for i, o := range m.objs {
		for j < len(r) && r[j].hi*page <= o.lo {
			j++
		}
		if j < len(r) && r[j].lo*page < o.hi {
			out = append(out, i)
		}
	}
	return out
}
