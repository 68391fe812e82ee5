package gpu

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// bigMMU maps pages 16-31 with one big PTE.
type bigMMU struct{}

func (bigMMU) Entry(uint64) uvmproto.PTE                              { return uvmproto.PTE{Kind: uvmproto.LocalRW} }
func (bigMMU) Walk(now sim.VTimeInSec, _ uint64) sim.VTimeInSec       { return now }
func (bigMMU) Fault(sim.VTimeInSec, uvmproto.FaultEntry, gmmu.Waiter) {}
func (bigMMU) DataArrived(sim.VTimeInSec, uint64)                     {}
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
	g.DropTranslation(3)
	if _, now := g.bigTLBKey(17); now != gen {
		t.Error("dropping page 3 dropped the big page of pages 16-31")
	}
	_, gen1 := g.bigTLBKey(1)
	g.DropTranslation(25)
	if _, now := g.bigTLBKey(17); now == gen {
		t.Error("dropping page 25 left its big page's TLB entry valid")
	}
	if _, now := g.bigTLBKey(1); now != gen1 {
		t.Error("dropping page 25 dropped page 1")
	}
}
