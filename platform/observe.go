package platform

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// LaunchObserver sees the runner start each kernel of the workload, in
// order, before any of its workgroups is dispatched: an explicit launch,
// or with k.Barrier set the resumption after a grid barrier (an implicit
// phase). index counts the workload's kernels from 0, barrier
// continuations and kernels without workgroups included. The observer
// must not modify k.
type LaunchObserver interface {
	Launch(index int, k *benchmarks.Kernel)
}

// observeLaunch tells Options.Launches, if set, that kernel k starts.
func (r *runner) observeLaunch(k *benchmarks.Kernel) {
	if r.onLaunch != nil {
		r.onLaunch.Launch(r.idx, k)
	}
}

// Objects returns a copy of the workload's objects as this system
// allocated them, in ID order: what an access observer needs to map the
// pages it sees to objects.
func (s *System) Objects() []objtable.Object {
	objs := s.alloc.Objects()
	out := make([]objtable.Object, len(objs))
	for i, o := range objs {
		out[i] = *o
	}
	return out
}
