package platform

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/tasks"
)

// taskLog is a hook that keeps every task start and end.
type taskLog struct {
	started map[string]tasks.Task
	ended   map[string]bool
	order   []string // kinds, in start order
}

func (l *taskLog) Func(ctx sim.HookCtx) {
	t := ctx.Item.(tasks.Task)
	switch ctx.Pos {
	case tasks.HookPosStart:
		l.started[t.ID] = t
		l.order = append(l.order, t.Kind)
	case tasks.HookPosEnd:
		l.ended[t.ID] = true
	}
}

// The GMMUs and the driver tell hooks of every far fault, batch, shootdown
// and migration as a task that starts and ends, under its batch (issue 32:
// Akita's tracers saw nothing of them), and a hook changes no result.
func TestComponentsReportTasks(t *testing.T) {
	o := Options{Workload: "pingpong", Policy: "on-touch", Seed: 1, Scale: 0.05, Config: fourGPUs(nil)}
	plain := goldenJSON(t, o)

	s, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	log := &taskLog{started: map[string]tasks.Task{}, ended: map[string]bool{}}
	s.driver.AcceptHook(log)
	for _, m := range s.gmmus {
		m.AcceptHook(log)
	}
	r, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	r.Version = ""
	var traced bytes.Buffer
	if err := r.WriteJSON(&traced); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, traced.Bytes()) {
		t.Error("attaching task hooks changed the result")
	}

	kinds := map[string]int{}
	for id, task := range log.started {
		kinds[task.Kind]++
		if !log.ended[id] {
			t.Errorf("task %s (%s) never ended", id, task.Kind)
		}
		if task.Where == "" || task.What == "" {
			t.Errorf("task %s: no place or description: %+v", id, task)
		}
		if task.Kind == "shootdown" || task.Kind == "migration" {
			p, ok := log.started[task.ParentID]
			if !ok || p.Kind != "fault_batch" && p.Kind != "counter_batch" {
				t.Errorf("%s task %s: parent %q is not a batch", task.Kind, id, task.ParentID)
			}
			if !strings.HasPrefix(id, task.ParentID+".") {
				t.Errorf("%s task %s not named under its batch %s", task.Kind, id, task.ParentID)
			}
		}
	}
	for id := range log.ended {
		if _, ok := log.started[id]; !ok {
			t.Errorf("task %s ended without starting", id)
		}
	}
	if kinds["far_fault"] != int(r.Totals.PageFaults) || kinds["fault_batch"] != int(r.Totals.FaultBatches) {
		t.Errorf("%d far_fault tasks for %d faults, %d fault_batch tasks for %d batches",
			kinds["far_fault"], r.Totals.PageFaults, kinds["fault_batch"], r.Totals.FaultBatches)
	}
	if kinds["shootdown"] == 0 || kinds["migration"] == 0 {
		t.Errorf("no shootdown or migration task: %v", kinds)
	}
}

// Under UVMMU's hardware fault handling there are no batches: each
// page-group migration is a task that ends when its last page lands, one
// per migration the GPU's unit starts (one GPU, so no recall starts one).
func TestHardwareMigrationTasks(t *testing.T) {
	c, err := config.LoadConfig("../configs/gtx1080ti.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Oversubscribe = 1.5
	if err := c.Set("uvm.fault_handling=hardware"); err != nil {
		t.Fatal(err)
	}
	s, err := Build(Options{Workload: "atax", Policy: "on-touch", Seed: 1, Scale: 0.05, Config: c})
	if err != nil {
		t.Fatal(err)
	}
	log := &taskLog{started: map[string]tasks.Task{}, ended: map[string]bool{}}
	s.driver.AcceptHook(log)
	r, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for id, task := range log.started {
		if task.Kind != "hw_migration" {
			t.Errorf("task %s of kind %s under hardware handling", id, task.Kind)
		}
		if !log.ended[id] {
			t.Errorf("task %s never ended", id)
		}
		n++
	}
	if want := r.PolicyStats["uvmmu_faults"]; n == 0 || float64(n) != want {
		t.Errorf("%d hw_migration tasks, %v migrations started by the unit", n, want)
	}
}
