package uvm

import (
	"math"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// The Driver adapter logs what goes into and comes out of the Service core
// and the policy; neither of them logs. Every log call first asks whether
// its level is on, so a run at the default level only pays a comparison
// per batch, and nothing is formatted.

// policyWatch is what of the policy's report the driver has logged.
type policyWatch struct {
	history                     int
	changes, toDup, toAC        float64
	explicitPhases, explicitRst float64
	implicitPhases              float64
}

// batchClock holds, per GPU, when its fault batch and its access-counter
// batch in service arrived (a GMMU has at most one of each in flight), for
// the latency the trace log reports.
type batchClock struct {
	fault, counter []sim.VTimeInSec
}

func (c *batchClock) at(g int) {
	for len(c.fault) <= g {
		c.fault = append(c.fault, 0)
		c.counter = append(c.counter, 0)
	}
}

// ns is t in nanoseconds, rounded to the picosecond so that the log shows
// 129423.405 rather than 129423.40499999514.
func ns(t sim.VTimeInSec) float64 { return roundPs(float64(t) * 1e9) }

func roundPs(ns float64) float64 { return math.Round(ns*1e3) / 1e3 }

// on reports whether the driver's logger writes lvl.
func (d *Driver) on(lvl zerolog.Level) bool {
	return lvl >= d.log.GetLevel() && lvl >= zerolog.GlobalLevel()
}

// logReceived logs, at trace, a fault or access-counter batch as it
// arrives from a GMMU.
func (d *Driver) logReceived(now sim.VTimeInSec, msg sim.Msg) {
	if !d.on(zerolog.TraceLevel) {
		return
	}
	switch m := msg.(type) {
	case *uvmproto.FaultBatchMsg:
		writes, prot := 0, 0
		for _, f := range m.Faults {
			if f.Write {
				writes++
			}
			if f.Protection {
				prot++
			}
		}
		d.clock.at(m.GPU)
		d.clock.fault[m.GPU] = now
		d.log.Trace().Float64("t_ns", ns(now)).Int("gpu", m.GPU).Int("faults", len(m.Faults)).
			Int("writes", writes).Int("protection", prot).Msg("fault batch")
	case *uvmproto.CounterBatchMsg:
		d.clock.at(m.GPU)
		d.clock.counter[m.GPU] = now
		d.log.Trace().Float64("t_ns", ns(now)).Int("gpu", m.GPU).Int("pages", len(m.Pages)).
			Int("notifications", m.Notifications).Msg("counter batch")
	}
}

// logSent logs, at trace, the reply that ends a GPU's batch.
func (d *Driver) logSent(now sim.VTimeInSec, o Outgoing) {
	if !d.on(zerolog.TraceLevel) {
		return
	}
	switch m := o.Msg.(type) {
	case *uvmproto.MapMsg:
		if !m.EndOfBatch {
			return
		}
		d.clock.at(o.To)
		d.log.Trace().Float64("t_ns", ns(now)).Int("gpu", o.To).Int("mappings", len(m.Entries)).
			Float64("latency_ns", ns(now-d.clock.fault[o.To])).Msg("fault batch done")
	case *uvmproto.CounterReplyMsg:
		d.clock.at(o.To)
		d.log.Trace().Float64("t_ns", ns(now)).Int("gpu", o.To).Int("mappings", len(m.Entries)).
			Float64("latency_ns", ns(now-d.clock.counter[o.To])).Msg("counter batch done")
	}
}

// logPolicy logs, at debug, what the policy changed since it was last
// called: each object's policy change it records in its history (OASIS),
// page policy changes it only counts (GRIT), and phase changes, explicit
// (at a kernel launch) or implicit (a reset followed by relearning).
func (d *Driver) logPolicy(now sim.VTimeInSec) {
	if !d.on(zerolog.DebugLevel) {
		return
	}
	rep := d.svc.policy.Report()
	w := &d.watch
	logged := len(rep.History) > w.history
	for _, c := range rep.History[min(w.history, len(rep.History)):] {
		d.log.Debug().Float64("t_ns", roundPs(c.TimeNs)).Int("object", c.Object).Str("policy", c.Policy).
			Str("cause", c.Cause).Msg("policy change")
	}
	w.history = len(rep.History)
	st := rep.Stats
	if ch := st["policy_changes"]; ch > w.changes {
		if !logged {
			d.log.Debug().Float64("t_ns", ns(now)).Float64("pages", ch-w.changes).
				Float64("to_duplication", st["changes_to_dup"]-w.toDup).Float64("to_access_counter", st["changes_to_ac"]-w.toAC).
				Msg("policy changes")
		}
		w.changes, w.toDup, w.toAC = ch, st["changes_to_dup"], st["changes_to_ac"]
	}
	if p := st["explicit_phases"]; p > w.explicitPhases {
		d.log.Debug().Float64("t_ns", ns(now)).Str("kind", "explicit").
			Float64("objects_reset", st["explicit_resets"]-w.explicitRst).Msg("phase change")
		w.explicitPhases = p
	}
	w.explicitRst = st["explicit_resets"]
	if p := st["implicit_phases"]; p > w.implicitPhases {
		d.log.Debug().Float64("t_ns", ns(now)).Str("kind", "implicit").Float64("phases", p-w.implicitPhases).
			Msg("phase change")
		w.implicitPhases = p
	}
}
