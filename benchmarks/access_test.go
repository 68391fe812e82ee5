package benchmarks_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

// accessCase is a workload that declares its accesses: SUV's Table I
// workloads.
type accessCase struct {
	name string
	// walk is the scale of the functional walk, small enough to walk
	// every launch in well under a second.
	walk float64
	// upper: data-dependent branches, whose fraction is taken as 1, so
	// the declared Accesses bound the walk from above and a declared
	// object may go untouched.
	upper bool
	// anyBlock: addresses are affine in the block index, so every
	// workgroup's range fits the declared one (not so where a host
	// variable or an index map breaks the translation).
	anyBlock bool
	// patterns are the declared patterns SUV's Table I types call for
	// (D: Analysable, I: HostLoop, U: DataDependent; T is the
	// simulator's, from the range).
	patterns []benchmarks.AccessPattern
	// threads are the objects whose memops the stream issues with fewer
	// lanes than the threads that execute them (broadcasts, thread rows
	// sharing addresses), by "kernel/object" or by "object" (every
	// launch): the threads one walked lane stands for in the source
	// kernel's layout, or perWave. Declared Accesses count threads, so
	// they are the walked lanes times this; every other object's are the
	// walked lanes.
	threads map[string]int
}

// perWave, as a threads factor: one lane stands for all the threads of
// its wavefront that pass the bounds check, which is the lanes of the
// wavefront's widest instruction (where every such thread issues a lane
// of its own).
const perWave = -1

var (
	sD = []benchmarks.AccessPattern{benchmarks.Analysable}
	sI = []benchmarks.AccessPattern{benchmarks.HostLoop, benchmarks.Analysable}
	sU = []benchmarks.AccessPattern{benchmarks.DataDependent, benchmarks.Analysable}
)

var accessCases = []accessCase{
	{"2dconv", 1.0 / 16, false, true, sD, nil},
	// alexnet: HostLoop for the grouped layers' loop.
	{"alexnet", 0.05, false, false, sI, map[string]int{
		"kernarg": 64, // all 256 threads of a block load the arguments; one lane a wavefront
	}},
	{"rbfs", 0.1, true, true, sU, map[string]int{
		"Kernel2/d_over": 64, // a wavefront's 64 threads store *g_over under a branch SUV takes as 1; one lane
	}},
	{"bicgstab", 1.0 / 32, false, true, sD, map[string]int{
		"bicgstab_residual/x": 64, // x[j]: all 64 threads of a (full, n%64 == 0) wavefront; one lane
		"bicgstab_matvec/p":   64, // p[j]: the same
		"bicgstab_matvec/s":   64, // s[j]: the same
	}},
	{"btree", 0.05, false, true, sU, nil}, // d_root's broadcast is issued as 64 lanes
	{"doitgen", 1.0 / 16, false, true, sI, map[string]int{
		"doitgen_kernel1/A":  32, // A[r][q][s]: the 32 threads of a thread row; a lane per row
		"doitgen_kernel1/C4": 2,  // C4[s][p]: the wavefront's two thread rows share it
	}},
	{"fdtd2d", 1.0 / 32, false, true, sD, map[string]int{
		"fdtd_step1_kernel/_fict_": 32, // _fict_[t]: the 32 row-0 threads of the top wavefront; one lane
	}},
	{"floyd-warshall", 1.0 / 16, true, false, sI, nil},
	{"gmm", 1.0 / 16, false, true, sD, map[string]int{
		"gemm_kernel/A": 32, // A[i][k]: the 32 threads of a thread row; a lane per row
		"gemm_kernel/B": 2,  // B[k][j]: the wavefront's two thread rows share it
	}},
	{"gramschmidt", 1.0 / 16, false, true, sI, map[string]int{
		"gramschmidt_kernel2/R": perWave, // R[k][k]: every thread with i < n; one lane a wavefront
		"gramschmidt_kernel3/Q": perWave, // Q[i][k]: every thread with k < j < n; one lane a wavefront
	}},
	{"hellinger", 1.0 / 16, false, true, sD, map[string]int{
		"hellinger/a": 16, // a[row][i]: the 16 threads of a thread row; a lane per row
		"hellinger/b": 4,  // b[i][col]: the wavefront's four thread rows share it
	}},
	{"mm-tiled", 1.0 / 16, false, true, sD, nil},
	{"mvt", 1.0 / 64, false, true, sD, map[string]int{
		"a":   2,  // the two thread rows of a wavefront do the same i (no threadIdx.y)
		"x1":  2,  // the same
		"x2":  2,  // the same
		"y_1": 64, // y_1[j]: all 64 threads; one lane
		"y_2": 64, // y_2[j]: the same
	}},
	{"squeezenet", 0.05, false, false, sD, map[string]int{
		"kernarg": 64, // all 256 threads of a block load the arguments; one lane a wavefront
	}},
	{"xsbench", 0.05, false, true, sU, nil},
}

// TestAccessDeclared builds each workload at scale 1 and 0.25 on one GPU
// and checks the declarations: CheckAccess, a range within the object,
// the patterns SUV's Table I calls for, and that each host loop's
// HostLoop declarations agree. (platform checks that they translate into
// hints SUV accepts.)
func TestAccessDeclared(t *testing.T) {
	for _, c := range accessCases {
		for _, scale := range []float64{1, 0.25} {
			t.Run(fmt.Sprintf("%s/%g", c.name, scale), func(t *testing.T) {
				w, err := benchmarks.New(c.name)
				if err != nil {
					t.Fatal(err)
				}
				if !benchmarks.DeclaresAccess(w) {
					t.Fatalf("%s declares no accesses", c.name)
				}
				a, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 1, Scale: scale, Seed: 1})
				if err := benchmarks.CheckAccess(ks, len(a.Objects())); err != nil {
					t.Fatal(err)
				}
				objs := a.Objects()
				seen := map[benchmarks.AccessPattern]bool{}
				for i, k := range ks {
					for _, h := range k.Access {
						seen[h.Pattern] = true
						if h.Pattern != benchmarks.DataDependent && h.WorkgroupBytes > int64(objs[h.Object].Size) {
							t.Errorf("kernel %d (%s) object %s: range %d over the size", i, k.Name, objs[h.Object].Name, h.WorkgroupBytes)
						}
						if h.Pattern != benchmarks.DataDependent && h.Accesses <= 0 {
							t.Errorf("kernel %d (%s) object %s: %g accesses", i, k.Name, objs[h.Object].Name, h.Accesses)
						}
						if h.Pattern != benchmarks.HostLoop && h.Loop != (benchmarks.LoopSpan{}) {
							t.Errorf("kernel %d (%s) object %s: a loop span %+v on a %v access", i, k.Name, objs[h.Object].Name, h.Loop, h.Pattern)
						}
					}
				}
				for _, p := range c.patterns {
					if !seen[p] {
						t.Errorf("no %v access; SUV's Table I calls for one", p)
					}
				}
				checkLoops(t, ks)
			})
		}
	}
}

// checkLoops checks that the HostLoop declarations of one kernel on one
// object, a host loop's launches, agree on the loop and the span, with
// the index increasing.
func checkLoops(t *testing.T, ks []benchmarks.Kernel) {
	t.Helper()
	type key struct {
		kernel string
		obj    int
	}
	last := map[key]benchmarks.LoopSpan{}
	for i, k := range ks {
		for _, h := range k.Access {
			if h.Pattern != benchmarks.HostLoop {
				continue
			}
			kk := key{k.Name, h.Object}
			p, ok := last[kk]
			last[kk] = h.Loop
			if !ok {
				continue
			}
			q := h.Loop
			if q.Count != p.Count || q.OffsetBytes != p.OffsetBytes || q.StrideBytes != p.StrideBytes || q.SpanBytes != p.SpanBytes {
				t.Errorf("kernel %d (%s) object %d: iteration %+v after %+v: a different loop or span", i, k.Name, h.Object, q, p)
			}
			if q.Index <= p.Index {
				t.Errorf("kernel %d (%s) object %d: iteration %d after %d", i, k.Name, h.Object, q.Index, p.Index)
			}
		}
	}
}

// objWalk is what a functional walk of one launch saw of one object.
type objWalk struct {
	lanes   int64
	threads int64  // lanes times the threads each stands for
	lo, hi  uint64 // the lowest and highest offset touched
	wg      int64  // the largest one-workgroup range, in bytes from the first to the last touched
}

// walkLaunch runs every wavefront of k to the end and tallies the lanes
// by object, mapping addresses by the objects' Base and Size, and the
// threads: each lane of object id stands for per(id) threads (perWave:
// the lanes of its wavefront's widest instruction).
func walkLaunch(t *testing.T, objs []*objtable.Object, k benchmarks.Kernel, per func(id int) int) map[int]*objWalk {
	t.Helper()
	out := map[int]*objWalk{}
	lo := make([]uint64, len(objs))
	hi := make([]uint64, len(objs))
	wfLanes := make([]int64, len(objs)) // this wavefront's lanes
	var touched, wfTouched []int
	var in benchmarks.Instruction
	var cur *objtable.Object
	for wg := 0; wg < k.Workgroups; wg++ {
		touched = touched[:0]
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			s := k.Wavefront(wg, wf, 0)
			widest := int64(0)
			wfTouched = wfTouched[:0]
			for s.Next(&in) {
				widest = max(widest, int64(in.Lanes))
				for l := 0; l < in.Lanes; l++ {
					addr := objtable.Strip(in.Addr[l])
					if cur == nil || addr < cur.Base || addr >= cur.Base+cur.Size {
						i := sort.Search(len(objs), func(i int) bool { return objs[i].Base > addr }) - 1
						if i < 0 || addr >= objs[i].Base+objs[i].Size {
							t.Fatalf("%s: address %#x outside every object", k.Name, addr)
						}
						cur = objs[i]
					}
					off := addr - cur.Base
					w := out[cur.ID]
					if w == nil {
						w = &objWalk{lo: off, hi: off}
						out[cur.ID] = w
					}
					w.lanes++
					if wfLanes[cur.ID] == 0 {
						wfTouched = append(wfTouched, cur.ID)
					}
					wfLanes[cur.ID]++
					w.lo, w.hi = min(w.lo, off), max(w.hi, off)
					if lo[cur.ID] == 0 && hi[cur.ID] == 0 {
						touched = append(touched, cur.ID)
						lo[cur.ID], hi[cur.ID] = off+1, off+1 // 0 marks untouched
					}
					lo[cur.ID], hi[cur.ID] = min(lo[cur.ID], off+1), max(hi[cur.ID], off+1)
				}
			}
			for _, id := range wfTouched {
				f := int64(per(id))
				if f == perWave {
					f = widest
				}
				out[id].threads += wfLanes[id] * f
				wfLanes[id] = 0
			}
		}
		for _, id := range touched {
			w := out[id]
			w.wg = max(w.wg, int64(hi[id]-lo[id])+1)
			lo[id], hi[id] = 0, 0
		}
	}
	return out
}

// TestAccessMatchesWalk walks every launch of each workload at a small
// scale and checks the declarations against what the streams do: a
// declaration for every object a launch touches and (without
// data-dependent branches) none for one it does not; Accesses equal to
// the threads, the lanes counted times the case's threads factor for a
// broadcast object (an upper bound with data-dependent branches;
// DataDependent exempt); ranges that hold every workgroup where the
// addresses are affine in the block index; and HostLoop spans that hold
// every address the launch touches.
func TestAccessMatchesWalk(t *testing.T) {
	for _, c := range accessCases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			a, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 1, Scale: c.walk, Seed: 1})
			objs := a.Objects()
			lanes := int64(0)
			used := map[string]bool{}
			for i, k := range ks {
				if k.Barrier {
					continue
				}
				// factor is the threads entry for object id in k, and its key.
				factor := func(id int) (int, string) {
					for _, key := range []string{k.Name + "/" + objs[id].Name, objs[id].Name} {
						if f, ok := c.threads[key]; ok {
							return f, key
						}
					}
					return 1, ""
				}
				got := walkLaunch(t, objs, k, func(id int) int { f, _ := factor(id); return f })
				declared := map[int]benchmarks.Access{}
				for _, h := range k.Access {
					declared[h.Object] = h
				}
				where := func(id int) string {
					return fmt.Sprintf("kernel %d (%s) object %d %q", i, k.Name, id, objs[id].Name)
				}
				for id, w := range got {
					lanes += w.lanes
					h, ok := declared[id]
					if !ok {
						t.Errorf("%s: touched (%d lanes) but not declared", where(id), w.lanes)
						continue
					}
					if h.Pattern == benchmarks.DataDependent {
						continue
					}
					f, key := factor(id)
					if key != "" {
						used[key] = true
					}
					switch {
					case c.upper && h.Accesses < float64(w.threads):
						t.Errorf("%s: declared %g accesses, below the %d threads walked (%d lanes, factor %d)",
							where(id), h.Accesses, w.threads, w.lanes, f)
					case !c.upper && h.Accesses != float64(w.threads):
						t.Errorf("%s: declared %g accesses, walked %d threads (%d lanes, factor %d)",
							where(id), h.Accesses, w.threads, w.lanes, f)
					}
					if c.anyBlock && h.WorkgroupBytes > 0 && w.wg > h.WorkgroupBytes {
						t.Errorf("%s: a workgroup spans %d bytes, over the declared range %d", where(id), w.wg, h.WorkgroupBytes)
					}
					if h.Pattern == benchmarks.HostLoop {
						it := h.Loop
						from := it.OffsetBytes + int64(it.Index)*it.StrideBytes
						if int64(w.lo) < from || int64(w.hi) >= from+it.SpanBytes {
							t.Errorf("%s: iteration %d touches bytes %d .. %d, outside its span %d + %d",
								where(id), it.Index, w.lo, w.hi, from, it.SpanBytes)
						}
					}
				}
				if !c.upper {
					for id := range declared {
						if got[id] == nil {
							t.Errorf("%s: declared but not touched", where(id))
						}
					}
				}
			}
			for key := range c.threads {
				if !used[key] {
					t.Errorf("threads factor %q matches no declared object a launch touches", key)
				}
			}
			t.Logf("%d launches, %d lanes walked in %v", len(ks), lanes, time.Since(start).Round(time.Millisecond))
		})
	}
}
