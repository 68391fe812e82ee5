package accelsim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
)

// span is an address range [lo, hi), or a range of chunk numbers.
type span struct{ lo, hi uint64 }

// addrLimit is where the address space the conversion models ends: every
// copy and global address lies below it, so that a chunk's end, and a
// range's, fits in 64 bits.
const addrLimit = 1<<64 - chunk

// object is one object of the recording, in CUDA addresses: a copy (with
// its line of kernelslist.g) or a run of touched chunks.
type object struct {
	span
	copied bool
	line   int
}

// runs are sorted, disjoint ranges of chunk numbers: what a kernel
// touches, held compactly (a kernel streaming over an array is one run).
type runs []span

// runsOf is a set of chunk numbers as runs.
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

// union merges several kernels' runs into one set of runs.
func union(all []runs) runs {
	var flat runs
	for _, r := range all {
		flat = append(flat, r...)
	}
	slices.SortFunc(flat, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var out runs
	for _, s := range flat {
		if n := len(out); n > 0 && s.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
}

// chunks is the number of chunks in r.
func (r runs) chunks() uint64 {
	n := uint64(0)
	for _, s := range r {
		n += s.hi - s.lo
	}
	return n
}

// end is the end of the run holding chunk c, false when none does.
func (r runs) end(c uint64) (uint64, bool) {
	i := sort.Search(len(r), func(i int) bool { return r[i].hi > c })
	if i < len(r) && r[i].lo <= c {
		return r[i].hi, true
	}
	return 0, false
}

// mergeCopies sorts the copies and makes overlapping ones one object: a
// program that copies into a buffer twice has one buffer.
func mergeCopies(copies []object) []object {
	cs := slices.Clone(copies)
	slices.SortStableFunc(cs, func(a, b object) int { return cmp.Compare(a.lo, b.lo) })
	var out []object
	for _, c := range cs {
		if n := len(out); n > 0 && c.lo < out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, c.hi)
			continue
		}
		out = append(out, c)
	}
	return out
}

// markTail marks in tails the copy whose last, partial chunk holds a past
// the copy's end: the program's buffer goes on past what it copied.
func markTail(copies []object, tails []bool, a uint64) {
	i := sort.Search(len(copies), func(i int) bool { return copies[i].lo > a }) - 1
	if i >= 0 && a >= copies[i].hi && a/chunk*chunk < copies[i].hi {
		tails[i] = true
	}
}

// objectsOf builds the objects from the copies (merged), the kernels'
// touched chunks and the copies whose tails they touch (markTail),
// disjoint and in address order.
func objectsOf(copies []object, tails []bool, kernels []*kernelFile) ([]object, error) {
	all := make([]runs, len(kernels))
	for i, k := range kernels {
		all[i] = k.runs
	}
	touched := union(all)
	if n := touched.chunks(); n > uint64(maxChunks) {
		return nil, fmt.Errorf("the kernels touch %d chunks of 64 KB, more than the %d (512 GB) mgpu simulates", n, maxChunks)
	}
	objs := slices.Clone(copies)
	// Extend each copy over its touched tail and the touched chunks that
	// continue it, up to the next copy.
	for i := range objs {
		next := uint64(addrLimit)
		if i+1 < len(objs) {
			next = objs[i+1].lo
		}
		if tails[i] {
			objs[i].hi = min(roundUp(objs[i].hi), next)
		}
		c := roundUp(objs[i].hi) / chunk
		if end, ok := touched.end(c); ok && c*chunk < next {
			objs[i].hi = min(end*chunk, next)
		}
	}
	objs = append(objs, buffers(touched, objs)...)
	slices.SortFunc(objs, func(a, b object) int { return cmp.Compare(a.lo, b.lo) })
	return objs, nil
}

// buffers are the touched chunks whose start no copy holds, grouped into
// runs, each cut short where a copy starts.
func buffers(touched runs, copies []object) []object {
	var out []object
	for _, r := range touched {
		cur, b := r.lo*chunk, r.hi*chunk
		j := sort.Search(len(copies), func(j int) bool { return copies[j].hi > cur })
		for ; j < len(copies) && copies[j].lo < b; j++ {
			if cur < copies[j].lo {
				out = append(out, object{span: span{cur, copies[j].lo}})
			}
			cur = max(cur, roundUp(copies[j].hi))
		}
		if cur < b {
			out = append(out, object{span: span{cur, b}})
		}
	}
	return out
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
		for j < len(r) && r[j].hi*chunk <= o.lo {
			j++
		}
		if j < len(r) && r[j].lo*chunk < o.hi {
			out = append(out, i)
		}
	}
	return out
}

// roundUp rounds a up to a chunk boundary; a is below addrLimit.
func roundUp(a uint64) uint64 { return (a + chunk - 1) / chunk * chunk }
