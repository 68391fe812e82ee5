package accelsim

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/trace"
)

// warp is one warp's converted instructions in the thread block being
// read, held compactly (the lanes of all of them in one slice): a replay
// asks for a block's warps one after another.
type warp struct {
	ins     []inst
	addrs   []uint64
	pending int // compute cycles since the last memory instruction
}

// inst is one converted instruction; its lanes follow the previous
// instruction's in warp.addrs.
type inst struct {
	compute int
	lanes   uint8
	write   bool
}

// kernel is the second pass over k: a benchmarks.Kernel whose wavefronts
// are read one thread block at a time, in order, as replay.Write asks
// for them.
func (k *kernelFile) kernel(m *memory) benchmarks.Kernel {
	name := k.name
	if name == "" {
		name = filepath.Base(k.path)
	}
	k.wg = -1
	return benchmarks.Kernel{Name: name, Args: m.args(k.runs), Workgroups: k.blocks, WavefrontsPerWorkgroup: k.warps(),
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			if wg != k.wg {
				k.readBlock(m)
				k.wg = wg
			}
			return &warpStream{w: &k.wfs[wf]}
		}}
}

// readBlock reads the next thread block into k.wfs; an error is kept in
// k.err (Write returns it) and leaves the block empty.
func (k *kernelFile) readBlock(m *memory) {
	if k.f == nil && k.err == nil {
		k.err = k.open()
	}
	n := k.warps()
	k.wfs = slices.Grow(k.wfs[:0], n)[:n]
	for i := range k.wfs {
		w := &k.wfs[i]
		w.ins, w.addrs, w.pending = w.ins[:0], w.addrs[:0], 0
	}
	if k.err != nil {
		return
	}
	more, err := k.nextBlock(func(w int, in *parsed) { k.convert(&k.wfs[w], in, m) })
	if err == nil && !more {
		err = &Error{k.path, k.line, "fewer thread blocks than the first pass read: the file changed"}
	}
	if err != nil && k.err == nil {
		k.err = err
	}
	for i := range k.wfs {
		if w := &k.wfs[i]; w.pending > 0 {
			w.ins = append(w.ins, inst{compute: w.pending})
		}
	}
}

// convert appends in to w: a memory instruction with its lanes'
// pointers (a TMA instruction's many addresses as several, a warp's
// width each), or a cycle of compute.
func (k *kernelFile) convert(w *warp, in *parsed, m *memory) {
	if !in.global || len(in.addrs) == 0 {
		w.pending++
		return
	}
	for i := 0; i < len(in.addrs); i += WarpSize {
		lanes := in.addrs[i:min(i+WarpSize, len(in.addrs))]
		for _, a := range lanes {
			o := m.find(a)
			if o < 0 {
				// The objects cover every address the first pass saw.
				if k.err == nil {
					k.err = &Error{k.path, k.line, fmt.Sprintf("address %#x in no object: the file changed since it was read", a)}
				}
				return
			}
			w.addrs = append(w.addrs, m.ptrs[o]+(a-m.objs[o].lo))
		}
		w.ins = append(w.ins, inst{compute: w.pending, lanes: uint8(len(lanes)), write: in.write})
		w.pending = 0
	}
}

// warpStream replays one warp's converted instructions.
type warpStream struct {
	w    *warp
	i, a int
}

func (s *warpStream) Next(in *trace.Instruction) bool {
	if s.i >= len(s.w.ins) {
		return false
	}
	x := s.w.ins[s.i]
	in.Compute, in.Write, in.Lanes = x.compute, x.write, int(x.lanes)
	s.a += copy(in.Addr[:x.lanes], s.w.addrs[s.a:])
	s.i++
	return true
}
