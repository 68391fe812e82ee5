package gmmu_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
)

// tagRecorder keeps the answers to its requests.
type tagRecorder struct {
	*sim.ComponentBase
	port sim.Port
	rsps []*vm.TranslationRsp
}

func (r *tagRecorder) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	for m := p.Retrieve(now); m != nil; m = p.Retrieve(now) {
		r.rsps = append(r.rsps, m.(*vm.TranslationRsp))
	}
}
func (r *tagRecorder) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (r *tagRecorder) Handle(sim.Event) error                  { return nil }

// topSystem is one GPU's GMMU (16 pages from VA 0x100000) and the driver
// under policy, with a recorder on the GMMU's Top port.
func topSystem(t *testing.T, policy string) (*engine.Engine, *gmmu.Comp, *uvm.Driver, *tagRecorder) {
	t.Helper()
	e := engine.New()
	driver, err := uvm.MakeBuilder().WithEngine(e).WithGPUs(1).WithRecvDelay(1e-9).
		WithPolicy(policy, pagepolicy.DefaultConfig()).WithPages(4096, 16).WithAddressBase(0x100000).Build("Driver")
	if err != nil {
		t.Fatal(err)
	}
	mmu, err := gmmu.MakeBuilder().WithEngine(e).WithGPUID(0).WithPages(4096, 16).WithRecvDelay(1e-9).
		WithAddressBase(0x100000).Build("GPU[0].GMMU")
	if err != nil {
		t.Fatal(err)
	}
	r := &tagRecorder{ComponentBase: sim.NewComponentBase("GPU[0].L2TLB")}
	r.port = sim.NewLimitNumMsgPort(r, 4, "GPU[0].L2TLB.Bottom")
	pcie := sim.NewDirectConnection("PCIe", e, 1*sim.GHz)
	pcie.PlugIn(driver.Port(), 4)
	pcie.PlugIn(mmu.Port(), 4)
	top := sim.NewDirectConnection("TLBToGMMU", e, 1*sim.GHz)
	top.PlugIn(r.port, 4)
	top.PlugIn(mmu.Top(), 4)
	mmu.SetDriver(driver.Port())
	if err := driver.ConnectGPU(0, mmu.Port()); err != nil {
		t.Fatal(err)
	}
	return e, mmu, driver, r
}

// A request through Top with an OASIS pointer tag above the address is
// served (issue 32: it was "outside the managed range"), and the answer
// keeps the tag so that the requester's TLB finds it under the address it
// asked for.
func TestTopStripsThePointerTag(t *testing.T) {
	e, mmu, driver, r := topSystem(t, "on-touch")
	tag := objtable.Tagging{IDBits: 4, ConfigBit: 1}
	ptr := tag.Encode(0x100000+3*4096+64, 5)
	req := vm.TranslationReqBuilder{}.WithSrc(r.port).WithDst(mmu.Top()).WithVAddr(ptr).Build()
	if err := r.port.Send(req); err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if len(r.rsps) != 1 || !r.rsps[0].Page.Valid {
		t.Fatalf("no valid answer: %+v (errors %v, %v)", r.rsps, mmu.Err(), driver.Err())
	}
	if got, want := r.rsps[0].Page, ptr-64; got.VAddr != want || got.PAddr != 0x100000+3*4096 {
		t.Errorf("answer VA %#x PA %#x, want VA %#x (tag kept) and PA %#x", got.VAddr, got.PAddr, want, 0x100000+3*4096)
	}
	if n := mmu.Counters().PageFaults; n != 1 || !mmu.Entry(3).Kind.Readable() {
		t.Errorf("page 3: %d far faults, entry %+v; want one fault and a readable entry", n, mmu.Entry(3))
	}
}

// Stores through Top (issue 32: only reads could fault there). Under
// duplication a page's first copy is read-only, so a store to it raises a
// protection fault; a store sent with a read of the same page waits on the
// read's fault, finds the page read-only, and faults again. Every request
// is answered, and each page ends writable.
func TestTopServesWrites(t *testing.T) {
	e, mmu, driver, r := topSystem(t, "duplication")
	// Sent a cycle after the engine stopped: DirectConnection's last,
	// idle tick was at that instant, and it ignores a send at a time it
	// has ticked.
	send := func(page uint64, write bool) {
		req := gmmu.AccessReq{TranslationReq: *vm.TranslationReqBuilder{}.WithSrc(r.port).WithDst(mmu.Top()).
			WithSendTime(e.CurrentTime() + 1e-9).WithVAddr(0x100000 + page*4096).Build(), Write: write}
		if err := r.port.Send(&req); err != nil {
			t.Fatal(err)
		}
	}
	send(3, false) // a read: far fault, a read-only first copy
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if k := mmu.Entry(3).Kind; !k.Readable() || k.Writable() {
		t.Fatalf("after a read, page 3 maps %v; want read-only (duplication's first copy)", k)
	}
	send(3, true)  // a store to it: protection fault
	send(5, false) // a read and a store of page 5 together
	send(5, true)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if len(r.rsps) != 4 {
		t.Fatalf("%d answers to 4 requests (errors %v, %v)", len(r.rsps), mmu.Err(), driver.Err())
	}
	c := mmu.Counters()
	if c.PageFaults != 2 || c.ProtectionFaults != 2 {
		t.Errorf("%d far faults and %d protection faults; want 2 and 2", c.PageFaults, c.ProtectionFaults)
	}
	for _, p := range []uint64{3, 5} {
		if !mmu.Entry(p).Kind.Writable() {
			t.Errorf("page %d maps %v after a store; want writable", p, mmu.Entry(p).Kind)
		}
	}
}

// A GMMU and a driver that page the managed space differently (page size,
// count, or the address of page 0) are refused when they are wired, not at
// their first message (issue 32), and so is a GPU number the driver does
// not serve.
func TestConnectRefusesDisagreement(t *testing.T) {
	e := engine.New()
	driver, err := uvm.MakeBuilder().WithEngine(e).WithGPUs(1).
		WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(4096, 16).Build("Driver")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		gpu               int
		size, pages, base uint64
		want              string
	}{
		{0, 4096, 32, 0, "32 pages of 4096 B, the driver 16 of 4096 B"},
		{0, 2 << 20, 16, 0, "16 pages of 2097152 B, the driver 16 of 4096 B"},
		{0, 4096, 16, 0x100000, "page 0 at 0x100000, the driver at 0x0"},
		{1, 4096, 16, 0, "GPU 1 connected, but the driver serves 1 GPUs"},
	} {
		m, err := gmmu.MakeBuilder().WithEngine(e).WithGPUID(c.gpu).WithPages(c.size, c.pages).WithAddressBase(c.base).
			Build(fmt.Sprintf("GPU[%d].GMMU", c.gpu))
		if err != nil {
			t.Fatal(err)
		}
		if err := driver.ConnectGPU(c.gpu, m.Port()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("GPU %d, %d pages of %d B: %v, want %q", c.gpu, c.pages, c.size, err, c.want)
		}
	}
}
