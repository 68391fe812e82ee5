package platform

import (
	"bytes"
	"fmt"
	"testing"
)

// TestControlPortsMatchCalls runs the platform with mgpu's GPUs speaking
// the GMMU's control protocol as messages (shootdowns answered when
// drained, dropped translations, page copies, page arrivals) and with the
// Go calls of gmmu.GPU, its fast path: the documented protocol must give
// the same results, byte for byte. The cases cover GPU-to-GPU migrations
// (on-touch), downgrades and collapses (duplication), counter migrations
// (access-counter), OASIS and GRIT, oversubscription's evictions, UVMMU's
// hardware handling (whose shootdowns write pages back), and 2 MB pages on
// 16 GPUs, and link.future_sends=reserve, which books a shootdown's
// acknowledgement on PCIe as the shootdown starts (the wire hands the GPU's
// dated answer over at once).
func TestControlPortsMatchCalls(t *testing.T) {
	for _, c := range []struct {
		workload, policy string
		gpus             int
		sets             []string
	}{
		{"pingpong", "on-touch", 4, nil},
		{"mt", "duplication", 4, nil},
		{"st", "access-counter", 4, nil},
		{"bfs", "oasis", 4, nil},
		{"pr", "grit", 2, nil},
		{"mm", "oasis", 4, []string{"oversubscribe=1.5"}},
		{"c2d", "oasis", 16, []string{"page_size=2MB"}},
		{"st", "on-touch", 4, []string{"oversubscribe=1.5", "uvm.fault_handling=hardware"}},
		{"bfs", "oasis", 4, []string{"link.future_sends=reserve"}},
	} {
		t.Run(fmt.Sprintf("%s/%s/%d/%v", c.workload, c.policy, c.gpus, c.sets), func(t *testing.T) {
			run := func(ports bool) []byte {
				cfg := small(c.gpus)
				cfg.Check = true
				for _, kv := range c.sets {
					if err := cfg.Set(kv); err != nil {
						t.Fatal(err)
					}
				}
				s, err := Build(Options{Workload: c.workload, Policy: c.policy, Scale: 0.05, Seed: 1, Config: cfg, controlPorts: ports})
				if err != nil {
					t.Fatal(err)
				}
				r, err := s.Run()
				if err != nil {
					t.Fatal(err)
				}
				if n := s.engine.Unordered(); n != 0 {
					t.Fatalf("%d events carried no place in the engine's order: every event of mgpu's components must", n)
				}
				if ports && s.onChip.Messages() == 0 {
					t.Fatal("no control message was sent: the test compares nothing")
				}
				r.Version = ""
				var b bytes.Buffer
				if err := r.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				return b.Bytes()
			}
			calls, ports := run(false), run(true)
			if !bytes.Equal(calls, ports) {
				t.Fatalf("the control protocol's messages give other results than gmmu.GPU's calls:\n%s", firstDifference(calls, ports))
			}
		})
	}
}

// firstDifference shows the first line where two results differ.
func firstDifference(a, b []byte) string {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(al) && i < len(bl); i++ {
		if !bytes.Equal(al[i], bl[i]) {
			return fmt.Sprintf("line %d: %s\n   against %s", i+1, bytes.TrimSpace(al[i]), bytes.TrimSpace(bl[i]))
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}
