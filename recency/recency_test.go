package recency

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// model is the reference: each list a slice, least recent first.
type model [][]int32

func (m model) remove(k int, i int32) {
	m[k] = slices.DeleteFunc(m[k], func(x int32) bool { return x == i })
}

func walk(l *Lists, k int) (fwd, back []int32) {
	for i := l.Front(k); i != None; i = l.Next(i) {
		fwd = append(fwd, i)
	}
	for i := l.Back(k); i != None; i = l.Prev(i) {
		back = append(back, i)
	}
	slices.Reverse(back)
	return fwd, back
}

// Random pushes, moves and unlinks over three lists keep the order the
// slices keep, walked from either end.
func TestListsFollowTheModel(t *testing.T) {
	const n, k = 40, 3
	r := rand.New(rand.NewPCG(1, 2))
	l := NewLists(n, k)
	m := make(model, k)
	where := make([]int, n) // list of each node, -1 none
	for i := range where {
		where[i] = -1
	}
	for step := 0; step < 20000; step++ {
		i := int32(r.IntN(n))
		switch w := where[i]; {
		case w < 0:
			k := r.IntN(k)
			l.PushBack(k, i)
			m[k] = append(m[k], i)
			where[i] = k
		case r.IntN(2) == 0:
			l.MoveToBack(w, i)
			m.remove(w, i)
			m[w] = append(m[w], i)
		default:
			l.Unlink(w, i)
			m.remove(w, i)
			where[i] = -1
		}
		if step%97 == 0 {
			l.Grow() // a node in no list changes nothing
		}
		for k := range m {
			fwd, back := walk(l, k)
			if !slices.Equal(fwd, m[k]) || !slices.Equal(back, m[k]) {
				t.Fatalf("step %d list %d: forward %v, backward %v, want %v", step, k, fwd, back, m[k])
			}
		}
	}
	l.Reset()
	for k := range m {
		if l.Front(k) != None || l.Back(k) != None {
			t.Fatalf("list %d not empty after Reset", k)
		}
	}
}

// List tracks its members: Touch adds or refreshes, Remove of an absent
// index is ignored.
func TestListMembership(t *testing.T) {
	l := NewList(8)
	for _, i := range []int32{3, 5, 3, 7} {
		l.Touch(i)
	}
	l.Remove(2) // absent
	l.Remove(5)
	var got []int32
	for i := l.Front(); i != None; i = l.Next(i) {
		got = append(got, i)
	}
	if want := []int32{3, 7}; !slices.Equal(got, want) || l.Back() != 7 {
		t.Fatalf("order %v (back %d), want %v", got, l.Back(), want)
	}
	if !l.Contains(3) || l.Contains(5) || l.Contains(2) {
		t.Fatal("membership wrong")
	}
}
