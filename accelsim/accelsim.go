// Package accelsim converts a trace from Accel-Sim's NVBit tracer
// (kernelslist.g and its kernel-N.traceg files, or .traceg.xz as the
// tracer compresses them: what GPU architects collect from real CUDA
// applications) into an mgpu recording that `mgpu run --trace` replays.
// It reads tracer versions 3 to 5 as post-processing writes them: the
// thread block cluster lines, -enable lineinfo's source lines, version
// 5's immediates and Hopper's GMMA and TMA fields.
//
// How the CUDA program maps onto mgpu's, where the formats differ:
//   - A thread block is a workgroup, in the order the file lists them; a
//     warp is a wavefront of at most 32 lanes (mgpu's wavefronts have 64;
//     a warp does not take two of them). Its active lanes, by the
//     instruction's mask, fill lanes 0 up, in thread order. Blocks that
//     post-processing left out (they ran nothing) are not replayed.
//   - Global memory instructions are memory instructions, classed as
//     Accel-Sim's trace-driven model classes them: LDG and LDGSTS (an
//     asynchronous copy from global to shared memory) load; STG stores;
//     ATOM, ATOMG, RED and REDG write; generic LD and ST are global when their
//     first active address lies outside the header's shared and local
//     windows (without both bases, Accel-Sim takes them as shared); the
//     TMA bulk copies (UTMALDG, UTMASTG, UTMAREDG, UBLKCP, UBLKRED) move
//     their listed addresses, 32 to an instruction, and their prefetches
//     nothing. Every other instruction, shared and local memory
//     included, is one cycle of compute before the next memory
//     instruction.
//   - The format has no allocations, so the objects are inferred, and
//     each says how (Trace.Objects): the MemcpyHtoD ranges of
//     kernelslist.g, each widened to cudaMalloc's 256-byte granules
//     (copies of one range, or into one allocation, are one object);
//     then the touches outside every copy, one object per run of touched
//     4 KB pages, cut where a copy starts and widened to whole pages up
//     to their neighbours. Every touched address is in exactly one
//     object; a copy never grows past its granules, so an uncopied
//     output beside an input is an object of its own. Two uncopied
//     buffers whose touched pages meet become one.
//   - A kernel's arguments are the objects in the pages its instructions
//     touch; the format records no frees, and no host work between
//     kernels.
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
	// MaxPages is the most 4 KB pages a kernel may touch, and the
	// kernels outside the copies: 32 GB, held as a set of pages while the
	// trace is read.
	MaxPages = 1 << 23
)

// blockInsts and maxPages are MaxBlockInstructions and MaxPages,
// lowered by tests.
var blockInsts, maxPages = MaxBlockInstructions, MaxPages

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
	lay := newLayout(l.copies)
	blocks := 0
	for _, c := range l.kernels {
		k, err := scan(c.file, lay.touch)
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
	objs, err := lay.objects()
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
		name := o.name(i)
		p, err := alloc.MallocManaged(o.hi-o.lo, name)
		if err != nil {
			line := l.lines
			if o.origin == fromCopy {
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
	info := benchmarks.Info{Name: t.o.Name, Description: "Accel-Sim trace " + t.list + ": " + t.objectSummary(), Suite: "Accel-Sim trace"}
	err := replay.Write(out, info, t.o.Params, t.alloc, ks)
	for _, k := range t.kernels {
		k.close()
		if k.err != nil {
			return k.err
		}
	}
	return err
}

// ObjectInfo is one object of a conversion, and how it was inferred.
type ObjectInfo struct {
	Name     string
	Bytes    uint64
	Inferred string
}

// Objects are the conversion's objects, in ID order, each with how it
// was inferred.
func (t *Trace) Objects() []ObjectInfo {
	out := make([]ObjectInfo, len(t.mem.objs))
	for i, o := range t.mem.objs {
		out[i] = ObjectInfo{o.name(i), o.hi - o.lo, o.describe(t.list)}
	}
	return out
}

// objectSummary counts the objects by how they were inferred.
func (t *Trace) objectSummary() string {
	var copied, merged, extended, touched int
	for _, o := range t.mem.objs {
		switch {
		case o.origin == fromTouches:
			touched++
		default:
			copied++
			if o.copies > 1 {
				merged++
			}
			if o.extended {
				extended++
			}
		}
	}
	return fmt.Sprintf("%d objects from MemcpyHtoD (%d of repeated copies merged, %d extended to cover touches), %d inferred from touches alone",
		copied, merged, extended, touched)
}

// Workgroups is each kernel's thread blocks, as the replay runs them.
func (t *Trace) Workgroups() []int {
	out := make([]int, len(t.kernels))
	for i, k := range t.kernels {
		out[i] = k.blocks
	}
	return out
}

// Notes are what a user should know of the conversion that is not an
// error: kernels whose files hold fewer thread blocks than their grid.
func (t *Trace) Notes() []string {
	var out []string
	for _, k := range t.kernels {
		if n := k.gridBlocks(); k.blocks < n {
			out = append(out, fmt.Sprintf("%s: %d of the grid's %d thread blocks are in the file (post-processing leaves out blocks that ran no instruction); the replay runs those %d",
				k.path, k.blocks, n, k.blocks))
		}
	}
	return out
}
