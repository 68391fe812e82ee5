package uvm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/tasks"
)

// Outstanding implements engine.Waiting: at the end of a run, the
// driver's first error, or what it still waits for (Service.Waiting) and
// a launch placement not done.
func (d *Driver) Outstanding() error {
	if d.err != nil {
		return d.err
	}
	what := d.svc.Waiting()
	if d.placed != nil {
		what = append(what, "a launch placement never done")
	}
	if len(what) == 0 {
		return nil
	}
	return errors.New(d.Name() + ": " + strings.Join(what, "; "))
}

// Waiting says what the service still waits for, one line each, none
// when nothing: the batch in service and what it waits on, the batches
// queued behind it, and what a registered fault-handling core waits for.
func (s *Service) Waiting() []string {
	var out []string
	if b := s.cur; b != nil {
		line := fmt.Sprintf("batch %d of GPU %d in service", b.id, b.gpu)
		switch b.phase {
		case phaseAcks:
			line += fmt.Sprintf(", waiting for %d shootdown acknowledgements (InvalidateAckMsg)", b.pendingAcks)
		case phaseCopies:
			line += fmt.Sprintf(", waiting for %d page transfers to be reported done (TransferDoneMsg, WritebackMsg)", b.pendingDone)
		default:
			line += ", waiting for a wake-up that never came"
		}
		out = append(out, line)
	}
	if n := len(s.queue); n > 0 {
		out = append(out, fmt.Sprintf("%d batches queued behind it", n))
	}
	if s.handler != nil {
		out = append(out, s.handler.Outstanding()...)
	}
	return out
}

// AcceptHook attaches h, but refuses, as the driver's error, the hook of
// Akita's tracing.CollectTrace, which would record nothing (tasks.Refused).
func (d *Driver) AcceptHook(h sim.Hook) {
	if err := tasks.Refused(h); err != nil {
		d.fail(err)
		return
	}
	d.ComponentBase.AcceptHook(h)
}
