package suv

import (
	"reflect"
	"strings"
	"testing"
)

// prerun is a test's functional pre-run: it enumerates what each
// workgroup of a launch touches, as the simulator's pre-run would from a
// workload's streams, and reduces it to LaunchStats.
type prerun struct {
	workgroups, concurrent, iters int
	// touch lists the pages of object o that workgroup wg touches in
	// iteration it, each with accessesPerPage lane accesses.
	touch map[string]func(it, wg int) []int64
	per   map[string]int64 // lane accesses per touched page
	chase map[string]bool
	loop  map[string]bool // launched in the host loop: report extents
}

func (r prerun) stats(iter int) LaunchStats {
	s := LaunchStats{Workgroups: r.workgroups, ConcurrentWorkgroups: r.concurrent, Iteration: iter}
	for _, name := range []string{"B", "A", "L", "I", "Z"} {
		f, ok := r.touch[name]
		if !ok {
			continue
		}
		st := ObjectStats{Object: name, PointerChase: r.chase[name]}
		all := map[int64]bool{}
		sets := make([][]int64, r.workgroups)
		for wg := range sets {
			sets[wg] = f(iter, wg)
			st.Accesses += int64(len(sets[wg])) * r.per[name]
			for _, p := range sets[wg] {
				all[p] = true
			}
		}
		st.PagesTouched = int64(len(all))
		for w := 0; w+r.concurrent <= r.workgroups; w++ {
			win := map[int64]bool{}
			for _, set := range sets[w : w+r.concurrent] {
				for _, p := range set {
					win[p] = true
				}
			}
			st.WindowPages = max(st.WindowPages, int64(len(win)))
		}
		if r.loop[name] {
			for it := 0; it < r.iters; it++ {
				lo, hi := int64(1<<62), int64(-1)
				for wg := 0; wg < r.workgroups; wg++ {
					for _, p := range f(it, wg) {
						lo, hi = min(lo, p), max(hi, p)
					}
				}
				st.Iterations = append(st.Iterations, PageExtent{FirstPage: lo, Pages: hi - lo + 1})
			}
		}
		s.Objects = append(s.Objects, st)
	}
	return s
}

func pages(first, n int64) []int64 {
	ps := make([]int64, n)
	for i := range ps {
		ps[i] = first + int64(i)
	}
	return ps
}

var oracleObjects = []Object{{"B", 256 * kb}, {"A", 4 * mb}, {"L", mb}, {"I", 8 * mb}, {"Z", mb}}

// knownPattern: B read whole by every workgroup (Density), A in 16-page
// slices per workgroup (Temporal with 8 resident), L chased, I a 512 KB
// slice per host iteration (Iterative); Z untouched.
func knownPattern(concurrent int) prerun {
	return prerun{workgroups: 64, concurrent: concurrent, iters: 16,
		touch: map[string]func(it, wg int) []int64{
			"B": func(_, _ int) []int64 { return pages(0, 64) },
			"A": func(_, wg int) []int64 { return pages(16*int64(wg), 16) },
			"L": func(_, wg int) []int64 { return []int64{int64(wg*37) % 256} },
			"I": func(it, wg int) []int64 { return pages(128*int64(it)+2*int64(wg), 2) },
		},
		per:   map[string]int64{"B": 256, "A": 4096, "L": 1000, "I": 512},
		chase: map[string]bool{"L": true},
		loop:  map[string]bool{"I": true},
	}
}

func TestOracleRecoversDeclaredHints(t *testing.T) {
	c := DefaultConfig()
	iter := Iteration{Index: 5, Count: 16, OffsetBytes: 0, StrideBytes: 512 * kb, SpanBytes: 512 * kb}
	declared := Hints{
		{Object: "B", Class: Density, Density: 4, WSSBytes: 256 * kb},
		{Object: "A", Class: Temporal, Density: 1, WSSBytes: 8 * 16 * 4 * kb},
		{Object: "L", Class: Unknown, Density: 64000.0 / mb},
		{Object: "I", Class: Iterative, Density: 1.0 / 128, WSSBytes: 8 * 2 * 4 * kb, Iter: iter},
	}
	got, err := Oracle(c, oracleObjects, knownPattern(8).stats(5))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, declared) {
		t.Fatalf("oracle hints\n%+v\nwant\n%+v", got, declared)
	}
	// The hints plan like declared ones.
	a, err := PlanLaunch(c, 6*mb, oracleObjects, got)
	if err != nil {
		t.Fatal(err)
	}
	b := mustPlan(t, c, 6*mb, oracleObjects, declared)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("plans from oracle and declared hints differ")
	}

	// Too many resident workgroups: SUV-Host skips the WSS, so A is Density.
	got, err = Oracle(c, oracleObjects, knownPattern(33).stats(5))
	if err != nil {
		t.Fatal(err)
	}
	want := Hints{
		{Object: "B", Density: 4}, {Object: "A", Density: 1},
		{Object: "L", Class: Unknown, Density: 64000.0 / mb},
		{Object: "I", Class: Iterative, Density: 1.0 / 128, Iter: iter},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("33 of 64 resident:\n%+v\nwant\n%+v", got, want)
	}
	// Exactly half resident still computes the WSS (the rule is "more
	// than half"), but 2MB is exactly half of A: not Temporal (strict).
	if got, _ := Oracle(c, oracleObjects, knownPattern(32).stats(5)); got[1].Class != Density || got[1].WSSBytes != 2*mb {
		t.Errorf("32 of 64 resident: A %+v, want density with a 2MB WSS", got[1])
	}
	if got, _ := Oracle(c, oracleObjects, knownPattern(31).stats(5)); got[1].Class != Temporal || got[1].WSSBytes != 31*16*4*kb {
		t.Errorf("31 of 64 resident: A %+v, want temporal", got[1])
	}
}

func TestOracleNeedsAnAffineMovingSpan(t *testing.T) {
	r := knownPattern(8)
	r.touch["I"] = func(it, wg int) []int64 { return pages(0, 64*int64(it+1)) } // triangular: grows from 0
	got, err := Oracle(DefaultConfig(), oracleObjects, r.stats(3))
	if err != nil {
		t.Fatal(err)
	}
	if h := got[3]; h.Class == Iterative || h.Iter != (Iteration{}) || h.WSSBytes != mb {
		t.Errorf("growing extents: %+v, want not iterative, 1MB WSS", h)
	}
	r.touch["I"] = func(it, wg int) []int64 { return pages(0, 64) } // same span every iteration
	if got, _ := Oracle(DefaultConfig(), oracleObjects, r.stats(3)); got[3].Class == Iterative {
		t.Errorf("unmoving span: %+v, want not iterative", got[3])
	}
}

func TestOracleRejectsBadStats(t *testing.T) {
	good := knownPattern(8).stats(5)
	for _, tc := range []struct {
		name string
		mod  func(*LaunchStats)
		want string
	}{
		{"unknown object", func(s *LaunchStats) { s.Objects[0].Object = "Q" }, `object "Q", which the launch does not have: valid objects are B, A, L, I, Z`},
		{"twice", func(s *LaunchStats) { s.Objects[1].Object = "B" }, `"B" given twice`},
		{"negative accesses", func(s *LaunchStats) { s.Objects[1].Accesses = -1 }, `"A": accesses -1`},
		{"window over touched", func(s *LaunchStats) { s.Objects[1].WindowPages = s.Objects[1].PagesTouched + 1 }, `"A": 1024 pages touched and 1025 in the window`},
		{"accessed, no page", func(s *LaunchStats) { s.Objects[0].PagesTouched, s.Objects[0].WindowPages = 0, 0 }, `"B": 0 pages touched`},
		{"no workgroups", func(s *LaunchStats) { s.Workgroups = 0 }, "workgroups 0"},
		{"iteration out of range", func(s *LaunchStats) { s.Iteration = 16 }, `iteration 16 of "I": must be in 0..15`},
		{"extent outside", func(s *LaunchStats) {
			s.Objects[3].Iterations = append([]PageExtent(nil), s.Objects[3].Iterations...)
			s.Objects[3].Iterations[2].Pages = 1 << 20
		}, `iteration 2 of "I"`},
	} {
		s := good
		s.Objects = append([]ObjectStats(nil), good.Objects...)
		tc.mod(&s)
		if _, err := Oracle(DefaultConfig(), oracleObjects, s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
