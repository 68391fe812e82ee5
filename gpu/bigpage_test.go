package gpu

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// bigMMU maps pages 16-31 with one big PTE; hugeMMU also maps pages
// 64-127 with one 2 MB-style PTE (64 pages).
type bigMMU struct{}
type hugeMMU struct{ bigMMU }

func (hugeMMU) HugePageShift() uint      { return 6 }
func (hugeMMU) InHugePage(p uint64) bool { return p>>6 == 1 }
func (bigMMU) HugePageShift() uint       { return 0 }
func (bigMMU) InHugePage(uint64) bool    { return false }

func (bigMMU) Entry(uint64) uvmproto.PTE                              { return uvmproto.PTE{Kind: uvmproto.LocalRW} }
func (bigMMU) Walk(now sim.VTimeInSec, _ uint64) sim.VTimeInSec       { return now }
func (bigMMU) Fault(sim.VTimeInSec, uvmproto.FaultEntry, gmmu.Waiter) {}
func (bigMMU) NotifyCounter(sim.VTimeInSec, []uint64)                 {}
func (bigMMU) BigPageShift() uint                                     { return 4 }
func (bigMMU) InBigPage(p uint64) bool                                { return p>>4 == 1 }

// TestBigPageTLBKey: the pages of a big page share one TLB entry, apart
// from every page's own; dropping any one of its pages drops that entry
// (the driver splits the big PTE), and a page outside keeps its own.
func TestBigPageTLBKey(t *testing.T) {
	g, err := MakeBuilder().WithEngine(sim.NewSerialEngine()).WithStats(&stats.Counters{}, &stats.Stalls{}).WithPages(4096, 64).Build("GPU[0]")
	if err != nil {
		t.Fatal(err)
	}
	g.SetMMU(bigMMU{})
	k17, gen := g.bigTLBKey(17)
	if k30, _ := g.bigTLBKey(30); k30 != k17 {
		t.Fatalf("pages 17 and 30 of one big page: keys %x and %x", k17, k30)
	}
	if k1, _ := g.bigTLBKey(1); k1 != 1 || k1 == k17 {
		t.Fatalf("page 1, outside the big page: key %x (big page's %x)", k1, k17)
	}
	g.dropTranslation(3)
	if _, now := g.bigTLBKey(17); now != gen {
		t.Error("dropping page 3 dropped the big page of pages 16-31")
	}
	_, gen1 := g.bigTLBKey(1)
	g.dropTranslation(25)
	if _, now := g.bigTLBKey(17); now == gen {
		t.Error("dropping page 25 left its big page's TLB entry valid")
	}
	if _, now := g.bigTLBKey(1); now != gen1 {
		t.Error("dropping page 25 dropped page 1")
	}
}

// TestHugePageTLBKey: the pages of a 2 MB page share one TLB entry, apart
// from the big pages' and the pages' own; dropping any one of its pages
// drops that entry, and the big page outside it keeps its own.
func TestHugePageTLBKey(t *testing.T) {
	g, err := MakeBuilder().WithEngine(sim.NewSerialEngine()).WithStats(&stats.Counters{}, &stats.Stalls{}).WithPages(4096, 256).Build("GPU[0]")
	if err != nil {
		t.Fatal(err)
	}
	g.SetMMU(hugeMMU{})
	k64, gen := g.bigTLBKey(64)
	if k127, _ := g.bigTLBKey(127); k127 != k64 {
		t.Fatalf("pages 64 and 127 of one 2 MB page: keys %x and %x", k64, k127)
	}
	k17, gen17 := g.bigTLBKey(17)
	if k17 == k64 || k17 == 17 {
		t.Fatalf("page 17's big page key %x: want apart from the 2 MB page's %x and the page's own", k17, k64)
	}
	if k, _ := g.bigTLBKey(130); k != 130 {
		t.Fatalf("page 130, in neither: key %x", k)
	}
	g.dropTranslation(100)
	if _, now := g.bigTLBKey(64); now == gen {
		t.Error("dropping page 100 left its 2 MB page's TLB entry valid")
	}
	if _, now := g.bigTLBKey(17); now != gen17 {
		t.Error("dropping page 100 dropped the big page of pages 16-31")
	}
}
