package pagepolicy

import (
	"testing"

	"github.com/mgpu-sim/mgpu/objtable"
)

// TestEveryPolicyHonoursTheContract builds every registered policy the way
// the platform does (traits first, then the allocation, then New over the
// table) and drives it through each event kind and a fault.
func TestEveryPolicyHonoursTheContract(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			tr, tag, a := allocatorFor(t, name, 4096)
			ptr := a.MustMalloc(4*4096, "A")
			o := a.Objects()[0]
			tab := hostTable(int(a.End() / 4096))
			p, err := New(name, DefaultConfig(), Env{Table: tab})
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != name {
				t.Fatalf("registered as %q, named %q", name, p.Name())
			}
			for _, e := range []Event{Allocated(o, tag), Launched([]int{o.ID})} {
				if err := p.Observe(e); err != nil {
					t.Fatalf("%v: %v", e.Kind, err)
				}
			}
			page := o.FirstPage(4096)
			d := p.Decide(Fault{GPU: 0, Page: page, Object: o.ID, Ptr: ptr}, tab[page])
			if d.Action == LocalCopy && !tr.Incoherent {
				t.Fatalf("%s gives local copies but does not declare itself a bound", name)
			}
			if err := p.Observe(Freed(o)); err != nil {
				t.Fatalf("free: %v", err)
			}
			_ = p.Report() // a policy without counters reports nothing, without panicking
		})
	}
}

func TestEventKinds(t *testing.T) {
	o := &objtable.Object{ID: 3}
	for _, c := range []struct {
		e    Event
		kind EventKind
		name string
	}{
		{Launched([]int{1, 2}), Launch, "launch"},
		{Allocated(o, objtable.Tagging{IDBits: 4, ConfigBit: 1}), Alloc, "alloc"},
		{Freed(o), Free, "free"},
	} {
		if c.e.Kind != c.kind || c.e.Kind.String() != c.name {
			t.Errorf("%+v: kind %v, want %v", c.e, c.e.Kind, c.name)
		}
	}
}
