// Package griffin runs an approximation of Griffin's Dynamic Page
// Classification (Griffin, HPCA 2020; package griffin at the module root)
// in the driver, over the access-counter policy: a page moves from the
// host to the GPU that touches it first (with policy.ac_host=migrate, the
// first-touch baseline Griffin fixes) and other GPUs map it remotely; the
// GPUs' counter notifications are held instead of migrating at once, and
// at each epoch's end the pages one GPU dominates move there together.
// Importing it registers uvm.adaptive griffin-dpc.
package griffin

import (
	"github.com/sarchlab/akita/v3/sim"

	core "github.com/mgpu-sim/mgpu/griffin"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Name is the value of uvm.adaptive that selects Griffin's DPC.
const Name = "griffin-dpc"

// Config holds Griffin's DPC parameters, approximated (Griffin's values are not public; the core's doc comments give the choices), uvm.griffin.*: a
// section of every uvm.Config.
var Config = uvm.RegisterSection(uvm.SectionSpec{Name: "griffin", Field: "Griffin", After: "adaptive", Order: 4,
	Doc: "Griffin's DPC, approximated (package griffin), used with uvm.adaptive=griffin-dpc."}, core.DefaultConfig())

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, Name, uvm.RuntimeSpec{New: New, Requires: []uvm.Requirement{
		uvm.NeedsSoftware("classifies the driver's access-counter notifications"),
		{Key: "policy", Value: "access-counter", Why: "classifies the pages the access counters notify (first-touch, then remote access)"}},
		Validate: func(c uvm.Config, _ units.Bytes) error { return Config.Of(c).Validate() },
		Dependencies: []uvm.Dependency{{Keys: []string{"uvm.griffin.*"}, On: uvm.SelectedIs(uvm.KeyAdaptive, Name),
			While: uvm.KeyAdaptive, Use: "uvm.adaptive=griffin-dpc"}}})
}

// Runtime is DPC over the driver's counter batches.
type Runtime struct {
	uvm.Stages
	dpc *core.DPC
	ops uvm.Ops
	// migrations counts the pages moved at epoch ends.
	migrations uint64
}

// New builds DPC for the run's GPUs.
func New(env uvm.RuntimeEnv) (uvm.Runtime, error) {
	d, err := core.New(Config.Of(env.Config), env.GPUs)
	if err != nil {
		return nil, err
	}
	return &Runtime{dpc: d, ops: env.Ops}, nil
}

// CounterBatch closes an epoch that has ended, then holds the batch's
// notifications for the epoch now running: nothing migrates at once.
//
// The epoch's migrations join the first counter batch after its end. The
// driver acts only in batches, and a counter batch holds no faults, so no
// fault of the same batch maps a page DPC moves (a fault batch's mappings
// would go out after DPC's shootdown and point at the old copy). Counter
// batches come as long as GPUs access pages remotely, which is when DPC
// has something to move; an epoch with none after it moves nothing.
func (r *Runtime) CounterBatch(g int, pages []uint64, invals [][]uvmproto.Inval) bool {
	r.closeIfDue(invals)
	r.dpc.Notify(g, pages)
	return true
}

func (r *Runtime) closeIfDue(invals [][]uvmproto.Inval) {
	now := nanoseconds(r.ops.Now())
	if !r.dpc.Due(now) {
		return
	}
	for _, m := range r.dpc.Close(now) {
		before := r.ops.Table().Page(m.Page)
		r.ops.Migrate(m.GPU, m.Page, invals) // the driver's rules: a host page g does not map stays
		if after := r.ops.Table().Page(m.Page); after != before {
			r.ops.Pin(m.Page) // this batch's eviction must not pick it
			r.migrations++
		}
	}
}

func nanoseconds(t sim.VTimeInSec) float64 { return float64(t) * 1e9 }

// Report adds DPC's counts.
func (r *Runtime) Report(m map[string]float64) {
	s := r.dpc.Stats()
	uvm.AddCounts(m, map[string]uint64{"dpc_epochs": s.Epochs, "dpc_notifications": s.Notifications,
		"dpc_private": s.Private, "dpc_dominant": s.Dominant, "dpc_shared": s.Shared, "dpc_migrations": r.migrations})
}
