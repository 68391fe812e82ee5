package uvm

import (
	"fmt"
	"sort"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Who handles far faults is uvm.fault_handling: the host driver's batches
// (the Service itself), or a fault-handling core a package registers
// (RegisterHandling), as UVMMU's per-fault hardware does. A registered
// core replaces the batches but keeps the driver's page table, counters
// and messages, which it reaches through HandlingOps.

// HandlingSoftware is the host driver's fault batches (Service): the
// value of uvm.fault_handling that selects no registered core.
const HandlingSoftware = "software"

// A FaultCore is a registered fault-handling core: the Service's Core
// without what the Service keeps for it (Ready, Advance: its sends and
// wake-ups go through HandlingOps). Receive sees only messages whose
// pages and GPU are the driver's.
type FaultCore interface {
	Receive(now sim.VTimeInSec, msg sim.Msg) error
	Tick(now sim.VTimeInSec) error
	// Report adds the core's counts to m; the result carries them.
	Report(m map[string]float64)
	// Outstanding says what the core still waits for (nothing: none), for
	// the report of a run that stalled.
	Outstanding() []string
}

// A HandlingSpec is a fault-handling core as registered: how to build it
// and the rules of the config keys it owns or changes, which config's
// validation applies while it is selected.
type HandlingSpec struct {
	New func(HandlingEnv) (FaultCore, error)
	// Concurrent is set when the core takes every fault as it happens:
	// the GMMUs then send each fault at once (gmmu's Concurrent), not one
	// batch at a time.
	Concurrent bool
	// Validate, if set, checks the core's own settings while it is
	// selected, at the run's page size.
	Validate func(c Config, page units.Bytes) error
	// Rules are what the core needs of other keys while it is selected.
	Rules []Rule
	// Dependencies are keys that take effect only under a condition (the
	// core's own section while it is selected, the batches' keys it
	// replaces).
	Dependencies []Dependency
}

// A Rule is a requirement whose value follows from the config: Need says
// what to set ("<reason>: set <key>=<value>"), or "" when the config
// meets it. get reads any config key, as package config formats it.
type Rule struct {
	Need func(c Config, page units.Bytes, get func(key string) string) string
}

// HandlingEnv is what a fault-handling core is built from.
type HandlingEnv struct {
	// Config is the driver's config; a core reads its own section.
	Config Config
	// Policy names the page policy; Prefetching is set when the GPUs have
	// a prefetcher.
	Policy      string
	Prefetching bool
	GPUs        int
	// Pages in the managed space, of PageSize bytes; Capacity is the pages
	// each GPU may hold (0: unlimited).
	Pages    uint64
	PageSize uint64
	Capacity int
	// ClockMHz is the GPU clock, Seed the run's seed.
	ClockMHz float64
	Seed     uint64
	// Ops acts on the driver.
	Ops HandlingOps
}

// HandlingOps is what a fault-handling core may do to the driver: change
// the page table, count, and send messages to the GMMUs.
type HandlingOps interface {
	// Table is the centralized page table.
	Table() *PageTable
	// Counters are GPU g's counts.
	Counters(g int) *stats.Counters
	// Messages builds the protocol's messages.
	Messages() uvmproto.Builder
	// Send sends msg to GPU g's GMMU when at comes (now if earlier).
	Send(g int, msg sim.Msg, at sim.VTimeInSec)
	// Wake asks for a Tick at t.
	Wake(t sim.VTimeInSec)
	// Copied tells the coherence checker, if on, of page's copy.
	Copied(from, to int, page uint64)
	// CountTransfer counts a page copy in its GPUs' migrations.
	CountTransfer(t Transfer)
	// UseEvictor makes ev the driver's eviction policy (Driver.Evictor)
	// and lets it watch the page table; the driver's own eviction then
	// stays off, as it does whenever a core is selected.
	UseEvictor(ev eviction.Policy)
	// Tracing reports whether tasks are traced; StartTask and EndTask
	// start and end task id under the driver.
	Tracing() bool
	StartTask(id, kind, what string)
	EndTask(id string)
}

// handlings are the registered fault-handling cores, by name.
var handlings = map[string]HandlingSpec{}

// RegisterHandling makes the core name selectable by uvm.fault_handling.
// Call it from an init function; it panics on a duplicate or reserved
// name or no constructor.
func RegisterHandling(name string, spec HandlingSpec) {
	if _, dup := handlings[name]; dup || name == HandlingSoftware || name == "" || spec.New == nil {
		panic(fmt.Sprintf("uvm.RegisterHandling: %q registered twice, reserved or without a constructor", name))
	}
	handlings[name] = spec
}

// HandlingNames lists the values uvm.fault_handling accepts: software,
// then every registered core, sorted.
func HandlingNames() []string {
	var names []string
	for n := range handlings {
		names = append(names, n)
	}
	sort.Strings(names)
	return append([]string{HandlingSoftware}, names...)
}

// HandlingOf is the core registered as name, if any.
func HandlingOf(name string) (HandlingSpec, bool) {
	spec, ok := handlings[name]
	return spec, ok
}

// Handling is the registered core c selects, if any.
func (c Config) Handling() (HandlingSpec, bool) { return HandlingOf(c.FaultHandling) }

// Handlings lists every registered core's spec, by name (HandlingNames).
func Handlings() []HandlingSpec {
	var out []HandlingSpec
	for _, n := range HandlingNames()[1:] {
		out = append(out, handlings[n])
	}
	return out
}

// buildHandling builds the core the config names, if it names one.
func (s *Service) buildHandling(b Builder, gpus int) error {
	switch name := b.cfg.FaultHandling; name {
	case HandlingSoftware, "":
		return nil
	default:
		spec, ok := HandlingOf(name)
		if !ok {
			return fmt.Errorf("uvm.fault_handling %q: valid values are %v (a core outside mgpu must be registered with uvm.RegisterHandling)", name, HandlingNames())
		}
		h, err := spec.New(HandlingEnv{Config: b.cfg, Policy: b.policy, Prefetching: s.trees != nil, GPUs: gpus,
			Pages: b.pages, PageSize: b.pageSize, Capacity: b.capacity, ClockMHz: b.clockMHz, Seed: b.seed, Ops: handlingOps{s}})
		if err != nil {
			return err
		}
		s.handler, s.concurrent = h, spec.Concurrent
		return nil
	}
}

// handled is the Service's Core under a registered fault-handling core.
type handled struct {
	s *Service
	h FaultCore
}

func (c handled) Receive(now sim.VTimeInSec, msg sim.Msg) error {
	if err := c.s.inRange(msg); err != nil {
		return err
	}
	return c.h.Receive(now, msg)
}
func (c handled) Tick(now sim.VTimeInSec) error { return c.h.Tick(now) }
func (c handled) Ready() ServiceReady           { return c.s.Ready() }
func (c handled) Advance()                      { c.s.Advance() }
func (c handled) Report() map[string]float64    { return c.s.Report() }

// Handler is the registered fault-handling core in force, or nil under
// the driver's batches.
func (s *Service) Handler() FaultCore { return s.handler }

// handlingOps is the Service's HandlingOps.
type handlingOps struct{ s *Service }

func (o handlingOps) Table() *PageTable              { return o.s.table }
func (o handlingOps) Counters(g int) *stats.Counters { return o.s.counters[g] }
func (o handlingOps) Messages() uvmproto.Builder     { return o.s.build }
func (o handlingOps) Send(g int, msg sim.Msg, at sim.VTimeInSec) {
	o.s.sendAt(g, msg, at)
}
func (o handlingOps) Wake(t sim.VTimeInSec) { o.s.wake(t) }
func (o handlingOps) Copied(from, to int, page uint64) {
	if o.s.check != nil {
		o.s.check.Copied(from, to, page)
	}
}
func (o handlingOps) CountTransfer(t Transfer) { o.s.countTransfer(t) }
func (o handlingOps) UseEvictor(ev eviction.Policy) {
	o.s.table.Observe(ev)
	o.s.evictor = ev
}
func (o handlingOps) Tracing() bool { return o.s.tracer.on() }
func (o handlingOps) StartTask(id, kind, what string) {
	o.s.tracer.start(id, "", kind, what)
}
func (o handlingOps) EndTask(id string) { o.s.tracer.end(id) }
