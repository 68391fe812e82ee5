package uvmsmart

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// TestCombine is update_memory_management_policy's table: an allocation's
// pattern so far (rows) meets one kernel's (columns).
func TestCombine(t *testing.T) {
	U, R, L, M, RR, LR, MR := Undecided, Random, Linear, Mixed, RandomReuse, LinearReuse, MixedReuse
	cols := []Pattern{U, R, L, RR, LR}
	want := map[Pattern][]Pattern{
		U:  {U, R, L, RR, LR},
		L:  {L, M, L, MR, LR},
		LR: {LR, MR, LR, MR, LR},
		R:  {R, R, M, RR, MR},
		RR: {RR, RR, MR, RR, MR},
		M:  {M, M, M, M, M},      // no branch in the released code
		MR: {MR, MR, MR, MR, MR}, // likewise
	}
	for so, row := range want {
		for i, cur := range cols {
			if got := combine(so, cur); got != row[i] {
				t.Errorf("combine(%v, %v) = %v, want %v", so, cur, got, row[i])
			}
		}
	}
}

// record plays kernels of blocks for allocation 0: each inner slice is one
// kernel, recorded in order.
func record(kernels ...[]uint64) *Classifier {
	c := NewClassifier(64)
	for i, k := range kernels {
		if i > 0 {
			c.Launch()
		}
		for _, b := range k {
			c.Record(0, b)
		}
	}
	return c
}

func TestPatterns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kernels [][]uint64
		want    Pattern
	}{
		{"nothing recorded", nil, Undecided},
		{"ascending", [][]uint64{{1, 2, 5, 9}}, Linear},
		{"one block out of order", [][]uint64{{1, 5, 2, 9}}, Random},
		{"a block twice in a kernel", [][]uint64{{1, 2, 2, 3}}, LinearReuse},
		{"a block again in a later kernel", [][]uint64{{1, 2}, {2, 3}}, LinearReuse},
		{"disjoint ascending kernels", [][]uint64{{1, 2}, {3, 4}}, Linear},
		{"linear then random", [][]uint64{{1, 2}, {6, 4}}, Mixed},
		{"random then reused linear", [][]uint64{{6, 4}, {4, 5}}, MixedReuse},
		{"a kernel that skips the allocation changes nothing", [][]uint64{{1, 2}, {}, {3}}, Linear},
		{"descending repeats", [][]uint64{{3, 2, 3}}, RandomReuse},
	} {
		if got := record(tc.kernels...).Pattern(0); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(c *Classifier)
		want Decision
	}{
		{"nothing recorded", func(*Classifier) {}, Decision{}},
		{"all linear keeps the defaults", func(c *Classifier) { c.Record(0, 1); c.Record(1, 9) }, Decision{}},
		{"linear reuse: tree eviction only", func(c *Classifier) { c.Record(0, 1); c.Record(0, 1); c.Record(1, 9) },
			Decision{TBNEviction: true}},
		{"any random allocation: both", func(c *Classifier) { c.Record(0, 1); c.Record(1, 9); c.Record(1, 8) },
			Decision{ZeroCopy: true, TBNEviction: true}},
	} {
		c := NewClassifier(16)
		tc.set(c)
		if got := c.Decide(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// A batch is recorded by block, in address order, each block once: pages
// of one block in one batch are not reuse, and the faults' order within a
// batch does not make it random.
func TestFlushSortsAndMergesABatch(t *testing.T) {
	c, err := New(DefaultConfig(), 64, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []uint64{13, 1, 2, 12, 3, 0} { // blocks 3, 0, 0, 3, 0, 0
		c.Migrated(0, p)
	}
	c.Migrated(-1, 40) // padding: no allocation
	c.Flush()
	if got := c.cls.Pattern(0); got != Linear {
		t.Fatalf("one batch of blocks 0 and 3: %v, want linear", got)
	}
	c.Migrated(0, 5) // block 1 after block 3: the next batch goes back
	if d := c.Evicting(100); !d.ZeroCopy || !d.TBNEviction {
		t.Fatalf("random after the eviction's flush: %+v", d)
	}
	st := c.Stats()
	if st.ZeroCopyAtNs != 100 || st.TBNAtNs != 100 || st.Decisions != 1 || st.Patterns[Random] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// fixed answers every fault with one decision and counts launches.
type fixed struct {
	pagepolicy.Base
	launches int
}

func (f *fixed) Name() string { return "on-touch" }
func (f *fixed) Decide(pagepolicy.Fault, pagepolicy.Page) pagepolicy.Decision {
	return pagepolicy.Decision{Action: pagepolicy.Migrate}
}
func (f *fixed) Observe(e pagepolicy.Event) error {
	if e.Kind == pagepolicy.Launch {
		f.launches++
	}
	return nil
}

func TestPolicyZeroCopy(t *testing.T) {
	c, err := New(DefaultConfig(), 64, 4)
	if err != nil {
		t.Fatal(err)
	}
	inner := &fixed{}
	p := Wrap(inner, c)
	host := pagepolicy.Page{Owner: pagepolicy.Host}
	read := pagepolicy.Fault{GPU: 0, Page: 9}
	if d := p.Decide(read, host); d.Action != pagepolicy.Migrate {
		t.Fatalf("before oversubscription a read migrates: %v", d.Action)
	}
	c.cls.Record(0, 5)
	c.cls.Record(0, 4) // random
	c.Evicting(1)
	for _, tc := range []struct {
		name  string
		f     pagepolicy.Fault
		pg    pagepolicy.Page
		want  pagepolicy.Action
		extra func(pagepolicy.Decision) bool
	}{
		{"a read of a host page stays remote", read, host, pagepolicy.MapRemote,
			func(d pagepolicy.Decision) bool { return d.HostRemote }},
		{"a write migrates", pagepolicy.Fault{Page: 9, Write: true}, host, pagepolicy.Migrate, nil},
		{"a page another GPU holds goes to the policy", read, pagepolicy.Page{Owner: 1, Copies: 2}, pagepolicy.Migrate, nil},
	} {
		d := p.Decide(tc.f, tc.pg)
		if d.Action != tc.want || tc.extra != nil && !tc.extra(d) {
			t.Errorf("%s: %+v", tc.name, d)
		}
	}
	c.Hot(10) // block 2, page 9's
	if d := p.Decide(read, host); d.Action != pagepolicy.Migrate {
		t.Errorf("a read in a hot block migrates: %v", d.Action)
	}
	if d := p.Decide(pagepolicy.Fault{Page: 12}, host); d.Action != pagepolicy.MapRemote {
		t.Errorf("the next block is not hot: %v", d.Action)
	}
	if st := c.Stats(); st.RemoteMaps != 2 || st.Hot != 1 {
		t.Errorf("stats %+v", st)
	}
	if err := p.Observe(pagepolicy.Launched([]int{0})); err != nil || inner.launches != 1 || c.cls.kernel != 2 {
		t.Errorf("a launch reaches both: %v, %d, kernel %d", err, inner.launches, c.cls.kernel)
	}
}

func TestConfig(t *testing.T) {
	if _, err := New(Config{MigrateThreshold: 0}, 64, 4); err == nil {
		t.Error("threshold 0 accepted")
	}
	if _, err := New(DefaultConfig(), 64, 0); err == nil {
		t.Error("0 pages per block accepted")
	}
}
