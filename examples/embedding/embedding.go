// Package embedding is an Akita model of its own that embeds mgpu's UVM
// components through their exported API: a GMMU per GPU, the UVM driver
// and the OASIS page policy. Its GPUs (GPU, with an Akita TLB each) are
// not mgpu's and talk to mgpu only through Akita ports.
package embedding

import (
	"fmt"

	"github.com/sarchlab/akita/v3/mem/vm/tlb"
	"github.com/sarchlab/akita/v3/sim"
	"github.com/sarchlab/akita/v3/tracing"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/examples/embedding/akitatlb"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
)

// The managed space: Pages pages of PageSize bytes from address 0 (the
// driver's and the GMMUs' address base, which must agree).
const (
	PageSize = 4096
	Pages    = 24
)

// Tagging puts an object's ID above bit 48 of its pointers, as OASIS
// reads it.
var Tagging = objtable.Tagging{IDBits: 4, ConfigBit: 1}

// Objects are the two allocations: A (ID 1) and B (ID 2), four pages each.
func Objects() []*objtable.Object {
	obj := func(id int, name string, base uint64) *objtable.Object {
		return &objtable.Object{ID: id, Name: name, Base: base, Size: 4 * PageSize, Ptr: Tagging.Encode(base, id)}
	}
	return []*objtable.Object{obj(1, "A", 16*PageSize), obj(2, "B", 20*PageSize)}
}

// objectOf is the driver's object lookup: the pointer's tag, or, for an
// untagged address (the driver also asks with page*PageSize), the object
// whose range holds it.
func objectOf(ptr uint64) int {
	if _, id, ok := Tagging.Decode(ptr); ok {
		return id
	}
	for _, o := range Objects() {
		if a := objtable.Strip(ptr); a >= o.Base && a < o.Base+o.Size {
			return o.ID
		}
	}
	return -1
}

// system is the model: mgpu's driver and GMMUs, this module's GPUs and
// Akita's TLBs.
type system struct {
	engine *engine.Engine
	driver *uvm.Driver
	mmus   [2]*gmmu.Comp
	gpus   [2]*GPU
	// frames is the GPUs' physical memory: the GMMUs answer with the
	// physical address of a page's frame in the GPU that holds it.
	frames *gmmu.Frames
}

// cycle is the receive delay every mgpu component gets on Akita's
// DirectConnection.
const cycle = sim.VTimeInSec(1e-9)

// Run builds the model, replays accesses[g] on GPU g, and reports.
func Run(accesses [2][]Access) (Report, error) {
	m, err := New(accesses)
	if err != nil {
		return Report{}, err
	}
	return m.Run()
}

// Model is the example built and not yet run, for a caller that attaches
// tracers first.
type Model struct{ s *system }

// New builds the model for accesses[g] on GPU g.
func New(accesses [2][]Access) (*Model, error) {
	s, err := build(accesses)
	if err != nil {
		return nil, err
	}
	return &Model{s}, nil
}

// Engine is the model's engine, the clock an Akita tracer reads.
func (m *Model) Engine() sim.Engine { return m.s.engine }

// Trace hands mgpu's tasks to an Akita tracer (see toAkita).
func (m *Model) Trace(t tracing.Tracer) { m.s.trace(t) }

// Run replays the accesses and reports.
func (m *Model) Run() (Report, error) {
	s := m.s
	for _, g := range s.gpus {
		g.Start(0)
	}
	if err := s.engine.Run(); err != nil {
		return Report{}, err
	}
	for _, err := range []error{s.driver.Err(), s.mmus[0].Err(), s.mmus[1].Err()} {
		if err != nil {
			return Report{}, err
		}
	}
	return s.report(), nil
}

// build wires the model and tells the driver of the objects and of a
// kernel launch that uses both.
func build(accesses [2][]Access) (*system, error) {
	s := &system{engine: engine.New()}
	var err error
	if s.frames, err = gmmu.NewFrames(2, Pages, Pages*PageSize, PageSize); err != nil {
		return nil, err
	}
	s.driver, err = uvm.MakeBuilder().WithEngine(s.engine).WithGPUs(2).WithRecvDelay(cycle).
		WithPolicy("oasis", pagepolicy.DefaultConfig()).WithPages(PageSize, Pages).
		WithObjectLookup(objectOf).Build("Driver")
	if err != nil {
		return nil, err
	}
	pcie := sim.NewDirectConnection("PCIe", s.engine, 1*sim.GHz)
	pcie.PlugIn(s.driver.Port(), 16)
	nvlink := sim.NewDirectConnection("NVLink", s.engine, 1*sim.GHz)
	for i := range s.gpus {
		if err := s.buildGPU(i, accesses[i], pcie, nvlink); err != nil {
			return nil, err
		}
	}
	s.gpus[0].peer, s.gpus[1].peer = s.gpus[1].data, s.gpus[0].data
	var ids []int
	for _, o := range Objects() {
		if err := s.driver.Observe(pagepolicy.Allocated(o, Tagging)); err != nil {
			return nil, err
		}
		ids = append(ids, o.ID)
	}
	return s, s.driver.Observe(pagepolicy.Launched(ids))
}

// buildGPU makes GPU i with its GMMU, TLB and TLB requester. The control
// protocol runs on mgpu's interconnect.Wire, as mgpu's own GPU's does: an
// on-chip wire with no latency. The rest is on Akita's DirectConnection,
// every receiver handling a cycle later.
func (s *system) buildGPU(i int, accesses []Access, pcie, nvlink *sim.DirectConnection) error {
	name := fmt.Sprintf("GPU[%d]", i)
	m, err := gmmu.MakeBuilder().WithEngine(s.engine).WithGPUID(i).WithPages(PageSize, Pages).
		WithRecvDelay(cycle).WithAddressBase(0).WithFrames(s.frames).Build(name + ".GMMU")
	if err != nil {
		return err
	}
	pcie.PlugIn(m.Port(), 16)
	m.SetDriver(s.driver.Port())
	if err := s.driver.ConnectGPU(i, m.Port()); err != nil {
		return err
	}
	t := tlb.MakeBuilder().WithEngine(s.engine).WithFreq(1 * sim.GHz).WithPageSize(PageSize).
		WithNumWays(16).WithLowModule(m.Top()).Build(name + ".TLB")
	g := NewGPU(s.engine, i, accesses)
	s.engine.Watch(g)
	g.tlb, err = akitatlb.MakeBuilder().WithEngine(s.engine).WithPID(PID).WithDeviceID(uint64(i + 1)).
		WithPageSize(PageSize).WithRecvDelay(cycle).WithTLB(t).WithGMMU(m.Top()).WithAnswered(g.answered).
		Build(name + ".TLBRequester")
	if err != nil {
		return err
	}
	wire := interconnect.NewWire(name+".ControlWire", s.engine)
	wire.PlugIn(g.ctrl, 8)
	wire.PlugIn(m.Control(), 8)
	m.ConnectGPU(g.ctrl)
	bus := sim.NewDirectConnection(name+".TLBBus", s.engine, 1*sim.GHz)
	for _, p := range []sim.Port{g.tlb.Port(), g.tlb.Control(), t.GetPortByName("Top"), t.GetPortByName("Control"),
		t.GetPortByName("Bottom"), m.Top()} {
		bus.PlugIn(p, 8)
	}
	nvlink.PlugIn(g.data, 8)
	g.mmuCtrl = m.Control()
	s.mmus[i], s.gpus[i] = m, g
	return nil
}
