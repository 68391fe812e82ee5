package embedding_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"
	"github.com/sarchlab/akita/v3/tracing"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/examples/embedding"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	uvmmurt "github.com/mgpu-sim/mgpu/runtimes/uvmmu"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// The ways an embedding used to end "successfully" with accesses never
// answered, or panic later, each now refused when wired or reported by
// the engine's Run with the fix in its message.

const cycle = sim.VTimeInSec(1e-9)

// endpoint is another model's component with one port: it sends what it
// is given and keeps what it receives; with shootdowns set it answers a
// GMMU's ShootdownReq at once, as a GPU with nothing to drain.
type endpoint struct {
	*sim.ComponentBase
	port       sim.Port
	got        []sim.Msg
	shootdowns bool
	// sendPages, if set, carries out a GMMU's SendPagesReq.
	sendPages func(now sim.VTimeInSec, r *uvmproto.SendPagesReq)
	out       *uvmproto.Outbox
}

func newEndpoint(e *engine.Engine, name string) *endpoint {
	p := &endpoint{ComponentBase: sim.NewComponentBase(name)}
	p.port = sim.NewLimitNumMsgPort(p, 16, name+".Port")
	p.out = uvmproto.NewOutbox(p.port, e)
	return p
}

func (p *endpoint) NotifyRecv(now sim.VTimeInSec, port sim.Port) {
	for m := port.Retrieve(now); m != nil; m = port.Retrieve(now) {
		p.got = append(p.got, m)
		switch r := m.(type) {
		case *uvmproto.ShootdownReq:
			if p.shootdowns {
				p.out.Send(uvmproto.MakeBuilder().ShootdownDone(r), r.Src, now+cycle)
			}
		case *uvmproto.SendPagesReq:
			if p.sendPages != nil {
				p.sendPages(now, r)
			}
		}
	}
}
func (p *endpoint) NotifyPortFree(now sim.VTimeInSec, _ sim.Port) { p.out.PortFree(now) }
func (p *endpoint) Handle(sim.Event) error                        { return nil }

// rig is a driver and GMMUs of 16 pages each on mgpu's engine, on Akita's
// DirectConnection with a cycle's receive delay, an endpoint on the
// GMMUs' Top ports that asks translations, and on each GMMU's Control port
// a GPU that answers shootdowns a cycle later and hands page copies to the
// peer's GMMU.
type rig struct {
	e      *engine.Engine
	driver *uvm.Driver
	mmus   []*gmmu.Comp
	gpus   []*endpoint
	asker  *endpoint
	pcie   *sim.DirectConnection
}

// rigOf builds n GPUs under policy; driver and mmu adjust the builders.
func rigOf(t *testing.T, n int, policy string, driver func(uvm.Builder) uvm.Builder, mmu func(gmmu.Builder) gmmu.Builder) *rig {
	t.Helper()
	r := &rig{e: engine.New()}
	b := uvm.MakeBuilder().WithEngine(r.e).WithGPUs(n).WithRecvDelay(cycle).WithPolicy(policy, pagepolicy.DefaultConfig()).WithPages(4096, 16)
	if driver != nil {
		b = driver(b)
	}
	var err error
	if r.driver, err = b.Build("Driver"); err != nil {
		t.Fatal(err)
	}
	r.pcie = sim.NewDirectConnection("PCIe", r.e, sim.GHz)
	r.pcie.PlugIn(r.driver.Port(), 16)
	top := sim.NewDirectConnection("Top", r.e, sim.GHz)
	r.asker = newEndpoint(r.e, "Asker")
	top.PlugIn(r.asker.port, 16)
	ctrl := sim.NewDirectConnection("Control", r.e, sim.GHz)
	for i := 0; i < n; i++ {
		mb := gmmu.MakeBuilder().WithEngine(r.e).WithGPUID(i).WithPages(4096, 16).WithRecvDelay(cycle)
		if mmu != nil {
			mb = mmu(mb)
		}
		m, err := mb.Build(fmt.Sprintf("GPU[%d].GMMU", i))
		if err != nil {
			t.Fatal(err)
		}
		r.pcie.PlugIn(m.Port(), 16)
		top.PlugIn(m.Top(), 16)
		m.SetDriver(r.driver.Port())
		if err := r.driver.ConnectGPU(i, m.Port()); err != nil {
			t.Fatal(err)
		}
		g := newEndpoint(r.e, fmt.Sprintf("GPU[%d]", i))
		g.shootdowns = true
		g.sendPages = func(now sim.VTimeInSec, x *uvmproto.SendPagesReq) { r.mmus[x.To].DataArrived(now, x.Batch) }
		ctrl.PlugIn(g.port, 16)
		ctrl.PlugIn(m.Control(), 16)
		m.ConnectGPU(g.port)
		r.mmus = append(r.mmus, m)
		r.gpus = append(r.gpus, g)
	}
	return r
}

// ask sends GPU g's GMMU a translation of va at.
func (r *rig) ask(g int, va uint64, at sim.VTimeInSec) {
	req := vm.TranslationReqBuilder{}.WithPID(1).WithVAddr(va).WithDeviceID(uint64(g + 1)).Build()
	r.asker.out.Send(req, r.mmus[g].Top(), at)
}

// answers counts the translations answered.
func (r *rig) answers() int {
	n := 0
	for _, m := range r.asker.got {
		if _, ok := m.(*vm.TranslationRsp); ok {
			n++
		}
	}
	return n
}

// wantErr fails unless err names every part of want.
func wantErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one naming %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}

// A GMMU built for another GPU than its slot is refused when connected
// (it was accepted, and the first batch panicked in uvm/service.go).
func TestConnectGPURefusesAnotherSlotsGMMU(t *testing.T) {
	e := engine.New()
	d, err := uvm.MakeBuilder().WithEngine(e).WithGPUs(2).WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(4096, 16).Build("Driver")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{2, 0} {
		m, err := gmmu.MakeBuilder().WithEngine(e).WithGPUID(id).WithPages(4096, 16).Build("GMMU")
		if err != nil {
			t.Fatal(err)
		}
		wantErr(t, d.ConnectGPU(1, m.Port()), "WithGPUID(1)", "connected as GPU 1")
	}
}

// A message naming a GPU the driver does not serve is the run's error,
// not a panic: the driver range-checks every GPU number it receives.
func TestDriverRangeChecksGPUNumbers(t *testing.T) {
	r := rigOf(t, 2, "on-touch", nil, nil)
	rogue := newEndpoint(r.e, "Rogue")
	r.pcie.PlugIn(rogue.port, 4)
	rogue.out.Send(uvmproto.MakeBuilder().FaultBatch(2, []uvmproto.FaultEntry{{Page: 3}}), r.driver.Port(), 0)
	wantErr(t, r.e.Run(), "GPU 2", "serves GPUs 0 to 1", "WithGPUID")
}

// A driver that handles faults in hardware ends no fault batch: a GMMU
// that waits for the end of one stalled after its first. ConnectGPU
// refuses it, and one built WithConcurrentFaults serves.
func TestHardwareHandlingNeedsConcurrentGMMUs(t *testing.T) {
	hw := func(b uvm.Builder) uvm.Builder {
		c := uvm.DefaultConfig()
		c.FaultHandling, c.Prefetch.Policy = uvmmurt.Name, prefetch.Off
		return b.WithConfig(c)
	}
	e := engine.New()
	d, err := hw(uvm.MakeBuilder()).WithEngine(e).WithGPUs(1).WithPolicy("on-touch", pagepolicy.DefaultConfig()).WithPages(4096, 16).Build("Driver")
	if err != nil {
		t.Fatal(err)
	}
	m, err := gmmu.MakeBuilder().WithEngine(e).WithPages(4096, 16).Build("GMMU")
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, d.ConnectGPU(0, m.Port()), "hardware", "WithConcurrentFaults(true)")

	r := rigOf(t, 1, "on-touch", hw, func(b gmmu.Builder) gmmu.Builder { return b.WithConcurrentFaults(true) })
	for p := uint64(0); p < 4; p++ {
		r.ask(0, p*4096, 0)
	}
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if n := r.answers(); n != 4 {
		t.Errorf("%d of 4 translations answered", n)
	}
}

// On Akita's DirectConnection a component handling in the instant a
// message arrives can send into an instant the connection has ticked,
// and the message is never delivered. Without WithRecvDelay the first
// message is an error naming it.
func TestDirectConnectionNeedsRecvDelay(t *testing.T) {
	noDelay := func(b gmmu.Builder) gmmu.Builder { return b.WithRecvDelay(0) }
	r := rigOf(t, 1, "on-touch", func(b uvm.Builder) uvm.Builder { return b.WithRecvDelay(0) }, noDelay)
	r.ask(0, 3*4096, 0)
	wantErr(t, r.e.Run(), "DirectConnection", "WithRecvDelay")
}

// Akita's SerialEngine drops handler errors, so mgpu's components refuse
// it and name mgpu's engine.
func TestAkitasEngineRefused(t *testing.T) {
	_, err := gmmu.MakeBuilder().WithEngine(sim.NewSerialEngine()).Build("GMMU")
	wantErr(t, err, "engine.New()")
	_, err = uvm.MakeBuilder().WithEngine(sim.NewSerialEngine()).WithGPUs(1).WithPolicy("on-touch", pagepolicy.DefaultConfig()).Build("Driver")
	wantErr(t, err, "engine.New()")
}

// Faults the driver never answers, and shootdowns the GPU never
// acknowledges, are the run's error when it runs out of events.
func TestRunReportsWhatWaits(t *testing.T) {
	t.Run("faults", func(t *testing.T) {
		r := rigOf(t, 1, "on-touch", nil, nil)
		sink := newEndpoint(r.e, "Sink")
		r.pcie.PlugIn(sink.port, 4)
		r.mmus[0].SetDriver(sink.port) // a driver that never answers
		r.ask(0, 3*4096, 0)
		wantErr(t, r.e.Run(), "GPU[0].GMMU", "1 far faults unanswered (page 3)")
	})
	t.Run("shootdowns", func(t *testing.T) {
		r := rigOf(t, 2, "on-touch", nil, nil)
		r.gpus[0].shootdowns = false // takes shootdowns, never drains
		r.ask(0, 3*4096, 0)
		r.ask(1, 3*4096, 10e-6) // on-touch moves page 3 to GPU 1: GPU 0 must drain
		wantErr(t, r.e.Run(), "shootdowns (page 3)", "GPU[0].Port", "no ShootdownRsp", "Driver: batch 2 of GPU 1 in service, waiting for 1 shootdown acknowledgements")
	})
}

// Akita's tracing.CollectTrace on mgpu's component used to record 0
// tasks: it is now the component's error, naming the bridge.
func TestCollectTraceRefused(t *testing.T) {
	r := rigOf(t, 1, "on-touch", nil, nil)
	tracing.CollectTrace(r.mmus[0], tracing.NewAverageTimeTracer(r.e, nil))
	r.ask(0, 3*4096, 0)
	wantErr(t, r.e.Run(), "CollectTrace", "examples/embedding/tracing.go")
}

// OASIS reads the object from the pointer's tag. Untagged pointers to a
// known object's pages (the driver's lookup finds the object) leave it
// on-touch, and it now says so, once.
func TestOASISWarnsOfUntaggedPointers(t *testing.T) {
	var log bytes.Buffer
	objs := embedding.Objects()
	lookup := func(ptr uint64) int {
		for _, o := range objs {
			if a := objtable.Strip(ptr); a >= o.Base && a < o.Base+o.Size {
				return o.ID
			}
		}
		return -1
	}
	r := rigOf(t, 2, "oasis", func(b uvm.Builder) uvm.Builder {
		return b.WithPages(4096, 24).WithObjectLookup(lookup).WithLogger(zerolog.New(&log))
	}, func(b gmmu.Builder) gmmu.Builder { return b.WithPages(4096, 24) })
	for _, o := range objs {
		if err := r.driver.Observe(pagepolicy.Allocated(o, embedding.Tagging)); err != nil {
			t.Fatal(err)
		}
	}
	a := objs[0].Base // untagged
	for i, at := range []sim.VTimeInSec{0, 10e-6, 20e-6, 30e-6} {
		r.ask(i%2, a+uint64(i/2)*4096, at) // both GPUs share A's first two pages
	}
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "untagged pointer"); n != 1 {
		t.Errorf("%d warnings of untagged pointers, want 1:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "objtable.Tagging.Encode") {
		t.Errorf("the warning does not name the fix:\n%s", log.String())
	}
}

// Kernel launches and access-counter notifications travel as messages:
// a launch reaches OASIS (an object it learned is reset), a notification
// on the GMMU's Control port becomes an access-counter batch the driver
// serves and answers.
func TestLaunchesAndCountersOverPorts(t *testing.T) {
	r := rigOf(t, 2, "oasis", func(b uvm.Builder) uvm.Builder {
		return b.WithPages(4096, 24).WithObjectLookup(func(ptr uint64) int {
			_, id, ok := embedding.Tagging.Decode(ptr)
			if !ok {
				return -1
			}
			return id
		})
	}, func(b gmmu.Builder) gmmu.Builder { return b.WithPages(4096, 24) })
	objs := embedding.Objects()
	for _, o := range objs {
		if err := r.driver.Observe(pagepolicy.Allocated(o, embedding.Tagging)); err != nil {
			t.Fatal(err)
		}
	}
	r.ask(0, objs[0].Ptr, 0)
	r.ask(1, objs[0].Ptr, 10e-6) // shared: OASIS learns A's policy
	host := newEndpoint(r.e, "Host")
	r.pcie.PlugIn(host.port, 4)
	host.out.Send(uvmproto.MakeBuilder().Launch([]int{objs[0].ID}), r.driver.Port(), 20e-6)
	page := objs[0].FirstPage(4096)
	r.gpus[1].out.Send(uvmproto.MakeBuilder().CounterNotify([]uint64{page, page + 1}), r.mmus[1].Control(), 30e-6)
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if n := r.driver.Policy().Report().Stats["explicit_resets"]; n != 1 {
		t.Errorf("%v explicit resets of a learned object at the launch; want 1", n)
	}
	if n := r.driver.Service().Counters(1).ACNotifications; n != 1 {
		t.Errorf("%d access-counter notifications served for GPU 1; want 1", n)
	}
}

// A shootdown names the addresses the GPU's TLB keys: the tagged page
// address the GMMU answered.
func TestShootdownsCarryTaggedAddresses(t *testing.T) {
	r := rigOf(t, 2, "on-touch", nil, nil)
	tag := objtable.Tagging{IDBits: 4, ConfigBit: 1}
	ptr := tag.Encode(3*4096, 5)
	r.ask(0, ptr+64, 0)
	r.ask(1, 3*4096, 10e-6) // on-touch moves page 3 to GPU 1: GPU 0 flushes it
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, m := range r.gpus[0].got {
		if s, ok := m.(*uvmproto.ShootdownReq); ok {
			got = append(got, s.VAddrs...)
		}
	}
	if len(got) != 1 || got[0] != ptr {
		t.Errorf("shootdowns name %#x; want [%#x], the tagged page address answered", got, ptr)
	}
}
