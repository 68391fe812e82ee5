package benchmarks

import (
	"fmt"
	"slices"

	"github.com/mgpu-sim/mgpu/objtable"
)

// Access is what a workload declares about how one launch touches one of
// its objects: facts a compiler can read off the kernel's address
// expressions and the host code around the launch, written down by the
// workload's author rather than measured. Memory managers that plan from
// static analysis consume them; platform translates them into the hints
// of SUV ("SUV: Static Analysis Guided Unified Virtual Memory", MICRO
// 2024), whose compiler passes derive the same facts (its §V-A, §V-B).
// What depends on the GPU (how many workgroups are resident at once) is
// not declared: the consumer combines WorkgroupBytes with its own
// occupancy.
type Access struct {
	// Object is the object's ID; it must be one of the launch's Args.
	Object int
	// Pattern is how the addresses are formed.
	Pattern AccessPattern
	// Accesses are thread-level accesses in this launch: threads x trip
	// counts x the fraction of threads on the memop's branch path, summed
	// over the object's memops; over the object's size they are its
	// accesses per byte. Ignored for DataDependent.
	Accesses float64
	// WorkgroupBytes is the bytes one workgroup's memops span (interval
	// arithmetic with the block index fixed); times the workgroups
	// resident at once, it is the bytes they touch together. 0 when it
	// cannot be computed (an indirect access).
	WorkgroupBytes int64
	// Loop is the span a HostLoop object's launch touches (zero
	// otherwise); Loop.Index is this launch's iteration.
	Loop LoopSpan
}

// AccessPattern is how a launch forms its addresses into one object.
type AccessPattern uint8

// Access patterns. Analysable is the zero value.
const (
	// Analysable: the addresses are functions of the thread and block
	// indices and the launch's arguments alone, so the accesses can be
	// counted and one workgroup's range bounded.
	Analysable AccessPattern = iota
	// HostLoop: Analysable, and the launch is one iteration of a host
	// loop whose induction variable moves the span it touches
	// (Access.Loop).
	HostLoop
	// DataDependent: the addresses come from loaded data (a pointer
	// chase, an index array) or sit under a data-dependent loop bound, so
	// neither the accesses nor a range can be computed.
	DataDependent
)

func (p AccessPattern) String() string {
	switch p {
	case Analysable:
		return "analysable"
	case HostLoop:
		return "host-loop"
	case DataDependent:
		return "data-dependent"
	}
	return fmt.Sprintf("AccessPattern(%d)", uint8(p))
}

// LoopSpan is the span a launch in a host loop touches: iteration i of
// Count touches [OffsetBytes + i*StrideBytes, that + SpanBytes), the
// address expression evaluated with the loop's induction variable. When
// several memops move with the loop, it is their hull.
type LoopSpan struct {
	// Index is this launch's iteration, 0-based; Count is the trip count.
	Index, Count int
	// OffsetBytes is the span's start at iteration 0; StrideBytes its
	// move per iteration (may be negative); SpanBytes its length.
	OffsetBytes, StrideBytes, SpanBytes int64
}

// DeclaresAccess reports whether w declares its access facts
// (Info.DeclaresAccess).
func DeclaresAccess(w Workload) bool { return w.Info().DeclaresAccess }

// CheckAccess checks every launch's declarations against its arguments
// before a run, so that a bad declaration is an input error and not a
// failure halfway through: the object must be an argument of the launch,
// at most one declaration per object, and a grid barrier declares
// nothing.
func CheckAccess(kernels []Kernel, objects int) error {
	for i, k := range kernels {
		if len(k.Access) == 0 {
			continue
		}
		if k.Barrier {
			return fmt.Errorf("kernel %d (%s): a grid barrier is not a launch and declares no accesses", i, k.Name)
		}
		seen := map[int]bool{}
		for _, a := range k.Access {
			if a.Object < 0 || a.Object >= objects {
				return fmt.Errorf("kernel %d (%s): access declared for object %d: no such object (valid IDs 0..%d)", i, k.Name, a.Object, objects-1)
			}
			if !slices.Contains(k.Args, a.Object) {
				return fmt.Errorf("kernel %d (%s): access declared for object %d, which is not an argument of the launch (args %v)", i, k.Name, a.Object, k.Args)
			}
			if seen[a.Object] {
				return fmt.Errorf("kernel %d (%s): two accesses declared for object %d", i, k.Name, a.Object)
			}
			seen[a.Object] = true
		}
	}
	return nil
}

// Helpers for the declarations. Conventions, the same in every workload:
//
//   - Accesses count threads, as a compiler's count over the source
//     kernel does: for each memop, the threads of the source kernel's
//     layout that execute it (those a bounds check lets through, and all
//     of them under a data-dependent branch, whose fraction is taken as
//     1) times the trip counts of its loops. Where the model issues fewer
//     lanes than that, a broadcast (one lane for the 64 threads of a
//     wavefront that read y[j], say) or thread rows that share their
//     addresses (mvt's duplicate rows, gemm's A[i][k] and B[k][j]), the
//     declaration still counts every thread, so it is the walked lanes
//     times the threads each lane stands for; each such workload's doc
//     comment gives the factor and TestAccessMatchesWalk checks it.
//   - A range or span runs from the lowest to the highest lane address,
//     plus the element at the highest (ElemSpan).
//   - WorkgroupBytes fixes the block index (at 0 unless a workload says
//     otherwise: the range of an affine address does not depend on which
//     block) and ignores bounds checks, as interval arithmetic over the
//     address expression does.
//   - A HostLoop span is the hull of all the object's memops in the
//     launch with the block index over the whole grid, so that a window
//     placed over it holds every page the launch touches.
//   - Ranges and spans are clamped to the object (its size is known at
//     the allocation); a declaration with no access is dropped
//     (FinishAccess).

// ElemSpan is the bytes from element lo to element hi, both included, of
// an array of size-byte elements.
func ElemSpan(lo, hi, size int64) int64 { return (hi-lo)*size + size }

// FloatSpan is ElemSpan for float32 (and int32) elements.
func FloatSpan(lo, hi int64) int64 { return ElemSpan(lo, hi, FloatBytes) }

// AnalysableAccess declares an Analysable object: its thread accesses and
// one workgroup's range (0: an indirect address, no range).
func AnalysableAccess(obj int, accesses, workgroupBytes int64) Access {
	return Access{Object: obj, Pattern: Analysable, Accesses: float64(accesses), WorkgroupBytes: workgroupBytes}
}

// LoopAccess declares an object whose addresses follow the host loop's
// induction variable.
func LoopAccess(obj int, accesses, workgroupBytes int64, loop LoopSpan) Access {
	a := AnalysableAccess(obj, accesses, workgroupBytes)
	a.Pattern, a.Loop = HostLoop, loop
	return a
}

// DataDependentAccess declares a pointer chase or an access under a
// data-dependent loop bound: neither accesses nor range can be counted.
func DataDependentAccess(obj int) Access { return Access{Object: obj, Pattern: DataDependent} }

// AffineLoop is the LoopSpan of a launch at index of count whose span
// starts at offset + index*stride bytes and is span bytes long. A loop of
// one iteration never moves, so its stride is 0 (a consumer may reject a
// stride as large as the object even then).
func AffineLoop(index, count int, offset, stride, span int64) LoopSpan {
	if count == 1 {
		stride = 0
	}
	return LoopSpan{Index: index, Count: count, OffsetBytes: offset, StrideBytes: stride, SpanBytes: span}
}

// FinishAccess clamps every range and span of ks to its object's size and
// drops the Analysable and HostLoop declarations with no access (a launch
// whose bounds check leaves no thread on an object does not touch it).
// Setup calls it last.
func FinishAccess(alloc *objtable.Allocator, ks []Kernel) {
	for i := range ks {
		if len(ks[i].Access) == 0 {
			continue
		}
		as := make([]Access, 0, len(ks[i].Access)) // launches may share a slice
		for _, a := range ks[i].Access {
			if a.Pattern != DataDependent && a.Accesses <= 0 {
				continue
			}
			size := int64(alloc.Object(a.Object).Size)
			a.WorkgroupBytes = min(a.WorkgroupBytes, size)
			a.Loop.SpanBytes = min(a.Loop.SpanBytes, size)
			as = append(as, a)
		}
		ks[i].Access = as
	}
}
