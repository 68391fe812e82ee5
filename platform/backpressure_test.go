package platform

import "testing"

// TestDirectConnectionSmallBuffers runs the components over Akita's own
// DirectConnection with one- and two-message buffers, where sends are
// refused whenever a buffer is full: every refused message must be resent
// on NotifyPortFree, and the run must finish coherent.
func TestDirectConnectionSmallBuffers(t *testing.T) {
	for _, buf := range []int{1, 2} {
		refused := uint64(0)
		for _, c := range []struct{ workload, policy string }{
			{"pingpong", "on-touch"}, {"prodcons", "access-counter"}, {"shared-read", "duplication"}, {"mt", "oasis"},
		} {
			cfg := small(4)
			s, err := Build(Options{Workload: c.workload, Policy: c.policy, Scale: 0.05, Seed: 1, Config: cfg, directBuffer: buf})
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Run()
			if err != nil {
				t.Fatalf("%s/%s with %d-message buffers: %v", c.workload, c.policy, buf, err)
			}
			if r.Totals.PageFaults == 0 || r.Totals.MemInstructions == 0 {
				t.Fatalf("%s/%s: nothing ran (%d faults, %d instructions)", c.workload, c.policy, r.Totals.PageFaults, r.Totals.MemInstructions)
			}
			refused += s.driver.Refused()
			for i := range s.gpus {
				refused += s.gpus[i].Refused() + s.gmmus[i].Refused()
			}
		}
		if refused == 0 {
			t.Fatalf("%d-message buffers: no send was ever refused, so back-pressure was not exercised", buf)
		}
	}
}
