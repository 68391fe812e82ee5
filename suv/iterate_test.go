package suv

import (
	"reflect"
	"testing"
)

// boundaryActions plans iteration i of a lone iterative object, with
// HBM to spare for a window but not for the whole object.
func boundaryActions(t *testing.T, size int64, it Iteration, avail int64) ([]Action, Placement) {
	t.Helper()
	objs := []Object{{"I", size}, {"filler", 1 << 40}}
	hs := Hints{{Object: "I", Class: Iterative, Density: 1, Iter: it}, {Object: "filler", Density: 0.5}}
	p := mustPlan(t, DefaultConfig(), avail, objs, hs)
	return actionsOf(p, "I"), placementOf(t, p, "I")
}

func TestIterationBatching(t *testing.T) {
	type step struct {
		iter int
		want []Action
	}
	act := func(k Kind, off, n int64) Action { return Action{Kind: k, Object: "I", Range: Range{Off: off, Len: n}} }
	for _, tc := range []struct {
		name   string
		size   int64
		it     Iteration
		batch  int
		window int64
		steps  []step
	}{
		{"512KB spans: 4 per 2MB batch", 8 * mb, Iteration{Count: 16, StrideBytes: 512 * kb, SpanBytes: 512 * kb}, 4, 2 * mb, []step{
			{0, []Action{act(PinHost, 2*mb, 6*mb), act(Prefetch, 0, 2*mb)}},
			{1, nil}, {2, nil}, {3, nil},
			{4, []Action{act(Evict, 0, 2*mb), act(Prefetch, 2*mb, 2*mb)}},
			{15, nil},
		}},
		{"under 2MB, not dividing it: 3 spans of 768KB", 24 * mb, Iteration{Count: 30, StrideBytes: 768 * kb, SpanBytes: 768 * kb}, 3, 2304 * kb, []step{
			{0, []Action{act(PinHost, 2304*kb, 24*mb-2304*kb), act(Prefetch, 0, 2304*kb)}},
			{3, []Action{act(Evict, 0, 2304*kb), act(Prefetch, 2304*kb, 2304*kb)}},
			{4, nil},
		}},
		{"exactly 2MB: no batching", 16 * mb, Iteration{Count: 8, StrideBytes: 2 * mb, SpanBytes: 2 * mb}, 1, 2 * mb, []step{
			{0, []Action{act(PinHost, 2*mb, 14*mb), act(Prefetch, 0, 2*mb)}},
			{1, []Action{act(Evict, 0, 2*mb), act(Prefetch, 2*mb, 2*mb)}},
			{7, []Action{act(Evict, 12*mb, 2*mb), act(Prefetch, 14*mb, 2*mb)}},
		}},
		{"over 2MB: one iteration a prefetch", 64 * mb, Iteration{Index: 0, Count: 16, StrideBytes: 4 * mb, SpanBytes: 4 * mb}, 1, 4 * mb, []step{
			{0, []Action{act(PinHost, 4*mb, 60*mb), act(Prefetch, 0, 4*mb)}},
			{1, []Action{act(Evict, 0, 4*mb), act(Prefetch, 4*mb, 4*mb)}},
		}},
		{"overlapping spans keep the overlap", 16 * mb, Iteration{Count: 32, StrideBytes: 256 * kb, SpanBytes: mb}, 2, 1280 * kb, []step{
			{0, []Action{act(PinHost, 1280*kb, 16*mb-1280*kb), act(Prefetch, 0, 1280*kb)}},
			{2, []Action{act(Evict, 0, 512*kb), act(Prefetch, 1280*kb, 512*kb)}},
		}},
		{"backwards", 8 * mb, Iteration{Count: 8, OffsetBytes: 7 * mb, StrideBytes: -mb, SpanBytes: mb}, 2, 2 * mb, []step{
			{0, []Action{act(PinHost, 0, 6*mb), act(Prefetch, 6*mb, 2*mb)}},
			{2, []Action{act(Evict, 6*mb, 2*mb), act(Prefetch, 4*mb, 2*mb)}},
		}},
		{"strided gaps, unaligned", 64 * mb, Iteration{Count: 8, OffsetBytes: 100, StrideBytes: 8 * mb, SpanBytes: 600 * kb}, 4, 4 * 151 * 4 * kb, []step{
			{4, []Action{
				act(Evict, 0, 604*kb), act(Evict, 8*mb, 604*kb), act(Evict, 16*mb, 604*kb), act(Evict, 24*mb, 604*kb),
				act(Prefetch, 32*mb, 604*kb), act(Prefetch, 40*mb, 604*kb), act(Prefetch, 48*mb, 604*kb), act(Prefetch, 56*mb, 604*kb)}},
		}},
	} {
		for _, s := range tc.steps {
			it := tc.it
			it.Index = s.iter
			got, pl := boundaryActions(t, tc.size, it, 1<<30)
			if pl.BatchIters != tc.batch || pl.HBMBytes != tc.window {
				t.Errorf("%s: batch %d window %d, want %d and %d", tc.name, pl.BatchIters, pl.HBMBytes, tc.batch, tc.window)
			}
			if !reflect.DeepEqual(got, s.want) {
				t.Errorf("%s, iteration %d:\n got %v\nwant %v", tc.name, s.iter, got, s.want)
			}
		}
	}
}

func TestIterationWindowShrinksToHBM(t *testing.T) {
	it := Iteration{Count: 64, StrideBytes: 256 * kb, SpanBytes: 256 * kb} // 8 per batch
	_, pl := boundaryActions(t, 16*mb, it, mb+100)
	if pl.BatchIters != 4 || pl.HBMBytes != mb {
		t.Errorf("1MB of HBM: batch %d window %d, want 4 and 1MB", pl.BatchIters, pl.HBMBytes)
	}
	got, pl := boundaryActions(t, 16*mb, it, 200*kb)
	if pl.BatchIters != 0 || pl.HBMBytes != 0 || !reflect.DeepEqual(got, []Action{{Kind: PinHost, Object: "I", Range: Range{Len: 16 * mb}}}) {
		t.Errorf("less than a span: %+v %v, want the object pinned on the host", pl, got)
	}
}

// TestIterationLoopStaysInWindow runs whole loops: resident pages follow
// the actions; at every launch the iteration's span must be resident, and
// the resident set never exceeds the window.
func TestIterationLoopStaysInWindow(t *testing.T) {
	for _, tc := range []struct {
		size  int64
		it    Iteration
		avail int64
	}{
		{8 * mb, Iteration{Count: 16, StrideBytes: 512 * kb, SpanBytes: 512 * kb}, 1 << 30},
		{8*mb + 7, Iteration{Count: 13, OffsetBytes: 3, StrideBytes: 600*kb + 1, SpanBytes: 300*kb + 5}, 1 << 30},
		{8 * mb, Iteration{Count: 20, OffsetBytes: 8*mb - 300*kb, StrideBytes: -400 * kb, SpanBytes: 300 * kb}, 1 << 30},
		{32 * mb, Iteration{Count: 60, StrideBytes: 500 * kb, SpanBytes: 3 * mb}, 1 << 30},
		{32 * mb, Iteration{Count: 60, StrideBytes: 500 * kb, SpanBytes: 3 * mb}, 4 * mb},
		{16 * mb, Iteration{Count: 16, StrideBytes: mb, SpanBytes: mb}, 3*mb + 1},
	} {
		page := int64(4 * kb)
		resident := map[int64]bool{}
		for i := 0; i < tc.it.Count; i++ {
			it := tc.it
			it.Index = i
			acts, pl := boundaryActions(t, tc.size, it, tc.avail)
			for _, a := range acts {
				for pg := alignDown(a.Range.Off, page); pg < a.Range.End(); pg += page {
					switch a.Kind {
					case Prefetch:
						resident[pg] = true
					case Evict, PinHost:
						delete(resident, pg)
					}
				}
			}
			if int64(len(resident))*page > pl.HBMBytes {
				t.Fatalf("%+v avail %d, iteration %d: %d pages resident, window %d bytes", tc.it, tc.avail, i, len(resident), pl.HBMBytes)
			}
			o := it.offset(i)
			for pg := alignDown(o, page); pg < min(o+it.SpanBytes, tc.size); pg += page {
				if !resident[pg] {
					t.Fatalf("%+v avail %d, iteration %d: page at %d of the span not resident", tc.it, tc.avail, i, pg)
				}
			}
		}
	}
}

// TestWindowBoundHoldsEveryBatch checks the closed-form window against
// the exact pages of every batch, aligned or not, forwards or backwards.
func TestWindowBoundHoldsEveryBatch(t *testing.T) {
	c := DefaultConfig()
	const size = 64*mb + 3
	for _, off := range []int64{0, 1, 4 * kb, 5000, 32 * mb} {
		for _, stride := range []int64{-3 * mb, -4 * kb, -1000, 0, 1, 1000, 4 * kb, 6 * kb, 256 * kb, mb + 7} {
			for _, span := range []int64{1, 4 * kb, 5 * kb, 300 * kb, 2 * mb, 3*mb + 1} {
				it := Iteration{Count: 9, OffsetBytes: off, StrideBytes: stride, SpanBytes: span}
				if (Hint{Object: "o", Class: Iterative, Density: 1, Iter: it}).validate(size) != nil {
					continue
				}
				for k := 1; k <= 9; k++ {
					bound := windowPages(c, it, size, k)
					for b := 0; b*k < it.Count; b++ {
						if n := pagesOf(batchRanges(c, it, size, k, b), c.page()); n > bound {
							t.Fatalf("%+v k %d batch %d: %d pages, bound %d", it, k, b, n, bound)
						}
					}
				}
			}
		}
	}
}
