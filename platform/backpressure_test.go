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

// TestDirectConnectionKeepsTimes runs the same system over mgpu's links,
// made free (no latency, no bandwidth limit), and over Akita's
// DirectConnection, which ignores a message's SendTime. Because every
// sender holds a message for later (a shootdown's acknowledgement when
// its drain ends, a zero-copy line when host DRAM answers) until it is
// due, the simulated times agree within the connection's tick and
// receive delay (1 ns each per message): within 5%. On st under
// access-counter, whose host lines put many messages on its critical path,
// they differ by 2-4% across scales 0.1-0.2 and the orders of simultaneous
// events, where handing messages over early puts it 76% off. Handing such messages over at
// once, as link.future_sends=reserve does, lets DirectConnection deliver
// them early, and st under access-counter, which reads host lines in
// place, then runs far from the links' time: the check can fail. At scale
// 0.1: at 0.05 a run is half a millisecond, and the order of simultaneous
// events alone (engine's Order) moved st's time over free links by 3.5%.
func TestDirectConnectionKeepsTimes(t *testing.T) {
	simTime := func(mode, workload, policy string, direct int) float64 {
		cfg := small(4)
		for _, kv := range []string{"link.nvlink_latency_ns=0", "link.pcie_latency_ns=0", "link.nvlink_gbps=1000000",
			"link.pcie_gbps=1000000", "link.header_bytes=0", "link.pcie_topology=pairs", "link.future_sends=" + mode} {
			if err := cfg.Set(kv); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Build(Options{Workload: workload, Policy: policy, Scale: 0.1, Seed: 1, Config: cfg, directBuffer: direct})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		return r.SimTimeNs
	}
	for _, c := range []struct{ workload, policy string }{{"st", "access-counter"}, {"pingpong", "on-touch"}, {"mt", "oasis"}} {
		links, direct := simTime("hold", c.workload, c.policy, 0), simTime("hold", c.workload, c.policy, 1<<16)
		if r := direct / links; r < 0.95 || r > 1.05 {
			t.Errorf("%s/%s: %.0f ns over DirectConnection, %.0f over free links (ratio %.3f)", c.workload, c.policy, direct, links, r)
		}
	}
	links, direct := simTime("reserve", "st", "access-counter", 0), simTime("reserve", "st", "access-counter", 1<<16)
	if r := direct / links; r > 0.9 && r < 1.1 {
		t.Errorf("with dated messages handed over at once the two agree (ratio %.3f): the check above cannot fail", r)
	}
}
