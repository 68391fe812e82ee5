package observuvm

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/eviction"
)

// testRegions is the region count the policy tests size policies for.
const testRegions = 1024

// touch is an access-counter hit (onAccessCounter) on r.
func touch(p Policy, g int, r uint64) {
	if t, ok := p.(eviction.Toucher); ok {
		t.Touch(g, r)
	}
}

// evict is onEviction: the engine's feedback, then the removal.
func evict(p Policy, g int, r uint64, unseen bool) {
	if f, ok := p.(Feedback); ok && unseen {
		f.Unseen(g, r)
	}
	p.Removed(g, r)
}

// victim is one eviction request.
func victim(p Policy, g int, skip func(uint64) bool) (uint64, bool) {
	v := p.Victims(g, 1, skip, nil)
	if len(v) == 0 {
		return 0, false
	}
	return v[0], true
}

// play builds policy name with cfg and applies script on GPU 0: "F5" is a
// fault in region 5, "A5" an access-counter hit, "P5" a prefetch, "H5" an
// HBM hit (oracle only), "E5" an eviction, "U5" an eviction unseen. GPU 1
// holds region 99, faulted, which GPU 0 must never return.
func play(t *testing.T, name string, cfg Config, script string) Policy {
	t.Helper()
	p, err := New(name, cfg, 2, testRegions)
	if err != nil {
		t.Fatal(err)
	}
	p.Placed(1, 99)
	for _, op := range strings.Fields(script) {
		r, err := strconv.ParseUint(op[1:], 10, 64)
		if err != nil {
			t.Fatalf("bad op %q", op)
		}
		switch op[0] {
		case 'F':
			p.Placed(0, r)
		case 'A':
			touch(p, 0, r)
		case 'P':
			prefetched(p, 0, r)
		case 'H':
			if h, ok := p.(HitObserver); ok {
				h.OnHit(0, r)
			}
		case 'E', 'U':
			evict(p, 0, r, op[0] == 'U')
		default:
			t.Fatalf("bad op %q", op)
		}
	}
	return p
}

// drain evicts every region of GPU 0, in victim order.
func drain(p Policy) []uint64 {
	var out []uint64
	for {
		r, ok := victim(p, 0, nil)
		if !ok || len(out) > 1000 {
			return out
		}
		out = append(out, r)
		evict(p, 0, r, false)
	}
}

func skipSet(rs ...uint64) func(uint64) bool {
	return func(r uint64) bool { return slices.Contains(rs, r) }
}

type orderCase struct {
	name, script string
	want         []uint64
}

func runOrder(t *testing.T, name string, cfg Config, cases []orderCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := play(t, name, cfg, c.script)
			if got := drain(p); !slices.Equal(got, c.want) {
				t.Fatalf("victims %v, want %v", got, c.want)
			}
		})
	}
}

func TestLRM(t *testing.T) {
	runOrder(t, LRM, DefaultConfig(), []orderCase{
		{"blind to hits", "F1 F2 A1 H1", []uint64{1, 2}},
		{"a prefetch is a migration", "F1 F2 P1", []uint64{2, 1}},
	})
	p := play(t, LRM, DefaultConfig(), "F1 F2")
	if c := p.Candidates(0, 5, nil, nil); len(c) != 0 {
		t.Errorf("LRM observes %v", c)
	}
}

func TestLRU(t *testing.T) {
	runOrder(t, LRU, DefaultConfig(), []orderCase{
		{"an observed hit promotes", "F1 F2 F3 A1", []uint64{2, 3, 1}},
		{"a prefetch inserts", "P3 F1", []uint64{3, 1}},
		{"a prefetch does not promote", "F1 F2 P1", []uint64{1, 2}},
		{"HBM hits are invisible", "F1 F2 H1", []uint64{1, 2}},
	})
	p := play(t, LRU, DefaultConfig(), "F1 F2 F3 F4")
	if c := p.Candidates(0, 2, skipSet(1), nil); !slices.Equal(c, []uint64{2, 3}) {
		t.Errorf("candidates %v: want the unobserved nearest the head", c)
	}
	if r, _ := victim(p, 0, skipSet(1, 2)); r != 3 {
		t.Errorf("victim with skip %d", r)
	}
}

func TestOracleLRU(t *testing.T) {
	runOrder(t, OracleLRU, DefaultConfig(), []orderCase{
		{"every HBM hit promotes", "F1 F2 F3 H1 H2", []uint64{3, 1, 2}},
		{"a hit on an absent region is ignored", "F1 H5 F2", []uint64{1, 2}},
	})
	if c := play(t, OracleLRU, DefaultConfig(), "F1").Candidates(0, 3, nil, nil); len(c) != 0 {
		t.Errorf("the oracle observes %v", c)
	}
}

// TestLFU checks ObservUVM's wiring of eviction's LFU (its orders are
// eviction's TestLFUObservUVM): faults and hits count, a prefetch does
// not, and the config's bins and history reach it.
func TestLFU(t *testing.T) {
	c := DefaultConfig()
	runOrder(t, LFU, c, []orderCase{
		{"faults and hits count", "F1 F2 F3 F1 A2", []uint64{3, 1, 2}},
		{"a prefetch inserts without counting", "F1 F1 P2", []uint64{2, 1}},
		{"a hit on an evicted region is ignored", "F1 E1 A1 F2 F1", []uint64{2, 1}},
	})
	c.LFUKeepHistory = false
	runOrder(t, LFU, c, []orderCase{
		{"no history: a refault starts at 0", "F1 F1 E1 F2 F2 F1", []uint64{1, 2}},
	})
	c.LFUBins = 2
	runOrder(t, LFU, c, []orderCase{
		{"the top bin saturates, ordered by recency", "F1 F1 F1 F2 F2", []uint64{1, 2}},
	})
	p := play(t, LFU, DefaultConfig(), "F1 F1 F2 F3")
	if got := p.Candidates(0, 2, nil, nil); !slices.Equal(got, []uint64{2, 3}) {
		t.Errorf("candidates %v: want the lowest bin", got)
	}
	if got := p.Candidates(0, 3, skipSet(3), nil); !slices.Equal(got, []uint64{2, 1}) {
		t.Errorf("candidates %v: want the lowest bin, then the next", got)
	}
}

func cpConfig(victim string) Config {
	c := DefaultConfig()
	c.CPVictim = victim
	return c
}

// CP with 6 regions: window round(0.5*6) = 3 newest unprotected.
func TestCPVictim(t *testing.T) {
	for _, c := range []struct {
		name, script, mode string
		want               uint64
	}{
		{"boundary: oldest unprotected", "F1 F2 F3 F4 F5 F6", CPBoundary, 4},
		{"tail: newest", "F1 F2 F3 F4 F5 F6", CPTail, 6},
		{"a fault promotes into the window", "F1 F2 F3 F4 F5 F6 F1", CPBoundary, 5},
		{"a prefetch inserts at the tail", "F1 F2 F3 F4 F5 P6", CPBoundary, 4},
		{"a protected region leaving moves the boundary", "F1 F2 F3 F4 F5 F6 E1", CPBoundary, 4},
		{"odd count rounds the window", "F1 F2 F3 F4 F5", CPBoundary, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := play(t, CP, cpConfig(c.mode), c.script)
			if r, ok := victim(p, 0, nil); !ok || r != c.want {
				t.Fatalf("victim %d %v, want %d", r, ok, c.want)
			}
		})
	}
	// A skipped window falls back to the protected part.
	p := play(t, CP, cpConfig(CPBoundary), "F1 F2 F3 F4")
	if r, _ := victim(p, 0, skipSet(3, 4)); r != 1 {
		t.Fatalf("fallback victim %d", r)
	}
}

// Window feedback: a hit near S grows the window, an unseen eviction of an
// observed region shrinks it; regions CP did not nominate do not count.
func TestCPFeedback(t *testing.T) {
	p := play(t, CP, cpConfig(CPBoundary), "F1 F2 F3 F4 F5 F6")
	w := p.(*cp).Window
	if got := p.Candidates(0, 2, nil, nil); !slices.Equal(got, []uint64{4, 5}) || w(0) != 3 {
		t.Fatalf("candidates %v window %d: want [4 5] from S, window 3", got, w(0))
	}
	steps := []struct {
		op     string
		window int
		victim uint64
	}{
		{"A6", 3, 4}, // 6 was not nominated
		{"A4", 4, 3}, // used at S: grow; 3 joins the window
		{"A4", 4, 3}, // one hit per nomination
		{"U5", 3, 3}, // 5 evicted unseen: shrink
		{"U3", 3, 2}, // 3 not nominated: no change; list 1 2 4 6, window 2 4 6
	}
	for i, s := range steps {
		r, _ := strconv.ParseUint(s.op[1:], 10, 64)
		if s.op[0] == 'A' {
			touch(p, 0, r)
		} else {
			evict(p, 0, r, true)
		}
		if w(0) != s.window {
			t.Fatalf("step %d %s: window %d, want %d", i, s.op, w(0), s.window)
		}
		if v, _ := victim(p, 0, nil); v != s.victim {
			t.Fatalf("step %d %s: victim %d, want %d", i, s.op, v, s.victim)
		}
	}
	// The window never drops below 1.
	q := play(t, CP, cpConfig(CPBoundary), "F1 F2")
	for range 5 {
		r := q.Candidates(0, 1, nil, nil)
		evict(q, 0, r[0], true)
		q.Placed(0, r[0]+10)
	}
	if q.(*cp).Window(0) != 1 {
		t.Fatalf("window %d, want the floor 1", q.(*cp).Window(0))
	}
}

// loop runs accesses on GPU 0 of p with cap resident regions: a miss
// faults (evicting the victim when full), a hit is reported as an
// observed access when seen. It returns the misses.
func loop(p Policy, cap int, seq []uint64, seen bool) int {
	resident := map[uint64]bool{}
	misses := 0
	for _, r := range seq {
		if resident[r] {
			if seen {
				touch(p, 0, r)
			}
			continue
		}
		misses++
		if len(resident) == cap {
			v, _ := victim(p, 0, nil)
			delete(resident, v)
			evict(p, 0, v, false)
		}
		resident[r] = true
		p.Placed(0, r)
	}
	return misses
}

func cyclic(regions, times int) []uint64 {
	var s []uint64
	for range times {
		for r := range regions {
			s = append(s, uint64(r))
		}
	}
	return s
}

// A loop over 12 regions with room for 8: LRU misses every access, CP
// keeps its protected part and hits on it every cycle (Sec. VI-A).
func TestCPBeatsLRUOnLoops(t *testing.T) {
	seq := cyclic(12, 20)
	lruMiss := loop(play(t, LRU, DefaultConfig(), ""), 8, seq, true)
	cpMiss := loop(play(t, CP, DefaultConfig(), ""), 8, seq, true)
	if lruMiss != len(seq) {
		t.Errorf("LRU missed %d of %d", lruMiss, len(seq))
	}
	// 4 protected regions hit from the second cycle on.
	if want := len(seq) - 4*19; cpMiss != want {
		t.Errorf("CP missed %d, want %d", cpMiss, want)
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := New("mru", DefaultConfig(), 1, testRegions); err == nil ||
		!strings.Contains(err.Error(), `unknown observuvm eviction policy "mru": valid policies are lrm, lru, lfu, cp, tournament, oracle-lru`) {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := New(LRU, DefaultConfig(), 0, testRegions); err == nil {
		t.Error("0 GPUs accepted")
	}
	c := DefaultConfig()
	c.TournamentPolicies = LRU + ",arc"
	if _, err := New(Tournament, c, 1, testRegions); err == nil || !strings.Contains(err.Error(), `"arc"`) {
		t.Errorf("unknown constituent: %v", err)
	}
	for _, n := range PolicyNames() {
		p, err := New(n, DefaultConfig(), 3, testRegions)
		if err != nil || p.Name() != n {
			t.Errorf("%s: %v %v", n, p, err)
		}
	}
}
