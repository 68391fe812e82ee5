package gmmu

import (
	"math/bits"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// bigPages knows which aligned groups of pages one big PTE maps. NVIDIA's
// driver merges the 4 KB PTEs of a 64 KB big page into one big PTE, eagerly,
// whenever every page of it is mapped with the same attributes (residency
// and permissions), and splits it again when one page changes
// (open-gpu-kernel-modules, uvm_va_block.c,
// block_gpu_compute_new_pte_state). A TLB entry then covers the whole big
// page. The driver keeps its bookkeeping, migration and eviction per 4 KB
// page; only the translation is coarser.
type bigPages struct {
	shift uint   // log2 pages per big page; 0: every page is translated alone
	big   []bool // by group: mapped by one big PTE
}

// newBigPages groups pages of pageSize bytes into big pages of bigBytes.
// A big page no larger than a page changes nothing: each page is then
// already one translation.
func newBigPages(bigBytes, pageSize, pages uint64) bigPages {
	if bigBytes <= pageSize {
		return bigPages{}
	}
	shift := uint(bits.TrailingZeros64(bigBytes / pageSize))
	n := uint64(1) << shift
	return bigPages{shift: shift, big: make([]bool, (pages+n-1)/n)}
}

// update recomputes the group of page from the table, after its PTE
// changed.
func (b *bigPages) update(table []PTE, page uint64) {
	if b.shift != 0 {
		b.regroup(table, page)
	}
}

func (b *bigPages) regroup(table []PTE, page uint64) {
	g := page >> b.shift
	first := g << b.shift
	last := min(first+1<<b.shift, uint64(len(table)))
	b.big[g] = last-first == 1<<b.shift && mappedAlike(table[first:last])
}

// mappedAlike reports whether one big PTE can map the group: every page
// mapped, all alike. A mapping of host memory stays 4 KB: the driver maps
// system memory with a big PTE only where the CPU pages behind it are
// physically contiguous, which mgpu does not model.
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
