package benchmarks

import (
	"fmt"
	"strings"
)

// Dispatcher hands the workgroups of one kernel to GPUs. The platform calls
// Next when a GPU has a free workgroup slot; ok is false when no workgroup is
// left for that GPU. Every workgroup index in [0, workgroups) is handed out
// exactly once over the life of a Dispatcher.
type Dispatcher interface {
	// Next returns the next workgroup GPU gpu should run. A gpu outside
	// [0, gpus) gets ok == false.
	Next(gpu int) (wg int, ok bool)
	// Remaining is the number of workgroups not yet handed out, over all
	// GPUs.
	Remaining() int
}

// Distribution scheme names, as Config.Distribution spells them.
const (
	SchemeGreedy     = "greedy"
	SchemeContiguous = "contiguous"
	SchemeRoundRobin = "round-robin"
	SchemeMGPUSim    = "mgpusim"
)

// Schemes lists the workgroup distribution schemes NewDispatcherOn accepts.
func Schemes() []string {
	return []string{SchemeGreedy, SchemeContiguous, SchemeRoundRobin, SchemeMGPUSim}
}

// NewDispatcher returns a dispatcher for a kernel of the given number of
// workgroups on gpus GPUs, for the schemes that do not depend on how many
// CUs a GPU has (all but mgpusim; see NewDispatcherOn).
func NewDispatcher(scheme string, workgroups, gpus int) (Dispatcher, error) {
	if scheme == SchemeMGPUSim {
		return nil, fmt.Errorf("dispatcher: the %s scheme needs the CUs per GPU: use NewDispatcherOn", scheme)
	}
	return NewDispatcherOn(scheme, workgroups, gpus, 1)
}

// NewDispatcherOn returns a dispatcher for a kernel of the given number of
// workgroups on gpus GPUs of cusPerGPU compute units each.
//
//   - greedy: one shared queue in workgroup order; whichever GPU asks gets
//     the next workgroup. The platform asks GPU 0 to fill all its slots
//     first, then GPU 1, and so on, which reproduces MGPUSim's
//     fill-one-GPU-then-the-next dispatcher as GRIT §III-B describes it.
//   - contiguous: GPU g gets workgroups [g*W/N, (g+1)*W/N) in order.
//   - round-robin: GPU g gets workgroups g, g+N, g+2N, ... in order.
//   - mgpusim: upstream MGPUSim's unified multi-GPU launch
//     (amd/driver/driver.go, distributeWGToGPUs and WGFilter): with
//     T = gpus*cusPerGPU CUs, each GPU gets a static contiguous block of
//     cusPerGPU*ceil(W/T) flattened workgroup IDs in GPU order. The blocks
//     overshoot W, so the last GPUs get fewer workgroups, or none (W <= 64
//     on 64-CU GPUs all runs on GPU 0).
func NewDispatcherOn(scheme string, workgroups, gpus, cusPerGPU int) (Dispatcher, error) {
	if workgroups < 0 {
		return nil, fmt.Errorf("dispatcher: %d workgroups: must not be negative", workgroups)
	}
	if gpus < 1 {
		return nil, fmt.Errorf("dispatcher: %d GPUs: must be at least 1", gpus)
	}
	switch scheme {
	case SchemeGreedy:
		return &greedyDispatcher{n: workgroups, gpus: gpus}, nil
	case SchemeContiguous:
		d := &contiguousDispatcher{next: make([]int, gpus), end: make([]int, gpus)}
		for g := 0; g < gpus; g++ {
			d.next[g] = int(int64(g) * int64(workgroups) / int64(gpus))
			d.end[g] = int(int64(g+1) * int64(workgroups) / int64(gpus))
		}
		return d, nil
	case SchemeMGPUSim:
		if cusPerGPU < 1 {
			return nil, fmt.Errorf("dispatcher: %d CUs per GPU: must be at least 1", cusPerGPU)
		}
		d := &contiguousDispatcher{next: make([]int, gpus), end: make([]int, gpus)}
		perCU := 0
		if workgroups > 0 {
			perCU = (workgroups-1)/(gpus*cusPerGPU) + 1
		}
		block := int64(cusPerGPU) * int64(perCU)
		for g := 0; g < gpus; g++ {
			d.next[g] = int(min(int64(g)*block, int64(workgroups)))
			d.end[g] = int(min(int64(g+1)*block, int64(workgroups)))
		}
		return d, nil
	case SchemeRoundRobin:
		d := &roundRobinDispatcher{next: make([]int, gpus), n: workgroups}
		for g := range d.next {
			d.next[g] = g
		}
		return d, nil
	}
	return nil, fmt.Errorf("unknown distribution scheme %q: valid schemes are %s",
		scheme, strings.Join(Schemes(), ", "))
}

type greedyDispatcher struct {
	next, n, gpus int
}

func (d *greedyDispatcher) Next(gpu int) (int, bool) {
	if gpu < 0 || gpu >= d.gpus || d.next >= d.n {
		return 0, false
	}
	wg := d.next
	d.next++
	return wg, true
}

func (d *greedyDispatcher) Remaining() int { return d.n - d.next }

// contiguousDispatcher and roundRobinDispatcher keep each GPU's state
// apart, so GPUs may ask from threads of their own (a parallel run).
type contiguousDispatcher struct {
	next, end []int
}

func (d *contiguousDispatcher) Next(gpu int) (int, bool) {
	if gpu < 0 || gpu >= len(d.next) || d.next[gpu] >= d.end[gpu] {
		return 0, false
	}
	wg := d.next[gpu]
	d.next[gpu]++
	return wg, true
}

func (d *contiguousDispatcher) Remaining() int {
	n := 0
	for g := range d.next {
		n += d.end[g] - d.next[g]
	}
	return n
}

type roundRobinDispatcher struct {
	next []int
	n    int
}

func (d *roundRobinDispatcher) Next(gpu int) (int, bool) {
	if gpu < 0 || gpu >= len(d.next) || d.next[gpu] >= d.n {
		return 0, false
	}
	wg := d.next[gpu]
	d.next[gpu] += len(d.next)
	return wg, true
}

func (d *roundRobinDispatcher) Remaining() int {
	n := 0
	for _, x := range d.next {
		if x < d.n {
			n += (d.n - x + len(d.next) - 1) / len(d.next)
		}
	}
	return n
}

// Reach is how many GPUs a kernel of the given workgroups runs on under
// a static scheme (contiguous, round-robin, mgpusim); greedy's depends on
// the run, and is taken as all it can reach.
func Reach(scheme string, workgroups, gpus, cusPerGPU int) int {
	if scheme != SchemeMGPUSim || workgroups < 1 || gpus < 1 || cusPerGPU < 1 {
		return min(max(workgroups, 0), max(gpus, 0))
	}
	block := cusPerGPU * ((workgroups-1)/(gpus*cusPerGPU) + 1)
	return min((workgroups-1)/block+1, gpus)
}

// SpreadNote warns when even the largest kernel of a workload reaches
// fewer than all its GPUs under the scheme, naming the scheme that
// spreads it; "" when it reaches them all, or none could. (A recorded
// trace's grid is what the program launched: mgpusim's blocks of
// CUs x ceil(W/total CUs) workgroups put a small grid on GPU 0 alone,
// so every policy gives the same result.)
func SpreadNote(workgroups []int, scheme string, gpus, cusPerGPU int) string {
	w := 0
	for _, n := range workgroups {
		w = max(w, n)
	}
	got := Reach(scheme, w, gpus, cusPerGPU)
	best := Reach(SchemeContiguous, w, gpus, cusPerGPU)
	if got >= best {
		return ""
	}
	return fmt.Sprintf("the largest kernel has %d workgroups (thread blocks): the %s distribution runs them on %d of the %d GPUs, so the others idle and policies may not differ; --set distribution=%s spreads them over %d",
		w, scheme, got, gpus, SchemeContiguous, best)
}
