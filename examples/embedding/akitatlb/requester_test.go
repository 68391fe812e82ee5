package akitatlb_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/mem/vm/tlb"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/examples/embedding/akitatlb"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	uvmmurt "github.com/mgpu-sim/mgpu/runtimes/uvmmu"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

const (
	cycle    = sim.VTimeInSec(1e-9)
	pageSize = 4096
	pages    = 32
)

// gpu is the GPU side of one GMMU: it issues its reads all at once
// through a Requester, flushes the TLB on the GMMU's shootdowns and
// dropped translations, and answers a shootdown when the flush is done.
type gpu struct {
	*sim.ComponentBase
	ctrl     sim.Port
	out      *uvmproto.Outbox
	req      *akitatlb.Requester
	answers  map[uint64]vm.Page // by access ID
	flushes  int
	mmuCtrl  sim.Port
	accesses []akitatlb.Access
}

func (g *gpu) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	for m := p.Retrieve(now); m != nil; m = p.Retrieve(now) {
		switch x := m.(type) {
		case *uvmproto.ShootdownReq:
			g.req.Flush(now, x.VAddrs, func(now sim.VTimeInSec) {
				g.out.Send(uvmproto.MakeBuilder().ShootdownDone(x), g.mmuCtrl, now+cycle)
			})
		case *uvmproto.DropTranslationsReq:
			g.req.Flush(now, x.VAddrs, nil)
		}
	}
}
func (g *gpu) NotifyPortFree(now sim.VTimeInSec, _ sim.Port) { g.out.PortFree(now) }
func (g *gpu) Handle(sim.Event) error                        { return nil }

// start issues every access at now (an event, so that it runs inside
// the engine).
type start struct {
	t sim.VTimeInSec
	f func(now sim.VTimeInSec)
}

func (s start) Time() sim.VTimeInSec     { return s.t }
func (s start) Handler() sim.Handler     { return s }
func (s start) IsSecondary() bool        { return false }
func (s start) Handle(e sim.Event) error { s.f(e.Time()); return nil }

// system is n GPUs, each with an Akita TLB, a Requester and mgpu's GMMU,
// under mgpu's driver: on-touch, in batches or in hardware.
type system struct {
	e    *engine.Engine
	gpus []*gpu
}

func build(t *testing.T, n int, hardware bool) *system {
	t.Helper()
	s := &system{e: engine.New()}
	c := uvm.DefaultConfig()
	if hardware {
		c.FaultHandling, c.Prefetch.Policy = uvmmurt.Name, prefetch.Off
	}
	d, err := uvm.MakeBuilder().WithEngine(s.e).WithConfig(c).WithGPUs(n).WithRecvDelay(cycle).
		WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(pageSize, pages).Build("Driver")
	if err != nil {
		t.Fatal(err)
	}
	pcie := sim.NewDirectConnection("PCIe", s.e, sim.GHz)
	pcie.PlugIn(d.Port(), 16)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("GPU[%d]", i)
		m, err := gmmu.MakeBuilder().WithEngine(s.e).WithGPUID(i).WithPages(pageSize, pages).WithRecvDelay(cycle).
			WithConcurrentFaults(hardware).Build(name + ".GMMU")
		if err != nil {
			t.Fatal(err)
		}
		pcie.PlugIn(m.Port(), 16)
		m.SetDriver(d.Port())
		if err := d.ConnectGPU(i, m.Port()); err != nil {
			t.Fatal(err)
		}
		tl := tlb.MakeBuilder().WithEngine(s.e).WithFreq(sim.GHz).WithPageSize(pageSize).WithNumWays(16).
			WithLowModule(m.Top()).Build(name + ".TLB")
		g := &gpu{ComponentBase: sim.NewComponentBase(name), answers: map[uint64]vm.Page{}, mmuCtrl: m.Control()}
		g.ctrl = sim.NewLimitNumMsgPort(g, 16, name+".Control")
		g.out = uvmproto.NewOutbox(g.ctrl, s.e)
		g.req, err = akitatlb.MakeBuilder().WithEngine(s.e).WithDeviceID(uint64(i + 1)).WithTLB(tl).WithGMMU(m.Top()).
			WithAnswered(func(_ sim.VTimeInSec, a akitatlb.Access, p vm.Page) { g.answers[a.ID] = p }).Build(name + ".Requester")
		if err != nil {
			t.Fatal(err)
		}
		ctrl := sim.NewDirectConnection(name+".ControlBus", s.e, sim.GHz)
		ctrl.PlugIn(g.ctrl, 16)
		ctrl.PlugIn(m.Control(), 16)
		m.ConnectGPU(g.ctrl)
		bus := sim.NewDirectConnection(name+".TLBBus", s.e, sim.GHz)
		for _, p := range []sim.Port{g.req.Port(), g.req.Control(), tl.GetPortByName("Top"), tl.GetPortByName("Control"),
			tl.GetPortByName("Bottom"), m.Top()} {
			bus.PlugIn(p, 16)
		}
		s.gpus = append(s.gpus, g)
	}
	return s
}

// issue has GPU g issue accesses at at.
func (s *system) issue(g int, at sim.VTimeInSec, accesses ...akitatlb.Access) {
	x := s.gpus[g]
	x.accesses = append(x.accesses, accesses...)
	s.e.Schedule(start{at, func(now sim.VTimeInSec) {
		for _, a := range accesses {
			x.req.Send(now, a)
		}
	}})
}

// checkAnswered requires every access answered, on the device the page
// was on, once, and the run over with nothing outstanding.
func (s *system) checkAnswered(t *testing.T) {
	t.Helper()
	if err := s.e.Run(); err != nil {
		t.Fatal(err)
	}
	for i, g := range s.gpus {
		if len(g.answers) != len(g.accesses) {
			t.Errorf("GPU %d: %d of %d accesses answered", i, len(g.answers), len(g.accesses))
		}
		for _, a := range g.accesses {
			if p, ok := g.answers[a.ID]; ok && (p.VAddr != a.Addr&^(pageSize-1) || p.DeviceID == 0) {
				t.Errorf("GPU %d: access %d to %#x answered with page %#x on device %d", i, a.ID, a.Addr, p.VAddr, p.DeviceID)
			}
		}
	}
}

// reads are n reads of the pages from first on (wrapping), with IDs from
// id on.
func reads(id, first, n int) []akitatlb.Access {
	var out []akitatlb.Access
	for i := 0; i < n; i++ {
		p := uint64(first+i) % pages
		out = append(out, akitatlb.Access{ID: uint64(id + i), Addr: p*pageSize + 8})
	}
	return out
}

// A flush while reads are in flight loses them in Akita's TLB (it resets
// its MSHR); the requester re-issues them and each is answered once. A
// flush that names nothing the TLB could hold is skipped.
func TestFlushLosesNoRead(t *testing.T) {
	s := build(t, 1, false)
	g := s.gpus[0]
	s.issue(0, 0, reads(0, 0, 8)...)
	s.e.Schedule(start{100e-9, func(now sim.VTimeInSec) { g.req.Flush(now, []uint64{0}, func(sim.VTimeInSec) { g.flushes++ }) }})
	s.e.Schedule(start{200e-9, func(now sim.VTimeInSec) { g.req.Flush(now, nil, func(sim.VTimeInSec) { g.flushes++ }) }})
	s.checkAnswered(t)
	reissued, _, flushed, skipped := g.req.Counts()
	if reissued != 8 || flushed != 1 || skipped < 1 || g.flushes != 2 {
		t.Errorf("%d reads re-issued, %d flushes done, %d skipped, %d told done; want 8, 1, at least 1 (ours) and 2", reissued, flushed, skipped, g.flushes)
	}
}

// Under hardware fault handling two GPUs reading one page-group take it
// from each other: every recall shoots the group down on its holder, and
// every install drops the translations of its pages there, so the TLB
// flushes and loses its reads again and again. Re-issued through the TLB
// (as the requester did at first), 15 and 0 of these 96 reads were
// answered by 190 us, the reads lost and re-issued 300,000 times; re-issued
// to the GMMU, all are answered by 6 us. A watchdog at 30 us stops a
// livelock.
func TestHardwareHandlingNoLivelock(t *testing.T) {
	s := build(t, 2, true)
	for i := 0; i < 6; i++ {
		at := sim.VTimeInSec(i) * 1e-6
		s.issue(0, at, reads(i*16, i*16, 16)...)
		s.issue(1, at+0.3e-6, reads(i*16, i*16+8, 16)...)
	}
	s.e.Schedule(start{30e-6, func(sim.VTimeInSec) {
		for i, g := range s.gpus {
			if len(g.answers) < len(g.accesses) {
				s.e.Stop(fmt.Errorf("livelock: GPU %d has %d of %d reads answered", i, len(g.answers), len(g.accesses)))
			}
		}
	}})
	s.checkAnswered(t)
	total := 0
	for _, g := range s.gpus {
		r, _, _, _ := g.req.Counts()
		total += r
	}
	if total == 0 {
		t.Error("no read re-issued: no flush met a read in flight, so the test shows nothing")
	}
}

// sink takes messages and answers none.
type sink struct {
	*sim.ComponentBase
	port sim.Port
}

func (k *sink) NotifyRecv(now sim.VTimeInSec, p sim.Port) { p.Retrieve(now) }
func (k *sink) NotifyPortFree(sim.VTimeInSec, sim.Port)   {}
func (k *sink) Handle(sim.Event) error                    { return nil }

// An access never answered (here the "GMMU" answers nothing) is the
// run's error, with its ID.
func TestUnansweredIsTheRunsError(t *testing.T) {
	e := engine.New()
	k := &sink{ComponentBase: sim.NewComponentBase("Sink")}
	k.port = sim.NewLimitNumMsgPort(k, 4, "Sink.Top")
	tl := tlb.MakeBuilder().WithEngine(e).WithFreq(sim.GHz).WithLowModule(k.port).Build("TLB")
	r, err := akitatlb.MakeBuilder().WithEngine(e).WithTLB(tl).WithGMMU(k.port).
		WithAnswered(func(sim.VTimeInSec, akitatlb.Access, vm.Page) {}).Build("Requester")
	if err != nil {
		t.Fatal(err)
	}
	bus := sim.NewDirectConnection("Bus", e, sim.GHz)
	for _, p := range []sim.Port{r.Port(), r.Control(), tl.GetPortByName("Top"), tl.GetPortByName("Control"), tl.GetPortByName("Bottom"), k.port} {
		bus.PlugIn(p, 4)
	}
	e.Schedule(start{0, func(now sim.VTimeInSec) {
		r.Send(now, akitatlb.Access{ID: 7, Addr: 0x1000})
		r.Send(now, akitatlb.Access{ID: 9, Addr: 0x2000, Write: true})
	}})
	err = e.Run()
	if err == nil || !strings.Contains(err.Error(), "Requester: 2 accesses sent and never answered (IDs [7 9])") {
		t.Errorf("error %v; want the unanswered accesses named", err)
	}
}
