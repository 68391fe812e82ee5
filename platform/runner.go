package platform

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/gpu"
	"github.com/mgpu-sim/mgpu/uvm"
)

// runner is the command processor: it launches the workload's kernels one
// after another and hands their workgroups to the GPUs through the
// distribution scheme. It is host-side control, not a modelled link, so it
// calls the GPUs directly.
type runner struct {
	engine   sim.Engine
	kernels  []benchmarks.Kernel
	idx      int
	active   bool
	disp     benchmarks.Dispatcher
	left     int
	scheme   string
	gpus     []*gpu.Comp
	driver   *uvm.Driver
	launch   sim.VTimeInSec
	end      sim.VTimeInSec
	launches int
	barriers int
}

type launchEvent struct {
	t sim.VTimeInSec
	h sim.Handler
}

func (e *launchEvent) Time() sim.VTimeInSec { return e.t }
func (e *launchEvent) Handler() sim.Handler { return e.h }
func (e *launchEvent) IsSecondary() bool    { return false }

func (r *runner) Kernel() *benchmarks.Kernel {
	if !r.active {
		return nil
	}
	return &r.kernels[r.idx]
}

func (r *runner) Next(g int) (int, bool) { return r.disp.Next(g) }

func (r *runner) Done(now sim.VTimeInSec, _ int) {
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
	r.engine.Schedule(&launchEvent{t: t, h: r})
}

// Handle launches the next kernel (or resumes after a grid barrier).
func (r *runner) Handle(e sim.Event) error {
	now := e.Time()
	k := &r.kernels[r.idx]
	if k.Barrier {
		r.barriers++
	} else {
		r.launches++
		r.driver.KernelLaunch(k.Args)
	}
	if k.Workgroups == 0 {
		r.idx++
		r.scheduleNext(now)
		return nil
	}
	scheme := r.scheme
	if k.PerDevice {
		scheme = benchmarks.SchemeContiguous
	}
	d, err := benchmarks.NewDispatcher(scheme, k.Workgroups, len(r.gpus))
	if err != nil {
		return err
	}
	r.disp, r.left, r.active = d, k.Workgroups, true
	for _, g := range r.gpus {
		g.Fill(now)
	}
	return nil
}

func (r *runner) finished() bool { return r.idx >= len(r.kernels) }
