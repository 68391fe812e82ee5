package suv

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

const kb = 1 << 10

// byObject lists a plan's actions on one object, kinds only.
func kindsOf(p Plan, obj string) []Kind {
	var ks []Kind
	for _, a := range p.Actions {
		if a.Object == obj {
			ks = append(ks, a.Kind)
		}
	}
	return ks
}

func actionsOf(p Plan, obj string) []Action {
	var as []Action
	for _, a := range p.Actions {
		if a.Object == obj {
			as = append(as, a)
		}
	}
	return as
}

func placementOf(t *testing.T, p Plan, obj string) Placement {
	t.Helper()
	for _, x := range p.Placements {
		if x.Object == obj {
			return x
		}
	}
	t.Fatalf("no placement for %q", obj)
	return Placement{}
}

func mustPlan(t *testing.T, c Config, avail int64, objs []Object, hs Hints) Plan {
	t.Helper()
	p, err := PlanLaunch(c, avail, objs, hs)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Verify(); err != nil {
		t.Fatalf("avail %d: %v", avail, err)
	}
	return p
}

// mixed is a launch with one structure of every class.
var mixedObjects = []Object{
	{"dense", 8 * mb}, {"sparse", 32 * mb}, {"tile", 64 * mb}, {"tileSparse", 16 * mb},
	{"chase", 16 * mb}, {"iter", 64 * mb}, {"odd", 3*mb + 123}, {"untouched", 8 * mb},
}

var mixedHints = Hints{
	{Object: "dense", Density: 40},
	{Object: "sparse", Density: 0.5},
	{Object: "tile", Class: Temporal, Density: 20, WSSBytes: 4 * mb},
	{Object: "tileSparse", Class: Temporal, Density: 2, WSSBytes: mb},
	{Object: "chase", Class: Unknown},
	{Object: "iter", Class: Iterative, Density: 10, Iter: Iteration{Index: 0, Count: 64, StrideBytes: mb, SpanBytes: mb}},
	{Object: "odd", Density: 3},
}

// printed is Algorithm 1 as printed: no host pin for sparse structures
// beside a pointer chase (TestSparseBesideChase has that rule).
func printed() Config {
	c := DefaultConfig()
	c.SparseBesideChase = SparseHBM
	return c
}

func TestEachClassGetsItsAction(t *testing.T) {
	p := mustPlan(t, printed(), 100*mb, mixedObjects, mixedHints)
	for _, tc := range []struct {
		obj  string
		want []Kind
	}{
		{"dense", []Kind{PinHBM}},
		{"sparse", []Kind{PinHBM}}, // last in density order, still fits
		{"tile", []Kind{OnDemand}},
		{"tileSparse", []Kind{PinHBM}}, // sparse Temporal: placed like Density (sparse_temporal hbm)
		{"chase", []Kind{EnableAC}},
		{"iter", []Kind{PinHost, Prefetch}}, // iteration 0: all but batch 0 on the host
		{"odd", []Kind{PinHBM}},
		{"untouched", nil},
	} {
		if got := kindsOf(p, tc.obj); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.obj, got, tc.want)
		}
	}
	if q := actionsOf(p, "tile")[0].Quota; q != 4*mb {
		t.Errorf("tile quota %d, want its WSS %d", q, 4*mb)
	}
	// Unknown: size/footprint of the starting HBM, footprint = hinted objects.
	var footprint int64
	for _, o := range mixedObjects[:7] {
		footprint += alignUp(o.Bytes, 4*kb)
	}
	if q, want := actionsOf(p, "chase")[0].Quota, alignDown(mulDiv(16*mb, 100*mb, footprint), 4*kb); q != want || q < 7*mb {
		t.Errorf("chase quota %d, want %d", q, want)
	}
	if x := placementOf(t, p, "iter"); x.Class != Iterative || x.BatchIters != 2 || x.HBMBytes != 2*mb {
		t.Errorf("iter placement %+v: want iterative, 2 iterations of 1MB per prefetch", x)
	}
}

func TestActionOrderFreesBeforeUsing(t *testing.T) {
	p := mustPlan(t, DefaultConfig(), 40*mb, mixedObjects, mixedHints)
	rank := map[Kind]int{PinHost: 0, Evict: 0, OnDemand: 1, EnableAC: 1, PinHBM: 2, Prefetch: 3}
	for i := 1; i < len(p.Actions); i++ {
		if rank[p.Actions[i].Kind] < rank[p.Actions[i-1].Kind] {
			t.Fatalf("action %d %v after %v", i, p.Actions[i], p.Actions[i-1])
		}
	}
}

func TestDensityOrderAndPrefixPin(t *testing.T) {
	objs := []Object{{"lo", 10 * mb}, {"hi", 10 * mb}, {"mid", 10*mb + 100}}
	hs := Hints{{Object: "lo", Density: 1}, {Object: "hi", Density: 9}, {Object: "mid", Density: 4}}
	avail := int64(15*mb + 4*kb + 17) // rounded down to 15MB + 4KB
	p := mustPlan(t, DefaultConfig(), avail, objs, hs)
	want := []Action{
		{Kind: PinHost, Object: "mid", Range: Range{Off: 5*mb + 4*kb, Len: 5*mb - 4*kb + 100}},
		{Kind: PinHost, Object: "lo", Range: Range{Len: 10 * mb}},
		{Kind: PinHBM, Object: "hi", Range: Range{Len: 10 * mb}},
		{Kind: PinHBM, Object: "mid", Range: Range{Len: 5*mb + 4*kb}},
	}
	if !reflect.DeepEqual(p.Actions, want) {
		t.Errorf("actions\n%v\nwant\n%v", p.Actions, want)
	}
	if p.Avail != 15*mb+4*kb || p.Used != p.Avail {
		t.Errorf("avail %d used %d", p.Avail, p.Used)
	}
}

func TestTemporalCutoffBoundary(t *testing.T) {
	objs := []Object{{"T", 64 * mb}}
	for _, tc := range []struct {
		wss    int64
		cutoff float64
		want   Kind
	}{
		{32*mb - 1, 0.5, OnDemand},
		{32 * mb, 0.5, PinHBM}, // not < 0.5 x size: Density
		{32*mb + 1, 0.5, PinHBM},
		{32*mb + 1, 0.75, OnDemand},
		{64 * mb, 1, PinHBM},
	} {
		c := DefaultConfig()
		c.TemporalCutoff = tc.cutoff
		p := mustPlan(t, c, 1<<30, objs, Hints{{Object: "T", Class: Temporal, Density: 10, WSSBytes: tc.wss}})
		if got := kindsOf(p, "T"); !slices.Equal(got, []Kind{tc.want}) {
			t.Errorf("wss %d cutoff %g: %v, want %v", tc.wss, tc.cutoff, got, tc.want)
		}
	}
}

// TestDensityThresholdBoundary: above the threshold (strict) a Temporal
// structure gets a pool; at or below it, sparse_temporal decides between
// the HBM pin of the printed Algorithm 1 and the host pin of the text.
func TestDensityThresholdBoundary(t *testing.T) {
	objs := []Object{{"T", 64 * mb}}
	for _, tc := range []struct {
		density, threshold float64
		sparse             string
		want               Kind
	}{
		{5, 5, SparseHost, PinHost}, // strict: "> threshold"
		{5, 5, SparseHBM, PinHBM},
		{5.000001, 5, SparseHost, OnDemand},
		{5.000001, 5, SparseHBM, OnDemand},
		{4.99, 5, SparseHost, PinHost},
		{4.99, 5, SparseHBM, PinHBM},
		{5, 4.5, SparseHost, OnDemand},
		{0.01, 0.001, SparseHost, OnDemand},
	} {
		c := DefaultConfig()
		c.DensityThreshold, c.SparseTemporal = tc.threshold, tc.sparse
		p := mustPlan(t, c, 1<<30, objs, Hints{{Object: "T", Class: Temporal, Density: tc.density, WSSBytes: 8 * mb}})
		if got := kindsOf(p, "T"); !slices.Equal(got, []Kind{tc.want}) {
			t.Errorf("density %g threshold %g sparse_temporal %s: %v, want %v", tc.density, tc.threshold, tc.sparse, got, tc.want)
		}
	}
}

func TestTemporalQuotaClampsAndNoHBM(t *testing.T) {
	objs := []Object{{"A", 8 * mb}, {"T", 64 * mb}}
	hs := Hints{{Object: "A", Density: 100}, {Object: "T", Class: Temporal, Density: 10, WSSBytes: 16 * mb}}
	p := mustPlan(t, DefaultConfig(), 12*mb, objs, hs)
	if a := actionsOf(p, "T"); len(a) != 1 || a[0].Kind != OnDemand || a[0].Quota != 4*mb {
		t.Errorf("T: %v, want on-demand clamped to the 4MB left", a)
	}
	p = mustPlan(t, DefaultConfig(), 8*mb, objs, hs)
	if got := kindsOf(p, "T"); !slices.Equal(got, []Kind{PinHost}) {
		t.Errorf("no HBM left: T %v, want pin-host", got)
	}
}

// TestPinsNeverExceedCapacity sweeps capacities from nothing to far more
// than the footprint, for every iteration of the loop, and checks the
// invariants and that every byte of a placed object has a home.
func TestPinsNeverExceedCapacity(t *testing.T) {
	caps := []int64{0, 1, 4*kb - 1, 4 * kb, 12 * kb, 64 * kb, mb, mb + 1, 2 * mb, 3 * mb, 7*mb + 5, 16 * mb, 40 * mb, 100 * mb, 200 * mb, 219 * mb, 1 << 30, 1 << 40}
	for _, page := range []int64{4 * kb, 64 * kb, 2 * mb} {
		c := DefaultConfig().ForPageSize(unitsBytes(page))
		for _, avail := range caps {
			for i := 0; i < 64; i++ {
				hs := slices.Clone(mixedHints)
				hs[5].Iter.Index = i
				p := mustPlan(t, c, avail, mixedObjects, hs)
				var pinned, quotas int64
				for _, a := range p.Actions {
					switch a.Kind {
					case PinHBM:
						pinned += a.Range.pages(page) * page
					case OnDemand, EnableAC:
						quotas += a.Quota
					}
				}
				if pinned > alignDown(avail, page) || pinned+quotas > alignDown(avail, page) || p.Used > alignDown(avail, page) {
					t.Fatalf("page %d avail %d iter %d: pinned %d + quotas %d, used %d", page, avail, i, pinned, quotas, p.Used)
				}
				if i == 0 {
					checkCoverage(t, p, mixedObjects)
				}
			}
		}
	}
}

// checkCoverage checks that every placed, non-iterative object's ranges
// cover it exactly once, and an iterative one's first plan too.
func checkCoverage(t *testing.T, p Plan, objs []Object) {
	t.Helper()
	for _, x := range p.Placements {
		var size int64
		for _, o := range objs {
			if o.Name == x.Object {
				size = o.Bytes
			}
		}
		var rs []Range
		var total int64
		for _, a := range actionsOf(p, x.Object) {
			rs = append(rs, a.Range)
			total += a.Range.Len
		}
		if u := union(rs); total != size || len(u) != 1 || u[0] != (Range{Len: size}) {
			t.Fatalf("%s (%d bytes) under %d bytes of HBM: ranges %v", x.Object, size, p.Avail, actionsOf(p, x.Object))
		}
	}
}

func TestUnknownShareIsProportional(t *testing.T) {
	objs := []Object{{"tree", 25 * mb}, {"keys", 75 * mb}}
	hs := Hints{{Object: "tree", Class: Unknown}, {Object: "keys", Density: 1}}
	p := mustPlan(t, printed(), 40*mb, objs, hs)
	if a := actionsOf(p, "tree"); len(a) != 1 || a[0].Kind != EnableAC || a[0].Quota != 10*mb {
		t.Errorf("tree: %v, want access counters into 10MB (25/100 of 40MB)", a)
	}
	if x := placementOf(t, p, "keys"); x.HBMBytes != 30*mb {
		t.Errorf("keys hold %d, want the other 30MB", x.HBMBytes)
	}
	p = mustPlan(t, DefaultConfig(), 12*kb, objs, hs) // share under a page
	if got := kindsOf(p, "tree"); !slices.Equal(got, []Kind{PinHost}) {
		t.Errorf("tiny HBM: tree %v, want pin-host", got)
	}
}

func TestIterativeFitsWholeWithLeftover(t *testing.T) {
	objs := []Object{{"G", 16 * mb}, {"v", mb}}
	hs := Hints{{Object: "G", Class: Iterative, Density: 3, Iter: Iteration{Index: 5, Count: 16, StrideBytes: mb, SpanBytes: mb}}, {Object: "v", Density: 9}}
	p := mustPlan(t, DefaultConfig(), 64*mb, objs, hs)
	if got := kindsOf(p, "G"); !slices.Equal(got, []Kind{PinHBM}) {
		t.Errorf("plenty of HBM: G %v, want pinned whole", got)
	}
	p = mustPlan(t, DefaultConfig(), 16*mb, objs, hs) // v takes 1MB: G does not fit whole
	if x := placementOf(t, p, "G"); x.BatchIters != 2 || x.HBMBytes != 2*mb {
		t.Errorf("tight HBM: G %+v, want a 2MB window", x)
	}
	// A batch that covers the whole object is no iteration: Density.
	small := []Object{{"S", 2 * mb}}
	p = mustPlan(t, DefaultConfig(), mb, small, Hints{{Object: "S", Class: Iterative, Density: 1, Iter: Iteration{Count: 4, StrideBytes: 512 * kb, SpanBytes: 512 * kb}}})
	if x := placementOf(t, p, "S"); x.Class != Density || !slices.Equal(kindsOf(p, "S"), []Kind{PinHost, PinHBM}) {
		t.Errorf("S %+v %v: want density, prefix pinned", x, kindsOf(p, "S"))
	}
}

func TestPlanIsDeterministicPerGPU(t *testing.T) {
	// Four GPUs with different HBM, planned twice: equal plans, each valid.
	for g, avail := range []int64{24 << 30, 30 * mb, 7 * mb, 0} {
		a := mustPlan(t, DefaultConfig(), avail, mixedObjects, mixedHints)
		b := mustPlan(t, DefaultConfig(), avail, mixedObjects, slices.Clone(mixedHints))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("GPU %d: plans differ", g)
		}
	}
}

func ExamplePlanLaunch() {
	objs := []Object{{"A", 64 * mb}, {"x", 256 * kb}, {"y", 256 * kb}}
	hs := Hints{{Object: "A", Density: 1}, {Object: "x", Density: 256}, {Object: "y", Density: 1}}
	p, _ := PlanLaunch(DefaultConfig(), 32*mb, objs, hs)
	for _, a := range p.Actions {
		fmt.Println(a.Kind, a.Object, a.Range.Off, a.Range.Len)
	}
	// Output:
	// pin-host A 33292288 33816576
	// pin-host y 0 262144
	// pin-hbm x 0 262144
	// pin-hbm A 0 33292288
}

// TestSparseBesideChase: beside an Unknown structure, every structure at
// or below the density threshold is pinned on the host (SUV §VI, the
// released SUV-Mgmt), a denser one still on HBM; without the Unknown
// structure they are placed as Algorithm 1 prints.
func TestSparseBesideChase(t *testing.T) {
	p := mustPlan(t, DefaultConfig(), 100*mb, mixedObjects, mixedHints)
	for obj, want := range map[string][]Kind{
		"dense": {PinHBM}, "tile": {OnDemand}, "chase": {EnableAC},
		"sparse": {PinHost}, "tileSparse": {PinHost}, "odd": {PinHost},
	} {
		if got := kindsOf(p, obj); !slices.Equal(got, want) {
			t.Errorf("beside the chase, %s: %v, want %v", obj, got, want)
		}
	}
	objs := slices.DeleteFunc(slices.Clone(mixedObjects), func(o Object) bool { return o.Name == "chase" })
	hs := slices.DeleteFunc(slices.Clone(mixedHints), func(h Hint) bool { return h.Object == "chase" })
	p = mustPlan(t, DefaultConfig(), 100*mb, objs, hs)
	for _, obj := range []string{"sparse", "tileSparse", "odd"} {
		if got := kindsOf(p, obj); !slices.Equal(got, []Kind{PinHBM}) {
			t.Errorf("without a chase, %s: %v, want pin-hbm", obj, got)
		}
	}
}
