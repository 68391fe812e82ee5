package suv

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	core "github.com/mgpu-sim/mgpu/suv"
)

// oracleHints walks every launch's instruction streams once, without
// timing, and measures what core.Oracle needs per object: lane accesses,
// distinct pages, the most distinct pages any window of concurrently
// resident workgroups touches (in dispatch order over the whole grid,
// exact on one GPU, the papers' setting) and, for launches in a host loop,
// each iteration's page extent. Two facts a trace cannot show come from
// the declarations, standing in for SUV's compiler passes (SUV, MICRO
// 2024: SUV-Kern finds pointer chases, §V-A; SUV-Host finds host loops
// and their induction variable, §V-B): which objects are pointer chases
// (declared DataDependent) and which iteration of a host loop a launch is
// (the Loop.Index of its declared HostLoop accesses).
func oracleHints(h *suvHints, c core.Config, kernels []benchmarks.Kernel) ([][]core.Hint, error) {
	w := newOracleWalk(h.alloc, h.page)
	type loopKey struct{ id, count int }
	extents := map[loopKey]map[int]core.PageExtent{}
	stats := make([][]core.ObjectStats, len(kernels))
	iter := make([]int, len(kernels))
	count := make([]int, len(kernels))
	for i := range kernels {
		k := &kernels[i]
		if k.Barrier || len(k.Access) == 0 {
			continue
		}
		for _, a := range k.Access {
			if a.Pattern == benchmarks.HostLoop {
				iter[i], count[i] = a.Loop.Index, a.Loop.Count
			}
		}
		st := w.launch(k, h.concurrent(k), h.gpus)
		for j := range st {
			id := k.Args[j]
			st[j].Object = oracleName(h.alloc, k.Args, id)
			st[j].PointerChase = declaredDataDependent(k, id)
			if count[i] > 1 && st[j].PagesTouched > 0 {
				key := loopKey{id, count[i]}
				if extents[key] == nil {
					extents[key] = map[int]core.PageExtent{}
				}
				extents[key][iter[i]] = unionExtent(extents[key][iter[i]], w.extent[j])
			}
		}
		stats[i] = st
	}
	out := make([][]core.Hint, len(kernels))
	for i := range kernels {
		k := &kernels[i]
		if stats[i] == nil {
			continue
		}
		objs := make([]core.Object, len(k.Args))
		for j, id := range k.Args {
			objs[j] = core.Object{Name: oracleName(h.alloc, k.Args, id), Bytes: int64(h.alloc.Object(id).Size)}
			if count[i] > 1 {
				ex := extents[loopKey{id, count[i]}]
				if len(ex) == count[i] {
					for it := 0; it < count[i]; it++ {
						stats[i][j].Iterations = append(stats[i][j].Iterations, ex[it])
					}
				}
			}
		}
		ls := core.LaunchStats{Workgroups: max(1, k.Workgroups/h.gpus), ConcurrentWorkgroups: max(1, h.concurrent(k)),
			Iteration: iter[i], Objects: stats[i]}
		hs, err := core.Oracle(c, objs, ls)
		if err != nil {
			return nil, fmt.Errorf("kernel %d (%s): %w", i, k.Name, err)
		}
		out[i] = hs
	}
	return out, nil
}

// oracleName is the object's name as suvHints.launch gives it.
func oracleName(alloc *objtable.Allocator, args []int, id int) string {
	o := alloc.Object(id)
	for _, a := range args {
		if a == id {
			break
		}
		if alloc.Object(a).Name == o.Name {
			return fmt.Sprintf("%s#%d", o.Name, id)
		}
	}
	if o.Name == "" {
		return fmt.Sprintf("#%d", id)
	}
	return o.Name
}

func declaredDataDependent(k *benchmarks.Kernel, id int) bool {
	for _, a := range k.Access {
		if a.Object == id {
			return a.Pattern == benchmarks.DataDependent
		}
	}
	return false
}

func unionExtent(a, b core.PageExtent) core.PageExtent {
	if a.Pages == 0 {
		return b
	}
	if b.Pages == 0 {
		return a
	}
	first := min(a.FirstPage, b.FirstPage)
	end := max(a.FirstPage+a.Pages, b.FirstPage+b.Pages)
	return core.PageExtent{FirstPage: first, Pages: end - first}
}

// oracleWalk holds the per-page scratch of the pre-run, reused across
// launches: in[p] counts the window's workgroups that touch page p,
// seen[p] marks the launch (and wgSeen[p] the workgroup) that touched it.
type oracleWalk struct {
	alloc        *objtable.Allocator
	page         uint64
	in           []int32
	seen, wgSeen []uint32
	launchID     uint32
	wgID         uint32
	// per argument of the launch in progress
	extent []core.PageExtent
}

func newOracleWalk(alloc *objtable.Allocator, page uint64) *oracleWalk {
	n := alloc.End()/page + 1
	return &oracleWalk{alloc: alloc, page: page, in: make([]int32, n), seen: make([]uint32, n), wgSeen: make([]uint32, n)}
}

// launch measures k's objects (one ObjectStats per argument).
func (w *oracleWalk) launch(k *benchmarks.Kernel, conc, gpus int) []core.ObjectStats {
	w.launchID++
	arg := make([]int, len(w.alloc.Objects())) // argument index by object ID, -1 for none
	for i := range arg {
		arg[i] = -1
	}
	for j, id := range k.Args {
		arg[id] = j
	}
	st := make([]core.ObjectStats, len(k.Args))
	w.extent = make([]core.PageExtent, len(k.Args))
	window := make([]int64, len(k.Args)) // distinct pages in the window, per argument
	ring := make([][]uint64, max(1, conc))
	var in benchmarks.Instruction
	for wg := 0; wg < k.Workgroups; wg++ {
		slot := wg % len(ring)
		for _, p := range ring[slot] { // the workgroup conc places back leaves the window
			if w.in[p]--; w.in[p] == 0 {
				if j := w.argOf(p, arg); j >= 0 {
					window[j]--
				}
			}
		}
		ring[slot] = ring[slot][:0]
		w.wgID++
		g := wg * gpus / max(1, k.Workgroups)
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			s := k.Wavefront(wg, wf, g)
			for s.Next(&in) {
				for l := 0; l < in.Lanes; l++ {
					addr := objtable.Strip(in.Addr[l])
					o := w.alloc.ObjectAt(addr)
					if o == nil {
						continue
					}
					j := arg[o.ID]
					if j < 0 {
						continue
					}
					st[j].Accesses++
					p := addr / w.page
					if w.seen[p] != w.launchID {
						w.seen[p] = w.launchID
						st[j].PagesTouched++
						w.grow(j, int64(p-o.FirstPage(w.page)))
					}
					if w.wgSeen[p] != w.wgID {
						w.wgSeen[p] = w.wgID
						ring[slot] = append(ring[slot], p)
						if w.in[p]++; w.in[p] == 1 {
							window[j]++
							st[j].WindowPages = max(st[j].WindowPages, window[j])
						}
					}
				}
			}
		}
	}
	for _, r := range ring { // leave the scratch clear for the next launch
		for _, p := range r {
			w.in[p]--
		}
	}
	return st
}

func (w *oracleWalk) argOf(p uint64, arg []int) int {
	o := w.alloc.ObjectAt(p * w.page)
	if o == nil {
		return -1
	}
	return arg[o.ID]
}

func (w *oracleWalk) grow(j int, page int64) {
	w.extent[j] = unionExtent(w.extent[j], core.PageExtent{FirstPage: page, Pages: 1})
}
