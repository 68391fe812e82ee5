package platform

import (
	"fmt"
	"math"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/gpu"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
)

// runner is the command processor: it launches the workload's kernels one
// after another and hands their workgroups to the GPUs through the
// distribution scheme. It is host-side control, not a modelled link, so it
// calls the GPUs directly.
type runner struct {
	engine  sim.Engine
	kernels []benchmarks.Kernel
	idx     int
	active  bool
	disp    benchmarks.Dispatcher
	left    int
	scheme  string
	gpus    []*gpu.Comp
	driver  *uvm.Driver
	src     engine.Source
	// parts are the GPUs' partitions: a workgroup's end is deferred to
	// the host's thread in a parallel run.
	parts    []*engine.Partition
	doneFn   func(uint64, sim.Msg)
	alloc    *objtable.Allocator
	launch   sim.VTimeInSec
	end      sim.VTimeInSec
	launches int
	barriers int
	onLaunch LaunchObserver
	cus      int // per GPU, for the mgpusim distribution
	log      zerolog.Logger
	// places: a runtime places pages before each launch (uvm.Placer).
	places bool
}

type launchEvent struct {
	t sim.VTimeInSec
	o engine.Order
	h sim.Handler
}

func (e *launchEvent) Time() sim.VTimeInSec { return e.t }
func (e *launchEvent) Order() engine.Order  { return e.o }
func (e *launchEvent) Handler() sim.Handler { return e.h }
func (e *launchEvent) IsSecondary() bool    { return false }

func (r *runner) Kernel() gpu.Kernel {
	if !r.active {
		return nil
	}
	return launched{&r.kernels[r.idx]}
}

// launched adapts a workload's kernel to what the GPU consumes. It is one
// pointer, so handing it out as a gpu.Kernel does not allocate.
type launched struct{ k *benchmarks.Kernel }

func (l launched) WavefrontsPerWorkgroup() int { return l.k.WavefrontsPerWorkgroup }

func (l launched) Wavefront(wg, wf, g int) gpu.Stream { return l.k.Wavefront(wg, wf, g) }

func (r *runner) Next(g int) (int, bool) { return r.disp.Next(g) }

// Done takes GPU g's end of a workgroup, at its instant in the host's
// order (engine.Partition.Defer).
func (r *runner) Done(_ sim.VTimeInSec, g int) {
	r.parts[g].Defer(r.doneFn, 0, nil)
}

func (r *runner) done(now sim.VTimeInSec) {
	r.left--
	if r.left > 0 {
		return
	}
	r.active = false
	r.end = now
	r.idx++
	r.scheduleNext(now)
}

func (r *runner) scheduleNext(now sim.VTimeInSec) {
	if r.idx >= len(r.kernels) {
		return
	}
	t := now
	if !r.kernels[r.idx].Barrier {
		t += r.launch
	}
	r.engine.Schedule(&launchEvent{t: t, o: r.src.Next(engine.RankLaunch), h: r})
}

// Handle launches the next kernel (or resumes after a grid barrier).
func (r *runner) Handle(e sim.Event) error {
	now := e.Time()
	k := &r.kernels[r.idx]
	r.observeLaunch(k)
	r.logLaunch(now, k)
	if k.Barrier {
		r.barriers++
	} else {
		r.launches++
	}
	if err := r.observe(k); err != nil {
		return err
	}
	if r.places && !k.Barrier {
		// The launch waits for the runtime's placement, made before it.
		return r.driver.Place(now, uvm.Launch{Index: r.idx, Kernel: k}, func(t sim.VTimeInSec) error { return r.dispatch(t, k) })
	}
	return r.dispatch(now, k)
}

// dispatch starts k's workgroups on the GPUs.
func (r *runner) dispatch(now sim.VTimeInSec, k *benchmarks.Kernel) error {
	if k.Workgroups == 0 {
		r.idx++
		r.scheduleNext(now)
		return nil
	}
	scheme := r.scheme
	if k.PerDevice {
		scheme = benchmarks.SchemeContiguous
	}
	d, err := benchmarks.NewDispatcherOn(scheme, k.Workgroups, len(r.gpus), r.cus)
	if err != nil {
		return err
	}
	r.disp, r.left, r.active = d, k.Workgroups, true
	for _, g := range r.gpus {
		g.Fill(now)
	}
	return nil
}

// observe frees, in the allocator and (through the driver) in the policy,
// the objects the program frees before launch k, then tells the policy of
// the launch and its arguments. A grid barrier is not a launch: the policy
// sees nothing, and it cannot free.
func (r *runner) observe(k *benchmarks.Kernel) error {
	if k.Barrier {
		if len(k.Frees) > 0 {
			return fmt.Errorf("kernel %s: a grid barrier cannot free objects", k.Name)
		}
		return nil
	}
	for _, id := range k.Frees {
		if id < 0 || id >= len(r.alloc.Objects()) {
			return fmt.Errorf("kernel %s frees object %d: no such object", k.Name, id)
		}
		o := r.alloc.Object(id)
		if err := r.alloc.Free(o.Ptr); err != nil {
			return fmt.Errorf("kernel %s: %w", k.Name, err)
		}
		if err := r.driver.Observe(pagepolicy.Freed(o)); err != nil {
			return err
		}
	}
	return r.driver.Observe(pagepolicy.Launched(k.Args))
}

// logLaunch logs, at debug, the start of kernel k: a launch, or the
// resumption after a grid barrier.
func (r *runner) logLaunch(now sim.VTimeInSec, k *benchmarks.Kernel) {
	e := r.log.Debug()
	if !e.Enabled() {
		return
	}
	msg := "kernel launch"
	if k.Barrier {
		msg = "grid barrier"
	}
	e.Float64("t_ns", math.Round(float64(now)*1e12)/1e3).Int("kernel", r.idx).Int("kernels", len(r.kernels)).Str("name", k.Name).
		Int("workgroups", k.Workgroups).Ints("args", k.Args).Int("frees", len(k.Frees)).Msg(msg)
}

func (r *runner) finished() bool { return r.idx >= len(r.kernels) }
