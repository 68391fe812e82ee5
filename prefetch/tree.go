package prefetch

import (
	"fmt"
	"slices"
)

// Page states inside the VA block being walked.
const (
	stAbsent   uint8 = iota // not resident, not arriving: a prefetch candidate
	stResident              // resident or already arriving
	stFaulted               // faulted in this batch: arriving, never returned
	stFilled                // counted by big-page fill: arriving only if selected
)

// Tree is the prefetcher for one destination (one GPU): Off and
// SequentialLocal are its degenerate forms. Its only state is the per-VA
// block thresholds and reused scratch, so one Tree per GPU lets a
// controller (Early-Adaptor) steer each GPU's blocks separately. A Tree is
// not safe for concurrent use.
type Tree struct {
	cfg            Config
	pages          uint64   // footprint in pages; no page at or beyond it exists
	perLeaf, perVA uint64   // pages per basic block and per VA block
	def            uint8    // default threshold
	thr            []uint8  // per VA block; 0 = the default
	faults         []uint64 // scratch: the batch's faults, sorted, unique
	state          []uint8  // scratch: one VA block's page states
	cum            []uint32 // scratch: prefix sums of counted pages
}

// New returns the prefetcher cfg describes for a footprint of pages pages
// (page numbers 0..pages-1; the last VA block may be partial).
func New(cfg Config, pages uint64) (*Tree, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if pages == 0 {
		return nil, fmt.Errorf("prefetch: a footprint of 0 pages")
	}
	t := &Tree{cfg: cfg, pages: pages, def: uint8(cfg.Threshold),
		perLeaf: uint64(cfg.BlockSize / cfg.PageSize), perVA: uint64(cfg.VABlockSize / cfg.PageSize)}
	t.thr = make([]uint8, (pages+t.perVA-1)/t.perVA)
	t.state = make([]uint8, t.perVA)
	t.cum = make([]uint32, t.perVA+1)
	t.faults = make([]uint64, 0, 256)
	return t, nil
}

// Config returns the configuration New was given (SetAllThresholds does
// not change its Threshold; Threshold(vb) answers what is in force).
func (t *Tree) Config() Config { return t.cfg }

// VABlock returns the VA block that holds page.
func (t *Tree) VABlock(page uint64) uint64 { return page / t.perVA }

// VABlocks returns how many VA blocks the footprint spans.
func (t *Tree) VABlocks() uint64 { return uint64(len(t.thr)) }

// Threshold returns the threshold in force for VA block vb.
func (t *Tree) Threshold(vb uint64) int {
	if v := t.thr[vb]; v != 0 {
		return int(v)
	}
	return int(t.def)
}

// SetThreshold sets VA block vb's threshold (Early-Adaptor's per-VABlock
// control); it applies from the next Prefetch call.
func (t *Tree) SetThreshold(vb uint64, thr int) error {
	if err := ValidateThreshold(thr); err != nil {
		return err
	}
	if vb >= uint64(len(t.thr)) {
		return fmt.Errorf("prefetch: VA block %d beyond the footprint's %d", vb, len(t.thr))
	}
	t.thr[vb] = uint8(thr)
	return nil
}

// SetAllThresholds makes thr the default and drops every per-block
// override (EA: all blocks at 1% until oversubscription, then all at 100%).
func (t *Tree) SetAllThresholds(thr int) error {
	if err := ValidateThreshold(thr); err != nil {
		return err
	}
	t.def = uint8(thr)
	clear(t.thr)
	return nil
}

// Prefetch appends to dst the pages to migrate with a batch of faults to
// this Tree's GPU, beyond the faulted pages themselves: sorted, without
// duplicates, none faulted and none for which resident is true. resident
// must answer for the batch's destination and count pages already in flight
// to it ("resident or arriving"). faulted may be unsorted and hold
// duplicates; it is not modified. Faults in several VA blocks are handled
// block by block, and no prefetch crosses a VA block. Pages at or beyond
// the footprint panic, as an index out of range would.
//
// resident is called at most once per page of each VA block the batch
// faults in (TBN; none for a block at threshold 100) or of each faulted
// basic block (SequentialLocal), never for a faulted page. Prefetch
// allocates nothing beyond dst once its scratch has grown to the largest
// batch.
func (t *Tree) Prefetch(faulted []uint64, resident func(page uint64) bool, dst []uint64) []uint64 {
	if t.cfg.Policy == Off || len(faulted) == 0 {
		return dst
	}
	fs := append(t.faults[:0], faulted...)
	slices.Sort(fs)
	fs = slices.Compact(fs)
	t.faults = fs
	if last := fs[len(fs)-1]; last >= t.pages {
		panic(fmt.Sprintf("prefetch: faulted page %d beyond the footprint of %d pages", last, t.pages))
	}
	for len(fs) > 0 {
		vb := fs[0] / t.perVA
		end := 1
		for end < len(fs) && fs[end]/t.perVA == vb {
			end++
		}
		if t.cfg.Policy == SequentialLocal {
			dst = t.blocks(fs[:end], resident, dst)
		} else {
			dst = t.walk(vb, fs[:end], resident, dst)
		}
		fs = fs[end:]
	}
	return dst
}

// blocks is SequentialLocal: each faulted page's basic block, whole.
func (t *Tree) blocks(fs []uint64, resident func(uint64) bool, dst []uint64) []uint64 {
	next := uint64(0) // first page not yet covered
	for i, f := range fs {
		lo := f - f%t.perLeaf
		if i > 0 && lo < next {
			continue
		}
		next = min(lo+t.perLeaf, t.pages)
		k := i
		for p := lo; p < next; p++ {
			for k < len(fs) && fs[k] < p {
				k++
			}
			if (k == len(fs) || fs[k] != p) && !resident(p) {
				dst = append(dst, p)
			}
		}
	}
	return dst
}

// walk is TBN for the faults fs, all in VA block vb.
func (t *Tree) walk(vb uint64, fs []uint64, resident func(uint64) bool, dst []uint64) []uint64 {
	thr := uint64(t.Threshold(vb))
	if thr == MaxThreshold {
		return dst // counted*100 > pages*100 never holds: skip the scan
	}
	base := vb * t.perVA
	n := min(t.perVA, t.pages-base)
	t.load(base, n, fs, resident)
	covered := uint64(0) // regions are aligned subtrees, disjoint and ascending
	for _, f := range fs {
		i := f - base
		if i < covered {
			continue // its largest qualifying subtree is the one that covers it
		}
		lo, hi, ok := t.largest(i, n, thr)
		if !ok {
			continue
		}
		covered = hi
		for j := lo; j < hi; j++ {
			if s := t.state[j]; s == stAbsent || s == stFilled {
				dst = append(dst, base+j)
			}
		}
	}
	return dst
}

// load fills the scratch state and prefix sums for the n pages of the VA
// block at base in one pass: faulted (without asking resident), resident,
// or (with big-page fill) in a faulted basic block.
func (t *Tree) load(base, n uint64, fs []uint64, resident func(uint64) bool) {
	st, c := t.state[:n], t.cum[:n+1]
	fill, leafMask := t.cfg.BigPageFill, ^(t.perLeaf - 1)
	k := 0               // next fault
	fillEnd := uint64(0) // end of the basic block of the last fault passed
	for i := range n {
		s := stAbsent
		switch {
		case k < len(fs) && fs[k]-base == i:
			s = stFaulted
			k++
			fillEnd = i&leafMask + t.perLeaf
		case resident(base + i):
			s = stResident
		case fill && (i < fillEnd || k < len(fs) && fs[k]-base < i&leafMask+t.perLeaf):
			s = stFilled // in the basic block of the last or the next fault
		}
		st[i] = s
		c[i+1] = c[i]
		if s != stAbsent {
			c[i+1]++
		}
	}
}

// largest walks from the leaf that holds page i (an index in a VA block of
// n pages) to the root and returns the largest subtree [lo, hi) with
// counted*100 > pages*thr, as compute_prefetch_region does. Subtrees are
// clamped to the block's n pages, as the driver clamps its leaf ranges.
func (t *Tree) largest(i, n, thr uint64) (lo, hi uint64, ok bool) {
	for size := t.perLeaf; ; size <<= 1 {
		s := i &^ (size - 1)
		e := min(s+size, n)
		if uint64(t.cum[e]-t.cum[s])*100 > (e-s)*thr {
			lo, hi, ok = s, e, true
		}
		if size >= t.perVA {
			return lo, hi, ok
		}
	}
}
