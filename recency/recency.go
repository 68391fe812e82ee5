// Package recency keeps entries in order from least to most recent, as
// eviction (LRU, least recently migrated), cache replacement, SUV's quota
// pools and ObservUVM's region lists all need: an intrusive doubly linked
// list over dense int32 indices, so that moving an entry to the most
// recent end is O(1) and allocates nothing. Walks follow the list, never a
// map, so decisions that read the order are deterministic.
package recency

// None is the index that ends a walk: no entry.
const None int32 = -1

// Lists are k separate lists over one space of n nodes (a cache's sets
// over its ways): a node is in at most one list, and the caller knows
// which. They track no membership; List does.
type Lists struct {
	prev, next []int32
	head, tail []int32
}

// NewLists returns k empty lists over nodes 0..n-1.
func NewLists(n, k int) *Lists {
	l := &Lists{prev: make([]int32, n), next: make([]int32, n), head: make([]int32, k), tail: make([]int32, k)}
	l.Reset()
	return l
}

// Reset empties every list.
func (l *Lists) Reset() {
	for i := range l.head {
		l.head[i], l.tail[i] = None, None
	}
}

// Grow adds a node, in no list, and returns its index.
func (l *Lists) Grow() int32 {
	l.prev = append(l.prev, None)
	l.next = append(l.next, None)
	return int32(len(l.prev) - 1)
}

// PushBack makes node i, in no list, the most recent of list k.
func (l *Lists) PushBack(k int, i int32) {
	t := l.tail[k]
	l.prev[i], l.next[i] = t, None
	if t >= 0 {
		l.next[t] = i
	} else {
		l.head[k] = i
	}
	l.tail[k] = i
}

// Unlink takes node i out of list k, which holds it.
func (l *Lists) Unlink(k int, i int32) {
	p, n := l.prev[i], l.next[i]
	if p >= 0 {
		l.next[p] = n
	} else {
		l.head[k] = n
	}
	if n >= 0 {
		l.prev[n] = p
	} else {
		l.tail[k] = p
	}
}

// MoveToBack makes node i of list k its most recent.
func (l *Lists) MoveToBack(k int, i int32) {
	if l.tail[k] != i {
		l.Unlink(k, i)
		l.PushBack(k, i)
	}
}

// Front is list k's least recent node, or None.
func (l *Lists) Front(k int) int32 { return l.head[k] }

// Back is list k's most recent node, or None.
func (l *Lists) Back(k int) int32 { return l.tail[k] }

// Next is the node after i towards the most recent, or None.
func (l *Lists) Next(i int32) int32 { return l.next[i] }

// Prev is the node before i towards the least recent, or None.
func (l *Lists) Prev(i int32) int32 { return l.prev[i] }

// List is one list over the indices 0..n-1 that knows its members.
type List struct {
	l  Lists
	in []bool
}

// NewList returns an empty list over the indices 0..n-1.
func NewList(n int) *List {
	return &List{l: *NewLists(n, 1), in: make([]bool, n)}
}

// Contains reports whether i is in the list.
func (l *List) Contains(i int32) bool { return l.in[i] }

// Touch makes i the most recent, adding it if absent.
func (l *List) Touch(i int32) {
	if l.in[i] {
		l.l.MoveToBack(0, i)
		return
	}
	l.l.PushBack(0, i)
	l.in[i] = true
}

// Remove takes i out of the list; an absent i is ignored.
func (l *List) Remove(i int32) {
	if l.in[i] {
		l.l.Unlink(0, i)
		l.in[i] = false
	}
}

// Front is the least recent index, or None.
func (l *List) Front() int32 { return l.l.head[0] }

// Back is the most recent index, or None.
func (l *List) Back() int32 { return l.l.tail[0] }

// Next is the index after i towards the most recent, or None.
func (l *List) Next(i int32) int32 { return l.l.next[i] }
