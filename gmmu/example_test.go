package gmmu_test

import (
	"fmt"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"

	mgpuengine "github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
)

// requester is a stand-in for another model's L2 TLB: it sends one
// translation request and prints the response.
type requester struct {
	*sim.ComponentBase
	port sim.Port
	req  *vm.TranslationReq
}

func (r *requester) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	rsp := p.Retrieve(now).(*vm.TranslationRsp)
	fmt.Printf("response at %.1f us: VA %#x on device %d, valid %v, answers the request: %v\n",
		float64(now)*1e6, rsp.Page.VAddr, rsp.Page.DeviceID, rsp.Page.Valid, rsp.RespondTo == r.req.ID)
}
func (r *requester) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (r *requester) Handle(sim.Event) error                  { return nil }

// A GMMU and the UVM driver wired with Akita's own DirectConnection on
// mgpu's engine (Akita's SerialEngine would drop their errors), each
// handling a message a cycle after it arrives, as a DirectConnection
// needs; serving a translation request from a component that is
// not mgpu's: the page is unmapped, so the GMMU walks, raises a far fault,
// the driver migrates the page from the host, and the GMMU answers.
func Example_translation() {
	engine := mgpuengine.New()
	driver, err := uvm.MakeBuilder().WithEngine(engine).WithGPUs(1).WithRecvDelay(1e-9).
		WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(4096, 16).WithAddressBase(0x100000).Build("Driver")
	if err != nil {
		panic(err)
	}
	mmu, err := gmmu.MakeBuilder().WithEngine(engine).WithGPUID(0).WithPages(4096, 16).WithRecvDelay(1e-9).
		WithAddressBase(0x100000).Build("GPU[0].GMMU")
	if err != nil {
		panic(err)
	}
	tlb := &requester{ComponentBase: sim.NewComponentBase("GPU[0].L2TLB")}
	tlb.port = sim.NewLimitNumMsgPort(tlb, 4, "GPU[0].L2TLB.Bottom")

	pcie := sim.NewDirectConnection("PCIe", engine, 1*sim.GHz)
	pcie.PlugIn(driver.Port(), 4)
	pcie.PlugIn(mmu.Port(), 4)
	top := sim.NewDirectConnection("TLBToGMMU", engine, 1*sim.GHz)
	top.PlugIn(tlb.port, 4)
	top.PlugIn(mmu.Top(), 4)
	mmu.SetDriver(driver.Port())
	if err := driver.ConnectGPU(0, mmu.Port()); err != nil {
		panic(err)
	}

	tlb.req = vm.TranslationReqBuilder{}.WithSrc(tlb.port).WithDst(mmu.Top()).
		WithVAddr(0x100000 + 3*4096).Build()
	if err := tlb.port.Send(tlb.req); err != nil {
		panic(err)
	}
	if err := engine.Run(); err != nil {
		panic(err)
	}
	c := driver.Service().Counters(0)
	fmt.Printf("far faults %d, page walks %d, fault batches %d, pages migrated from the host %d\n",
		mmu.Counters().PageFaults, mmu.Counters().PageWalks, c.FaultBatches, c.MigrationsH2D)
	fmt.Println("errors:", mmu.Err(), driver.Err())
	// Output:
	// response at 1.4 us: VA 0x103000 on device 1, valid true, answers the request: true
	// far faults 1, page walks 1, fault batches 1, pages migrated from the host 1
	// errors: <nil> <nil>
}
