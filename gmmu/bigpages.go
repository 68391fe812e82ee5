package gmmu

import (
	"math/bits"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// bigPages knows which aligned groups of pages one PTE maps. NVIDIA's
// driver merges PTEs eagerly, whenever every page of an aligned group is
// mapped with the same attributes (residency and permissions), and splits
// them again when one page changes (open-gpu-kernel-modules,
// uvm_va_block.c, block_gpu_compute_new_pte_state): the 4 KB PTEs of a
// 64 KB big page into one big PTE, and a whole 2 MB VA block into one 2 MB
// PTE. A TLB entry then covers the whole group. The driver keeps its
// bookkeeping, migration and eviction per 4 KB page; only the translation
// is coarser.
type bigPages struct {
	shift uint   // log2 pages per big page; 0: no big PTEs
	big   []bool // by big page: mapped by one big PTE
	// hugeShift is log2 pages per huge (2 MB) page, 0 for none; huge says
	// which are mapped by one PTE.
	hugeShift uint
	huge      []bool
}

// newBigPages groups pages of pageSize bytes into big pages of bigBytes and
// huge pages of hugeBytes. A group no larger than a page (or, for huge
// pages, than a big page) changes nothing: its pages are then already
// translated that coarsely.
func newBigPages(bigBytes, hugeBytes, pageSize, pages uint64) bigPages {
	var b bigPages
	b.shift, b.big = groups(bigBytes, pageSize, pageSize, pages)
	b.hugeShift, b.huge = groups(hugeBytes, max(bigBytes, pageSize), pageSize, pages)
	return b
}

// groups is log2 of the pages in a group of bytes, with one flag per group
// of the pages; 0 and nil when the group is no larger than floor.
func groups(bytes, floor, pageSize, pages uint64) (uint, []bool) {
	if bytes <= floor {
		return 0, nil
	}
	shift := uint(bits.TrailingZeros64(bytes / pageSize))
	n := uint64(1) << shift
	return shift, make([]bool, (pages+n-1)/n)
}

// update recomputes the groups of page from the table, after its PTE
// changed.
func (b *bigPages) update(table []PTE, page uint64) {
	if b.shift != 0 {
		g := page >> b.shift
		b.big[g] = whole(table, g, b.shift) && mappedAlike(table[g<<b.shift:(g+1)<<b.shift])
	}
	if b.hugeShift != 0 {
		b.regroupHuge(table, page)
	}
}

// whole reports whether group g of 2^shift pages lies inside the table.
func whole(table []PTE, g uint64, shift uint) bool {
	return (g+1)<<shift <= uint64(len(table))
}

// regroupHuge: a huge page is one PTE when all its pages are mapped alike;
// with big pages, that is when each of its big pages is, all alike, which
// takes one look per big page rather than per page.
func (b *bigPages) regroupHuge(table []PTE, page uint64) {
	h := page >> b.hugeShift
	if !whole(table, h, b.hugeShift) {
		b.huge[h] = false
		return
	}
	first, last := h<<b.hugeShift, (h+1)<<b.hugeShift
	if b.shift == 0 {
		b.huge[h] = mappedAlike(table[first:last])
		return
	}
	e := table[first]
	for g := first >> b.shift; g < last>>b.shift; g++ {
		if !b.big[g] || table[g<<b.shift] != e {
			b.huge[h] = false
			return
		}
	}
	b.huge[h] = true
}

// mappedAlike reports whether one PTE can map the group: every page
// mapped, all alike. A mapping of host memory stays 4 KB: the driver maps
// system memory with a big or 2 MB PTE only where the CPU pages behind it
// are physically contiguous, which mgpu does not model. GPU memory for a
// whole VA block is one 2 MB chunk (block_gpu_chunk_size takes the largest
// aligned chunk), so a block held whole by one GPU is always contiguous.
func mappedAlike(group []PTE) bool {
	e := group[0]
	if !e.Kind.Readable() || (e.Kind.Remote() && e.Owner == uvmproto.Host) {
		return false
	}
	for _, o := range group[1:] {
		if o != e {
			return false
		}
	}
	return true
}
