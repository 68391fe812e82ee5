package eviction

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Test geometry: 32 pages, chunks of 8 (0-7, 8-15, ...), basic blocks of 2.
var small = Options{GPUs: 2, Pages: 32, PagesPerChunk: 8, PagesPerBlock: 2, Seed: 1}

// play builds policy name and applies script on GPU 0: "P5" places page 5,
// "F5" places it by prefetch (Placed for a policy without Prefetcher), "T5"
// touches it (ignored by a policy without Toucher), "R5" removes it.
// GPU 1 holds page 30, touched, which GPU 0's victims must never include.
func play(t *testing.T, name string, o Options, script string) Policy {
	t.Helper()
	p, err := NewWith(name, o)
	if err != nil {
		t.Fatal(err)
	}
	return apply(t, p, script)
}

// apply applies script to p as play does.
func apply(t *testing.T, p Policy, script string) Policy {
	t.Helper()
	p.Placed(1, 30)
	if tc, ok := p.(Toucher); ok {
		tc.Touch(1, 30)
	}
	for _, op := range strings.Fields(script) {
		pg, err := strconv.ParseUint(op[1:], 10, 64)
		if err != nil {
			t.Fatalf("bad op %q", op)
		}
		switch op[0] {
		case 'P':
			p.Placed(0, pg)
		case 'R':
			p.Removed(0, pg)
		case 'F':
			if f, ok := p.(Prefetcher); ok {
				f.Prefetched(0, pg)
			} else {
				p.Placed(0, pg)
			}
		case 'T':
			if tc, ok := p.(Toucher); ok {
				tc.Touch(0, pg)
			}
		default:
			t.Fatalf("bad op %q", op)
		}
	}
	return p
}

func pinnedSet(pages ...uint64) func(uint64) bool {
	return func(p uint64) bool { return slices.Contains(pages, p) }
}

type victimCase struct {
	name   string
	script string
	n      int
	pinned []uint64
	want   []uint64
}

func runVictims(t *testing.T, policy string, cases []victimCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := play(t, policy, small, c.script)
			if got := p.Victims(0, c.n, pinnedSet(c.pinned...), nil); !slices.Equal(got, c.want) {
				t.Fatalf("victims %v, want %v", got, c.want)
			}
		})
	}
}

func TestLRU2MB(t *testing.T) {
	runVictims(t, LRU2MB, []victimCase{
		{"without touches it is lrm-2mb", "P0 P1 P8 P16", 1, nil, []uint64{0, 1}},
		{"a touch refreshes its chunk", "P0 P8 T0", 1, nil, []uint64{8}},
		{"a touch of a page not resident is ignored", "P0 P8 T9", 1, nil, []uint64{0}},
		{"n spans chunks, least recently used first", "P0 P1 P8 P9 P16 T0", 3, nil, []uint64{8, 9, 16}},
		{"pinned pages stay", "P0 P1 P8", 1, []uint64{0}, []uint64{1}},
		{"removed then placed again is most recent", "P0 P8 R0 P0", 1, nil, []uint64{8}},
		{"n beyond the resident set", "P0 P9", 10, nil, []uint64{0, 9}},
		{"a prefetch into a listed chunk does not refresh it", "P0 P8 F1", 1, nil, []uint64{0, 1}},
		{"a prefetch lists a new chunk at the recent end", "P8 F0", 1, nil, []uint64{8}},
	})
	runVictims(t, LRM2MB, []victimCase{
		{"a prefetch is a migration in", "P0 P8 F1", 1, nil, []uint64{8}},
	})
}

func TestLFU2MB(t *testing.T) {
	runVictims(t, LFU2MB, []victimCase{
		{"fewest accesses first", "P0 P8 T0 T0 T8", 1, nil, []uint64{8}},
		{"an untouched chunk first", "P8 T8 P0", 1, nil, []uint64{0}},
		{"ties go to the least recently used", "P0 P8 T8 T0", 1, nil, []uint64{8}},
		{"counts survive eviction", "P0 T0 T0 R0 P8 P0 T8", 1, nil, []uint64{8}},
		{"n spans chunks in count order", "P0 P8 P16 T0 T0 T8", 2, nil, []uint64{16, 8}},
		{"a fully pinned chunk gives nothing", "P0 P8 T8", 1, []uint64{0}, []uint64{8}},
		{"n beyond the resident set", "P0 P9 T0", 10, nil, []uint64{9, 0}},
		{"placing does not count", "P0 P0 P8 T8", 1, nil, []uint64{0}},
	})
}

// ObservUVM's reading of LFU (Sec. VI-A) over one page a chunk: a fault
// (P) on a known chunk counts, an access-counter hit (T) counts only a
// resident one, a prefetch (F) lists without counting, the top bin
// saturates, and history survives eviction unless Forget.
func TestLFUObservUVM(t *testing.T) {
	one := Options{GPUs: 2, Pages: 32, PagesPerChunk: 1, PagesPerBlock: 1}
	observ := LFUOptions{Bins: 16, FaultsCount: true, ResidentOnly: true}
	for _, c := range []struct {
		name   string
		opt    func(*LFUOptions)
		script string
		want   []uint64
	}{
		{"one bin: fault order", nil, "P1 P2 P3", []uint64{1, 2, 3}},
		{"a second fault climbs a bin", nil, "P1 P2 P1", []uint64{2, 1}},
		{"a hit climbs a bin", nil, "P1 P2 T1", []uint64{2, 1}},
		{"lowest bin first, then by recency", nil, "P1 P1 P2 P2 P3", []uint64{3, 1, 2}},
		{"a prefetch lists without counting", nil, "P1 P1 F2", []uint64{2, 1}},
		{"a prefetch does not promote", nil, "P1 P2 F1", []uint64{1, 2}},
		{"history: a refault counts", nil, "P1 P1 R1 P2 P2 P1", []uint64{2, 1}},
		{"a hit on an evicted chunk is ignored", nil, "P1 R1 T1 P2 P1", []uint64{2, 1}},
		{"no history: a refault starts at 0", func(o *LFUOptions) { o.Forget = true }, "P1 P1 R1 P2 P2 P1", []uint64{1, 2}},
		{"the top bin saturates, ordered by recency", func(o *LFUOptions) { o.Bins = 2 }, "P1 P1 P1 P2 P2", []uint64{1, 2}},
		{"a saturated hit moves to the recent end", func(o *LFUOptions) { o.Bins = 2 }, "P1 P1 P1 P2 P2 T1", []uint64{2, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := observ
			if c.opt != nil {
				c.opt(&o)
			}
			p := apply(t, NewLFU(one, o), c.script)
			if got := p.Victims(0, 10, none, nil); !slices.Equal(got, c.want) {
				t.Fatalf("victims %v, want %v", got, c.want)
			}
		})
	}
}

// Pick draws, then scans forward from its last draw, and shows taken every
// index it tries.
func TestPick(t *testing.T) {
	for _, c := range []struct {
		name  string
		draws []int
		n     int
		tries int
		taken []int
		want  int
		tried []int
	}{
		{"the first free draw", []int{3, 1}, 5, 2, nil, 3, []int{3}},
		{"a taken draw draws again", []int{3, 1}, 5, 2, []int{3}, 1, []int{3, 1}},
		{"then the scan from the last draw, wrapping", []int{3, 4}, 5, 2, []int{3, 4, 0}, 1, []int{3, 4, 0, 1}},
		{"every index taken", []int{0}, 3, 1, []int{0, 1, 2}, -1, []int{0, 1, 2}},
		{"nothing to pick", nil, 0, 2, nil, -1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tried []int
			i := 0
			draw := func(n int) int { d := c.draws[i]; i++; return d }
			got := Pick(draw, c.n, c.tries, func(j int) bool { tried = append(tried, j); return slices.Contains(c.taken, j) })
			if got != c.want || !slices.Equal(tried, c.tried) {
				t.Fatalf("Pick = %d trying %v, want %d trying %v", got, tried, c.want, c.tried)
			}
		})
	}
}

func TestNRU(t *testing.T) {
	runVictims(t, NRU, []victimCase{
		// Every page arrives referenced: the first request finds none
		// clear, so it clears the bits and lists by arrival.
		{"all referenced: arrival order", "P4 P0 P9", 2, nil, []uint64{4, 0}},
		{"pinned pages stay", "P4 P0 P9", 2, []uint64{4}, []uint64{0, 9}},
		{"n beyond the resident set", "P4 P9", 10, nil, []uint64{4, 9}},
		{"removed pages are gone", "P4 P0 R4", 1, nil, []uint64{0}},
	})
	// After a clearing, pages touched (or placed) since come last.
	p := play(t, NRU, small, "P4 P0 P9 P12")
	none := pinnedSet()
	if got := p.Victims(0, 1, none, nil); !slices.Equal(got, []uint64{4}) {
		t.Fatalf("first request %v", got)
	}
	p.(Toucher).Touch(0, 0)
	p.Placed(0, 20)
	p.(Toucher).Touch(0, 21) // not resident: ignored
	if got := p.Victims(0, 2, none, nil); !slices.Equal(got, []uint64{4, 9}) {
		t.Fatalf("unreferenced first: %v, want [4 9]", got)
	}
	// Asking for more than the unreferenced pages lists the referenced
	// ones after them, and starts a new period in which all are clear.
	if got := p.Victims(0, 5, none, nil); !slices.Equal(got, []uint64{4, 9, 12, 0, 20}) {
		t.Fatalf("shortage: %v, want [4 9 12 0 20]", got)
	}
	if got := p.Victims(0, 5, none, nil); !slices.Equal(got, []uint64{4, 0, 9, 12, 20}) {
		t.Fatalf("after the shortage every bit is clear: %v, want arrival order [4 0 9 12 20]", got)
	}
}

func TestSequentialLocal(t *testing.T) {
	runVictims(t, SequentialLocal, []victimCase{
		{"the LRU page's block goes whole", "P5 P4 P9 P0", 1, nil, []uint64{4, 5}},
		{"touches reorder the pages", "P4 P5 P9 T4 T5", 1, nil, []uint64{9}},
		{"n spans blocks without duplicates", "P4 P5 P9 P0", 3, nil, []uint64{4, 5, 9}},
		{"a pinned LRU page stays, its block may go", "P4 P5 P9", 1, []uint64{4}, []uint64{5}},
		{"removed then placed again is most recent", "P4 P9 R4 P4", 1, nil, []uint64{9}},
		{"n beyond the resident set", "P4 P9 P1", 10, nil, []uint64{4, 9, 1}},
	})
}

// TBN with chunks of 8 pages: leaves are the blocks [0,2) [2,4) [4,6)
// [6,8), then the nodes [0,4) and [4,8), then the root [0,8).
func TestTBNEviction(t *testing.T) {
	runVictims(t, TBN, []victimCase{
		{"a lone block goes alone", "P0 P1", 1, nil, []uint64{0, 1}},
		{"the under-half sibling node empties", "P0 P1 P2 P4 P5 P6 P7", 1, nil, []uint64{0, 1, 2}},
		{"a half-full node stays", "P0 P1 P2 P3 P4 P5 P6 P7", 1, nil, []uint64{0, 1}},
		{"the cascade reaches the root", "P0 P1 P2 P3 P4", 1, nil, []uint64{0, 1, 2, 3, 4}},
		{"pinned pages stay and count as valid", "P0 P1 P2", 1, []uint64{2}, []uint64{0, 1}},
		{"the cascade stays in the chunk", "P0 P1 P9", 1, nil, []uint64{0, 1}},
		{"n spans chunks", "P0 P1 P9", 3, nil, []uint64{0, 1, 9}},
		{"touches choose the block", "P0 P1 P6 P7 T0 T1", 1, nil, []uint64{6, 7, 0, 1}},
	})
}

// The random policies: victims depend only on the seed and the history.
func TestRandomPoliciesDeterministic(t *testing.T) {
	script := "P0 P1 P2 P3 P5 P8 P9 P13 P17 P20 P21 P22 P27 P31 R2 P2"
	for _, name := range []string{Random4KB, LinearRandom} {
		t.Run(name, func(t *testing.T) {
			run := func(seed uint64) []uint64 {
				o := small
				o.Seed = seed
				p := play(t, name, o, script)
				var out []uint64
				for range 3 {
					v := p.Victims(0, 2, pinnedSet(5), nil)
					out = append(out, v...)
					for _, pg := range v[:1] {
						p.Removed(0, pg)
					}
				}
				return out
			}
			a, b := run(1), run(1)
			if !slices.Equal(a, b) {
				t.Fatalf("seed 1 gave %v then %v", a, b)
			}
			differ := false
			for seed := uint64(2); seed < 10 && !differ; seed++ {
				differ = !slices.Equal(a, run(seed))
			}
			if !differ {
				t.Fatalf("seeds 1-9 all gave %v", a)
			}
			if slices.Contains(a, 5) {
				t.Fatalf("pinned page 5 in %v", a)
			}
		})
	}
}

// LinearRandom lists whole blocks, each in ascending page order.
func TestLinearRandomListsBlocks(t *testing.T) {
	p := play(t, LinearRandom, small, "P0 P1 P3 P8 P9 P13 P20 P21 R13 P13")
	got := p.Victims(0, 100, pinnedSet(8), nil)
	want := map[uint64][]uint64{0: {0, 1}, 1: {3}, 4: {9}, 6: {13}, 10: {20, 21}}
	seen := map[uint64]bool{}
	for i := 0; i < len(got); {
		b := got[i] / 2
		if seen[b] {
			t.Fatalf("block %d listed twice in %v", b, got)
		}
		seen[b] = true
		j := i
		for j < len(got) && got[j]/2 == b {
			j++
		}
		if !slices.Equal(got[i:j], want[b]) {
			t.Fatalf("block %d listed as %v in %v, want %v", b, got[i:j], got, want[b])
		}
		i = j
	}
	if len(seen) != len(want) {
		t.Fatalf("victims %v: blocks %v, want %v", got, seen, want)
	}
}

func TestRandom4KBRemovalAndReplacement(t *testing.T) {
	p := play(t, Random4KB, small, "P0 P1 P2 R1")
	if got := p.Victims(0, 10, pinnedSet(), nil); slices.Contains(got, 1) || len(got) != 2 {
		t.Fatalf("victims %v after removing 1", got)
	}
	p.Placed(0, 1)
	got := p.Victims(0, 10, pinnedSet(), nil)
	slices.Sort(got)
	if !slices.Equal(got, []uint64{0, 1, 2}) {
		t.Fatalf("victims %v after placing 1 again", got)
	}
}

func TestTouchers(t *testing.T) {
	for name, wants := range map[string]bool{
		LRM2MB: false, LRU4KB: true, LRU2MB: true, Random4KB: false,
		LFU2MB: true, SequentialLocal: true, TBN: true, LinearRandom: false, NRU: true,
	} {
		p, err := NewWith(name, small)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.(Toucher); ok != wants {
			t.Errorf("%s: Toucher %v, want %v", name, ok, wants)
		}
	}
	if len(Names()) != 9 {
		t.Errorf("Names() = %v", Names())
	}
}

func TestNewWithErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
		msg  string
	}{
		{TBN, Options{GPUs: 1, Pages: 24, PagesPerChunk: 12, PagesPerBlock: 2}, "not a power-of-two number"},
		{TBN, Options{GPUs: 1, Pages: 24, PagesPerChunk: 8, PagesPerBlock: 3}, "not a power-of-two number"},
		{SequentialLocal, Options{GPUs: 1, Pages: 24, PagesPerChunk: 8}, "both must be at least 1"},
		{"lru", small, "valid policies are lrm-2mb, lru-4kb, lru-2mb, random-4kb, lfu-2mb, sequential-local, tbn, linear-random, nru"},
	} {
		if _, err := NewWith(c.name, c.o); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %+v: error %v, want %q", c.name, c.o, err, c.msg)
		}
	}
	for _, name := range Names() {
		if _, err := New(name, 1, 1024, 512); err != nil {
			t.Errorf("New(%s) with 2 MB chunks: %v", name, err)
		}
	}
}

// A Switch feeds both policies from the start, so the second picks from
// the full resident set the moment it takes over.
func TestSwitch(t *testing.T) {
	first, _ := NewWith(LRM2MB, small)
	second, _ := NewWith(LRU4KB, small)
	s := NewSwitch(first, second)
	for _, p := range []uint64{0, 8, 9} {
		s.Placed(0, p)
	}
	s.Touch(0, 0) // only the LRU sees it
	s.Removed(0, 9)
	none := pinnedSet()
	if got := s.Victims(0, 1, none, nil); !slices.Equal(got, []uint64{0}) || s.Switched() {
		t.Fatalf("before Use, lrm-2mb's chunk 0 first: %v", got)
	}
	s.Use()
	if got := s.Victims(0, 2, none, nil); !slices.Equal(got, []uint64{8, 0}) || !s.Switched() {
		t.Fatalf("after Use, LRU order without the removed page: %v, want [8 0]", got)
	}
}
