package platform

import (
	"testing"
)

// TestOASISLearnsMMObjects: on mm, A and B are shared read-only and
// OASIS must record duplication for them (OASIS §VI-A).
func TestOASISLearnsMMObjects(t *testing.T) {
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
