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

// recorder observes the platform's run: it is its access observer
// (gpu.AccessObserver) and its launch observer (platform.LaunchObserver).
type recorder struct {
	n                    int // GPUs
	intervals            int
	cus, wavefrontsPerCU int
	objs                 []Object
	chunks               []chunk
	pageObj              []int32 // dense page -> object
	footprint            uint64

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
	counts   []uint64 // accesses [d*2n + 2g + w]
	iv       []uint16 // [d*I + i]
	// current phase, per object: accesses [obj*2n + 2g + w]
	objCounts []uint64

	// time: accesses observed, of total counted in advance
	t, total  uint64
	cur       int    // current interval
	nextBound uint64 // first access of interval cur+1
	unmanaged uint64
	// perPhase: the intervals are the phases (Options.PhaseIntervals);
	// Launch moves cur, the access count does not.
	perPhase bool

	phases []Phase
	ops    []ObjectPhase
}

// init sizes the page records for the run's objects. The platform calls
// the observer only once the run starts, after init.
func (r *recorder) init(objects []objtable.Object) {
	var dense, large int
	var end uint64
	for i := range objects {
		end = max(end, objects[i].Base+objects[i].Size)
	}
	r.chunks = make([]chunk, (end+LargePage-1)>>(smallShift+largeShift)) // n == 0: no object
	for i := range objects {
		a := &objects[i]
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
		r.footprint += a.Size
		r.objs = append(r.objs, ob)
	}
	r.mask = make([]uint64, dense)
	r.flags = make([]uint8, dense)
	r.runMask = make([]uint64, dense)
	r.runFlags = make([]uint8, dense)
	r.counts = make([]uint64, dense*2*r.n)
	r.iv = make([]uint16, dense*r.intervals)
	r.lmask = make([]uint64, large)
	r.lflags = make([]uint8, large)
	r.objCounts = make([]uint64, len(r.objs)*2*r.n)
	r.nextBound = r.bound(1)
	if r.perPhase {
		r.nextBound = ^uint64(0)
	}
}

// bound is the first access of interval i: ceil(i*T/I).
func (r *recorder) bound(i int) uint64 {
	if i >= r.intervals {
		return ^uint64(0)
	}
	hi, lo := bits.Mul64(uint64(i), r.total)
	I := uint64(r.intervals)
	q, rem := bits.Div64(hi, lo, I)
	if rem != 0 {
		q++
	}
	return q
}

// Launch implements platform.LaunchObserver: kernel index k starts, so the
// previous phase ends and k's begins.
func (r *recorder) Launch(_ int, k *benchmarks.Kernel) {
	if len(r.phases) > 0 {
		r.endPhase()
	}
	if r.perPhase {
		r.cur = min(len(r.phases), r.intervals-1)
	}
	launch, step := 0, 0
	if len(r.phases) > 0 {
		last := &r.phases[len(r.phases)-1]
		launch, step = last.Launch+1, 0
		if k.Barrier {
			launch, step = last.Launch, last.Step+1
		}
	}
	r.phases = append(r.phases, Phase{Index: len(r.phases), Name: k.Name, Launch: launch, Step: step,
		Explicit: step == 0, Workgroups: k.Workgroups, Slots: r.slots(k), Start: r.t})
}

// slots is the workgroups of k a GPU holds at once: gpu.Comp.Fill puts
// as many on a CU as its wavefront slots take.
func (r *recorder) slots(k *benchmarks.Kernel) int {
	if k.WavefrontsPerWorkgroup <= 0 {
		return 0
	}
	return r.cus * (r.wavefrontsPerCU / k.WavefrontsPerWorkgroup)
}

// finish ends the last phase and labels the phases.
func (r *recorder) finish() {
	if len(r.phases) > 0 {
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

// Access implements gpu.AccessObserver: GPU g accessed 4 KB page page
// (where the data lives does not matter here).
func (r *recorder) Access(g int, page uint64, write bool, _ int) {
	w := 0
	if write {
		w = 1
	}
	var e chunk
	if c := page >> largeShift; c < uint64(len(r.chunks)) {
		e = r.chunks[c]
	}
	off := uint32(page & (perLarge - 1))
	if off >= e.n { // outside every object (e.n is 0 there)
		r.unmanaged++
		r.tick(-1, g, w)
		return
	}
	d := e.d + off
	if r.flags[d] == 0 {
		r.touched = append(r.touched, d)
	}
	r.mask[d] |= 1 << g
	r.flags[d] |= uint8(1 << w)
	r.counts[int(d)*2*r.n+2*g+w]++
	r.objCounts[int(e.obj)*2*r.n+2*g+w]++
	r.tick(int(d), g, w)
}

// tick records access t, by GPU g on dense page d (d < 0 for unmanaged
// memory), in its interval, and moves time on.
func (r *recorder) tick(d, g, w int) {
	for r.t >= r.nextBound { // access t is past the current interval
		if r.cur+1 >= r.intervals {
			// Only when the run sees more accesses than were counted.
			r.nextBound = ^uint64(0)
			break
		}
		r.cur++
		r.nextBound = r.bound(r.cur + 1)
	}
	if d >= 0 {
		i := d*r.intervals + r.cur
		s := r.iv[i]
		if s&ivTouched == 0 {
			s = ivTouched | uint16(g)
		} else if s&ivShared == 0 && int(s&ivGPU) != g {
			s |= ivShared
		}
		r.iv[i] = s | uint16(ivRead<<w)
	}
	r.t++
}
