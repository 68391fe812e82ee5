package embedding_test

import (
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/tracing"

	"github.com/mgpu-sim/mgpu/examples/embedding"
)

// The example's invariants, not its numbers: every access is answered, a
// store to a replica raises a protection fault and collapses it, reads in
// flight at an Akita TLB flush are re-issued, and no answer the GPU took
// after the last change of a page disagrees with the driver's final table.
func TestInvariants(t *testing.T) {
	w := embedding.Workload()
	r, err := embedding.Run(w)
	if err != nil {
		t.Fatal(err)
	}
	var prot, dups, collapses uint64
	reissued, atShootdown := 0, 0
	for g, c := range r.GPUs {
		if c.Answered != len(w[g]) {
			t.Errorf("GPU %d: %d of %d accesses answered", g, c.Answered, len(w[g]))
		}
		prot, dups, collapses = prot+c.ProtectionFaults, dups+c.Duplications, collapses+c.Collapses
		reissued, atShootdown = reissued+c.Reissued, atShootdown+c.AtShootdown
	}
	if prot == 0 || dups == 0 || collapses == 0 {
		t.Errorf("%d protection faults, %d duplications, %d collapses; want some of each", prot, dups, collapses)
	}
	if reissued == 0 || atShootdown == 0 {
		t.Errorf("%d reads re-issued, %d in flight at a shootdown; want both > 0", reissued, atShootdown)
	}
	if !slices.Contains(r.Policies, embedding.ObjectPolicy{Object: 1, Policy: "duplication"}) {
		t.Errorf("OASIS policies %v; want duplication for object A (1)", r.Policies)
	}
	settled := 0
	for g, answers := range r.Answers {
		for _, a := range answers {
			if a.Settled {
				settled++
				checkAnswer(t, r, g, a)
			}
		}
	}
	if settled == 0 {
		t.Error("no answer came after the last change of its page: nothing checked against the final table")
	}
}

// checkAnswer compares a settled answer of GPU g with the final table: a
// page g holds answers with g's device, one g maps remotely with the
// owner's, and PAddr is the page's frame in that GPU's memory.
func checkAnswer(t *testing.T, r embedding.Report, g int, a embedding.Answer) {
	t.Helper()
	i := slices.IndexFunc(r.Pages, func(p embedding.PageReport) bool { return p.Page == a.Page })
	if i < 0 {
		t.Fatalf("GPU %d: answer for page %d, not an object's", g, a.Page)
	}
	p := r.Pages[i]
	var want uint64
	holder := g
	switch {
	case slices.Contains(p.Copies, g):
		want = uint64(g + 1)
	case slices.Contains(p.Remote, g):
		want, holder = uint64(p.Owner+1), p.Owner
	default:
		t.Errorf("GPU %d at %.0f ns: page %d answered on device %d, but GPU %d maps it no more", g, a.AtNs, a.Page, a.DeviceID, g)
		return
	}
	pa := p.PAddrs[slices.Index(p.Copies, holder)]
	if a.DeviceID != want || a.PAddr != pa {
		t.Errorf("GPU %d at %.0f ns: page %d answered on device %d at PA %#x; the final table says device %d, PA %#x",
			g, a.AtNs, a.Page, a.DeviceID, a.PAddr, want, pa)
	}
}

// Two runs print the same report.
func TestDeterministic(t *testing.T) {
	var out [2]string
	for i := range out {
		r, err := embedding.Run(embedding.Workload())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r.String()
	}
	if out[0] != out[1] {
		t.Errorf("two runs differ:\n%s\n%s", out[0], out[1])
	}
}

// mgpu's tasks reach Akita's own tracers through the example's bridge: a
// far fault task per far fault, and the shootdowns and migrations the
// collapses and duplications bring, each with a duration.
func TestTasksReachAkitaTracers(t *testing.T) {
	kinds := []string{"far_fault", "protection_fault", "fault_batch", "shootdown", "migration"}
	m, err := embedding.New(embedding.Workload())
	if err != nil {
		t.Fatal(err)
	}
	tracers := map[string]*tracing.AverageTimeTracer{}
	for _, k := range kinds {
		tr := tracing.NewAverageTimeTracer(m.Engine(), func(t tracing.Task) bool { return t.Kind == k })
		tracers[k] = tr
		m.Trace(tr)
	}
	r, err := m.Run()
	if err != nil {
		t.Fatal(err)
	}
	var far, prot uint64
	for _, g := range r.GPUs {
		far, prot = far+g.FarFaults, prot+g.ProtectionFaults
	}
	if n := tracers["far_fault"].TotalCount(); n != far {
		t.Errorf("%d far-fault tasks, %d far faults", n, far)
	}
	if n := tracers["protection_fault"].TotalCount(); n != prot {
		t.Errorf("%d protection-fault tasks, %d protection faults", n, prot)
	}
	for _, k := range []string{"fault_batch", "shootdown", "migration"} {
		if tracers[k].TotalCount() == 0 || tracers[k].AverageTime() <= 0 {
			t.Errorf("%s: %d tasks, average %v s; want some, each taking time", k, tracers[k].TotalCount(), tracers[k].AverageTime())
		}
	}
}
