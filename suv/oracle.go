package suv

import (
	"fmt"
	"strings"
)

// Oracle mode computes hints from a functional pre-run instead of from
// static analysis. It is an UPPER BOUND on SUV, not SUV: the pre-run is
// profiling, which SUV exists to avoid (§I), and measured numbers
// are exact where the compiler's are estimates. Density counts the
// accesses that happened, not those of every branch path (§V-B
// over-estimates data-dependent branches); the WSS is the pages that
// resident workgroups really share, not the per-workgroup range times the
// concurrent workgroups; and indirect accesses get a WSS that SUV could
// not compute (§V-B keeps them Density). Only what a trace cannot show,
// pointer chasing, comes from the generator, so Unknown stays as SUV
// would tag it and Algorithm 1's structure is unchanged.

// PageExtent is the hull of the pages one object's accesses covered in
// one iteration of a host loop: pages FirstPage .. FirstPage+Pages-1,
// counted from the object's first page.
type PageExtent struct {
	FirstPage, Pages int64
}

// ObjectStats are one object's measurements in one launch.
type ObjectStats struct {
	Object string
	// Accesses are thread-level (lane) accesses, the unit of SUV's access
	// count (threads x trip counts): a wavefront instruction over 64
	// active lanes counts 64.
	Accesses int64
	// PagesTouched is the distinct pages the launch touched; it bounds
	// WindowPages.
	PagesTouched int64
	// WindowPages is the most distinct pages touched by any
	// ConcurrentWorkgroups consecutive workgroups in dispatch order: the
	// measured working set; 0 if not measured.
	WindowPages int64
	// PointerChase is set by the generator when addresses come from loaded
	// data (pointer chase, data-dependent loop bounds).
	PointerChase bool
	// Iterations holds, when the launch is in a host loop, the extent of
	// every iteration of the loop (index = iteration); nil otherwise.
	Iterations []PageExtent
}

// LaunchStats are a pre-run's measurements of one launch.
type LaunchStats struct {
	// Workgroups is the grid; ConcurrentWorkgroups how many can be
	// resident at once on the GPU (SUV: threads per SM / threads per
	// workgroup x SMs).
	Workgroups, ConcurrentWorkgroups int
	// Iteration is the launch's host-loop iteration (when any object has
	// Iterations).
	Iteration int
	Objects   []ObjectStats
}

// Oracle computes the launch's hints from s, classifying as SUV-Host
// does: pointer chase is Unknown; spans whose start moves by a constant
// number of pages per iteration are Iterative; when the resident
// workgroups are at most ConcurrentFraction of the grid the window is the
// WSS, and Classify decides Temporal or Density. Objects with no accesses
// get no hint. Each hint's class is the one Classify returns under c.
func Oracle(c Config, objects []Object, s LaunchStats) (Hints, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := ValidateObjects(objects); err != nil {
		return nil, err
	}
	if s.Workgroups < 1 || s.ConcurrentWorkgroups < 1 {
		return nil, fmt.Errorf("suv oracle: workgroups %d, concurrent %d: both must be at least 1", s.Workgroups, s.ConcurrentWorkgroups)
	}
	size := make(map[string]int64, len(objects))
	names := make([]string, len(objects))
	for i, o := range objects {
		size[o.Name], names[i] = o.Bytes, o.Name
	}
	page := c.page()
	wssKnown := float64(s.ConcurrentWorkgroups) <= c.ConcurrentFraction*float64(s.Workgroups)
	seen := map[string]bool{}
	var hs Hints
	for _, st := range s.Objects {
		n, ok := size[st.Object]
		if !ok {
			return nil, fmt.Errorf("suv oracle: stats name object %q, which the launch does not have: valid objects are %s", st.Object, strings.Join(names, ", "))
		}
		if seen[st.Object] {
			return nil, fmt.Errorf("suv oracle: stats for %q given twice", st.Object)
		}
		seen[st.Object] = true
		if st.Accesses < 0 || st.PagesTouched < 0 || st.WindowPages < 0 {
			return nil, fmt.Errorf("suv oracle: stats for %q: accesses %d, pages touched %d, window pages %d: none may be negative", st.Object, st.Accesses, st.PagesTouched, st.WindowPages)
		}
		if st.Accesses == 0 {
			continue
		}
		if st.PagesTouched < 1 || st.WindowPages > st.PagesTouched {
			return nil, fmt.Errorf("suv oracle: stats for %q: %d pages touched and %d in the window: an accessed object touches at least one page, and the window no more than the launch", st.Object, st.PagesTouched, st.WindowPages)
		}
		h := Hint{Object: st.Object, Density: float64(st.Accesses) / float64(n)}
		if st.PointerChase {
			h.Class = Unknown
			hs = append(hs, h)
			continue
		}
		if wssKnown && st.WindowPages > 0 {
			h.WSSBytes = min(st.WindowPages*page, alignUp(n, page))
		}
		if it, ok, err := fitIterations(st, s.Iteration, n, page); err != nil {
			return nil, err
		} else if ok {
			h.Class, h.Iter = Iterative, it
		}
		if h.Class = Classify(c, h, n); h.Class != Iterative {
			h.Iter = Iteration{}
		}
		hs = append(hs, h)
	}
	if err := hs.Validate(objects); err != nil {
		return nil, fmt.Errorf("suv oracle: %w", err)
	}
	return hs, nil
}

// fitIterations recovers the affine span of an iterative access from its
// per-iteration extents: the first page must move by the same non-zero
// number of pages every iteration; the span is the widest extent. Any
// other shape is not Iterative (SUV's span is one memop's range, whose
// start is an expression of the induction variable).
func fitIterations(st ObjectStats, index int, size, page int64) (Iteration, bool, error) {
	ex := st.Iterations
	if len(ex) < 2 {
		return Iteration{}, false, nil
	}
	if index < 0 || index >= len(ex) {
		return Iteration{}, false, fmt.Errorf("suv oracle: iteration %d of %q: must be in 0..%d", index, st.Object, len(ex)-1)
	}
	d := ex[1].FirstPage - ex[0].FirstPage
	var widest int64
	for i, e := range ex {
		if e.FirstPage < 0 || e.Pages < 1 || (e.FirstPage+e.Pages)*page > alignUp(size, page) {
			return Iteration{}, false, fmt.Errorf("suv oracle: iteration %d of %q: pages %d..%d: outside the object's %d pages", i, st.Object, e.FirstPage, e.FirstPage+e.Pages-1, alignUp(size, page)/page)
		}
		if e.FirstPage != ex[0].FirstPage+int64(i)*d {
			return Iteration{}, false, nil
		}
		widest = max(widest, e.Pages)
	}
	if d == 0 {
		return Iteration{}, false, nil
	}
	return Iteration{Index: index, Count: len(ex), OffsetBytes: ex[0].FirstPage * page,
		StrideBytes: d * page, SpanBytes: min(widest*page, size)}, true, nil
}
