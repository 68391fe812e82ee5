// Package uvmsmart runs UVMSmart's adaptive runtime ("An Adaptive
// Framework for Oversubscription Management in CPU-GPU Unified Memory",
// DATE 2021) in the driver: its pure core (package uvmsmart at the module
// root) learns each allocation's pattern from migrations from the host
// and hot counter blocks, then may turn on zero-copy for read-only
// allocations (a page-policy decorator) and tree eviction (an eviction
// decorator). Importing it registers uvm.adaptive uvmsmart.
package uvmsmart

import (
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
	core "github.com/mgpu-sim/mgpu/uvmsmart"
)

// Name is the value of uvm.adaptive that selects UVMSmart.
const Name = "uvmsmart"

// Config holds UVMSmart's parameters (its released simulator), uvm.uvmsmart.*: a
// section of every uvm.Config.
var Config = uvm.RegisterSection(uvm.SectionSpec{Name: "uvmsmart", Field: "UVMSmart", After: "adaptive", Order: 1,
	Doc: "UVMSmart's parameters (package uvmsmart), used with uvm.adaptive=uvmsmart."}, core.DefaultConfig())

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, Name, uvm.RuntimeSpec{New: New, Requires: []uvm.Requirement{
		uvm.NeedsSoftware("adapts the driver's software fault handling"),
		uvm.NeedsOnTouch("adapts on-touch migration (UVMSmart's baseline)")},
		Validate: func(c uvm.Config, _ units.Bytes) error { return Config.Of(c).Validate() },
		// The migrate threshold over the prefetcher's 64 KB basic blocks,
		// naming the block's pages.
		Counters: func(c uvm.Config) uvm.Counters {
			return uvm.Counters{Threshold: Config.Of(c).MigrateThreshold, Group: uint64(c.Prefetch.BlockSize)}
		},
		// Its basic block, and the chunk of its tree eviction.
		Uses: []string{"uvm.prefetch.block_size", "uvm.eviction_chunk"},
		Dependencies: []uvm.Dependency{{Keys: []string{"uvm.uvmsmart.*"}, On: uvm.SelectedIs(uvm.KeyAdaptive, Name),
			While: uvm.KeyAdaptive, Use: "uvm.adaptive=uvmsmart"}}})
}

// Runtime is UVMSmart's controller in the batch pipeline.
type Runtime struct {
	uvm.Stages
	c *core.Controller
	// tbn switches eviction to the tree when the controller says so (nil
	// while GPU memory is unlimited).
	tbn *eviction.Switch
}

// New makes the controller. UVMSmart adapts on-touch migration under the
// driver's software fault handling, its paper's baseline (the
// registration's requirements).
func New(env uvm.RuntimeEnv) (uvm.Runtime, error) {
	c, err := core.New(Config.Of(env.Config), env.Pages, max(1, uint64(env.Prefetch.BlockSize)/env.PageSize))
	if err != nil {
		return nil, err
	}
	return &Runtime{c: c}, nil
}

// DecoratePolicy lets the controller's zero-copy decisions override
// on-touch's migrations.
func (r *Runtime) DecoratePolicy(p pagepolicy.Policy) pagepolicy.Policy { return core.Wrap(p, r.c) }

// DecorateEviction lets the controller switch ev to tree eviction mid-run.
func (r *Runtime) DecorateEviction(ev eviction.Policy, o eviction.Options) (eviction.Policy, error) {
	tbn, err := eviction.NewWith(eviction.TBN, o)
	if err != nil {
		return nil, err
	}
	r.tbn = eviction.NewSwitch(ev, tbn)
	return r.tbn, nil
}

// CounterPage: a counter batch's page is a hot block.
func (r *Runtime) CounterPage(p uint64) { r.c.Hot(p) }

// Migrated learns from migrations from the host only.
func (r *Runtime) Migrated(_ int, p uint64, object int, fromHost bool, _ uvm.MoveCause) {
	if fromHost {
		r.c.Migrated(object, p)
	}
}

// Decided flushes the batch's observations into the patterns.
func (r *Runtime) Decided(int, bool, []uint64, [][]uvmproto.Inval) { r.c.Flush() }

// BeforeVictims may turn tree eviction on.
func (r *Runtime) BeforeVictims(_ int, at sim.VTimeInSec) {
	if r.c.Evicting(float64(at)*1e9).TBNEviction && r.tbn != nil {
		r.tbn.Use()
	}
}

// Report adds each mode (1 when on) and, when on, the simulated time it
// came on; the allocations per pattern at the last decision.
func (r *Runtime) Report(m map[string]float64) {
	st := r.c.Stats()
	on := func(at float64) uint64 {
		if at >= 0 {
			return 1
		}
		return 0
	}
	counts := map[string]uint64{"uvmsmart_decisions": st.Decisions, "uvmsmart_remote_maps": st.RemoteMaps,
		"uvmsmart_hot_blocks": st.Hot, "uvmsmart_zero_copy": on(st.ZeroCopyAtNs), "uvmsmart_tbn_eviction": on(st.TBNAtNs)}
	for p, n := range st.Patterns {
		counts["uvmsmart_allocs_"+strings.ReplaceAll(core.Pattern(p).String(), "-", "_")] = n
	}
	uvm.AddCounts(m, counts)
	if st.ZeroCopyAtNs >= 0 {
		m["uvmsmart_zero_copy_at_ns"] = st.ZeroCopyAtNs
	}
	if st.TBNAtNs >= 0 {
		m["uvmsmart_tbn_eviction_at_ns"] = st.TBNAtNs
	}
}
