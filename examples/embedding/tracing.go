package embedding

import (
	"github.com/sarchlab/akita/v3/sim"
	"github.com/sarchlab/akita/v3/tracing"

	"github.com/mgpu-sim/mgpu/tasks"
)

// toAkita hands mgpu's tasks (package tasks: far faults, fault batches,
// shootdowns, migrations) to an Akita tracer, so that Akita's tracers and
// Daisen see them. mgpu itself does not import Akita's tracing package,
// which brings SQLite through cgo; a model that already has it (Akita's
// TLB imports it) bridges in these few lines.
type toAkita struct{ t tracing.Tracer }

// Func implements sim.Hook.
func (h toAkita) Func(ctx sim.HookCtx) {
	t, ok := ctx.Item.(tasks.Task)
	if !ok {
		return
	}
	switch ctx.Pos {
	case tasks.HookPosStart:
		h.t.StartTask(tracing.Task{ID: t.ID, ParentID: t.ParentID, Kind: t.Kind, What: t.What, Where: t.Where})
	case tasks.HookPosEnd:
		h.t.EndTask(tracing.Task{ID: t.ID})
	}
}

// trace attaches a tracer to the driver and the GMMUs.
func (s *system) trace(t tracing.Tracer) {
	h := toAkita{t}
	s.driver.AcceptHook(h)
	for _, m := range s.mmus {
		m.AcceptHook(h)
	}
}
