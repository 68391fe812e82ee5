package gpu

import (
	"slices"
	"testing"
)

func TestAccessCounters(t *testing.T) {
	const pages = 4096 // 16 MB of 4 KB pages
	for _, c := range []struct {
		name    string
		group   uint64
		perPage bool
		touches []uint64 // pages, one remote line each, threshold 3
		want    []uint64 // the notification at the third touch
	}{
		{"64 KB group names its 16 pages", 64 << 10, false, []uint64{17, 18, 17}, seq(16, 32)},
		{"per page names the page that crossed", 64 << 10, true, []uint64{17, 18, 19}, []uint64{19}},
		{"2 MB names the touched 64 KB sub-regions", 2 << 20, false, []uint64{0, 40, 1}, append(seq(0, 16), seq(32, 48)...)},
		{"2 MB per page", 2 << 20, true, []uint64{0, 40, 1}, []uint64{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAccessCounters(3, c.group, 4096, pages, c.perPage)
			var got []uint64
			for i, p := range c.touches {
				got = a.count(p, 1)
				if i < len(c.touches)-1 && got != nil {
					t.Fatalf("notified before the threshold, at touch %d", i)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("notified %v, want %v", got, c.want)
			}
			// The counter starts again: the next touch does not notify.
			if again := a.count(c.touches[0], 1); again != nil {
				t.Fatalf("the counter did not restart: %v", again)
			}
		})
	}
}

func seq(lo, hi uint64) []uint64 {
	var s []uint64
	for p := lo; p < hi; p++ {
		s = append(s, p)
	}
	return s
}

// A latched counter notifies once and stays silent, however many accesses
// follow, until a shootdown of one of its pages clears it; other groups
// are unaffected. Unlatched, threshold 1 notifies on every access.
func TestLatchedAccessCounters(t *testing.T) {
	a := newAccessCounters(1, 64<<10, 4096, 64, false)
	for i := 0; i < 2; i++ {
		if a.count(3, 1) == nil {
			t.Fatalf("unlatched threshold 1 must notify every access (access %d)", i)
		}
	}
	a.latch()
	if a.count(3, 1) == nil {
		t.Fatal("first access of a latched group must notify")
	}
	for i := 0; i < 5; i++ {
		if got := a.count(4, 2); got != nil {
			t.Fatalf("latched group notified again: %v", got)
		}
	}
	if a.count(20, 1) == nil {
		t.Fatal("another group must notify on its own")
	}
	a.clear(15) // a page of the first group
	if a.count(5, 1) == nil {
		t.Fatal("a cleared group must notify again")
	}
}

// With few counters (gpu.ac_counters) a group whose first remote access
// finds them all in use is not counted; a counter is freed when it
// notifies, or when its group's mapping changes (clear), or, latched, only
// then.
func TestAccessCountersCapacity(t *testing.T) {
	type step struct {
		op     string // "count" one remote line, or "clear"
		page   uint64
		notify bool
	}
	for _, c := range []struct {
		name    string
		latched bool
		steps   []step
	}{
		{"a full unit loses a new group until a counter notifies", false, []step{
			{"count", 0, false}, {"count", 16, false}, // groups 0 and 1 hold the two counters
			{"count", 32, false}, {"count", 32, false}, {"count", 32, false}, // group 2: lost
			{"count", 0, false}, {"count", 0, true}, // group 0 notifies: its counter is free
			{"count", 32, false}, {"count", 32, false}, {"count", 32, true}, // group 2 is counted now
		}},
		{"a clear frees a counter", false, []step{
			{"count", 0, false}, {"count", 16, false}, {"clear", 1, false},
			{"count", 32, false}, {"count", 32, false}, {"count", 32, true},
		}},
		{"latched: notified counters stay until cleared", true, []step{
			{"count", 0, false}, {"count", 0, false}, {"count", 0, true}, {"count", 16, false},
			{"count", 32, false}, {"count", 32, false}, {"count", 32, false}, // still full
			{"clear", 0, false},
			{"count", 32, false}, {"count", 32, false}, {"count", 32, true},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAccessCounters(3, 64<<10, 4096, 4096, false)
			if c.latched {
				a.latch()
			}
			a.limit(2)
			for i, s := range c.steps {
				if s.op == "clear" {
					a.clear(s.page)
					continue
				}
				if got := a.count(s.page, 1) != nil; got != s.notify {
					t.Fatalf("step %d (page %d): notified %v, want %v", i, s.page, got, s.notify)
				}
			}
			if a.tracked > 2 {
				t.Fatalf("%d groups tracked by 2 counters", a.tracked)
			}
		})
	}
}
