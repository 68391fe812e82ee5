package gmmu_test

import (
	"testing"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
)

// tagRecorder keeps the answer to its request.
type tagRecorder struct {
	*sim.ComponentBase
	port sim.Port
	rsp  *vm.TranslationRsp
}

func (r *tagRecorder) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	r.rsp = p.Retrieve(now).(*vm.TranslationRsp)
}
func (r *tagRecorder) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (r *tagRecorder) Handle(sim.Event) error                  { return nil }

// A request through Top with an OASIS pointer tag above the address is
// served (issue 32: it was "outside the managed range"), and the answer
// keeps the tag so that the requester's TLB finds it under the address it
// asked for.
func TestTopStripsThePointerTag(t *testing.T) {
	e := engine.New()
	driver, err := uvm.MakeBuilder().WithEngine(e).WithGPUs(1).
		WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(4096, 16).Build("Driver")
	if err != nil {
		t.Fatal(err)
	}
	mmu, err := gmmu.MakeBuilder().WithEngine(e).WithGPUID(0).WithPages(4096, 16).
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
	driver.ConnectGPU(0, mmu.Port())

	tag := objtable.Tagging{IDBits: 4, ConfigBit: 1}
	ptr := tag.Encode(0x100000+3*4096+64, 5)
	req := vm.TranslationReqBuilder{}.WithSrc(r.port).WithDst(mmu.Top()).WithVAddr(ptr).Build()
	if err := r.port.Send(req); err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if r.rsp == nil || !r.rsp.Page.Valid {
		t.Fatalf("no valid answer: %+v (errors %v, %v)", r.rsp, mmu.Err(), driver.Err())
	}
	if want := ptr - 64; r.rsp.Page.VAddr != want || r.rsp.Page.PAddr != 0x100000+3*4096 {
		t.Errorf("answer VA %#x PA %#x, want VA %#x (tag kept) and PA %#x", r.rsp.Page.VAddr, r.rsp.Page.PAddr, want, 0x100000+3*4096)
	}
	if n := mmu.Counters().PageFaults; n != 1 || !mmu.Entry(3).Kind.Readable() {
		t.Errorf("page 3: %d far faults, entry %+v; want one fault and a readable entry", n, mmu.Entry(3))
	}
}
