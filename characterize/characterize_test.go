package characterize

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/synthetic"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
)

func TestPredominantNinetyPercentRule(t *testing.T) {
	cases := []struct {
		count, total int
		want         bool
	}{
		{0, 0, false},
		{1, 1, true},   // all pages
		{10, 10, true}, // all pages
		{9, 10, false}, // exactly 90% is not "over 90%"
		{90, 100, false},
		{91, 100, true}, // over 90%
		{901, 1000, true},
		{900, 1000, false},
		{0, 5, false},
	}
	for _, c := range cases {
		if got := Predominant(c.count, c.total); got != c.want {
			t.Errorf("Predominant(%d, %d) = %v, want %v", c.count, c.total, got, c.want)
		}
	}
}

func TestObjectClassification(t *testing.T) {
	sharing := []struct {
		private, shared int
		want            Sharing
	}{
		{0, 0, NoSharing},
		{10, 0, Private},
		{0, 3, Shared},
		{91, 9, Private},
		{9, 91, Shared},
		{90, 10, PrivateSharedMix}, // 90% exactly
		{10, 90, PrivateSharedMix},
		{50, 50, PrivateSharedMix},
	}
	for _, c := range sharing {
		if got := ObjectSharing(c.private, c.shared); got != c.want {
			t.Errorf("ObjectSharing(%d, %d) = %v, want %v", c.private, c.shared, got, c.want)
		}
	}
	access := []struct {
		ro, wo, rw int
		want       Access
	}{
		{0, 0, 0, NoAccess},
		{5, 0, 0, ReadOnly},
		{0, 5, 0, WriteOnly},
		{0, 0, 5, RWMix},
		{91, 9, 0, ReadOnly},
		{9, 91, 0, WriteOnly},
		{90, 10, 0, RWMix}, // 90% read-only exactly: not predominant
		{30, 70, 0, RWMix}, // the paper's example: 30% RO, 70% WO or rw-mix
		{30, 0, 70, RWMix},
		{0, 95, 5, WriteOnly},
		{4, 4, 92, RWMix},
	}
	for _, c := range access {
		if got := ObjectAccess(c.ro, c.wo, c.rw); got != c.want {
			t.Errorf("ObjectAccess(%d, %d, %d) = %v, want %v", c.ro, c.wo, c.rw, got, c.want)
		}
	}
}

func TestPageClassification(t *testing.T) {
	cases := []struct {
		mask  uint64
		flags uint8
		want  string
		ok    bool
	}{
		{0, 0, "", false},
		{1, flagRead, "private-read-only", true},
		{1 << 63, flagWrite, "private-write-only", true},
		{4, flagRead | flagWrite, "private-rw-mix", true},
		{3, flagRead, "shared-read-only", true},
		{1<<63 | 1, flagWrite, "shared-write-only", true},
		{0xff, flagRead | flagWrite, "shared-rw-mix", true},
	}
	for _, c := range cases {
		got, ok := classOf(c.mask, c.flags)
		if ok != c.ok || (ok && got.String() != c.want) {
			t.Errorf("classOf(%#x, %d) = %v %v, want %q %v", c.mask, c.flags, got, ok, c.want, c.ok)
		}
	}
	for _, n := range []struct {
		gpus int
		want Sharing
	}{{0, NoSharing}, {1, Private}, {2, Shared}, {64, Shared}} {
		if got := PageSharing(n.gpus); got != n.want {
			t.Errorf("PageSharing(%d) = %v", n.gpus, got)
		}
	}
	if PageAccess(false, false) != NoAccess || PageAccess(true, false) != ReadOnly ||
		PageAccess(false, true) != WriteOnly || PageAccess(true, true) != RWMix {
		t.Error("PageAccess")
	}
	for c := Class(0); c < NumClasses; c++ {
		if MakeClass(c.Sharing(), c.Access()) != c {
			t.Errorf("class %v does not round-trip", c)
		}
	}
}

// system is the default configuration with gpus GPUs, a distribution
// scheme (empty keeps greedy) and cus CUs (0 keeps 64).
func system(gpus int, dist string, cus int) Options {
	c := config.DefaultConfig()
	c.GPUs = gpus
	if dist != "" {
		c.Distribution = dist
	}
	if cus != 0 {
		c.GPU.CUs = cus
	}
	return Options{Config: c}
}

func run(t *testing.T, name string, p benchmarks.Params, o Options) *Result {
	t.Helper()
	res, err := Run(name, p, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("%s: warning: %s", name, w)
	}
	return res
}

// objectRun returns the whole-run entry of the named object.
func objectRun(t *testing.T, res *Result, name string) *ObjectPhase {
	t.Helper()
	for i := range res.ObjectRun {
		if res.Objects[res.ObjectRun[i].Object].Name == name {
			return &res.ObjectRun[i]
		}
	}
	t.Fatalf("%s has no object %q", res.Workload, name)
	return nil
}

// Scales at which the tiled kernels split evenly over 4 GPUs under
// contiguous distribution: mm with n = 384 (12x12 tiles of 32, 3 tile rows
// and 36 pages of C per GPU), mt with n = 256 (4x4 tiles of 64).
const (
	mmAligned = 384.0 * 384 * 12 / (32 << 20)
	mtAligned = 256.0 * 256 * 8 / (64 << 20)
)

func TestWorkloadClasses(t *testing.T) {
	type want struct {
		object string
		small  string // whole-run class at 4 KB ("" = don't check)
		large  string // whole-run class at 2 MB
	}
	cases := []struct {
		name     string
		workload string
		p        benchmarks.Params
		o        Options
		want     []want
	}{
		{"private", "private", benchmarks.Params{Scale: 0.25}, system(4, "", 0),
			// 4 regions of 256 KB in one 2 MB page: private at 4 KB, shared at 2 MB.
			[]want{{"data", "private-rw-mix", "shared-rw-mix"}}},
		{"private on one GPU", "private", benchmarks.Params{Scale: 0.25}, system(1, "", 0),
			[]want{{"data", "private-rw-mix", "private-rw-mix"}}},
		{"shared-read", "shared-read", benchmarks.Params{Scale: 0.25}, system(4, "", 0),
			[]want{{"input", "shared-read-only", "shared-read-only"}, {"output", "private-write-only", "shared-write-only"}}},
		{"pingpong", "pingpong", benchmarks.Params{Scale: 0.25}, system(4, "", 0),
			[]want{{"data", "shared-rw-mix", "shared-rw-mix"}}},
		{"prodcons", "prodcons", benchmarks.Params{Scale: 0.25}, system(4, "", 0),
			// buffer g: written by GPU g, read by GPU g+1
			[]want{{"buf0", "shared-rw-mix", ""}, {"buf3", "shared-rw-mix", ""}}},
		// MGPUSim's mm reads A's first 32 rows in every workgroup, and its
		// mt's diagonal reshuffle spreads every row of tiles over the GPUs:
		// both are shared whatever the split.
		{"mm contiguous", "mm", benchmarks.Params{Scale: mmAligned}, system(4, "contiguous", 0),
			[]want{{"A", "shared-read-only", "shared-read-only"}, {"B", "shared-read-only", "shared-read-only"},
				{"C", "private-write-only", "shared-write-only"}, {"kernarg", "shared-read-only", "shared-read-only"}}},
		{"mm round-robin", "mm", benchmarks.Params{Scale: mmAligned}, system(4, "round-robin", 0),
			[]want{{"A", "shared-read-only", ""}, {"B", "shared-read-only", ""}, {"C", "shared-write-only", ""}}},
		{"mt contiguous", "mt", benchmarks.Params{Scale: mtAligned}, system(4, "contiguous", 0),
			[]want{{"input", "shared-read-only", "shared-read-only"}, {"output", "shared-write-only", "shared-write-only"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, c.workload, c.p, c.o)
			for _, w := range c.want {
				op := objectRun(t, res, w.object)
				if got := ObjectClass(&op.Small); w.small != "" && got != w.small {
					t.Errorf("%s at 4KB: %s, want %s (%v)", w.object, got, w.small, op.Small)
				}
				if got := ObjectClass(&op.Large); w.large != "" && got != w.large {
					t.Errorf("%s at 2MB: %s, want %s (%v)", w.object, got, w.large, op.Large)
				}
			}
			if res.Unmanaged != 0 {
				t.Errorf("%d unmanaged lanes", res.Unmanaged)
			}
		})
	}
}

// Exact page-level facts, beyond the 90% rule.
func TestEveryPage(t *testing.T) {
	t.Run("private: every page private in every phase and overall", func(t *testing.T) {
		res := run(t, "private", benchmarks.Params{Scale: 0.25}, system(4, "", 0))
		for _, op := range res.ObjectPhases {
			if op.Small.Count(Shared, NoAccess) != 0 || op.Small.Pages() != res.Objects[op.Object].Pages {
				t.Errorf("phase %d: %v", op.Phase, op.Small)
			}
		}
		if a := res.App[0]; a.Census.Count(Shared, NoAccess) != 0 || a.Census.Pages() == 0 {
			t.Errorf("app 4KB: %v", a.Census)
		}
	})
	t.Run("shared-read: input pages read by every GPU", func(t *testing.T) {
		res := run(t, "shared-read", benchmarks.Params{Scale: 0.25}, system(4, "", 0))
		in := objectRun(t, res, "input")
		ob := res.Objects[in.Object]
		for i := 0; i < ob.Pages; i++ {
			if c, ok := res.PageClass(ob.ID, i); !ok || c != SharedRO || res.PageGPUs(ob.ID, i) != 4 {
				t.Fatalf("input page %d: %v %v, %d GPUs", i, c, ok, res.PageGPUs(ob.ID, i))
			}
		}
	})
	t.Run("pingpong: private in each phase, shared over the run", func(t *testing.T) {
		res := run(t, "pingpong", benchmarks.Params{Scale: 0.25}, system(4, "", 0))
		if len(res.Phases) != synthetic.Iterations {
			t.Fatalf("%d phases", len(res.Phases))
		}
		for _, op := range res.ObjectPhases {
			if ObjectClass(&op.Small) != "private-rw-mix" {
				t.Errorf("phase %d: %s", op.Phase, ObjectClass(&op.Small))
			}
		}
		// Each kernel is exactly two of the 8 intervals: a page is private
		// in each interval it is touched in, and touched in every kernel.
		ob := res.Objects[0]
		for i := 0; i < ob.Pages; i++ {
			touched := 0
			for iv := range res.Intervals {
				c, ok := res.IntervalClass(0, i, iv)
				if ok && c.Sharing() != Private {
					t.Fatalf("page %d interval %d: %v", i, iv, c)
				}
				if ok {
					touched++
				}
			}
			if touched < len(res.Phases) {
				t.Fatalf("page %d touched in %d intervals", i, touched)
			}
		}
	})
	t.Run("prodcons: write-only then read-only phases", func(t *testing.T) {
		res := run(t, "prodcons", benchmarks.Params{Scale: 0.25}, system(4, "", 0))
		for _, op := range res.ObjectPhases {
			want := "private-write-only"
			if res.Phases[op.Phase].Name == "consume" {
				want = "private-read-only"
			}
			if got := ObjectClass(&op.Small); got != want {
				t.Errorf("phase %d %s: %s, want %s", op.Phase, res.Objects[op.Object].Name, got, want)
			}
		}
	})
}

// streamAccesses counts, independently of the package, the page accesses
// of a workload's streams: per instruction the distinct 4 KB pages of its
// lanes, split into reads and writes, per kernel.
func streamAccesses(t *testing.T, name string, p benchmarks.Params, gpus int) (reads, writes []uint64) {
	t.Helper()
	w, err := benchmarks.New(name)
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits}, LargePage)
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	kernels, err := w.Setup(alloc, p)
	if err != nil {
		t.Fatal(err)
	}
	var in benchmarks.Instruction
	for _, k := range kernels {
		var r, wr uint64
		for wg := 0; wg < k.Workgroups; wg++ {
			g := wg * gpus / k.Workgroups // contiguous: only PerDevice streams use it
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				for s := k.Wavefront(wg, wf, g); s.Next(&in); {
					pages := map[uint64]bool{}
					for l := 0; l < in.Lanes; l++ {
						pages[objtable.Strip(in.Addr[l])/SmallPage] = true
					}
					if in.Write {
						wr += uint64(len(pages))
					} else {
						r += uint64(len(pages))
					}
				}
			}
		}
		reads, writes = append(reads, r), append(writes, wr)
	}
	return reads, writes
}

func TestMMGreedy(t *testing.T) {
	// 4 CUs: 40 workgroup slots per GPU, so the simulator's greedy
	// dispatcher spreads the 576 workgroups over all GPUs (the default 640
	// slots would put them all on GPU 0).
	res := run(t, "mm", benchmarks.Params{Scale: mmAligned}, system(4, "", 4))
	a, b, c := objectRun(t, res, "A"), objectRun(t, res, "B"), objectRun(t, res, "C")
	if ObjectClass(&b.Small) != "shared-read-only" {
		t.Errorf("B: %s", ObjectClass(&b.Small))
	}
	if a.Small.Access() != ReadOnly || a.Small.Count(NoSharing, ReadOnly) != a.Small.Pages() || ObjectClass(&a.Small) != "shared-read-only" {
		t.Errorf("A: %v", a.Small)
	}
	if c.Small.Access() != WriteOnly || c.Small.Count(NoSharing, WriteOnly) != res.Objects[c.Object].Pages {
		t.Errorf("C: %v", c.Small)
	}
	// A and B carry almost all accesses; C is mm's only write, once per
	// tile row of a wavefront.
	if share := float64(a.Accesses()+b.Accesses()) / float64(res.Accesses); share < 0.95 {
		t.Errorf("A and B: %.3f of accesses", share)
	}
	_, writes := streamAccesses(t, "mm", benchmarks.Params{Scale: mmAligned}, 4)
	if c.WriteAccesses() != writes[0] || res.Writes != writes[0] {
		t.Errorf("C: %d write accesses (%d in all), want %d", c.WriteAccesses(), res.Writes, writes[0])
	}
	// Every GPU ran workgroups: each read B.
	for g, n := range b.Reads {
		if n == 0 {
			t.Errorf("GPU %d never read B: %v", g, b.Reads)
		}
	}
}

func TestMTIntervals(t *testing.T) {
	// Fig. 4: input read-only and output write-only in every interval.
	res := run(t, "mt", benchmarks.Params{Scale: mtAligned}, system(4, "", 4))
	var n uint64
	for _, iv := range res.Intervals {
		n += iv.End - iv.Start
	}
	if n != res.Accesses || len(res.Intervals) != DefaultIntervals {
		t.Fatalf("%d intervals cover %d accesses of %d", len(res.Intervals), n, res.Accesses)
	}
	for _, name := range []string{"input", "output"} {
		ob := res.Objects[objectRun(t, res, name).Object]
		seen := 0
		for i := 0; i < ob.Pages; i++ {
			for iv := range res.Intervals {
				c, ok := res.IntervalClass(ob.ID, i, iv)
				if !ok {
					continue
				}
				seen++
				if (name == "input") != (c.Access() == ReadOnly) || (name == "output") != (c.Access() == WriteOnly) {
					t.Fatalf("%s page %d interval %d: %v", name, i, iv, c)
				}
			}
		}
		if seen < ob.Pages {
			t.Errorf("%s: %d page-intervals for %d pages", name, seen, ob.Pages)
		}
	}
}

func TestLargePagesTurnPrivateShared(t *testing.T) {
	// private: each GPU's 256 KB region is private at 4 KB, and the one
	// 2 MB page holding all four is shared.
	res := run(t, "private", benchmarks.Params{Scale: 0.25}, system(4, "", 0))
	small, large := res.App[0], res.App[1]
	if small.PageSize != SmallPage || large.PageSize != LargePage || small.Period != "run" || large.Period != "run" {
		t.Fatalf("App order: %+v", res.App)
	}
	sharedSmall := float64(small.Census.Count(Shared, NoAccess)) / float64(small.Census.Pages())
	sharedLarge := float64(large.Census.Count(Shared, NoAccess)) / float64(large.Census.Pages())
	if !(sharedLarge > sharedSmall) || sharedLarge != 1 {
		t.Errorf("shared: %.3f of 4KB pages, %.3f of 2MB pages", sharedSmall, sharedLarge)
	}
	in := objectRun(t, res, "data")
	if in.Small.Count(Private, NoAccess) != in.Small.Pages() || in.Large.Count(Shared, NoAccess) != 1 {
		t.Errorf("data: 4KB %v, 2MB %v", in.Small, in.Large)
	}
	// A 2 MB page is never less shared than its 4 KB pages: shared 4 KB
	// pages make their 2 MB page shared.
	for _, op := range res.ObjectRun {
		if op.Small.Count(Shared, NoAccess) > 0 && op.Large.Count(Shared, NoAccess) == 0 {
			t.Errorf("object %d: shared at 4KB, not at 2MB", op.Object)
		}
	}
}

func TestImplicitPhases(t *testing.T) {
	// st: one launch and barrier continuations; the grids alternate
	// read-only and write-only (Fig. 7b).
	res := run(t, "st", benchmarks.Params{Scale: 0.02, Iterations: 4}, system(4, "", 1))
	if len(res.Phases) != 4 {
		t.Fatalf("%d phases", len(res.Phases))
	}
	for i, ph := range res.Phases {
		if ph.Launch != 0 || ph.Step != i || ph.Explicit != (i == 0) || ph.Label != "StencilKernel#"+string(rune('0'+i)) {
			t.Errorf("phase %d: %+v", i, ph)
		}
	}
	for _, op := range res.ObjectPhases {
		name := res.Objects[op.Object].Name
		if name == "kernarg" {
			continue
		}
		reads := (name == "currData") == (op.Phase%2 == 0)
		want := map[bool]Access{true: ReadOnly, false: WriteOnly}[reads]
		if op.Small.Access() != want {
			t.Errorf("phase %d %s: %v, want %v", op.Phase, name, op.Small.Access(), want)
		}
	}
	if got := ObjectClass(&objectRun(t, res, "currData").Small); !strings.HasSuffix(got, "rw-mix") {
		t.Errorf("currData over the run: %s", got)
	}
	// A workload with one kernel per phase keeps plain labels.
	res = run(t, "pingpong", benchmarks.Params{Scale: 0.25}, system(2, "", 0))
	for _, ph := range res.Phases {
		if ph.Label != "pingpong" || !ph.Explicit {
			t.Errorf("%+v", ph)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, name := range []string{"mm", "pingpong"} {
		var prev *Result
		var prevCSV map[string][]byte
		for i := 0; i < 2; i++ {
			res := run(t, name, benchmarks.Params{Scale: 0.05, Seed: 7}, system(3, "", 2))
			res.Wall = 0
			dir := t.TempDir()
			if err := res.WriteCSVs(dir); err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, f := range CSVFiles {
				b, err := os.ReadFile(filepath.Join(dir, f.Name))
				if err != nil {
					t.Fatal(err)
				}
				files[f.Name] = b
			}
			if prev != nil {
				if !reflect.DeepEqual(prev, res) {
					t.Errorf("%s: results differ between runs", name)
				}
				for f, b := range files {
					if !bytes.Equal(b, prevCSV[f]) {
						t.Errorf("%s: %s differs between runs", name, f)
					}
				}
			}
			prev, prevCSV = res, files
		}
	}
}

// The phases are the runner's launches: one per kernel, in order, each
// holding exactly its kernel's accesses.
func TestPhasesFollowLaunches(t *testing.T) {
	cases := []struct {
		workload string
		p        benchmarks.Params
		o        Options
	}{
		{"prodcons", benchmarks.Params{Scale: 0.25}, system(4, "", 0)},
		{"st", benchmarks.Params{Scale: 0.02, Iterations: 4}, system(4, "", 1)},
		{"lenet", benchmarks.Params{Scale: 0.05, Iterations: 1}, system(2, "", 0)},
	}
	for _, c := range cases {
		t.Run(c.workload, func(t *testing.T) {
			res := run(t, c.workload, c.p, c.o)
			reads, writes := streamAccesses(t, c.workload, c.p, c.o.Config.GPUs)
			if len(res.Phases) != len(reads) {
				t.Fatalf("%d phases, %d kernels", len(res.Phases), len(reads))
			}
			var start uint64
			for i, ph := range res.Phases {
				if ph.Index != i || ph.Start != start || ph.Reads != reads[i] || ph.Writes != writes[i] || ph.Accesses != ph.Reads+ph.Writes {
					t.Errorf("phase %d %s: %+v, want start %d, %d reads, %d writes", i, ph.Label, ph, start, reads[i], writes[i])
				}
				start += ph.Accesses
			}
			if start != res.Accesses {
				t.Errorf("phases hold %d accesses of %d", start, res.Accesses)
			}
		})
	}
}

// launches records what a platform.LaunchObserver is told.
type launches []string

func (l *launches) Launch(i int, k *benchmarks.Kernel) {
	*l = append(*l, fmt.Sprintf("%d %s %v", i, k.Name, k.Barrier))
}

func TestLaunchObserver(t *testing.T) {
	var got launches
	cfg := ZeroLatency(config.DefaultConfig())
	cfg.GPU.CUs = 1
	_, err := platform.Run(platform.Options{Workload: "st", Policy: Policy, Scale: 0.02, Iterations: 3,
		Config: cfg, Launches: &got})
	if err != nil {
		t.Fatal(err)
	}
	want := launches{"0 StencilKernel false", "1 StencilKernel true", "2 StencilKernel true"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("launches %q, want %q", got, want)
	}
}

func TestZeroLatency(t *testing.T) {
	base := config.DefaultConfig()
	base.GPUs, base.GPU.CUs, base.Distribution, base.Placement, base.PageSize = 8, 16, "round-robin", "spread", LargePage
	c := ZeroLatency(base)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, k := range config.Keys(c) {
		switch {
		case !c.InEffect(k.Key) || !platform.Affects(k.Key, Policy, ""):
			// Without effect here, so left at its default.
		case k.Key == "gpu.issue_cycles":
			if k.Value != "1" {
				t.Errorf("%s = %s, want 1", k.Key, k.Value)
			}
		case strings.HasSuffix(k.Key, "_cycles"), strings.HasSuffix(k.Key, "_ns"):
			if k.Value != "0" {
				t.Errorf("%s = %s, want 0", k.Key, k.Value)
			}
		case strings.HasSuffix(k.Key, "_gbps"):
			if k.Value != "1e+09" {
				t.Errorf("%s = %s, want 1e9", k.Key, k.Value)
			}
		}
	}
	// The structure stays; the page size and placement are the study's.
	if c.GPUs != 8 || c.GPU.CUs != 16 || c.Distribution != "round-robin" || c.GPU.WavefrontsPerCU != base.GPU.WavefrontsPerCU ||
		c.GPU.L2TLBEntries != base.GPU.L2TLBEntries || c.UVM.FaultBatch != base.UVM.FaultBatch {
		t.Errorf("structure changed: %+v", c)
	}
	if c.PageSize != SmallPage || c.Placement != "host" || c.Link.HeaderBytes != 0 || c.Check || c.Oversubscribe != 0 {
		t.Errorf("%+v", c)
	}
}

func TestBadOptions(t *testing.T) {
	bad := func(f func(*Options)) Options {
		o := system(2, "", 0)
		f(&o)
		return o
	}
	for _, o := range []Options{
		bad(func(o *Options) { o.Config.GPUs = 0 }),
		bad(func(o *Options) { o.Config.GPUs = 65 }),
		bad(func(o *Options) { o.Config.Distribution = "nope" }),
		bad(func(o *Options) { o.Config.GPU.CUs = -1 }),
		bad(func(o *Options) { o.Intervals = -1 }),
		{}, // no configuration
	} {
		if _, err := Run("private", benchmarks.Params{Scale: 0.1}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := Run("private", benchmarks.Params{Scale: -1}, system(2, "", 0)); err == nil {
		t.Error("negative scale: no error")
	}
	if _, err := Run("nope", benchmarks.Params{}, system(2, "", 0)); err == nil {
		t.Error("unknown workload: no error")
	}
}

func TestWriteTableAndCSVs(t *testing.T) {
	res := run(t, "shared-read", benchmarks.Params{Scale: 0.1}, system(2, "", 0))
	var out bytes.Buffer
	if err := res.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"OBJECTS", "PER PHASE", "PAGE CLASSES OVER TIME", "APP LEVEL", "shared-read-only", "2MB"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := res.WriteCSVs(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(CSVFiles) {
		t.Errorf("%d files in %s, want %d (no temp files left)", len(entries), dir, len(CSVFiles))
	}
	b, _ := os.ReadFile(filepath.Join(dir, "page_intervals.csv"))
	if !strings.HasPrefix(string(b), "page,object,object_page,interval,class\n") || !strings.Contains(string(b), ",input,0,0,shared-read-only\n") {
		t.Errorf("page_intervals.csv:\n%.300s", b)
	}
}

func TestPhaseIntervals(t *testing.T) {
	// st: one interval per iteration, each holding exactly its phase's
	// accesses (the first iteration also loads the kernel arguments, so
	// equal slices would not fall on the iteration boundaries); a grid's
	// pages alternate read-only and write-only (Fig. 7b).
	o := system(4, "", 1)
	o.PhaseIntervals = true
	o.Intervals = 3 // ignored
	res := run(t, "st", benchmarks.Params{Scale: 0.02, Iterations: 4}, o)
	if !res.PhaseIntervals || len(res.Intervals) != 4 || len(res.Phases) != 4 {
		t.Fatalf("%d intervals, %d phases", len(res.Intervals), len(res.Phases))
	}
	for i, iv := range res.Intervals {
		ph := res.Phases[i]
		if iv.Start != ph.Start || iv.End != ph.Start+ph.Accesses {
			t.Errorf("interval %d [%d, %d), phase [%d, +%d)", i, iv.Start, iv.End, ph.Start, ph.Accesses)
		}
	}
	if res.Phases[0].Accesses == res.Phases[1].Accesses {
		t.Errorf("the first iteration has no extra kernarg accesses: %+v", res.Phases[:2])
	}
	cur := res.Objects[objectRun(t, res, "currData").Object]
	alternating := 0
	for i := 0; i < cur.Pages; i++ {
		ok := true
		for iv := range res.Intervals {
			c, touched := res.IntervalClass(cur.ID, i, iv)
			want := map[bool]Access{true: ReadOnly, false: WriteOnly}[iv%2 == 0]
			ok = ok && touched && c.Access() == want
		}
		if ok {
			alternating++
		}
	}
	// All but the halo pages, which are read and never written.
	if alternating == 0 || cur.Pages-alternating > 8 {
		t.Errorf("%d of %d currData pages alternate read-only and write-only", alternating, cur.Pages)
	}
	var out bytes.Buffer
	if err := res.WriteTable(&out); err != nil || !strings.Contains(out.String(), "PAGE CLASSES PER PHASE") {
		t.Errorf("table: %v\n%s", err, out.String())
	}
}
