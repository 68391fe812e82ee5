package pagepolicy

import (
	"testing"

	"github.com/mgpu-sim/mgpu/objtable"
)

// oasisFixture builds an OASIS policy over two objects of 2 MB each.
func oasisFixture(t *testing.T, name string, c Config) (Policy, []*objtable.Object) {
	t.Helper()
	p, _, objs := oasisAllocFixture(t, name, c)
	return p, objs
}

// oasisAllocFixture is oasisFixture that also returns the allocator.
func oasisAllocFixture(t *testing.T, name string, c Config) (Policy, *objtable.Allocator, []*objtable.Object) {
	t.Helper()
	p, err := New(name, c, Env{})
	if err != nil {
		t.Fatal(err)
	}
	_, tag, a := allocatorFor(t, name, 2<<20)
	a.MustMalloc(2<<20, "A")
	a.MustMalloc(2<<20, "B")
	for _, o := range a.Objects() {
		if err := p.Observe(Allocated(o, tag)); err != nil {
			t.Fatal(err)
		}
	}
	return p, a, a.Objects()
}

// allocatorFor makes an allocator tagged as the platform would for the
// named policy: the configuration bit clear if it wants untagged pointers.
func allocatorFor(t *testing.T, name string, align uint64) (Traits, objtable.Tagging, *objtable.Allocator) {
	t.Helper()
	tr, err := TraitsOf(name)
	if err != nil {
		t.Fatal(err)
	}
	tag := objtable.Tagging{IDBits: 4, ConfigBit: 1}
	if tr.Untagged {
		tag.ConfigBit = 0
	}
	a, err := objtable.NewAllocator(tag, align)
	if err != nil {
		t.Fatal(err)
	}
	return tr, tag, a
}

func TestOASISOPController(t *testing.T) {
	onGPU0 := Page{Owner: 0, Copies: 1}
	type step struct {
		launch   []int // kernel launch before the fault
		obj      int
		gpu      int
		write    bool
		prot     bool
		page     Page
		action   Action
		bits     Bits
		wantCost bool
	}
	c := DefaultConfig()
	c.ResetThreshold = 3
	for _, name := range []string{"oasis", "oasis-inmem"} {
		for _, tc := range []struct {
			name  string
			steps []step
		}{
			{"first touch is on-touch and skips the O-Table", []step{
				{obj: 0, gpu: 0, page: Page{Owner: Host}, action: Migrate, bits: OnTouch},
				{obj: 0, gpu: 1, write: true, page: Page{Owner: Host}, action: Migrate, bits: OnTouch},
			}},
			{"a shared read learns duplication, later writes collapse", []step{
				{obj: 0, gpu: 1, page: onGPU0, action: Duplicate, bits: Duplication, wantCost: true},
				{obj: 0, gpu: 2, write: true, page: Page{Owner: 0, Copies: 3}, action: Collapse, bits: Duplication, wantCost: true},
			}},
			{"a shared write learns access-counter", []step{
				{obj: 1, gpu: 1, write: true, page: onGPU0, action: MapRemote, bits: AccessCounter},
				{obj: 1, gpu: 2, page: onGPU0, action: MapRemote, bits: AccessCounter},
			}},
			{"objects learn independently", []step{
				{obj: 0, gpu: 1, page: onGPU0, action: Duplicate, bits: Duplication},
				{obj: 1, gpu: 1, write: true, page: onGPU0, action: MapRemote, bits: AccessCounter},
				{obj: 0, gpu: 2, page: onGPU0, action: Duplicate, bits: Duplication},
			}},
			{"the reset threshold relearns (implicit phase)", []step{
				{obj: 0, gpu: 1, page: onGPU0, action: Duplicate, bits: Duplication},
				{obj: 0, gpu: 2, page: onGPU0, action: Duplicate, bits: Duplication},
				{obj: 0, gpu: 3, page: onGPU0, action: Duplicate, bits: Duplication}, // count 3: reset
				{obj: 0, gpu: 1, write: true, page: onGPU0, action: MapRemote, bits: AccessCounter},
			}},
			{"a kernel launch relearns (explicit phase)", []step{
				{obj: 0, gpu: 1, page: onGPU0, action: Duplicate, bits: Duplication},
				{launch: []int{1}, obj: 0, gpu: 2, write: true, page: onGPU0, action: Duplicate, bits: Duplication}, // a read-only first copy (§IV-B),
				{launch: []int{0}, obj: 0, gpu: 1, write: true, page: onGPU0, action: MapRemote, bits: AccessCounter},
			}},
			{"an evicted page with policy bits is shared (§VI-D)", []step{
				{obj: 1, gpu: 1, write: true, page: onGPU0, action: MapRemote, bits: AccessCounter},
				{obj: 1, gpu: 2, page: Page{Owner: Host, Bits: AccessCounter}, action: Migrate, bits: AccessCounter},
			}},
			{"a protection fault is shared", []step{
				{obj: 0, gpu: 1, write: true, prot: true, page: Page{Owner: 1, Copies: 2, Bits: Duplication}, action: MapRemote, bits: AccessCounter},
			}},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				p, objs := oasisFixture(t, name, c)
				for i, s := range tc.steps {
					if s.launch != nil {
						if err := p.Observe(Launched(s.launch)); err != nil {
							t.Fatal(err)
						}
					}
					o := objs[s.obj]
					f := Fault{GPU: s.gpu, Page: o.FirstPage(4096) + uint64(i), Write: s.write || s.prot, Protection: s.prot, Object: o.ID, Ptr: o.Ptr + uint64(i)*4096}
					d := p.Decide(f, s.page)
					if d.Action != s.action || d.Bits != s.bits {
						t.Fatalf("step %d: %v/%v, want %v/%v", i, d.Action, d.Bits, s.action, s.bits)
					}
					if s.wantCost && (d.LookupNs <= 0 || d.Overlapped) {
						t.Fatalf("step %d: a shared fault's O-Table lookup must cost time after the walk, got %v ns overlapped %v", i, d.LookupNs, d.Overlapped)
					}
				}
			})
		}
	}
}

func TestOASISStatsAndHistory(t *testing.T) {
	c := DefaultConfig()
	c.ResetThreshold = 2
	p, objs := oasisFixture(t, "oasis", c)
	o := objs[0]
	shared := Page{Owner: 0, Copies: 1}
	fault := func(write bool) { p.Decide(Fault{GPU: 1, Write: write, Object: o.ID, Ptr: o.Ptr, TimeNs: 5}, shared) }
	fault(false)
	fault(false) // count 2: implicit reset
	fault(true)  // relearned: access-counter
	if err := p.Observe(Launched([]int{0})); err != nil {
		t.Fatal(err)
	}
	fault(false) // learned again: duplication
	rep := p.Report()
	st := rep.Stats
	for k, want := range map[string]float64{"shared_faults": 4, "implicit_resets": 1, "implicit_phases": 1, "explicit_resets": 1, "explicit_phases": 1, "policy_changes": 2, "policies_learned": 3} {
		if st[k] != want {
			t.Errorf("%s = %v, want %v", k, st[k], want)
		}
	}
	h := rep.History
	if len(h) != 3 || h[0].Policy != "duplication" || h[1].Policy != "access-counter" || h[1].Cause != "relearned" || h[2].Policy != "duplication" {
		t.Fatalf("history %+v", h)
	}
}

func TestOASISInMemCachesLookups(t *testing.T) {
	p, objs := oasisFixture(t, "oasis-inmem", DefaultConfig())
	o := objs[1]
	f := Fault{GPU: 1, Object: o.ID, Ptr: o.Ptr}
	if objtable.Strip(o.Ptr) != o.Ptr {
		t.Fatalf("OASIS-InMem pointer %#x carries a tag", o.Ptr)
	}
	first := p.Decide(f, Page{Owner: 0, Copies: 1})
	second := p.Decide(f, Page{Owner: 0, Copies: 1})
	if !(first.LookupNs > second.LookupNs) || first.Bits != Duplication {
		t.Fatalf("first lookup %v ns, second %v ns: the LLC must make later ones cheaper; bits %v", first.LookupNs, second.LookupNs, first.Bits)
	}
	st := p.Report().Stats
	if st["shadow_map_l1_bytes"] != 128<<20 || st["shadow_map_l2_tables"] < 1 {
		t.Fatalf("shadow map use not reported: %v", st)
	}
}

// TestOASISStateMachine walks every transition of OASIS Fig. 13(b) with
// reset threshold 2, and checks that no shared fault ever gets on-touch.
func TestOASISStateMachine(t *testing.T) {
	type f struct {
		write, prot bool
		want        Bits
	}
	shared := Page{Owner: 0, Copies: 1}
	for _, c := range []struct {
		name   string
		faults []f
	}{
		{"① on-touch → access-counter on a shared write", []f{{true, false, AccessCounter}}},
		{"② on-touch → duplication on a shared read", []f{{false, false, Duplication}}},
		{"③ access-counter stays under shared writes", []f{{true, false, AccessCounter}, {true, false, AccessCounter}, {true, false, AccessCounter}}},
		{"④ access-counter → duplication when reads follow the reset", []f{{true, false, AccessCounter}, {false, false, AccessCounter}, {false, false, Duplication}}},
		{"⑤ duplication → access-counter through protection faults", []f{{false, false, Duplication}, {true, true, Duplication}, {true, true, AccessCounter}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ResetThreshold = 2
			p, objs := oasisFixture(t, "oasis", cfg)
			o := objs[0]
			for i, x := range c.faults {
				d := p.Decide(Fault{GPU: 1, Write: x.write, Protection: x.prot, Object: o.ID, Ptr: o.Ptr}, shared)
				if d.Bits != x.want {
					t.Fatalf("fault %d: %v, want %v", i, d.Bits, x.want)
				}
			}
			for i := 0; i < 20; i++ { // whatever comes, never on-touch again
				d := p.Decide(Fault{GPU: 2, Write: i%3 == 0, Protection: i%5 == 0, Object: o.ID, Ptr: o.Ptr}, shared)
				if d.Bits == OnTouch {
					t.Fatalf("object returned to on-touch after %d more faults", i)
				}
			}
		})
	}
}

// TestOASISObservesFree checks that a freed object's O-Table entry goes
// away (and, for OASIS-InMem, its shadow-map entries), that its learned
// policy is forgotten, and that the other object keeps its own.
func TestOASISObservesFree(t *testing.T) {
	for _, name := range []string{"oasis", "oasis-inmem"} {
		t.Run(name, func(t *testing.T) {
			p, alloc, objs := oasisAllocFixture(t, name, DefaultConfig())
			o := p.(*oasis)
			shared := Page{Owner: 0, Copies: 1}
			for _, x := range objs { // each object learns duplication
				p.Decide(Fault{GPU: 1, Object: x.ID, Ptr: x.Ptr}, shared)
			}
			if o.table.Len() != 2 {
				t.Fatalf("O-Table holds %d entries, want 2", o.table.Len())
			}
			if err := alloc.Free(objs[0].Ptr); err != nil {
				t.Fatal(err)
			}
			if err := p.Observe(Freed(objs[0])); err != nil {
				t.Fatal(err)
			}
			if o.table.Len() != 1 || o.table.Peek(0) != nil || o.table.Peek(1) == nil {
				t.Fatalf("after the free: %d entries, object 0's %v, object 1's %v", o.table.Len(), o.table.Peek(0), o.table.Peek(1))
			}
			if _, ok := o.last[0]; ok {
				t.Fatal("the freed object's learned policy is still remembered")
			}
			if o.inmem {
				if _, ok, _, _ := o.shadow.Lookup(objs[0].Ptr); ok {
					t.Fatal("the freed object is still in the shadow map")
				}
			}
			// The survivor's policy is unchanged: a write still runs
			// under duplication.
			if d := p.Decide(Fault{GPU: 2, Write: true, Object: 1, Ptr: objs[1].Ptr}, shared); d.Bits != Duplication {
				t.Fatalf("surviving object's policy: %v", d.Bits)
			}
		})
	}
}
