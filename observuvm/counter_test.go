package observuvm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

func mustUnit(t *testing.T, capacity, threshold int, gran units.Bytes, page uint64) *CounterUnit {
	t.Helper()
	u, err := NewCounterUnit(capacity, threshold, gran, page)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Fig. 3: allocate p 2 MB regions in DRAM, access each x times with the
// threshold at x: notifications grow with p up to 256 and saturate,
// whether the regions are accessed one after another or interleaved.
func TestCounterFig3(t *testing.T) {
	const page = 4096
	perRegion := uint64(2*units.MB) / page
	for _, x := range []int{1, 4} {
		for _, p := range []int{1, 10, 255, 256, 257, 300, 1024} {
			for _, order := range []string{"sequential", "interleaved"} {
				t.Run(fmt.Sprintf("x=%d/p=%d/%s", x, p, order), func(t *testing.T) {
					u := mustUnit(t, 256, x, 2*units.MB, page)
					n := 0
					access := func(r, i int) {
						// a different page of the region each time
						if _, ok := u.Access(uint64(r)*perRegion+uint64(i*7)%perRegion, HostSource()); ok {
							n++
						}
					}
					if order == "sequential" {
						for r := range p {
							for i := range x {
								access(r, i)
							}
						}
					} else {
						for i := range x {
							for r := range p {
								access(r, i)
							}
						}
					}
					if want := min(p, 256); n != want {
						t.Fatalf("%d notifications, want min(p, 256) = %d", n, want)
					}
					if u.Tracked() != min(p, 256) {
						t.Fatalf("%d counters in use", u.Tracked())
					}
				})
			}
		}
	}
}

func TestCounterThreshold(t *testing.T) {
	u := mustUnit(t, 4, 3, 64*units.KB, 4096)
	steps := []struct {
		name   string
		do     func() (Notification, bool)
		notify bool
	}{
		{"1st access counts", func() (Notification, bool) { return u.Access(5, HostSource()) }, false},
		{"2nd, same granule (page 15)", func() (Notification, bool) { return u.Access(15, HostSource()) }, false},
		{"3rd reaches the threshold", func() (Notification, bool) { return u.Access(6, HostSource()) }, true},
		{"4th: notified counters stay silent", func() (Notification, bool) { return u.Access(6, HostSource()) }, false},
		{"5th", func() (Notification, bool) { return u.Access(7, HostSource()) }, false},
		{"after a clear, counting restarts", func() (Notification, bool) { u.Clear(0, HostSource()); return u.Access(5, HostSource()) }, false},
		{"", func() (Notification, bool) { return u.Access(5, HostSource()) }, false},
		{"third after the clear", func() (Notification, bool) { return u.Access(5, HostSource()) }, true},
	}
	for i, s := range steps {
		n, ok := s.do()
		if ok != s.notify {
			t.Fatalf("step %d %q: notified %v", i, s.name, ok)
		}
		if ok && (n.First != 0 || n.Size != 16 || n.Source != HostSource()) {
			t.Fatalf("step %d: %+v: want granule pages 0..15 from the host", i, n)
		}
	}
	if n, _ := u.Access(16, HostSource()); n.Size != 0 {
		t.Fatal("page 16 is a new granule")
	}
	st := u.Stats()
	if st.Accesses != 9 || st.Notifications != 2 || st.Untracked != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// Peer and host accesses are counted apart and labelled (Sec. VIII-A).
func TestCounterSources(t *testing.T) {
	u := mustUnit(t, 3, 2, 64*units.KB, 64<<10)
	if _, ok := u.Access(1, HostSource()); ok {
		t.Fatal("notified at 1 of 2")
	}
	if _, ok := u.Access(1, PeerSource(2)); ok {
		t.Fatal("a peer access added to the host counter")
	}
	n, ok := u.Access(1, PeerSource(2))
	if !ok || n.Source != PeerSource(2) || n.Source.String() != "peer2" || n.Page != 1 {
		t.Fatalf("peer notification %+v %v", n, ok)
	}
	n, ok = u.Access(1, HostSource())
	if !ok || n.Source.Kind != Host || n.Source.String() != "host" {
		t.Fatalf("host notification %+v %v", n, ok)
	}
	// The third counter; a fourth granule finds the unit full.
	u.Access(9, PeerSource(1))
	if _, ok := u.Access(10, HostSource()); ok || u.Stats().Untracked != 1 {
		t.Fatalf("full unit tracked a new granule: %+v", u.Stats())
	}
	u.Clear(1, PeerSource(2))
	u.Access(10, HostSource())
	if u.Tracked() != 3 || u.Stats().Untracked != 1 {
		t.Fatalf("a cleared counter was not reused: %d tracked, %+v", u.Tracked(), u.Stats())
	}
	u.ClearAll()
	if u.Tracked() != 0 {
		t.Fatal("ClearAll left counters")
	}
}

// A granule larger than a page, and a page larger than the granule.
func TestCounterGranules(t *testing.T) {
	u := mustUnit(t, 8, 1, 2*units.MB, 64<<10)
	if n, _ := u.Access(40, HostSource()); n.First != 32 || n.Size != 32 || n.Page != 40 {
		t.Fatalf("2MB granule of 64KB pages: %+v", n)
	}
	u = mustUnit(t, 8, 1, 64*units.KB, 2<<20)
	if n, _ := u.Access(3, HostSource()); n.First != 3 || n.Size != 1 {
		t.Fatalf("64KB granule of 2MB pages: %+v", n)
	}
}

func TestNewCounterUnitRejects(t *testing.T) {
	for _, c := range []struct {
		cap, thr int
		gran     units.Bytes
		page     uint64
		want     string
	}{
		{0, 1, 64 * units.KB, 4096, "capacity 0"},
		{256, 0, 64 * units.KB, 4096, "threshold 0: must be in 1..65535"},
		{256, 65536, 64 * units.KB, 4096, "threshold 65536"},
		{256, 1, 4 * units.KB, 4096, "granularity 4KB: valid values are 64KB, 2MB, 16MB, 1GB"},
		{256, 1, 64 * units.KB, 1000, "page size 1000"},
	} {
		if _, err := NewCounterUnit(c.cap, c.thr, c.gran, c.page); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c, err, c.want)
		}
	}
}
