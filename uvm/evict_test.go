package uvm

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// recorder is a Residency that counts placements and removals per GPU.
type recorder map[int]int

func (r recorder) Placed(g int, _ uint64)  { r[g]++ }
func (r recorder) Removed(g int, _ uint64) { r[g]-- }

func TestEvictPlans(t *testing.T) {
	type setup struct {
		gpu   int
		write bool
		act   pagepolicy.Action
	}
	for _, c := range []struct {
		name      string
		setup     []setup
		victim    int
		copyBack  bool
		inval     int // shootdowns planned
		owner     int // after eviction
		usedAfter [3]int
	}{
		{"an owned page goes back to the host", []setup{{0, true, pagepolicy.Migrate}}, 0, true, 1, Host, [3]int{0, 0, 0}},
		{"a replica is dropped", []setup{{0, false, pagepolicy.Migrate}, {1, false, pagepolicy.Duplicate}}, 1, false, 1, 0, [3]int{1, 0, 0}},
		{"the owner's replica is dropped and another copy owns", []setup{{0, false, pagepolicy.Migrate}, {1, false, pagepolicy.Duplicate}}, 0, false, 1, 1, [3]int{0, 1, 0}},
		{"remote mappers lose their mapping with the last copy", []setup{{0, true, pagepolicy.Migrate}, {1, true, pagepolicy.MapRemote}, {2, false, pagepolicy.MapRemote}}, 0, true, 3, Host, [3]int{0, 0, 0}},
		{"a GPU without a copy evicts nothing", []setup{{0, true, pagepolicy.Migrate}}, 2, false, 0, 0, [3]int{1, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := NewPageTable(1)
			rec := recorder{}
			tab.Observe(rec)
			for _, s := range c.setup {
				var plan Plan
				tab.Resolve(s.gpu, 0, s.write, pagepolicy.Decision{Action: s.act, Bits: pagepolicy.Duplication}, &plan)
			}
			var plan Plan
			if got := tab.Evict(c.victim, 0, &plan); got != c.copyBack {
				t.Fatalf("copy back %v, want %v", got, c.copyBack)
			}
			if len(plan.Inval) != c.inval {
				t.Fatalf("%d shootdowns %v, want %d", len(plan.Inval), plan.Inval, c.inval)
			}
			if c.copyBack != (len(plan.Copy) == 1 && plan.Copy[0] == Transfer{From: c.victim, To: Host, Page: 0}) {
				t.Fatalf("copies %v", plan.Copy)
			}
			pg := tab.Page(0)
			if pg.Owner != c.owner {
				t.Fatalf("owner %d, want %d", pg.Owner, c.owner)
			}
			if pg.Bits != pagepolicy.Duplication {
				t.Fatalf("eviction changed the policy bits to %v", pg.Bits)
			}
			for g, want := range c.usedAfter {
				if tab.Used(g) != want || rec[g] != want {
					t.Fatalf("GPU %d: used %d, observer %d, want %d", g, tab.Used(g), rec[g], want)
				}
			}
			checkPage(t, tab, 0)
		})
	}
}
