package platform

import (
	"testing"
)

// TestOASISLearnsMMObjects: on mm, A and B are shared read-only and
// OASIS must record duplication for them (OASIS §VI-A).
func TestOASISLearnsMMObjects(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"oasis", "oasis-inmem"} {
		r := mustRun(t, Options{Workload: "mm", Policy: p, Scale: 0.1, Config: small(4)})
		learned := map[int]string{}
		for _, h := range r.PolicyHistory {
			learned[h.Object] = h.Policy
		}
		for _, o := range r.Objects {
			if (o.Name == "A" || o.Name == "B") && learned[o.ID] != "duplication" {
				t.Errorf("%s: object %s learned %q, want duplication (history %+v)", p, o.Name, learned[o.ID], r.PolicyHistory)
			}
		}
		if r.PolicyStats["shared_faults"] == 0 || r.PolicyStats["private_faults"] == 0 {
			t.Errorf("%s: stats %v", p, r.PolicyStats)
		}
	}
}

// TestOASISBeatsOnTouchOnMM: duplication of the shared inputs removes the
// ping-pong of on-touch. A mechanism check, not a tuned number.
func TestOASISBeatsOnTouchOnMM(t *testing.T) {
	t.Parallel()
	ot := mustRun(t, Options{Workload: "mm", Policy: "on-touch", Scale: 0.1, Config: small(4)})
	oa := mustRun(t, Options{Workload: "mm", Policy: "oasis", Scale: 0.1, Config: small(4)})
	if oa.SimTimeNs >= ot.SimTimeNs || oa.Totals.MigrationsD2D >= ot.Totals.MigrationsD2D {
		t.Fatalf("oasis %.0f ns / %d d2d, on-touch %.0f ns / %d d2d", oa.SimTimeNs, oa.Totals.MigrationsD2D, ot.SimTimeNs, ot.Totals.MigrationsD2D)
	}
}

func TestGRITReportsPACache(t *testing.T) {
	r := mustRun(t, Options{Workload: "pingpong", Policy: "grit", Config: small(4)})
	if r.PolicyStats["pa_cache_hits"]+r.PolicyStats["pa_cache_misses"] == 0 || r.PolicyStats["decisions"] == 0 {
		t.Fatalf("GRIT stats %v", r.PolicyStats)
	}
}

// TestOASISOnSyntheticPatterns checks what OASIS must learn on each
// synthetic pattern (issue 4).
func TestOASISOnSyntheticPatterns(t *testing.T) {
	t.Parallel()
	run := func(w string) *Result { return mustRun(t, Options{Workload: w, Policy: "oasis", Config: small(4)}) }
	final := func(r *Result, obj int) string {
		p := ""
		for _, h := range r.PolicyHistory {
			if h.Object == obj {
				p = h.Policy
			}
		}
		return p
	}
	if r := run("private"); r.PolicyStats["otable_hits"]+r.PolicyStats["otable_misses"] != 0 || r.PolicyStats["shared_faults"] != 0 {
		t.Errorf("private consulted the O-Table: %v", r.PolicyStats)
	}
	if r := run("shared-read"); final(r, 0) != "duplication" {
		t.Errorf("shared-read input ends in %q, history %+v", final(r, 0), r.PolicyHistory)
	}
	if r := run("pingpong"); final(r, 0) != "access-counter" {
		t.Errorf("pingpong ends in %q, history %+v", final(r, 0), r.PolicyHistory)
	}
	r := run("phases")
	if r.PolicyStats["explicit_phases"] == 0 {
		t.Errorf("phases: no explicit phase change: %v", r.PolicyStats)
	}
	sawExplicit := false
	for i, h := range r.PolicyHistory {
		if i > 0 && h.Cause == "learned" && h.Policy != r.PolicyHistory[i-1].Policy {
			sawExplicit = true
		}
	}
	if !sawExplicit {
		t.Errorf("phases: no relearning at a kernel boundary: %+v", r.PolicyHistory)
	}
	r = run("swap")
	sawImplicit := false
	for _, h := range r.PolicyHistory {
		sawImplicit = sawImplicit || h.Cause == "relearned"
	}
	if !sawImplicit || r.PolicyStats["implicit_phases"] == 0 || r.Kernels != 1 {
		t.Errorf("swap: no relearning through the implicit reset (%d launches): %v %+v", r.Kernels, r.PolicyStats, r.PolicyHistory)
	}
}
