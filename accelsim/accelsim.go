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
//     ranges of kernelslist.g, each extended over the 64 KB chunks the
//     kernels touch that continue it without a gap; every other run of
//     contiguous touched chunks is an object of its own. Two cudaMalloc
//     buffers that touch end to end, uncopied, become one object.
//   - A kernel's arguments are the objects its instructions touch; the
//     format records no frees, and no host work between kernels.
package accelsim

import (
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"slices"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/replay"
	"github.com/mgpu-sim/mgpu/trace"
)

// WarpSize is an NVIDIA warp's threads.
const WarpSize = 32

// chunk is the granularity at which touched addresses are grouped into
// objects.
const chunk = 64 << 10

// Options are what the recording is made for: its name, and the run
// parameters and pointer tags a replay must use.
type Options struct {
	Name    string
	Params  benchmarks.Params
	Tagging objtable.Tagging
	Align   uint64
}

// Convert reads kernelslist (a kernelslist.g) and the kernel traces it
// names, and writes the recording to out.
func Convert(kernelslist string, out io.Writer, o Options) error {
	cmds, err := readList(kernelslist)
	if err != nil {
		return err
	}
	var copies []span
	var kernels []*kernelFile
	for _, c := range cmds {
		if c.memcpy {
			copies = append(copies, span{c.addr, c.addr + c.size})
			continue
		}
		k, err := scan(c.file)
		if err != nil {
			return err
		}
		kernels = append(kernels, k)
	}
	objs := objectsOf(copies, kernels)
	// Widen the object IDs as the platform would for this many objects.
	if need := bits.Len(uint(len(objs) - 1)); o.Tagging.ConfigBit == 1 && need > o.Tagging.IDBits && need <= objtable.MaxIDBits {
		o.Tagging.IDBits = need
	}
	alloc, err := objtable.NewAllocator(o.Tagging, o.Align)
	if err != nil {
		return err
	}
	m := &memory{objs: objs}
	for i := range objs {
		name := fmt.Sprintf("buffer%d@%#x", i, objs[i].lo)
		if objs[i].copied {
			name = fmt.Sprintf("memcpy%d@%#x", i, objs[i].lo)
		}
		p, err := alloc.MallocManaged(objs[i].hi-objs[i].lo, name)
		if err != nil {
			return err
		}
		m.ptrs = append(m.ptrs, p)
	}
	ks := make([]benchmarks.Kernel, len(kernels))
	for i, k := range kernels {
		ks[i] = k.kernel(m)
	}
	info := benchmarks.Info{Name: o.Name, Description: "Accel-Sim trace " + kernelslist, Suite: "Accel-Sim trace"}
	err = replay.Write(out, info, o.Params, alloc, ks)
	for _, k := range kernels {
		k.close()
		if k.err != nil {
			return k.err
		}
	}
	return err
}

// span is an address range [lo, hi).
type span struct{ lo, hi uint64 }

// object is one object of the recording, in CUDA addresses.
type object struct {
	span
	copied bool
}

// objectsOf builds the objects from the copies and the touched chunks.
func objectsOf(copies []span, kernels []*kernelFile) []object {
	touched := map[uint64]bool{}
	for _, k := range kernels {
		for c := range k.chunks {
			touched[c] = true
		}
	}
	var objs []object
	for _, c := range copies {
		objs = append(objs, object{c, true})
	}
	slices.SortFunc(objs, func(a, b object) int { return cmpU(a.lo, b.lo) })
	// Extend each copy over the chunks that continue it, then group the
	// rest into runs.
	for i := range objs {
		for c := (objs[i].hi + chunk - 1) / chunk * chunk; touched[c/chunk] && !inAny(objs, c); c += chunk {
			objs[i].hi = c + chunk
		}
	}
	rest := []uint64{}
	for c := range touched {
		if !inAny(objs, c*chunk) {
			rest = append(rest, c)
		}
	}
	slices.Sort(rest)
	for i := 0; i < len(rest); {
		j := i + 1
		for j < len(rest) && rest[j] == rest[j-1]+1 && !inAny(objs, rest[j]*chunk) {
			j++
		}
		objs = append(objs, object{span{rest[i] * chunk, rest[j-1]*chunk + chunk}, false})
		i = j
	}
	slices.SortFunc(objs, func(a, b object) int { return cmpU(a.lo, b.lo) })
	return objs
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func inAny(objs []object, a uint64) bool {
	for _, o := range objs {
		if a >= o.lo && a < o.hi {
			return true
		}
	}
	return false
}

// memory translates CUDA addresses to the recording's pointers.
type memory struct {
	objs []object
	ptrs []uint64
}

// find is the object holding a, or -1.
func (m *memory) find(a uint64) int {
	i, _ := slices.BinarySearchFunc(m.objs, a, func(o object, a uint64) int {
		if a < o.lo {
			return 1
		}
		if a >= o.hi {
			return -1
		}
		return 0
	})
	if i < len(m.objs) && a >= m.objs[i].lo && a < m.objs[i].hi {
		return i
	}
	return -1
}

// kernel is the second pass over k: a benchmarks.Kernel whose wavefronts
// are read one thread block at a time, in order, as replay.Write asks
// for them.
func (k *kernelFile) kernel(m *memory) benchmarks.Kernel {
	var args []int
	for i, o := range m.objs {
		for c := range k.chunks {
			if c*chunk < o.hi && c*chunk+chunk > o.lo {
				args = append(args, i)
				break
			}
		}
	}
	name := k.name
	if name == "" {
		name = filepath.Base(k.path)
	}
	k.wg = -1
	return benchmarks.Kernel{Name: name, Args: args, Workgroups: k.blocks, WavefrontsPerWorkgroup: k.warps(),
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			if wg != k.wg {
				k.readBlock(m)
				k.wg = wg
			}
			return &warpStream{ins: k.wfs[wf]}
		}}
}

// readBlock reads the next thread block into k.wfs; an error is kept in
// k.err (Convert returns it) and leaves the block empty.
func (k *kernelFile) readBlock(m *memory) {
	if k.f == nil && k.err == nil {
		if err := k.open(); err != nil {
			k.err = err
		}
	}
	k.wfs = slices.Grow(k.wfs[:0], k.warps())[:k.warps()]
	pending := make([]int, k.warps())
	for i := range k.wfs {
		k.wfs[i] = k.wfs[i][:0]
	}
	if k.err != nil {
		return
	}
	more, err := k.nextBlock(func(w int, in *parsed) {
		if !in.global && !in.generic {
			pending[w]++
			return
		}
		var x trace.Instruction
		for _, a := range in.addrs {
			o := m.find(a)
			if o < 0 {
				if in.global && k.err == nil {
					k.err = &Error{k.path, k.line, fmt.Sprintf("address %#x in no object", a)}
				}
				pending[w]++ // a generic access outside the objects: shared or local memory
				return
			}
			x.Addr[x.Lanes] = m.ptrs[o] + (a - m.objs[o].lo)
			x.Lanes++
		}
		x.Compute, x.Write = pending[w], in.write
		pending[w] = 0
		k.wfs[w] = append(k.wfs[w], x)
	})
	if err == nil && !more {
		err = &Error{k.path, k.line, "fewer thread blocks than the first pass read: the file changed"}
	}
	if err != nil && k.err == nil {
		k.err = err
	}
	for w, c := range pending {
		if c > 0 {
			k.wfs[w] = append(k.wfs[w], trace.Instruction{Compute: c})
		}
	}
}

// warpStream replays one warp's converted instructions.
type warpStream struct {
	ins []trace.Instruction
	i   int
}

func (s *warpStream) Next(in *trace.Instruction) bool {
	if s.i >= len(s.ins) {
		return false
	}
	x := &s.ins[s.i]
	in.Compute, in.Write, in.Lanes = x.Compute, x.Write, x.Lanes
	copy(in.Addr[:x.Lanes], x.Addr[:x.Lanes])
	s.i++
	return true
}
