package gmmu

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/tasks"
)

// GPUID is the GPU the GMMU belongs to (WithGPUID), for the driver to
// check against the slot it is connected to.
func (m *Comp) GPUID() int { return m.id }

// ConcurrentFaults reports whether every fault goes to the driver at once
// (WithConcurrentFaults, Concurrent), for the driver to check against how
// it handles faults.
func (m *Comp) ConcurrentFaults() bool { return m.faults.concurrent }

// Outstanding implements engine.Waiting: at the end of a run, the GMMU's
// first error, the faults and access-counter notifications the driver has
// not answered, and the shootdowns the GPU has not acknowledged.
func (m *Comp) Outstanding() error {
	if m.err != nil {
		return m.err
	}
	what := m.faults.Unanswered()
	if n := len(m.shootdowns); n > 0 {
		var pages []uint64
		for _, inv := range m.shootdowns {
			for _, iv := range inv.Entries {
				pages = append(pages, iv.Page)
			}
		}
		what = append(what, fmt.Sprintf("%d shootdowns (%s) sent to the GPU's %s, whose drain never ended: no ShootdownRsp came back",
			n, PageList(pages), m.gpuPort.Name()))
	}
	if len(what) == 0 {
		return nil
	}
	return errors.New(m.Name() + ": " + strings.Join(what, "; "))
}

// AcceptHook attaches h, but refuses, as the GMMU's error, the hook of
// Akita's tracing.CollectTrace, which would record nothing (tasks.Refused).
func (m *Comp) AcceptHook(h sim.Hook) {
	if err := tasks.Refused(h); err != nil {
		m.fail(err)
		return
	}
	m.ComponentBase.AcceptHook(h)
}
