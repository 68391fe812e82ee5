package platform

import (
	"fmt"
	"sync/atomic"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/sim"
)

// Progress is a snapshot of a running simulation, for a progress display.
type Progress struct {
	// SimTimeNs is the simulated time reached.
	SimTimeNs float64
	// Kernels of KernelsTotal are done: the workload's kernels as the
	// runner counts them (grid-barrier continuations included, as in the
	// "stalled in kernel i of n" error).
	Kernels, KernelsTotal int
	// PageFaults are the far page faults so far, over every GPU.
	PageFaults uint64
	// Events is how many engine events ran.
	Events uint64
	// Done marks the last snapshot, sent once the run has finished.
	Done bool
}

// ProgressEvents is how many engine events run between two calls of
// Options.Progress: some tens of milliseconds of wall time.
const ProgressEvents = 1 << 16

// progressHook counts the engine's events and every ProgressEvents of them
// hands a snapshot to Options.Progress. It is an Akita hook, installed only
// when Options.Progress is set, so a run without progress pays nothing; it
// reads the system and never changes it, so the run is the same with it.
type progressHook struct {
	s      *System
	events uint64
	every  uint64
	f      func(Progress)
}

// Func implements sim.Hook.
func (h *progressHook) Func(ctx sim.HookCtx) {
	if ctx.Pos != sim.HookPosAfterEvent {
		return
	}
	h.events++
	if h.events%h.every == 0 {
		h.f(h.s.progress(h.events, false))
	}
}

// progress is the snapshot after events engine events.
func (s *System) progress(events uint64, done bool) Progress {
	p := Progress{SimTimeNs: float64(s.engine.CurrentTime()) * 1e9, Kernels: s.runner.idx,
		KernelsTotal: len(s.runner.kernels), Events: events, Done: done}
	for i := range s.perGPU {
		p.PageFaults += s.perGPU[i].counters.PageFaults
	}
	return p
}

// installProgress hooks Options.Progress, if set, into the engine.
func (s *System) installProgress() {
	if s.opts.Progress == nil {
		return
	}
	every := uint64(ProgressEvents)
	if s.opts.progressEvery > 0 {
		every = s.opts.progressEvery
	}
	s.progressHook = &progressHook{s: s, every: every, f: s.opts.Progress}
	s.engine.AcceptHook(s.progressHook)
}

// finishProgress sends Options.Progress, if set, the final snapshot.
func (s *System) finishProgress() {
	if s.progressHook != nil {
		s.progressHook.f(s.progress(s.progressHook.events, true))
	}
}

// packageLogger is where systems log unless Options.Log says otherwise;
// nil discards everything.
var packageLogger atomic.Pointer[zerolog.Logger]

// SetLogger makes every System built afterwards log to l (with a "run"
// field naming the workload, policy and GPUs, so that the runs of a
// parallel sweep can be told apart): kernel launches, policy and phase
// changes at debug, fault batches at trace. Without it the platform logs
// nothing, whatever zerolog's global level, so a library user or a test
// sees no log lines it did not ask for. The mgpu command sets it from
// --log-level.
func SetLogger(l zerolog.Logger) { packageLogger.Store(&l) }

// runLogger is the logger for the system o describes: Options.Log or the
// package's, with the run's label.
func runLogger(o Options) zerolog.Logger {
	l := o.Log
	if l == nil {
		l = packageLogger.Load()
	}
	if l == nil || l.GetLevel() == zerolog.Disabled {
		return zerolog.Nop()
	}
	return l.With().Str("run", fmt.Sprintf("%s/%s/%dgpu", o.Workload, o.Policy, o.Config.GPUs)).Logger()
}
