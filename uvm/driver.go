package uvm

import (
	"fmt"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Driver is the host UVM driver as an Akita component: a thin adapter that
// feeds the messages of its PCIe port and its wake-ups to the Service core
// and carries out what the core asks for.
type Driver struct {
	*sim.ComponentBase
	engine sim.Engine
	svc    *Service
	core   Core // svc's Core: its batches or a registered fault-handling core
	port   *uvmproto.Port
	out    outbox
	gpus   []sim.Port // each GMMU's PCIe port
	err    error

	src         engine.Source
	recvPending bool
	recvDelay   sim.VTimeInSec

	// lineBytes and hostMem size and time zero-copy host accesses.
	lineBytes int
	hostMem   sim.VTimeInSec

	log   zerolog.Logger
	watch policyWatch
	clock batchClock

	// placed is called when the launch placement in service is done.
	placed func(now sim.VTimeInSec) error
}

// outbox is what the driver needs of uvmproto.Outbox.
type outbox interface {
	Send(msg sim.Msg, dst sim.Port, at sim.VTimeInSec)
	PortFree(now sim.VTimeInSec)
	Refused() uint64
}

type driverEvent struct {
	t    sim.VTimeInSec
	o    engine.Order
	h    sim.Handler
	wake bool // the core's wake-up; otherwise a port drain
}

func (e *driverEvent) Time() sim.VTimeInSec { return e.t }
func (e *driverEvent) Order() engine.Order  { return e.o }
func (e *driverEvent) Handler() sim.Handler { return e.h }
func (e *driverEvent) IsSecondary() bool    { return false }

// Port is the driver's PCIe port.
func (d *Driver) Port() sim.Port { return d.port }

// Service is the driver's protocol core.
func (d *Driver) Service() *Service { return d.svc }

// Evictor is the eviction policy, or nil when GPU memory is not limited.
func (d *Driver) Evictor() eviction.Policy { return d.svc.evictor }

// Table is the centralized page table.
func (d *Driver) Table() *PageTable { return d.svc.table }

// Policy is the page policy in force.
func (d *Driver) Policy() pagepolicy.Policy { return d.svc.policy }

// Refused is how many sends the PCIe connection refused and the driver
// resent.
func (d *Driver) Refused() uint64 { return d.out.Refused() }

// Err is the first error the driver met, if any; it stops handling then.
func (d *Driver) Err() error { return d.err }

// ConnectGPU records GMMU g's PCIe port as the destination for GPU g. It
// refuses a GPU number the driver does not serve and a GMMU that pages the
// managed space differently (a GMMU says how through Geometry), so that
// builders that disagree fail when they are wired, not at a message.
func (d *Driver) ConnectGPU(g int, p sim.Port) error {
	if g < 0 || g >= d.svc.gpus {
		return fmt.Errorf("%s: GPU %d connected, but the driver serves %d GPUs (WithGPUs)", d.Name(), g, d.svc.gpus)
	}
	if m, ok := p.Component().(pageGeometry); ok {
		size, pages := m.Geometry()
		if size != d.svc.pageSize || pages != d.svc.table.Len() {
			return fmt.Errorf("%s: GPU %d's %s has %d pages of %d B, the driver %d of %d B: their WithPages disagree",
				d.Name(), g, p.Component().Name(), pages, size, d.svc.table.Len(), d.svc.pageSize)
		}
		if base := m.AddressBase(); base != d.svc.base {
			return fmt.Errorf("%s: GPU %d's %s has page 0 at %#x, the driver at %#x: their WithAddressBase disagree",
				d.Name(), g, p.Component().Name(), base, d.svc.base)
		}
	}
	if m, ok := p.Component().(gpuIdentity); ok {
		if id := m.GPUID(); id != g {
			return fmt.Errorf("%s: %s was built WithGPUID(%d) but connected as GPU %d: its faults would name GPU %d; build it WithGPUID(%d) or connect it as GPU %d",
				d.Name(), p.Component().Name(), id, g, id, g, id)
		}
		if hw := d.svc.concurrent; m.ConcurrentFaults() != hw {
			return fmt.Errorf("%s: %s", d.Name(), concurrencyMismatch(p.Component().Name(), hw))
		}
	}
	for len(d.gpus) <= g {
		d.gpus = append(d.gpus, nil)
	}
	d.gpus[g] = p
	return nil
}

// pageGeometry is a GPU-side component that says how it pages the managed
// space (gmmu.Comp), so that ConnectGPU can refuse one that disagrees.
type pageGeometry interface {
	Geometry() (pageSize, pages uint64)
	AddressBase() uint64
}

// gpuIdentity is a GMMU that says which GPU it serves and how it sends
// faults (gmmu.Comp), so that ConnectGPU can refuse one built for another
// slot or another kind of fault handling.
type gpuIdentity interface {
	GPUID() int
	ConcurrentFaults() bool
}

// concurrencyMismatch says how GMMU name and a driver that handles faults
// in hardware (hw) or in batches disagree.
func concurrencyMismatch(name string, hw bool) string {
	if hw {
		return name + " sends one fault batch at a time and waits for its end, which a driver that handles faults in hardware (uvm.fault_handling=hardware) never sends: build the GMMU WithConcurrentFaults(true)"
	}
	return name + " sends every fault at once (WithConcurrentFaults), which only a driver that handles faults in hardware expects; this driver services batches (uvm.fault_handling=software): build the GMMU without it"
}

// SetChecker turns on the coherence checking mode.
func (d *Driver) SetChecker(c *Checker) { d.svc.setChecker(c) }

// Observe passes a kernel launch, an allocation or a free to the policy.
func (d *Driver) Observe(e pagepolicy.Event) error {
	err := d.svc.Observe(e)
	if e.Kind == pagepolicy.Launch {
		d.logPolicy(d.engine.CurrentTime())
	}
	return err
}

// Place asks the runtime that places (a Placer: SUV-Mgmt) to plan and
// carry out a launch's placement (a driver call before the launch, as
// SUV's injected host code makes); done is called, at the simulated time
// it ends, when the launch may start; its error stops the driver. One
// placement is in flight at a time.
func (d *Driver) Place(now sim.VTimeInSec, l Launch, done func(now sim.VTimeInSec) error) error {
	if d.placed != nil {
		return fmt.Errorf("%s: a launch placement while another is in flight", d.Name())
	}
	if err := d.svc.Place(now, l); err != nil {
		return err
	}
	d.placed = done
	d.apply(now)
	return d.err
}

// NotifyRecv schedules a drain of the port at the current time.
func (d *Driver) NotifyRecv(now sim.VTimeInSec, _ sim.Port) {
	d.fail(d.port.NeedsRecvDelay(d.recvDelay))
	if !d.recvPending {
		d.recvPending = true
		d.engine.Schedule(&driverEvent{t: now + d.recvDelay, o: d.src.Next(engine.RankDriver), h: d})
	}
}

// NotifyPortFree resends what a full connection refused.
func (d *Driver) NotifyPortFree(now sim.VTimeInSec, _ sim.Port) { d.out.PortFree(now) }

// Handle runs the core's wake-ups and drains the port.
func (d *Driver) Handle(e sim.Event) error {
	if d.err != nil {
		return d.err
	}
	ev := e.(*driverEvent)
	now := ev.t
	if ev.wake {
		d.fail(d.core.Tick(now))
		d.logPolicy(now)
		d.apply(now)
		return d.err
	}
	d.recvPending = false
	for msg := d.port.Retrieve(now); msg != nil && d.err == nil; msg = d.port.Retrieve(now) {
		if req, ok := msg.(*uvmproto.RDMAReq); ok {
			d.serveHost(now, req)
			continue
		}
		if l, ok := msg.(*uvmproto.LaunchMsg); ok {
			d.fail(d.Observe(pagepolicy.Launched(l.Objects)))
			continue
		}
		d.logReceived(now, msg)
		d.fail(d.core.Receive(now, msg))
		d.apply(now)
	}
	return d.err
}

// serveHost answers a zero-copy access to host memory: the lines are read
// (or written) in host DRAM and the answer goes back over PCIe. Host memory
// is the driver's side of the link, so the driver's port serves it; the
// fault protocol never sees these requests.
func (d *Driver) serveHost(now sim.VTimeInSec, req *uvmproto.RDMAReq) {
	rsp := d.svc.build.RDMAResponse(req, d.lineBytes)
	src := req.Src
	req.Release()
	d.out.Send(rsp, src, now+d.hostMem)
}

func (d *Driver) fail(err error) {
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("%s: %w", d.Name(), err)
	}
}

// apply sends what the core asked for, then schedules its wake-up.
func (d *Driver) apply(now sim.VTimeInSec) {
	rd := d.core.Ready()
	for _, o := range rd.Send {
		if o.To < 0 || o.To >= len(d.gpus) || d.gpus[o.To] == nil {
			d.fail(fmt.Errorf("message %T for GPU %d, which is not connected", o.Msg, o.To))
			continue
		}
		d.logSent(now, o)
		d.out.Send(o.Msg, d.gpus[o.To], max(now, o.At))
	}
	if rd.Wake {
		d.engine.Schedule(&driverEvent{t: rd.WakeAt, o: d.src.Next(engine.RankDriver), h: d, wake: true})
	}
	d.core.Advance()
	if rd.Placed && d.placed != nil {
		done := d.placed
		d.placed = nil
		d.fail(done(now))
	}
}
