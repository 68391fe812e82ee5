package uvm

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/tasks"
)

// The driver's work as tasks (package tasks), which a hook on the Driver
// hears and may hand to Akita's tracers and Daisen: each batch (kind
// fault_batch, counter_batch or placement), and within it the shootdown
// (from the invalidations sent to the last acknowledgement) and the page
// migration (from the first copy to the last arrival). Under UVMMU's
// hardware handling there are no batches: each page-group migration is a
// task (kind hw_migration) from the fault that starts it to its last
// page's arrival, recalls and a swapped-out victim included. The Service, a pure core, only says when a task starts
// and ends; the Driver names the tasks under its own component and tells
// its hooks.

// taskTracer is told of the Service's tasks. on reports whether anyone
// listens, so that untraced runs build no task names.
type taskTracer interface {
	on() bool
	start(id, parent, kind, what string)
	end(id string)
}

// untraced is the tracer of a Service that no component hosts.
type untraced struct{}

func (untraced) on() bool                { return false }
func (untraced) start(_, _, _, _ string) {}
func (untraced) end(string)              {}

// driverTasks tells the Driver's hooks of the Service's tasks, named
// under the Driver.
type driverTasks struct{ d *Driver }

func (t driverTasks) on() bool { return tasks.On(t.d) }

func (t driverTasks) start(id, parent, kind, what string) {
	if parent != "" {
		parent = t.d.Name() + "." + parent
	}
	tasks.Start(t.d, tasks.Task{ID: t.d.Name() + "." + id, ParentID: parent, Kind: kind, What: what})
}

func (t driverTasks) end(id string) { tasks.End(t.d, t.d.Name()+"."+id) }

func batchTask(id uint64) string     { return fmt.Sprintf("batch%d", id) }
func shootdownTask(id uint64) string { return fmt.Sprintf("batch%d.shootdown", id) }
func migrationTask(id uint64) string { return fmt.Sprintf("batch%d.migration", id) }

// traceBatchStart starts b's task.
func (s *Service) traceBatchStart(b *batch) {
	if !s.tracer.on() {
		return
	}
	kind := "fault_batch"
	switch {
	case b.kind == placementBatch:
		kind = "placement"
	case b.kind == counterBatch:
		kind = "counter_batch"
	}
	b.traced = true
	s.tracer.start(batchTask(b.id), "", kind, fmt.Sprintf("GPU %d: %d faults, %d counted pages", b.gpu, len(b.faults), len(b.pages)))
}

// traceShootdown starts b's shootdown task, if it sends invalidations.
func (s *Service) traceShootdown(b *batch) {
	if b.traced && b.pendingAcks > 0 {
		b.shootdown = true
		s.tracer.start(shootdownTask(b.id), batchTask(b.id), "shootdown", fmt.Sprintf("%d GPUs", b.pendingAcks))
	}
}

// traceShootdownEnd ends b's shootdown task: the last acknowledgement came.
func (s *Service) traceShootdownEnd(b *batch) {
	if b.shootdown {
		s.tracer.end(shootdownTask(b.id))
	}
}

// traceMigration starts b's migration task, if it copies pages.
func (s *Service) traceMigration(b *batch) {
	if b.traced && b.pendingDone > 0 {
		b.migration = true
		s.tracer.start(migrationTask(b.id), batchTask(b.id), "migration", fmt.Sprintf("%d pages", len(b.copies)))
	}
}

// traceBatchEnd ends b's migration and b.
func (s *Service) traceBatchEnd(b *batch) {
	if b.migration {
		s.tracer.end(migrationTask(b.id))
	}
	if b.traced {
		s.tracer.end(batchTask(b.id))
	}
}
