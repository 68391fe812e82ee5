package gpu

// accessCounters are the GPU's remote-access counters (GRIT §II-B, NVIDIA
// uvm_gpu_access_counters.c). Every remote line bumps the counter of its
// group; at the threshold the GPU notifies the driver with the group's
// pages and the counter starts again from zero, so a counter never passes
// the threshold without a notification.
//
// With 64 KB groups (GRIT) the notification names the whole group. With
// 2 MB groups (the driver's default granularity) a 32-bit mask records
// which 64 KB sub-regions were accessed and only those are named.
type accessCounters struct {
	// perPage names only the page whose access reached the threshold
	// (GRIT §II-B: "the page is migrated"), not the group's pages.
	perPage    bool
	threshold  uint32
	groupShift uint // log2 pages per group
	subShift   uint // log2 pages per sub-region (sub-region mode)
	sub        bool
	pages      uint64
	counts     []uint32
	mask       []uint32
	// latched, when set, holds each group silent from its notification
	// until a shootdown of one of its pages clears it: the hardware's
	// behaviour ObservUVM relies on (a counter notifies once until the
	// driver clears it; its Fig. 3). Nil: a counter starts again from zero
	// at once (the GRIT/OASIS model).
	latched []bool
	// buf holds the last notification's pages (count's result).
	buf []uint64
	// capacity, if not 0, is how many groups can be counted at once
	// (gpu.ac_counters); live marks the groups holding a counter.
	capacity, tracked int
	live              []bool
}

func newAccessCounters(threshold int, groupBytes, pageSize, pages uint64, perPage bool) accessCounters {
	a := accessCounters{threshold: uint32(threshold), pages: pages, perPage: perPage}
	perGroup := max(1, groupBytes/pageSize)
	a.groupShift = log2(perGroup)
	groups := (pages + perGroup - 1) / perGroup
	a.counts = make([]uint32, groups)
	if groupBytes >= 2<<20 && perGroup >= 32 {
		a.sub = true
		a.subShift = a.groupShift - 5
		a.mask = make([]uint32, groups)
	}
	return a
}

// count adds n remote lines to page's group and returns the pages to
// migrate when the threshold is reached, else nil. The pages are valid
// until the next count (the GMMU copies what it queues).
func (a *accessCounters) count(page uint64, n int) []uint64 {
	grp := page >> a.groupShift
	if a.live != nil && !a.live[grp] {
		if a.tracked >= a.capacity {
			return nil // lost, as on hardware
		}
		a.live[grp] = true
		a.tracked++
	}
	if a.latched != nil {
		if a.latched[grp] {
			return nil
		}
		if a.counts[grp]+uint32(n) >= a.threshold {
			a.latched[grp] = true
		}
	}
	a.counts[grp] += uint32(n)
	if a.sub {
		a.mask[grp] |= 1 << ((page >> a.subShift) & 31)
	}
	if a.counts[grp] < a.threshold {
		return nil
	}
	a.counts[grp] = 0
	if a.latched == nil {
		a.release(grp) // it starts again from zero: free for another group
	}
	if a.perPage {
		if a.sub {
			a.mask[grp] = 0
		}
		a.buf = append(a.buf[:0], page)
		return a.buf
	}
	first := grp << a.groupShift
	out := a.buf[:0]
	if !a.sub {
		for p := first; p < min(first+1<<a.groupShift, a.pages); p++ {
			out = append(out, p)
		}
	} else {
		m := a.mask[grp]
		a.mask[grp] = 0
		for s := uint64(0); s < 32; s++ {
			if m&(1<<s) == 0 {
				continue
			}
			lo := first + s<<a.subShift
			for p := lo; p < min(lo+1<<a.subShift, a.pages); p++ {
				out = append(out, p)
			}
		}
	}
	a.buf = out
	return out
}

// latch makes every group notify once until cleared.
func (a *accessCounters) latch() { a.latched = make([]bool, len(a.counts)) }

// clear starts page's group again, when latched, and frees its counter,
// when counters are few: its mapping changed.
func (a *accessCounters) clear(page uint64) {
	grp := page >> a.groupShift
	if a.latched != nil {
		a.latched[grp], a.counts[grp] = false, 0
	}
	if a.live != nil && a.live[grp] {
		a.counts[grp] = 0
		if a.sub {
			a.mask[grp] = 0
		}
		a.release(grp)
	}
}

// limit gives the counters room for capacity groups at once (0: one per
// group).
func (a *accessCounters) limit(capacity int) {
	if capacity > 0 {
		a.capacity, a.live = capacity, make([]bool, len(a.counts))
	}
}

// release frees grp's counter, when counters are few.
func (a *accessCounters) release(grp uint64) {
	if a.live != nil && a.live[grp] {
		a.live[grp] = false
		a.tracked--
	}
}

func log2(x uint64) uint {
	n := uint(0)
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}
