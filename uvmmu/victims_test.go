package uvmmu

import (
	"slices"
	"testing"
)

// ranked is an eviction.Policy that ranks pages in a fixed order.
type ranked struct {
	pages []uint64
	gpus  []int // the GPU each Victims call asked for
}

func (r *ranked) Placed(int, uint64)  {}
func (r *ranked) Removed(int, uint64) {}
func (r *ranked) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	r.gpus = append(r.gpus, g)
	for _, p := range r.pages {
		if len(dst) == n {
			break
		}
		if !pinned(p) {
			dst = append(dst, p)
		}
	}
	return dst
}

// A victims policy replaces the PRNG: the AFM queues the frame-groups of
// its pages in its order, each once (a queued frame-group's pages are
// skipped), asking for the GPU it was given.
func TestVictimsFromPolicy(t *testing.T) {
	c := small()
	ppg := uint64(c.PagesPerGroup())
	// Groups 10..17 fill the 8 frame-groups; the policy prefers 15, 12,
	// 17, 10, 11 (a page of each: any page names its group), then the rest.
	order := []uint64{15, 12, 17, 10, 11, 13, 14, 16}
	pol := &ranked{}
	for _, g := range order {
		pol.pages = append(pol.pages, g*ppg+3)
	}
	var u *Unit
	frameOf := func(group uint64) (uint32, bool) {
		for fg := uint32(0); fg < u.Frames(); fg++ {
			if i := u.Frame(fg); i.Mapped && i.Group == group {
				return fg, true
			}
		}
		return 0, false
	}
	u, err := New(c, smallSetup(8), &Victims{Policy: pol, GPU: 3, FrameOf: frameOf})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, u, 10, 0)
	var queued []uint64
	for fg := uint32(0); fg < u.Frames(); fg++ {
		if i := u.Frame(fg); i.Queued {
			queued = append(queued, i.Group)
		}
	}
	slices.Sort(queued)
	want := slices.Clone(order[:c.RefillTo])
	slices.Sort(want)
	if !slices.Equal(queued, want) {
		t.Fatalf("queued victims hold groups %v, want the policy's first %d: %v", queued, c.RefillTo, want)
	}
	if c := u.Counters(); c.VictimMisses != 0 {
		t.Fatalf("%d victim misses: the policy's proposals skip queued frame-groups", c.VictimMisses)
	}
	if len(pol.gpus) == 0 || slices.ContainsFunc(pol.gpus, func(g int) bool { return g != 3 }) {
		t.Fatalf("the policy was asked for GPUs %v, want 3", pol.gpus)
	}
	if _, err := New(c, smallSetup(8), &Victims{Policy: pol}); err == nil {
		t.Fatal("victims without FrameOf accepted")
	}
}
