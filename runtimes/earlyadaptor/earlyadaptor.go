// Package earlyadaptor runs Early-Adaptor ("Early-Adaptor: An Adaptive
// Framework for Proactive UVM Memory Management", ISPASS 2023) in the
// driver: a controller per GPU (package earlyadaptor at the module root)
// that sets its tree prefetcher's per-VA-block thresholds from the faults
// and evictions it sees. Importing it registers uvm.prefetch_control
// early-adaptor.
package earlyadaptor

import (
	"slices"

	"github.com/sarchlab/akita/v3/sim"

	core "github.com/mgpu-sim/mgpu/earlyadaptor"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

func init() {
	uvm.RegisterRuntime(uvm.KeyPrefetchControl, uvm.ControlEarlyAdaptor, uvm.RuntimeSpec{New: New, Requires: []uvm.Requirement{
		{Key: "uvm.prefetch.policy", Value: prefetch.TBN, Why: "steers the tree prefetcher"}}})
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
		c, err := core.New(env.Config.EA, env.Trees[g], core.GPU{CapacityPages: uint64(env.Capacity),
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
