package accelsim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestObjectsOf: the objects the copies and touched chunks make are
// disjoint and where the package documentation says, whatever the copies'
// overlaps and the chunks they share.
func TestObjectsOf(t *testing.T) {
	const c = chunk
	cp := func(lo, hi uint64) object { return object{span: span{lo, hi}, copied: true} }
	buf := func(lo, hi uint64) object { return object{span: span{lo, hi}} }
	for _, tc := range []struct {
		name    string
		copies  []object
		tails   []bool
		touched []runs // a kernel's each
		want    []object
	}{
		{"a copy, and a buffer", []object{cp(0, 1024)}, nil, []runs{{{0, 1}, {5, 6}}}, []object{cp(0, 1024), buf(5*c, 6*c)}},
		{"a copy extended over the chunks that continue it", []object{cp(0, 1024)}, nil, []runs{{{0, 1}}, {{1, 3}}}, []object{cp(0, 3*c)}},
		{"an extension stops at the next copy", []object{cp(0, 1024), cp(c+100, c+200)}, nil, []runs{{{0, 3}}}, []object{cp(0, c+100), cp(c+100, 3*c)}},
		{"overlapping copies are one", []object{cp(500, 2000), cp(0, 1000)}, nil, []runs{{{0, 1}}}, []object{cp(0, 2000)}},
		{"a copy twice is one", []object{cp(0, 1000), cp(0, 1000)}, nil, []runs{{{0, 1}}}, []object{cp(0, 1000)}},
		{"a touched tail goes with its copy", []object{cp(0, 1000)}, []bool{true}, []runs{{{0, 1}}}, []object{cp(0, c)}},
		{"a tail, then the chunks after it", []object{cp(0, 1000)}, []bool{true}, []runs{{{0, 2}}}, []object{cp(0, 2*c)}},
		{"a buffer stops where a copy starts", []object{cp(c+100, c+200)}, nil, []runs{{{0, 2}}}, []object{buf(0, c+100), cp(c+100, c+200)}},
		{"adjacent chunks of two kernels are one buffer", nil, nil, []runs{{{0, 1}}, {{1, 2}}}, []object{buf(0, 2*c)}},
		{"the top of the modelled space", []object{cp(addrLimit-10, addrLimit)}, []bool{true}, []runs{{{addrLimit/c - 1, addrLimit / c}}}, []object{buf(addrLimit-c, addrLimit-10), cp(addrLimit-10, addrLimit)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ks := make([]*kernelFile, len(tc.touched))
			for i, r := range tc.touched {
				ks[i] = &kernelFile{runs: r}
			}
			copies := mergeCopies(tc.copies)
			tails := append(tc.tails, make([]bool, len(copies))...)
			got, err := objectsOf(copies, tails, ks)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b object) bool { return a.span == b.span && a.copied == b.copied }) {
				t.Fatalf("objects %s, want %s", show(got), show(tc.want))
			}
		})
	}
}

func show(objs []object) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "[%#x,%#x) copied %v; ", o.lo, o.hi, o.copied)
	}
	return b.String()
}

// TestObjectsOfRefusesTooMuch: kernels touching more chunks than mgpu
// simulates are refused, counted from their runs, not allocated.
func TestObjectsOfRefusesTooMuch(t *testing.T) {
	ks := []*kernelFile{{runs: runs{{0, MaxChunks}}}, {runs: runs{{MaxChunks + 5, MaxChunks + 6}}}}
	if _, err := objectsOf(nil, nil, ks); err == nil || !strings.Contains(err.Error(), "8388609 chunks") {
		t.Fatalf("got %v, want %d chunks refused", err, MaxChunks+1)
	}
}

// TestMarkTail: an address past a copy's end, in the copy's last chunk,
// marks that copy; one elsewhere marks none.
func TestMarkTail(t *testing.T) {
	copies := []object{{span: span{0, 1000}}, {span: span{chunk, chunk + 10}}}
	for _, tc := range []struct {
		a    uint64
		want []bool
	}{
		{999, []bool{false, false}},
		{1000, []bool{true, false}},
		{chunk - 1, []bool{true, false}},
		{chunk + 10, []bool{false, true}},
		{2 * chunk, []bool{false, false}},
	} {
		tails := make([]bool, 2)
		markTail(copies, tails, tc.a)
		if !slices.Equal(tails, tc.want) {
			t.Errorf("address %#x: tails %v, want %v", tc.a, tails, tc.want)
		}
	}
}

// TestArgs: a kernel's arguments are the objects its runs overlap.
func TestArgs(t *testing.T) {
	m := &memory{objs: []object{{span: span{0, 1000}}, {span: span{chunk, 3 * chunk}}, {span: span{5 * chunk, 6 * chunk}}}}
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
