package uvm_test

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	mgpuengine "github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// otherGPU is a GPU model that is not mgpu's: it speaks only the uvmproto
// messages, and prints what the driver asks of it.
type otherGPU struct {
	*sim.ComponentBase
	id     int
	port   sim.Port
	driver sim.Port
	peers  []sim.Port
	build  uvmproto.Builder
}

func (g *otherGPU) send(now sim.VTimeInSec, msg sim.Msg, dst sim.Port) {
	m := msg.Meta()
	m.Src, m.Dst, m.SendTime = g.port, dst, now
	if err := g.port.Send(msg); err != nil {
		panic("the example's buffers are large enough")
	}
}

func (g *otherGPU) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	switch m := p.Retrieve(now).(type) {
	case *uvmproto.InvalidateMsg:
		fmt.Printf("GPU %d: shoot down %d page(s)\n", g.id, len(m.Entries))
		g.send(now, g.build.InvalidateAck(m, g.id), g.driver)
	case *uvmproto.TransferCmdMsg:
		fmt.Printf("GPU %d: send pages %v to GPU %d\n", g.id, m.Pages, m.To)
		g.send(now, g.build.PageData(g.id, m.To, m.Pages, m.Batch), g.peers[m.To])
	case *uvmproto.PageDataMsg:
		fmt.Printf("GPU %d: pages %v arrived from %d\n", g.id, m.Pages, m.From)
		g.send(now, g.build.TransferDone(g.id, m.Batch), g.driver)
	case *uvmproto.MapMsg:
		for _, e := range m.Entries {
			fmt.Printf("GPU %d: map page %d, writable %v, ends the batch %v\n", g.id, e.Page, e.Kind.Writable(), m.EndOfBatch)
		}
	}
}
func (g *otherGPU) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (g *otherGPU) Handle(sim.Event) error                  { return nil }

// mgpu's UVM driver and page policy serving two GPUs of another model over
// Akita's DirectConnection: GPU 0 writes page 5 first, then GPU 1 writes
// it, and the on-touch policy migrates it between them.
func Example_otherGPUModel() {
	engine := mgpuengine.New()                                                           // Akita's SerialEngine would drop the driver's errors
	driver, err := uvm.MakeBuilder().WithEngine(engine).WithGPUs(2).WithRecvDelay(1e-9). // a DirectConnection needs a cycle
												WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(4096, 8).Build("Driver")
	if err != nil {
		panic(err)
	}
	conn := sim.NewDirectConnection("Bus", engine, sim.GHz)
	conn.PlugIn(driver.Port(), 16)
	gpus := make([]*otherGPU, 2)
	var ports []sim.Port
	for i := range gpus {
		g := &otherGPU{ComponentBase: sim.NewComponentBase(fmt.Sprintf("GPU[%d]", i)), id: i,
			driver: driver.Port(), build: uvmproto.MakeBuilder()}
		g.port = sim.NewLimitNumMsgPort(g, 16, fmt.Sprintf("GPU[%d].Port", i))
		conn.PlugIn(g.port, 16)
		if err := driver.ConnectGPU(i, g.port); err != nil {
			panic(err)
		}
		gpus[i], ports = g, append(ports, g.port)
	}
	for i, g := range gpus {
		g.peers = ports
		fault := g.build.FaultBatch(i, []uvmproto.FaultEntry{{Page: 5, Write: true}})
		g.send(sim.VTimeInSec(i)*100e-6, fault, driver.Port())
	}
	if err := engine.Run(); err != nil {
		panic(err)
	}
	pg := driver.Table().Page(5)
	fmt.Printf("page 5 now lives on GPU %d; errors: %v\n", pg.Owner, driver.Err())
	// Output:
	// GPU 0: pages [5] arrived from -1
	// GPU 0: map page 5, writable true, ends the batch true
	// GPU 0: shoot down 1 page(s)
	// GPU 0: send pages [5] to GPU 1
	// GPU 1: pages [5] arrived from 0
	// GPU 1: map page 5, writable true, ends the batch true
	// page 5 now lives on GPU 1; errors: <nil>
}
