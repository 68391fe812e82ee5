package benchmarks

import (
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/suv"
)

// Helpers for the workloads' SUV declarations (SUVHint). Conventions, the
// same in every workload:
//
//   - Accesses count threads, as SUV's formula does (§V-B): for each memop,
//     the threads of the source kernel's layout that execute it (those a
//     bounds check lets through, and all of them under a data-dependent
//     branch, whose fraction SUV takes as 1) times the trip counts of its
//     loops. Where the model issues fewer lanes than that, a broadcast
//     (one lane for the 64 threads of a wavefront that read y[j], say) or
//     thread rows that share their addresses (mvt's duplicate rows, gemm's
//     A[i][k] and B[k][j]), the declaration still counts every thread, so
//     it is the walked lanes times the threads each lane stands for; each
//     such workload's doc comment gives the factor and
//     TestSUVHintsMatchWalk checks it.
//   - A range or span runs from the lowest to the highest lane address,
//     plus the element at the highest (elemSpan).
//   - WorkgroupRangeBytes fixes the block index (at 0 unless a workload
//     says otherwise: the range of an affine address does not depend on
//     which block) and ignores bounds checks, as interval arithmetic over
//     the address expression does.
//   - An Iterative span is the hull of all the object's memops in the
//     launch with the block index over the whole grid, so that the window
//     Algorithm 2 pins holds every page the launch touches.
//   - Ranges and spans are clamped to the object (SUV knows each
//     allocation's size); a hint with no access is dropped (finishSUV).

// elemSpan is the bytes from element lo to element hi, both included, of
// an array of size-byte elements.
func elemSpan(lo, hi, size int64) int64 { return (hi-lo)*size + size }

// floatSpan is elemSpan for float32 (and int32) elements.
func floatSpan(lo, hi int64) int64 { return elemSpan(lo, hi, floatBytes) }

// densityHint declares an analysable object: its thread accesses and one
// workgroup's range (0: an indirect address, no range).
func densityHint(obj int, accesses, rangeBytes int64) SUVHint {
	return SUVHint{Object: obj, Class: suv.Density, Accesses: float64(accesses), WorkgroupRangeBytes: rangeBytes}
}

// iterativeHint declares an object whose addresses follow the host loop's
// induction variable.
func iterativeHint(obj int, accesses, rangeBytes int64, it suv.Iteration) SUVHint {
	h := densityHint(obj, accesses, rangeBytes)
	h.Class, h.Iter = suv.Iterative, it
	return h
}

// unknownHint declares a pointer chase or an access under a data-dependent
// loop bound: SUV computes neither density nor range for it.
func unknownHint(obj int) SUVHint { return SUVHint{Object: obj, Class: suv.Unknown} }

// affineIter is the Iteration of a launch at index of count whose span
// starts at offset + index*stride bytes and is span bytes long. A loop of
// one iteration never moves, so its stride is 0 (suv rejects a stride as
// large as the object even then).
func affineIter(index, count int, offset, stride, span int64) suv.Iteration {
	if count == 1 {
		stride = 0
	}
	return suv.Iteration{Index: index, Count: count, OffsetBytes: offset, StrideBytes: stride, SpanBytes: span}
}

// finishSUV clamps every range and span of ks to its object's size and
// drops the analysable hints with no access (a launch whose bounds check
// leaves no thread on an object does not touch it). Setup calls it last.
func finishSUV(alloc *objtable.Allocator, ks []Kernel) {
	for i := range ks {
		if len(ks[i].SUV) == 0 {
			continue
		}
		hs := make([]SUVHint, 0, len(ks[i].SUV)) // launches may share a slice
		for _, h := range ks[i].SUV {
			if h.Class != suv.Unknown && h.Accesses <= 0 {
				continue
			}
			size := int64(alloc.Object(h.Object).Size)
			h.WorkgroupRangeBytes = min(h.WorkgroupRangeBytes, size)
			h.Iter.SpanBytes = min(h.Iter.SpanBytes, size)
			hs = append(hs, h)
		}
		ks[i].SUV = hs
	}
}
