package characterize

import (
	"fmt"
	"math/bits"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// chunk maps a 2 MB-aligned chunk of the address space to dense 4 KB page
// indices: page p of the chunk is dense index d+p if p < n (n is 0 where no
// object lies).
type chunk struct {
	d   uint32
	n   uint32
	obj int32
}

// Interval record of a page: owner GPU in the low 6 bits.
const (
	ivGPU     = 63
	ivTouched = 1 << 6
	ivShared  = 1 << 7
	ivRead    = 1 << 8
	ivWrite   = 1 << 9
)

// ivClass classifies an interval record.
func ivClass(s uint16) (Class, bool) {
	if s&ivTouched == 0 {
		return 0, false
	}
	sh := Private
	if s&ivShared != 0 {
		sh = Shared
	}
	return MakeClass(sh, PageAccess(s&ivRead != 0, s&ivWrite != 0)), true
}

type recorder struct {
	o       Options
	n       int // GPUs
	alloc   *objtable.Allocator
	kernels []benchmarks.Kernel
	objs    []Object
	chunks  []chunk
	pageObj []int32 // dense page -> object

	// current phase, per dense page
	mask    []uint64
	flags   []uint8
	touched []uint32
	// current phase, per large page (folded at the phase end)
	lmask    []uint64
	lflags   []uint8
	ltouched []uint32
	// whole run, per dense page
	runMask  []uint64
	runFlags []uint8
	lanes    []uint64 // [d*2n + 2g + w]
	iv       []uint16 // [d*I + i]
	// current phase, per object: lanes [obj*2n + 2g + w]
	objLanes []uint64

	// time
	t, total  uint64
	cur       int    // current interval
	nextBound uint64 // first lane of interval cur+1
	unmanaged uint64
	instrs    uint64

	phases []Phase
	ops    []ObjectPhase
}

func newRecorder(alloc *objtable.Allocator, kernels []benchmarks.Kernel, o Options, total uint64) *recorder {
	r := &recorder{o: o, n: o.GPUs, alloc: alloc, kernels: kernels, total: total}
	var dense, large int
	r.chunks = make([]chunk, alloc.End()>>(smallShift+largeShift)) // n == 0: no object
	for _, a := range alloc.Objects() {
		ob := Object{ID: a.ID, Name: a.Name, Size: a.Size, FirstPage: a.FirstPage(SmallPage),
			Pages: int(a.Pages(SmallPage)), LargePages: int(a.Pages(LargePage)), dense: dense, large: large}
		for c := 0; c < ob.LargePages; c++ {
			r.chunks[a.Base>>(smallShift+largeShift)+uint64(c)] = chunk{
				d: uint32(dense + c*perLarge), n: uint32(min(perLarge, ob.Pages-c*perLarge)), obj: int32(a.ID)}
		}
		for i := 0; i < ob.Pages; i++ {
			r.pageObj = append(r.pageObj, int32(a.ID))
		}
		dense += ob.Pages
		large += ob.LargePages
		r.objs = append(r.objs, ob)
	}
	r.mask = make([]uint64, dense)
	r.flags = make([]uint8, dense)
	r.runMask = make([]uint64, dense)
	r.runFlags = make([]uint8, dense)
	r.lanes = make([]uint64, dense*2*r.n)
	r.iv = make([]uint16, dense*o.Intervals)
	r.lmask = make([]uint64, large)
	r.lflags = make([]uint8, large)
	r.objLanes = make([]uint64, len(r.objs)*2*r.n)
	r.nextBound = r.bound(1)
	return r
}

// bound is the first lane of interval i: ceil(i*T/I).
func (r *recorder) bound(i int) uint64 {
	if i >= r.o.Intervals {
		return ^uint64(0)
	}
	hi, lo := bits.Mul64(uint64(i), r.total)
	I := uint64(r.o.Intervals)
	q, rem := bits.Div64(hi, lo, I)
	if rem != 0 {
		q++
	}
	return q
}

// wave is a resident wavefront.
type wave struct {
	s    benchmarks.Stream
	slot int32
}

// gpuRun is one GPU's progress through a kernel.
type gpuRun struct {
	queue []int32
	qi    int
	res   []wave
	pos   int
	left  []int32 // wavefronts left per workgroup slot
	free  []int32 // free slots
}

func (r *recorder) admit(k *benchmarks.Kernel, gr *gpuRun, g int) {
	for len(gr.free) > 0 && gr.qi < len(gr.queue) {
		wg := gr.queue[gr.qi]
		gr.qi++
		if k.WavefrontsPerWorkgroup <= 0 {
			continue
		}
		slot := gr.free[len(gr.free)-1]
		gr.free = gr.free[:len(gr.free)-1]
		gr.left[slot] = int32(k.WavefrontsPerWorkgroup)
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			gr.res = append(gr.res, wave{s: k.Wavefront(int(wg), wf, g), slot: slot})
		}
	}
}

func (r *recorder) run() {
	launch, step := -1, 0
	for i := range r.kernels {
		k := &r.kernels[i]
		if k.Barrier && launch >= 0 {
			step++
		} else {
			launch, step = launch+1, 0
		}
		ph := Phase{Index: i, Name: k.Name, Launch: launch, Step: step, Explicit: step == 0,
			Workgroups: k.Workgroups, Slots: r.o.Slots(k), Start: r.t}
		r.phases = append(r.phases, ph)
		r.runKernel(k)
		r.endPhase()
	}
	// Labels: Name#step when the launch has implicit phases.
	for i := range r.phases {
		p := &r.phases[i]
		p.Label = p.Name
		if p.Step > 0 || (i+1 < len(r.phases) && r.phases[i+1].Step > 0) {
			p.Label = fmt.Sprintf("%s#%d", p.Name, p.Step)
		}
	}
}

func (r *recorder) runKernel(k *benchmarks.Kernel) {
	slots := r.o.Slots(k)
	assign := r.o.Assign(k)
	runs := make([]gpuRun, r.n)
	active := 0
	for g := range runs {
		gr := &runs[g]
		gr.queue = assign[g]
		n := min(slots, len(gr.queue))
		gr.left = make([]int32, n)
		gr.free = make([]int32, n)
		for s := range gr.free {
			gr.free[s] = int32(n - 1 - s)
		}
		r.admit(k, gr, g)
		if len(gr.res) > 0 {
			active++
		}
	}
	var in benchmarks.Instruction
	for active > 0 {
		for g := range runs {
			gr := &runs[g]
			if len(gr.res) == 0 {
				continue
			}
			if !r.step(k, gr, g, &in) {
				active--
			}
		}
	}
}

// step issues GPU g's next instruction; it reports false when the GPU has
// nothing left to run in this kernel.
func (r *recorder) step(k *benchmarks.Kernel, gr *gpuRun, g int, in *benchmarks.Instruction) bool {
	for len(gr.res) > 0 {
		if gr.pos >= len(gr.res) {
			gr.pos = 0
		}
		w := &gr.res[gr.pos]
		if w.s.Next(in) {
			gr.pos++
			r.instrs++
			if n := lanesOf(in); n > 0 {
				r.access(g, in.Write, in, n)
			}
			return true
		}
		slot := w.slot
		last := len(gr.res) - 1
		gr.res[gr.pos] = gr.res[last]
		gr.res[last] = wave{}
		gr.res = gr.res[:last]
		gr.left[slot]--
		if gr.left[slot] == 0 {
			gr.free = append(gr.free, slot)
			r.admit(k, gr, g)
		}
	}
	return false
}

// access records the n lanes of an instruction of GPU g, one call of
// record per run of lanes on the same page.
func (r *recorder) access(g int, write bool, in *benchmarks.Instruction, n int) {
	w := 0
	if write {
		w = 1
	}
	const mask = uint64(1)<<objtable.AddrBits - 1
	cur := ^uint64(0)
	run := 0
	for l := 0; l < n; l++ {
		p := (in.Addr[l] & mask) >> smallShift
		if p == cur {
			run++
			continue
		}
		if run > 0 {
			r.record(cur, uint64(run), g, w)
		}
		cur, run = p, 1
	}
	r.record(cur, uint64(run), g, w)
}

func (r *recorder) record(page, run uint64, g, w int) {
	var e chunk
	if c := page >> largeShift; c < uint64(len(r.chunks)) {
		e = r.chunks[c]
	}
	off := uint32(page & (perLarge - 1))
	if off >= e.n { // outside every object (e.n is 0 there)
		r.unmanaged += run
		r.advance(run, -1, g, w)
		return
	}
	d := e.d + off
	if r.flags[d] == 0 {
		r.touched = append(r.touched, d)
	}
	r.mask[d] |= 1 << g
	r.flags[d] |= uint8(1 << w)
	r.lanes[int(d)*2*r.n+2*g+w] += run
	r.objLanes[int(e.obj)*2*r.n+2*g+w] += run
	r.advance(run, int(d), g, w)
}

// advance moves time on by run lanes of GPU g on dense page d (d < 0 for
// unmanaged memory), updating the page's record of each interval the lanes
// fall in.
func (r *recorder) advance(run uint64, d, g, w int) {
	rw := uint16(ivRead << w)
	for run > 0 {
		n := min(run, r.nextBound-r.t)
		if n > 0 {
			if d >= 0 {
				i := d*r.o.Intervals + r.cur
				s := r.iv[i]
				if s&ivTouched == 0 {
					s = ivTouched | uint16(g)
				} else if s&ivShared == 0 && int(s&ivGPU) != g {
					s |= ivShared
				}
				r.iv[i] = s | rw
			}
			r.t += n
			run -= n
		}
		if r.t >= r.nextBound {
			if r.cur+1 >= r.o.Intervals {
				// Only when this pass sees more lanes than pass 1 counted.
				r.nextBound = ^uint64(0)
			} else {
				r.cur++
				r.nextBound = r.bound(r.cur + 1)
			}
		}
	}
}
