package earlyadaptor

import "math"

// window is a sliding window over simulated time, kept as n slices of
// width ns each ("Proposed Method": the last 1 s "is logically
// partitioned into fifty 20ms-long time slices", the ith slice capturing
// the faults of its interval). Each row (a VA block, or the whole GPU)
// has a ring of per-slice counts, the window's sum and how many of its
// slices are non-zero; a row advances lazily, when it is touched or read.
//
// Slices lie on an absolute grid: slice k is [k*width, (k+1)*width). The
// window at time now holds the slice now falls in and the n-1 before it,
// so "the last L ns" is counted at slice granularity: between L-width and
// L ns of history. Counts are uint32 (4e9 faults per slice per block).
type window struct {
	width  float64
	n      int64
	counts []uint32 // rows x n: row r's slice k is counts[r*n + k%n]
	head   []int64  // per row: the newest slice it has advanced to
	sum    []uint32 // per row: faults in the window
	nz     []uint32 // per row: slices of the window with a fault
}

func newWindow(length float64, n, rows int) window {
	return window{width: length / float64(n), n: int64(n), counts: make([]uint32, rows*n),
		head: make([]int64, rows), sum: make([]uint32, rows), nz: make([]uint32, rows)}
}

// index is the slice that holds time now (times before 0 are slice 0).
func (w *window) index(now float64) int64 {
	q := now / w.width
	switch {
	case !(q > 0): // also NaN
		return 0
	case q >= math.MaxInt64/2:
		return math.MaxInt64 / 2
	}
	return int64(q)
}

// advance moves row r's newest slice to idx, dropping the slices that leave
// the window; a jump of n slices or more empties it. An idx at or before
// the row's newest slice changes nothing (inputs come in time order; a late
// one is counted in the newest slice).
func (w *window) advance(r int, idx int64) {
	h := w.head[r]
	if idx <= h {
		return
	}
	w.head[r] = idx
	row := w.counts[int64(r)*w.n : int64(r+1)*w.n]
	if idx-h >= w.n {
		clear(row)
		w.sum[r], w.nz[r] = 0, 0
		return
	}
	for k := h + 1; k <= idx; k++ {
		s := &row[k%w.n]
		if *s != 0 {
			w.sum[r] -= *s
			w.nz[r]--
			*s = 0
		}
	}
}

// add counts k faults for row r in slice idx.
func (w *window) add(r int, idx int64, k uint32) {
	if k == 0 {
		return
	}
	w.advance(r, idx)
	s := &w.counts[int64(r)*w.n+w.head[r]%w.n]
	if *s == 0 {
		w.nz[r]++
	}
	*s += k
	w.sum[r] += k
}

// at returns row r's window sum and non-zero slices at slice idx.
func (w *window) at(r int, idx int64) (sum, nz uint32) {
	w.advance(r, idx)
	return w.sum[r], w.nz[r]
}

// reset empties every row, with newest slice idx.
func (w *window) reset(idx int64) {
	clear(w.counts)
	clear(w.sum)
	clear(w.nz)
	for r := range w.head {
		w.head[r] = idx
	}
}
