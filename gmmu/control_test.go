package gmmu_test

import (
	"fmt"
	"testing"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// portGPU is a GPU model that is not mgpu's and speaks to its GMMU only
// through ports: Control for shootdowns, dropped translations and page
// copies, Data for page data between GPUs, Req for translations.
type portGPU struct {
	*sim.ComponentBase
	eng              *engine.Engine
	id               int
	drain            sim.VTimeInSec // how long a shootdown's drain takes
	ctrl, data, req  sim.Port
	ctrlOut, dataOut *uvmproto.Outbox
	mmuCtrl, peer    sim.Port
	build            uvmproto.Builder
	shootdowns       []sim.VTimeInSec // when each shootdown request arrived
	dropped          int
	answered         []sim.VTimeInSec
	pages            []vm.Page // the answers' pages
	inbox            []sim.Msg
}

func newPortGPU(e *engine.Engine, id int) *portGPU {
	g := &portGPU{ComponentBase: sim.NewComponentBase(gpuName(id)), eng: e, id: id, drain: 1e-6,
		build: uvmproto.MakeBuilder().WithPageSize(4096)}
	g.ctrl = sim.NewLimitNumMsgPort(g, 8, gpuName(id)+".Control")
	g.data = sim.NewLimitNumMsgPort(g, 8, gpuName(id)+".Data")
	g.req = sim.NewLimitNumMsgPort(g, 8, gpuName(id)+".L2TLB")
	g.ctrlOut, g.dataOut = uvmproto.NewOutbox(g.ctrl, e), uvmproto.NewOutbox(g.data, e)
	return g
}

func gpuName(id int) string { return []string{"GPU[0]", "GPU[1]"}[id] }

type handleNow struct {
	t sim.VTimeInSec
	g *portGPU
}

func (e handleNow) Time() sim.VTimeInSec { return e.t }
func (e handleNow) Handler() sim.Handler { return e.g }
func (e handleNow) IsSecondary() bool    { return false }

// NotifyRecv takes the message and handles it a cycle later: Akita's
// DirectConnection does not deliver a message sent at an instant it has
// already ticked (uvm.Builder.WithRecvDelay says more).
func (g *portGPU) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	for m := p.Retrieve(now); m != nil; m = p.Retrieve(now) {
		g.inbox = append(g.inbox, m)
	}
	g.eng.Schedule(handleNow{now + 1e-9, g})
}
func (g *portGPU) NotifyPortFree(now sim.VTimeInSec, p sim.Port) {
	if p == g.ctrl {
		g.ctrlOut.PortFree(now)
	} else {
		g.dataOut.PortFree(now)
	}
}

func (g *portGPU) Handle(e sim.Event) error {
	now := e.Time()
	if _, ok := e.(handleNow); !ok {
		return fmt.Errorf("unexpected event %T", e)
	}
	msgs := g.inbox
	g.inbox = nil
	for _, m := range msgs {
		switch x := m.(type) {
		case *uvmproto.ShootdownReq:
			g.shootdowns = append(g.shootdowns, now)
			g.ctrlOut.Send(g.build.ShootdownDone(x), g.mmuCtrl, now+g.drain) // held until drained
		case *uvmproto.DropTranslationsReq:
			g.dropped += len(x.Pages)
		case *uvmproto.SendPagesReq:
			g.dataOut.Send(g.build.PageData(g.id, x.To, x.Pages, x.Batch), g.peer, now)
		case *uvmproto.PageDataMsg:
			g.ctrlOut.Send(g.build.PagesArrived(x.Batch), g.mmuCtrl, now)
		case *vm.TranslationRsp:
			g.answered = append(g.answered, now)
			g.pages = append(g.pages, x.Page)
		}
	}
	return nil
}

// Two GPUs that are not mgpu's drive mgpu's GMMUs and driver through ports
// alone (issue 32: a GPU-to-GPU migration needed the Go interface
// gmmu.GPU, since removed). GPU 0 reads a page, GPU 1 then reads it: on-touch migrates it
// from GPU 0 to GPU 1, which takes GPU 0's shootdown (drained in 1 us
// before the driver hears of it), GPU 0's copy over its own data path,
// and GPU 1's report that the page arrived. With frames, each answer
// carries the physical address of the page's frame in the GPU that holds
// it, and GPU 0's frame is freed when the page leaves.
func TestGPUsOverPortsAlone(t *testing.T) {
	e := engine.New()
	frames, err := gmmu.NewFrames(2, 16, 8*4096, 4096)
	if err != nil {
		t.Fatal(err)
	}
	driver, err := uvm.MakeBuilder().WithEngine(e).WithGPUs(2).WithRecvDelay(1e-9).
		WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(4096, 16).WithAddressBase(0x100000).Build("Driver")
	if err != nil {
		t.Fatal(err)
	}
	pcie := sim.NewDirectConnection("PCIe", e, 1*sim.GHz)
	pcie.PlugIn(driver.Port(), 8)
	nvlink := sim.NewDirectConnection("NVLink", e, 1*sim.GHz)
	var gpus []*portGPU
	var mmus []*gmmu.Comp
	for i := 0; i < 2; i++ {
		m, err := gmmu.MakeBuilder().WithEngine(e).WithGPUID(i).WithPages(4096, 16).WithRecvDelay(1e-9).
			WithAddressBase(0x100000).WithFrames(frames).Build(gpuName(i) + ".GMMU")
		if err != nil {
			t.Fatal(err)
		}
		g := newPortGPU(e, i)
		pcie.PlugIn(m.Port(), 8)
		m.SetDriver(driver.Port())
		if err := driver.ConnectGPU(i, m.Port()); err != nil {
			t.Fatal(err)
		}
		bus := sim.NewDirectConnection(gpuName(i)+".ControlBus", e, 1*sim.GHz)
		bus.PlugIn(g.ctrl, 8)
		bus.PlugIn(m.Control(), 8)
		m.ConnectGPU(g.ctrl)
		g.mmuCtrl = m.Control()
		top := sim.NewDirectConnection(gpuName(i)+".TLBToGMMU", e, 1*sim.GHz)
		top.PlugIn(g.req, 8)
		top.PlugIn(m.Top(), 8)
		nvlink.PlugIn(g.data, 8)
		gpus, mmus = append(gpus, g), append(mmus, m)
	}
	gpus[0].peer, gpus[1].peer = gpus[1].data, gpus[0].data
	read := func(g *portGPU, m *gmmu.Comp) {
		req := vm.TranslationReqBuilder{}.WithSrc(g.req).WithDst(m.Top()).WithSendTime(e.CurrentTime() + 1e-9).
			WithVAddr(0x100000 + 3*4096).Build()
		if err := g.req.Send(req); err != nil {
			t.Fatal(err)
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
	}
	read(gpus[0], mmus[0])
	read(gpus[1], mmus[1])
	for i, m := range mmus {
		if m.Err() != nil {
			t.Fatalf("GMMU %d: %v", i, m.Err())
		}
	}
	if driver.Err() != nil {
		t.Fatal(driver.Err())
	}
	if len(gpus[0].answered) != 1 || len(gpus[1].answered) != 1 {
		t.Fatalf("answers: GPU 0 %d, GPU 1 %d; want one each", len(gpus[0].answered), len(gpus[1].answered))
	}
	if k := mmus[1].Entry(3).Kind; k != uvmproto.LocalRW || mmus[0].Entry(3).Kind.Readable() {
		t.Fatalf("page 3: GPU 0 maps %v, GPU 1 %v; want it moved to GPU 1", mmus[0].Entry(3).Kind, k)
	}
	if len(gpus[0].shootdowns) != 1 {
		t.Fatalf("GPU 0 got %d shootdowns, want 1", len(gpus[0].shootdowns))
	}
	if got, min := gpus[1].answered[0], gpus[0].shootdowns[0]+gpus[0].drain; got < min {
		t.Errorf("GPU 1 answered at %.3f us, before GPU 0's drain ended at %.3f us", float64(got)*1e6, float64(min)*1e6)
	}
	if gpus[1].dropped == 0 {
		t.Error("GPU 1 was never told to drop its translation of the page it got")
	}
	if c := driver.Service().Counters(1); c.MigrationsD2D != 1 {
		t.Errorf("%d GPU-to-GPU migrations to GPU 1, want 1", c.MigrationsD2D)
	}
	for i, g := range gpus { // GPU i's memory starts at (i+1)·Span; page 3 took its first frame
		if p := g.pages[0]; p.DeviceID != uint64(i+1) || p.PAddr != uint64(i+1)*frames.Span() {
			t.Errorf("GPU %d's answer: device %d, PA %#x; want device %d, PA %#x", i, p.DeviceID, p.PAddr, i+1, uint64(i+1)*frames.Span())
		}
	}
	if frames.Held(0) != 0 || frames.Held(1) != 1 {
		t.Errorf("frames held: GPU 0 %d, GPU 1 %d; want 0 and 1 after the page moved", frames.Held(0), frames.Held(1))
	}
}
