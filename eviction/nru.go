package eviction

import "github.com/mgpu-sim/mgpu/recency"

// NRU is Not Recently Used, the policy UVMMU's Fig. 5 compares (its ref.
// [21], Kabir et al. 2013). Each resident page has a referenced bit, set
// when it arrives and on every access (Toucher); victims are pages whose
// bit is clear, oldest arrival first. Neither paper gives the moment the
// bits are cleared (an OS clears them on a timer). Here they are cleared
// when a request finds too few unreferenced pages: the pages referenced
// since the last clearing are then listed, oldest arrival first, and a new
// period begins. A page touched since the last shortage is thus protected
// until the next one. There is no modified bit: the GPU model does not tell
// the policy which accesses write.
const NRU = "nru"

// nru is NRU. A page is referenced on g when ref[g][p] equals period[g],
// so clearing every bit is one increment.
type nru struct {
	order  []*recency.List // per GPU, resident pages in arrival order
	ref    [][]uint32      // per GPU, per page: the period of its last reference
	period []uint32
}

func newNRU(o Options) *nru {
	n := &nru{period: make([]uint32, o.GPUs)}
	for g := 0; g < o.GPUs; g++ {
		n.order = append(n.order, recency.NewList(int(o.Pages)))
		n.ref = append(n.ref, make([]uint32, o.Pages))
		n.period[g] = 1
	}
	return n
}

func (n *nru) Placed(g int, p uint64) {
	if !n.order[g].Contains(int32(p)) {
		n.order[g].Touch(int32(p))
	}
	n.ref[g][p] = n.period[g]
}

func (n *nru) Removed(g int, p uint64) { n.order[g].Remove(int32(p)) }

// Touch sets the referenced bit of a resident page.
func (n *nru) Touch(g int, p uint64) {
	if n.order[g].Contains(int32(p)) {
		n.ref[g][p] = n.period[g]
	}
}

func (n *nru) Victims(g, want int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start, cur := len(dst), n.period[g]
	dst = n.appendWhere(g, want-(len(dst)-start), func(r uint32) bool { return r != cur }, pinned, dst)
	if len(dst)-start >= want {
		return dst
	}
	n.period[g]++ // clear every bit; wrap-around only costs a spurious clear
	if n.period[g] == 0 {
		clear(n.ref[g])
		n.period[g] = 1
	}
	return n.appendWhere(g, want-(len(dst)-start), func(r uint32) bool { return r == cur }, pinned, dst)
}

// appendWhere lists up to want unpinned pages of g, in arrival order, whose
// reference period satisfies keep.
func (n *nru) appendWhere(g, want int, keep func(uint32) bool, pinned func(uint64) bool, dst []uint64) []uint64 {
	o, ref, got := n.order[g], n.ref[g], 0
	for p := o.Front(); p >= 0 && got < want; p = o.Next(p) {
		if keep(ref[p]) && !pinned(uint64(p)) {
			dst = append(dst, uint64(p))
			got++
		}
	}
	return dst
}
