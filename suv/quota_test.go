package suv

import (
	"slices"
	"strings"
	"testing"
)

func TestQuotaPoolLRMOrder(t *testing.T) {
	q, err := NewQuotaPool("A", 100, 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []uint64{100, 101, 102, 103} {
		if err := q.Place(p); err != nil {
			t.Fatal(err)
		}
	}
	if q.Over() != 1 || q.Resident() != 4 {
		t.Fatalf("over %d resident %d", q.Over(), q.Resident())
	}
	if got := q.Victims(2, nil); !slices.Equal(got, []uint64{100, 101}) {
		t.Errorf("victims %v, want 100 101 (least recently migrated)", got)
	}
	q.Place(100) // migrated in again: most recent
	if got := q.Victims(4, nil); !slices.Equal(got, []uint64{101, 102, 103, 100}) {
		t.Errorf("victims %v after re-placing 100", got)
	}
	q.Removed(102)
	q.Removed(102)
	q.Removed(7) // not the pool's: ignored
	if got := q.Victims(10, nil); !slices.Equal(got, []uint64{101, 103, 100}) || q.Over() != 0 {
		t.Errorf("victims %v over %d after removing 102", got, q.Over())
	}
	q.SetQuota(1)
	if q.Over() != 2 || q.Quota() != 1 || q.Object() != "A" {
		t.Errorf("shrunk: over %d quota %d", q.Over(), q.Quota())
	}
	if _, err := NewQuotaPool("B", 0, 0, 1); err == nil || !strings.Contains(err.Error(), `"B": 0 pages`) {
		t.Errorf("empty pool: %v", err)
	}
}

// TestQuotaPoolNeverEvictsAnotherStructure drives two adjacent pools the
// way the driver would, faulting pages of both in an interleaved order and
// evicting Victims(Over()) from the pool that took the fault; B's
// resident set must only change by B's own faults.
func TestQuotaPoolNeverEvictsAnotherStructure(t *testing.T) {
	a, _ := NewQuotaPool("A", 0, 64, 8)
	b, _ := NewQuotaPool("B", 64, 64, 4)
	resident := map[uint64]bool{}
	pools := []*QuotaPool{a, b}
	x := uint64(12345)
	for step := 0; step < 5000; step++ {
		x = x*6364136223846793005 + 1442695040888963407
		page := (x >> 33) % 128
		q := pools[page/64]
		if resident[page] {
			continue
		}
		if err := q.Place(page); err != nil {
			t.Fatal(err)
		}
		resident[page] = true
		for _, v := range q.Victims(q.Over(), nil) {
			if !q.Owns(v) {
				t.Fatalf("pool %s offered page %d of another structure", q.Object(), v)
			}
			delete(resident, v)
			q.Removed(v)
		}
		var inA, inB uint64
		for p := range resident {
			if p < 64 {
				inA++
			} else {
				inB++
			}
		}
		if inA != a.Resident() || inB != b.Resident() || inA > 8 || inB > 4 {
			t.Fatalf("step %d: A holds %d (pool %d), B %d (pool %d)", step, inA, a.Resident(), inB, b.Resident())
		}
	}
	// A foreign page is refused and changes nothing.
	before := a.Victims(100, nil)
	if err := a.Place(64); err == nil || !strings.Contains(err.Error(), `"A": page 64 is not its structure's (pages 0..63)`) {
		t.Errorf("foreign page: %v", err)
	}
	if got := a.Victims(100, nil); !slices.Equal(got, before) {
		t.Errorf("refused page changed A: %v, was %v", got, before)
	}
}
