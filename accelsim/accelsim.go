// Package accelsim converts a trace from Accel-Sim's NVBit tracer
// (kernelslist.g and its kernel-N.traceg files: what GPU architects
// collect from real CUDA applications) into an mgpu recording that
// `mgpu run --trace` replays.
//
// How the CUDA program maps onto mgpu's, where the formats differ:
//   - A thread block is a workgroup, in the order the file lists them; a
//     warp is a wavefront of at most 32 lanes (mgpu's wavefronts have 64;
//     a warp does not take two of them). Its active lanes, by the
//     instruction's mask, fill lanes 0 up, in thread order.
//   - Global memory instructions (LDG, STG, ATOM, ATOMG, RED, and generic
//     LD and ST whose addresses fall in a known object) are memory
//     instructions; a store, atomic or reduction writes. Every other
//     instruction, shared and local memory included, is one cycle of
//     compute before the next memory instruction.
//   - The format has no allocations. The objects are the MemcpyHtoD
//     ranges of kernelslist.g (overlapping copies are one object), each
//     extended over the 64 KB chunks the kernels touch that continue it
//     without a gap, up to the next copy; every other run of contiguous
//     touched chunks is an object of its own. Two cudaMalloc buffers that
//     touch end to end, uncopied, become one object.
//   - A kernel's arguments are the objects its instructions touch; the
//     format records no frees, and no host work between kernels.
//
// The input is checked whole before anything is written (Read): every
// range, count and size against CUDA's limits and this package's, each
// fault an *Error naming the file and line.
package accelsim

import (
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/replay"
	"github.com/mgpu-sim/mgpu/trace"
)

// WarpSize is an NVIDIA warp's threads.
const WarpSize = 32

// Limits of a conversion, each checked before the memory it bounds is
// allocated. CUDA's own limits bound a kernel's launch; the conversion
// holds one thread block's instructions and one kernel's touched chunks
// in memory at a time.
const (
	// MaxBlockThreads is CUDA's limit on a thread block: 1024 threads,
	// at most 1024 in x and y and 64 in z.
	MaxBlockThreads = 1024
	maxBlockXY      = 1024
	maxBlockZ       = 64
	// maxGridX and maxGridYZ are CUDA's grid limits (compute capability
	// 3.0 and later).
	maxGridX  = 1<<31 - 1
	maxGridYZ = 65535
	// MaxBlockInstructions is the most instruction lines a thread block
	// may have: a block is held in memory while it converts (a few
	// hundred MB at the limit).
	MaxBlockInstructions = 1 << 20
	// MaxChunks is the most 64 KB chunks the kernels may touch: 512 GB,
	// the most memory mgpu simulates (2^27 pages of 4 KB).
	MaxChunks = 1 << 23
)

// chunk is the granularity at which touched addresses are grouped into
// objects.
const chunk = 64 << 10

// blockInsts and maxChunks are MaxBlockInstructions and MaxChunks,
// lowered by tests.
var blockInsts, maxChunks = MaxBlockInstructions, MaxChunks

// Options are what the recording is made for: its name, and the run
// parameters and pointer tags a replay must use.
type Options struct {
	Name    string
	Params  benchmarks.Params
	Tagging objtable.Tagging
	Align   uint64
}

// Trace is an Accel-Sim trace read and checked whole, its objects
// allocated as a replay will allocate them: what Write records.
type Trace struct {
	list    string
	o       Options
	kernels []*kernelFile
	mem     *memory
	alloc   *objtable.Allocator
}

// Convert reads kernelslist (a kernelslist.g) and the kernel traces it
// names, and writes the recording to out.
func Convert(kernelslist string, out io.Writer, o Options) error {
	t, err := Read(kernelslist, o)
	if err != nil {
		return err
	}
	return t.Write(out)
}

// Read reads and checks kernelslist and its kernels (a first pass over
// each), and allocates the objects; nothing is written, so a bad trace
// leaves no output behind.
func Read(kernelslist string, o Options) (*Trace, error) {
	l, err := readList(kernelslist)
	if err != nil {
		return nil, err
	}
	t := &Trace{list: kernelslist, o: o}
	copies := mergeCopies(l.copies)
	tails := make([]bool, len(copies))
	blocks := 0
	for _, c := range l.kernels {
		k, err := scan(c.file, func(a uint64) { markTail(copies, tails, a) })
		var e *Error
		if err != nil && !errors.As(err, &e) {
			err = &Error{kernelslist, c.line, err.Error()} // the file named cannot be read
		}
		if err != nil {
			return nil, err
		}
		if blocks += k.blocks; blocks > trace.MaxWorkgroups {
			return nil, &Error{kernelslist, c.line, fmt.Sprintf("the kernels so far have %d thread blocks; a recording holds at most %d", blocks, trace.MaxWorkgroups)}
		}
		t.kernels = append(t.kernels, k)
	}
	if err := t.checkSomeMemory(l); err != nil {
		return nil, err
	}
	objs, err := objectsOf(copies, tails, t.kernels)
	if err != nil {
		return nil, &Error{kernelslist, l.lines, err.Error()}
	}
	if err := t.allocate(objs, l); err != nil {
		return nil, err
	}
	return t, nil
}

// checkSomeMemory refuses a trace with no global memory instruction:
// mgpu simulates memory, and its replay would be an empty result.
func (t *Trace) checkSomeMemory(l *list) error {
	for _, k := range t.kernels {
		if k.memInsts > 0 {
			return nil
		}
	}
	return &Error{t.list, l.lines, fmt.Sprintf("no global memory instruction in its %d kernels: mgpu simulates memory accesses, so there is nothing to replay", len(t.kernels))}
}

// allocate allocates objs as the platform would for o: object IDs are
// widened as the platform would widen them for this many objects.
func (t *Trace) allocate(objs []object, l *list) error {
	tag := t.o.Tagging
	if need := bits.Len(uint(len(objs) - 1)); tag.ConfigBit == 1 && need > tag.IDBits && need <= objtable.MaxIDBits {
		tag.IDBits = need
	}
	alloc, err := objtable.NewAllocator(tag, t.o.Align)
	if err != nil {
		return err
	}
	m := &memory{objs: objs}
	for i, o := range objs {
		name := fmt.Sprintf("buffer%d@%#x", i, o.lo)
		if o.copied {
			name = fmt.Sprintf("memcpy%d@%#x", i, o.lo)
		}
		p, err := alloc.MallocManaged(o.hi-o.lo, name)
		if err != nil {
			line := l.lines
			if o.copied {
				line = o.line
			}
			return &Error{t.list, line, fmt.Sprintf("object %s of %d bytes: %v (mgpu's address space is %d bits)", name, o.hi-o.lo, err, objtable.AddrBits)}
		}
		m.ptrs = append(m.ptrs, p)
	}
	t.mem, t.alloc = m, alloc
	return nil
}

// Write records the trace to out: a second pass over each kernel, one
// thread block at a time.
func (t *Trace) Write(out io.Writer) error {
	ks := make([]benchmarks.Kernel, len(t.kernels))
	for i, k := range t.kernels {
		ks[i] = k.kernel(t.mem)
	}
	info := benchmarks.Info{Name: t.o.Name, Description: "Accel-Sim trace " + t.list, Suite: "Accel-Sim trace"}
	err := replay.Write(out, info, t.o.Params, t.alloc, ks)
	for _, k := range t.kernels {
		k.close()
		if k.err != nil {
			return k.err
		}
	}
	return err
}
