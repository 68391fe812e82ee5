// Package tasks names the work of mgpu's components (a far fault, a fault
// batch, its shootdown and page migration) as tasks with a start and an
// end, told to the hooks attached to the component, the way Akita's
// tracing package tells its tracers. mgpu does not import Akita's tracing
// package, which brings in database drivers (SQLite through cgo, MySQL);
// a model that wants Akita's tracers or Daisen to show these tasks
// attaches a hook that hands each Task to its tracing.Tracer (docs/design.md
// shows the few lines). Tasks cost nothing while no hook is attached.
package tasks

import (
	"fmt"
	"reflect"

	"github.com/sarchlab/akita/v3/sim"
)

// The hook positions of a task's start and end; the hook's item is a Task.
var (
	HookPosStart = &sim.HookPos{Name: "mgpu.TaskStart"}
	HookPosEnd   = &sim.HookPos{Name: "mgpu.TaskEnd"}
)

// Task is one piece of a component's work, as Akita's tracing.Task: ID
// is unique in the run, ParentID names the task it is part of ("" for
// none), Kind its sort (far_fault, fault_batch, shootdown, migration,
// ...), What a short description and Where the component. An end carries
// the ID only.
type Task struct {
	ID, ParentID, Kind, What, Where string
}

// Domain is a component that hooks can attach to.
type Domain interface {
	sim.Named
	sim.Hookable
	InvokeHook(sim.HookCtx)
}

// On reports whether any hook listens to d, so that a component builds no
// task names for nobody.
func On(d Domain) bool { return d.NumHooks() > 0 }

// Start tells d's hooks that t started.
func Start(d Domain, t Task) {
	if t.Where == "" {
		t.Where = d.Name()
	}
	d.InvokeHook(sim.HookCtx{Domain: d, Pos: HookPosStart, Item: t})
}

// End tells d's hooks that the task id ended.
func End(d Domain, id string) {
	d.InvokeHook(sim.HookCtx{Domain: d, Pos: HookPosEnd, Item: Task{ID: id}})
}

// akitaTracing is the package of Akita's tracers, whose CollectTrace
// attaches a hook that hears Akita's own task positions only.
const akitaTracing = "github.com/sarchlab/akita/v3/tracing"

// Refused is an error when h is the hook Akita's tracing.CollectTrace
// attaches: it waits for Akita's task positions, which mgpu's components
// never raise, so it would record nothing. A component refuses it.
func Refused(h sim.Hook) error {
	t := reflect.TypeOf(h)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.PkgPath() != akitaTracing {
		return nil
	}
	return fmt.Errorf("a hook of Akita's tracing.CollectTrace was attached; it hears only Akita's task positions, which mgpu's components do not raise (they raise tasks.Task at tasks.HookPosStart and HookPosEnd), so it would record no task: attach a hook that hands each tasks.Task to the tracer instead (examples/embedding/tracing.go shows one)")
}
