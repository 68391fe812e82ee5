// Package earlyadaptor runs Early-Adaptor ("Early-Adaptor: An Adaptive
// Framework for Proactive UVM Memory Management", ISPASS 2023) in the
// driver: a controller per GPU (package earlyadaptor at the module root)
// that sets its tree prefetcher's per-VA-block thresholds from the faults
// and evictions it sees. Importing it registers uvm.prefetch_control
// early-adaptor.
package earlyadaptor

import (
	"fmt"
	"slices"

	"github.com/sarchlab/akita/v3/sim"

	core "github.com/mgpu-sim/mgpu/earlyadaptor"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Name is the value of uvm.prefetch_control that selects Early-Adaptor.
const Name = "early-adaptor"

// Config holds Early-Adaptor's parameters (the EA paper, and the choices its doc comments give where the paper is silent), uvm.ea.*: a
// section of every uvm.Config.
var Config = uvm.RegisterSection(uvm.SectionSpec{Name: "ea", Field: "EA", After: "uvmmu", Order: 0,
	Doc: "Early-Adaptor's parameters (package earlyadaptor), used with uvm.prefetch_control=early-adaptor."}, core.DefaultConfig())

func init() {
	uvm.RegisterRuntime(uvm.KeyPrefetchControl, Name, uvm.RuntimeSpec{New: New, Requires: []uvm.Requirement{
		{Key: "uvm.prefetch.policy", Value: prefetch.TBN, Why: "steers the tree prefetcher"}},
		Validate: func(c uvm.Config, _ units.Bytes) error {
			if err := Config.Of(c).Validate(); err != nil {
				return fmt.Errorf("uvm.ea: %w", err)
			}
			return nil
		},
		Dependencies: dependencies, Warn: warnIdle})
}

// warnIdle warns when Early-Adaptor detected oversubscription but the run
// ended before its first benefit analysis: its windows are EA's, in
// simulated time, and a scaled-down input runs for less than they span.
func warnIdle(c uvm.Config, counts map[string]float64, simTimeNs float64) string {
	if counts["ea_detections"] == 0 || counts["ea_evaluations"] > 0 {
		return ""
	}
	return fmt.Sprintf("Early-Adaptor detected oversubscription but ran no benefit analysis before the run ended "+
		"(long window %g ns); scale uvm.ea.short_window_ns, long_window_ns and eval_period_ns by footprint / EA's footprint "+
		"(earlyadaptor.ScaledWindows; the ea-* figures do)", Config.Of(c).LongWindowNs)
}

// dependencies are EA's keys, which take effect while it steers the
// prefetcher and its mode reads them, and the threshold it sets instead.
var dependencies = []uvm.Dependency{
	{Keys: []string{"uvm.prefetch.threshold"},
		On:    func(c uvm.Config) bool { return c.PrefetchControl != Name },
		While: uvm.KeyPrefetchControl, Use: "uvm.prefetch_control=none",
		Note: "Early-Adaptor sets every VA block's threshold: uvm.ea.aggressive and uvm.ea.disabled, or uvm.ea.static_threshold with uvm.ea.mode=static"},
	{Keys: []string{"uvm.ea.*"}, On: uvm.SelectedIs(uvm.KeyPrefetchControl, Name),
		While: uvm.KeyPrefetchControl, Use: "uvm.prefetch_control=early-adaptor (with uvm.prefetch.policy=tbn)"},
	{Keys: []string{"uvm.ea.static_threshold"},
		On:    func(c uvm.Config) bool { return Config.Of(c).Mode == core.Static },
		While: "uvm.ea.mode", Use: "uvm.ea.mode=static"},
	// The adaptive controller's parameters; uvm.ea.detect and disabled
	// still shape the reported detection and disabled-block counts.
	{Keys: []string{"uvm.ea.reading", "uvm.ea.reset_on_detect", "uvm.ea.short_window_ns", "uvm.ea.long_window_ns",
		"uvm.ea.slices", "uvm.ea.eval_period_ns", "uvm.ea.short_factor", "uvm.ea.long_factor", "uvm.ea.step",
		"uvm.ea.step_mode", "uvm.ea.aggressive", "uvm.ea.consistent_slices", "uvm.ea.average", "uvm.ea.short_reference",
		"uvm.ea.warmup", "uvm.ea.risk_hold_windows"},
		On:    func(c uvm.Config) bool { return Config.Of(c).Mode == core.Adaptive },
		While: "uvm.ea.mode", Use: "uvm.ea.mode=adaptive", Note: "static mode holds every block at uvm.ea.static_threshold"},
}

// Runtime is Early-Adaptor over every GPU's tree prefetcher.
type Runtime struct {
	uvm.Stages
	ctl   []*core.Controller
	seeds []uint64
}

// New gives every GPU a controller over its tbn prefetcher, the one EA
// steers (the registration's requirement).
func New(env uvm.RuntimeEnv) (uvm.Runtime, error) {
	r := &Runtime{ctl: make([]*core.Controller, env.GPUs)}
	for g := range r.ctl {
		c, err := core.New(Config.Of(env.Config), env.Trees[g], core.GPU{CapacityPages: uint64(env.Capacity),
			PagesPerVABlock: uint64(env.Prefetch.VABlockSize / env.Prefetch.PageSize)})
		if err != nil {
			return nil, err
		}
		r.ctl[g] = c
	}
	return r, nil
}

// AfterVictims tells GPU h's controller of n evictions: its sign of
// oversubscription.
func (r *Runtime) AfterVictims(h int, at sim.VTimeInSec, n int) error {
	return r.ctl[h].OnEvict(float64(at)*1e9, n)
}

// FaultBatchDone feeds GPU g's controller the batch's faulted pages (each
// once; EA's history counts faults after handling, not prefetches), which
// may change the thresholds the next batch's prefetch uses.
func (r *Runtime) FaultBatchDone(g int, faults []uvmproto.FaultEntry, now sim.VTimeInSec) error {
	r.seeds = r.seeds[:0]
	for _, f := range faults {
		r.seeds = append(r.seeds, f.Page)
	}
	slices.Sort(r.seeds)
	r.seeds = slices.Compact(r.seeds)
	return r.ctl[g].OnFaults(float64(now)*1e9, r.seeds)
}

// Report adds the controllers' counts, summed over GPUs.
func (r *Runtime) Report(m map[string]float64) {
	for _, c := range r.ctl {
		st := c.Stats()
		uvm.AddCounts(m, map[string]uint64{"ea_detections": st.Detections, "ea_evaluations": st.Evaluations,
			"ea_risk_signals": st.RiskSignals, "ea_risk_held": st.RiskHeld, "ea_threshold_changes": st.Changes, "ea_decreases": st.Decreases,
			"ea_disables": st.Disables, "ea_enables": st.Enables, "ea_blocks_disabled": st.BlocksDisabled,
			"ea_short_blocks": st.ShortBlocks, "ea_long_blocks": st.LongBlocks,
			"ea_risky_peak": st.RiskyPeak, "ea_capacity_blocks": st.CapacityBlocks})
	}
}
