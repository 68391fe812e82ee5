package uvm

import (
	"errors"
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

func resolve(t *PageTable, g int, p uint64, write bool, a pagepolicy.Action) Plan {
	var plan Plan
	t.Resolve(g, p, write, pagepolicy.Decision{Action: a}, &plan)
	return plan
}

// invariants that every resolution must keep.
func checkPage(tb testing.TB, t *PageTable, p uint64) {
	tb.Helper()
	pg := t.Page(p)
	if pg.Owner == Host {
		// Zero-copy mappings may point at the host copy; no GPU holds one.
		if pg.Copies != 0 || pg.Remote != 0 && !t.Writable(p) {
			tb.Fatalf("host page with GPU copies %b / read-only remote %b", pg.Copies, pg.Remote)
		}
		return
	}
	if pg.Copies&(1<<uint(pg.Owner)) == 0 {
		tb.Fatalf("owner %d holds no copy (copies %b)", pg.Owner, pg.Copies)
	}
	if t.Writable(p) && pg.Copies != 1<<uint(pg.Owner) {
		tb.Fatalf("writable page with replicas %b", pg.Copies)
	}
	if pg.Copies&pg.Remote != 0 {
		tb.Fatalf("a GPU both holds and remotely maps the page")
	}
}

func TestResolvePlans(t *testing.T) {
	type step struct {
		gpu    int
		write  bool
		action pagepolicy.Action
		// expectations
		inval, copies int
		from          int
		kind          MapKind
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"first touch migrates from host", []step{
			{0, false, pagepolicy.Migrate, 0, 1, Host, LocalRW},
		}},
		{"on-touch ping-pong invalidates the old owner", []step{
			{0, true, pagepolicy.Migrate, 0, 1, Host, LocalRW},
			{1, true, pagepolicy.Migrate, 1, 1, 0, LocalRW},
			{0, false, pagepolicy.Migrate, 1, 1, 1, LocalRW},
		}},
		{"duplication downgrades the owner and copies", []step{
			{0, true, pagepolicy.Migrate, 0, 1, Host, LocalRW},
			{1, false, pagepolicy.Duplicate, 1, 1, 0, LocalRO},
			{2, false, pagepolicy.Duplicate, 0, 1, 0, LocalRO},
		}},
		{"collapse drops every other replica, no copy for a holder", []step{
			{0, true, pagepolicy.Migrate, 0, 1, Host, LocalRW},
			{1, false, pagepolicy.Duplicate, 1, 1, 0, LocalRO},
			{2, false, pagepolicy.Duplicate, 0, 1, 0, LocalRO},
			{1, true, pagepolicy.Collapse, 2, 0, 0, LocalRW},
		}},
		{"remote mapping moves no data", []step{
			{0, true, pagepolicy.Migrate, 0, 1, Host, LocalRW},
			{1, true, pagepolicy.MapRemote, 0, 0, 0, RemoteRW},
			{2, false, pagepolicy.MapRemote, 0, 0, 0, RemoteRW},
		}},
		{"remote mapping of a host page migrates instead", []step{
			{3, false, pagepolicy.MapRemote, 0, 1, Host, LocalRW},
		}},
		{"a write cannot duplicate: it collapses", []step{
			{0, false, pagepolicy.Migrate, 0, 1, Host, LocalRW},
			{1, true, pagepolicy.Duplicate, 1, 1, 0, LocalRW},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pt := NewPageTable(4)
			for i, s := range c.steps {
				plan := resolve(pt, s.gpu, 2, s.write, s.action)
				checkPage(t, pt, 2)
				if len(plan.Inval) != s.inval || len(plan.Copy) != s.copies {
					t.Fatalf("step %d: %d invalidations and %d copies, want %d and %d", i, len(plan.Inval), len(plan.Copy), s.inval, s.copies)
				}
				if s.copies > 0 && plan.Copy[0].From != s.from {
					t.Fatalf("step %d: copy from %d, want %d", i, plan.Copy[0].From, s.from)
				}
				last := plan.Map[len(plan.Map)-1]
				if last.GPU != s.gpu || last.Kind != s.kind {
					t.Fatalf("step %d: maps GPU %d as %v, want GPU %d as %v", i, last.GPU, last.Kind, s.gpu, s.kind)
				}
				for _, iv := range plan.Inval {
					if iv.GPU == s.gpu {
						t.Fatalf("step %d: the faulting GPU shoots itself down", i)
					}
				}
			}
		})
	}
}

func TestAdequateDetectsRacingFaults(t *testing.T) {
	pt := NewPageTable(1)
	if _, ok := pt.Adequate(0, 0, false); ok {
		t.Fatal("host page is not adequately mapped on a GPU")
	}
	resolve(pt, 0, 0, false, pagepolicy.Duplicate)
	if _, ok := pt.Adequate(0, 0, false); !ok {
		t.Fatal("a read of a held replica needs no action")
	}
	if _, ok := pt.Adequate(0, 0, true); ok {
		t.Fatal("a write to a read-only replica must not be treated as served")
	}
}

type fakeLocal map[[2]uint64]MapKind

func (f fakeLocal) Mapping(g int, p uint64) (MapKind, int) { return f[[2]uint64{uint64(g), p}], g }

func TestCheckerCatchesStaleReadAndTwoWriters(t *testing.T) {
	// Each case runs on a fresh checker, since it records only its first
	// violation.
	fresh := func() (*Checker, fakeLocal, *[]error) {
		local := fakeLocal{}
		c := NewChecker("test", 2, 1, NewPageTable(1), local)
		var seen []error
		c.OnViolation = func(err error) { seen = append(seen, err) }
		c.Copied(Host, 0, 0)
		c.Access(0, 0, true, 0) // GPU 0 writes: version 1 on GPU 0
		return c, local, &seen
	}
	c, _, seen := fresh()
	c.Access(1, 0, false, 1)
	if c.Err() == nil || len(*seen) != 1 {
		t.Fatal("a read of a copy that missed the write went unnoticed")
	}
	c.Access(1, 0, false, 1)
	if len(*seen) != 1 {
		t.Fatal("OnViolation was called again after the first violation")
	}
	if err := c.Final(); err != c.Err() {
		t.Fatalf("Final returned %v, not the first violation", err)
	}

	c, local, _ := fresh()
	c.Copied(0, 1, 0)
	c.Access(1, 0, false, 1)
	if err := c.Err(); err != nil {
		t.Fatalf("fresh copy flagged: %v", err)
	}
	local[[2]uint64{1, 0}] = LocalRW
	c.Access(0, 0, true, 0)
	var ce *CoherenceError
	if !errors.As(c.Err(), &ce) || ce.Page != 0 || ce.GPU != 0 {
		t.Fatalf("a write while another GPU holds a writable copy: got %v", c.Err())
	}
}

// A GPU that maps a page remotely keeps running while the page moves to
// it (an access-counter migration) or is replicated to it, so its remote
// mapping must be shot down with the others: otherwise it writes the old
// copy after it was sent (issue 14's stale writes under access-counter).
func TestMoveRevokesTheRequestersRemoteMapping(t *testing.T) {
	for _, act := range []pagepolicy.Action{pagepolicy.Migrate, pagepolicy.Duplicate} {
		pt := NewPageTable(1)
		resolve(pt, 0, 0, true, pagepolicy.Migrate)   // GPU 0 owns the page
		resolve(pt, 1, 0, true, pagepolicy.MapRemote) // GPU 1 maps it remotely
		var plan Plan
		pt.Resolve(1, 0, act == pagepolicy.Migrate, pagepolicy.Decision{Action: act}, &plan)
		revoked := false
		for _, iv := range plan.Inval {
			if iv.GPU == 1 && !iv.Downgrade {
				revoked = true
			}
		}
		if !revoked {
			t.Errorf("%v to GPU 1: its remote mapping was not shot down: %+v", act, plan.Inval)
		}
	}
}

// Zero-copy: a host page mapped remotely stays on the host, writable by
// every mapper; moving or replicating it first shoots every mapping down,
// the mover's own included.
func TestResolveHostRemote(t *testing.T) {
	host := func(pt *PageTable, g int, p uint64, write bool) Plan {
		var plan Plan
		pt.Resolve(g, p, write, pagepolicy.Decision{Action: pagepolicy.MapRemote, HostRemote: true}, &plan)
		checkPage(t, pt, p)
		return plan
	}
	pt := NewPageTable(4)
	if plan := host(pt, 0, 1, false); len(plan.Copy) != 0 || len(plan.Inval) != 0 || len(plan.Map) != 1 ||
		plan.Map[0].Kind != RemoteRW || plan.Map[0].Owner != Host {
		t.Fatalf("zero-copy map: %+v", plan)
	}
	host(pt, 2, 1, true)
	if pg := pt.Page(1); pg.Owner != Host || pg.Remote != 0b101 || pt.Used(0) != 0 {
		t.Fatalf("after two zero-copy maps: %+v", pg)
	}
	if m, ok := pt.Adequate(2, 1, true); !ok || m.Kind != RemoteRW {
		t.Fatalf("a zero-copy mapper's write needs no fault: %+v %v", m, ok)
	}
	// Without HostRemote, MapRemote of a host page migrates (first touch).
	if plan := resolve(pt, 1, 2, false, pagepolicy.MapRemote); plan.Action != pagepolicy.Migrate || len(plan.Copy) != 1 {
		t.Fatalf("MapRemote without HostRemote: %+v", plan)
	}
	// The counter migration of page 1 to GPU 0 drops both mappings.
	plan := resolve(pt, 0, 1, true, pagepolicy.Migrate)
	checkPage(t, pt, 1)
	if len(plan.Inval) != 2 || len(plan.Copy) != 1 || plan.Copy[0].From != Host {
		t.Fatalf("migration from the host under zero-copy mappings: %+v", plan)
	}
	// A replica taken from the host drops the zero-copy mappers first.
	host(pt, 3, 3, true)
	plan = resolve(pt, 1, 3, false, pagepolicy.Duplicate)
	checkPage(t, pt, 3)
	if len(plan.Inval) != 1 || plan.Inval[0].GPU != 3 || pt.Page(3).Remote != 0 {
		t.Fatalf("duplicate of a zero-copy page: %+v", plan)
	}
}
