package accelsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestObjects: the objects the copies and the touches outside them make
// are disjoint and where the package documentation says, whatever the
// copies' overlaps and the pages they share.
func TestObjects(t *testing.T) {
	const p = page
	cp := func(lo, hi uint64) object { return object{span: span{lo, hi}, origin: fromCopy} }
	tc := func(lo, hi uint64) object { return object{span: span{lo, hi}, origin: fromTouches} }
	for _, c := range []struct {
		name    string
		copies  []object
		touches []uint64
		want    []object
	}{
		{"a copy, and a buffer", []object{cp(0, 1024)}, []uint64{0, 5*p + 8}, []object{cp(0, 1024), tc(5*p, 6*p)}},
		{"a copy is widened to its granules", []object{cp(100, 1000)}, []uint64{100}, []object{cp(0, 1024)}},
		{"a flag copied 8 times is one object", slices.Repeat([]object{cp(64, 68)}, 8), []uint64{64}, []object{cp(0, 256)}},
		{"overlapping copies are one", []object{cp(512, 2000), cp(0, 1024)}, nil, []object{cp(0, 2048)}},
		{"copies end to end stay two", []object{cp(0, 512), cp(512, 1024)}, nil, []object{cp(0, 512), cp(512, 1024)}},
		{"an output packed after an input in its page is its own", []object{cp(0, 400)}, []uint64{0x200, 0x390}, []object{cp(0, 512), tc(512, p)}},
		{"an output crossing pages after an input is one object, not the input's", []object{cp(0, 3*p+400)}, []uint64{3*p + 0x200, 4*p + 10, 5*p + 99}, []object{cp(0, 3*p+512), tc(3*p+512, 6*p)}},
		{"touched pages that meet are one", nil, []uint64{p - 1, p}, []object{tc(0, 2*p)}},
		{"an untouched page splits", nil, []uint64{0, 2 * p}, []object{tc(0, p), tc(2*p, 3*p)}},
		{"a copy cuts a touched span", []object{cp(p+256, p+512)}, []uint64{p + 10, p + 600}, []object{tc(p, p+256), cp(p+256, p+512), tc(p+512, 2*p)}},
		{"a buffer before a copy stops at it", []object{cp(2*p+256, 2*p+512)}, []uint64{0, p, 2 * p}, []object{tc(0, 2*p+256), cp(2*p+256, 2*p+512)}},
		{"the top of the modelled space", []object{cp(addrLimit-256, addrLimit)}, []uint64{addrLimit - p}, []object{tc(addrLimit-p, addrLimit-256), cp(addrLimit-256, addrLimit)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLayout(c.copies)
			for _, a := range c.touches {
				l.touch(a)
			}
			got, err := l.objects()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, c.want, func(a, b object) bool { return a.span == b.span && a.origin == b.origin }) {
				t.Fatalf("objects %s, want %s", show(got), show(c.want))
			}
			checkCover(t, got, c.touches)
		})
	}
}

// TestObjectsCoverEveryTouch: over random copies and touches, the
// objects are disjoint and sorted, every touched address is in exactly
// one, every copied byte too, and no object from touches holds a copied
// byte.
func TestObjectsCoverEveryTouch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		var copies []object
		for range r.IntN(6) {
			lo := r.Uint64N(16 * page)
			copies = append(copies, object{span: span{lo, lo + 1 + r.Uint64N(3*page)}, origin: fromCopy})
		}
		var touches []uint64
		for range r.IntN(40) {
			touches = append(touches, r.Uint64N(24*page))
		}
		l := newLayout(copies)
		for _, a := range touches {
			l.touch(a)
		}
		objs, err := l.objects()
		if err != nil {
			t.Fatal(err)
		}
		checkCover(t, objs, touches)
		for _, c := range copies {
			for _, a := range []uint64{c.lo, c.hi - 1} {
				i := (&memory{objs: objs}).find(a)
				if i < 0 || objs[i].origin != fromCopy {
					t.Fatalf("trial %d: copied byte %#x in %v, want a copy's object: %s", trial, a, i, show(objs))
				}
			}
		}
	}
}

// checkCover fails unless objs are sorted, disjoint and non-empty, and
// every touch is in one.
func checkCover(t *testing.T, objs []object, touches []uint64) {
	t.Helper()
	for i, o := range objs {
		if o.lo >= o.hi || i > 0 && objs[i-1].hi > o.lo {
			t.Fatalf("objects not sorted, disjoint and non-empty: %s", show(objs))
		}
	}
	m := &memory{objs: objs}
	for _, a := range touches {
		if m.find(a) < 0 {
			t.Fatalf("touched address %#x in no object: %s", a, show(objs))
		}
	}
}

// TestObjectsRefuseTooMuch: touches in more pages than a conversion holds
// are refused, not held.
func TestObjectsRefuseTooMuch(t *testing.T) {
	defer func(p int) { maxPages = p }(maxPages)
	maxPages = 3
	l := newLayout(nil)
	for i := range uint64(10) {
		l.touch(i * page)
	}
	if len(l.outside) > maxPages+1 {
		t.Fatalf("%d pages held, want at most %d", len(l.outside), maxPages+1)
	}
	if _, err := l.objects(); err == nil || !strings.Contains(err.Error(), "more than 3 pages") {
		t.Fatalf("got %v, want the pages refused", err)
	}
}

// TestDescribe: each object says how it was inferred.
func TestDescribe(t *testing.T) {
	l := newLayout([]object{{span: span{0, 100}, origin: fromCopy, line: 3}, {span: span{0, 100}, origin: fromCopy, line: 5}})
	l.touch(200)
	l.touch(5000)
	objs, _ := l.objects()
	for i, want := range []string{"from MemcpyHtoD (kernelslist.g:3) of 100 bytes, 2 copies of one range merged, extended to cover touches", "inferred from touches alone"} {
		if got := objs[i].describe("kernelslist.g"); !strings.Contains(got, want) {
			t.Errorf("object %d: %q, want %q", i, got, want)
		}
	}
}

func show(objs []object) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "[%#x,%#x) origin %d; ", o.lo, o.hi, o.origin)
	}
	return b.String()
}

// TestArgs: a kernel's arguments are the objects its pages overlap.
func TestArgs(t *testing.T) {
	m := &memory{objs: []object{{span: span{0, 1000}}, {span: span{page, 3 * page}}, {span: span{5 * page, 6 * page}}}}
	for _, tc := range []struct {
		r    runs
		want []int
	}{
		{runs{{0, 1}}, []int{0}},
		{runs{{0, 2}}, []int{0, 1}},
		{runs{{2, 6}}, []int{1, 2}},
		{runs{{3, 5}}, nil},
	} {
		if got := m.args(tc.r); !slices.Equal(got, tc.want) {
			t.Errorf("runs %v: args %v, want %v", tc.r, got, tc.want)
		}
	}
}
