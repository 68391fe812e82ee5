package platform

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A run on several threads gives the serial run's result byte for byte:
// the GPUs advance apart a window at a time, and what they share (links,
// the runner, the eviction policy's recency) acts in the serial order.
func TestThreadsMatchSerial(t *testing.T) {
	for _, c := range []struct {
		workload, policy string
		gpus             int
		sets             []string
	}{
		{"mt", "on-touch", 4, nil},
		{"fft", "access-counter", 4, nil},
		{"bfs", "oasis", 4, nil},
		{"pr", "grit", 2, nil},
		{"mm", "duplication", 4, []string{"topology=switch"}},
		{"mm", "oasis", 4, []string{"oversubscribe=1.5", "uvm.eviction=lru-4kb"}},
		{"c2d", "oasis", 16, []string{"page_size=2MB"}},
		{"i2c", "on-touch", 4, []string{"oversubscribe=1.5", "uvm.fault_handling=hardware"}},
		{"lenet", "ideal", 4, []string{"link.pcie_topology=pairs", "tie_order=3"}},
	} {
		t.Run(fmt.Sprintf("%s/%s/%d/%v", c.workload, c.policy, c.gpus, c.sets), func(t *testing.T) {
			var want []byte
			for _, threads := range []int{1, 2, 3} {
				cfg := small(c.gpus)
				cfg.Check = false // the checker runs serially
				for _, kv := range c.sets {
					if err := cfg.Set(kv); err != nil {
						t.Fatal(err)
					}
				}
				s, err := Build(Options{Workload: c.workload, Policy: c.policy, Scale: 0.05, Seed: 1, Config: cfg, Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				r, err := s.Run()
				if err != nil {
					t.Fatal(err)
				}
				if n := s.engine.Unordered(); n != 0 {
					t.Fatalf("%d threads: %d events carried no place in the engine's order: every event of mgpu's components must", threads, n)
				}
				if got := s.engine.Windows(); (threads > 1) != (got > 0) {
					t.Fatalf("%d threads: %d windows (reasons to run serially: %v)", threads, got, s.serialReasons(threads))
				}
				r.Version = ""
				var b bytes.Buffer
				if err := r.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = b.Bytes()
					continue
				}
				if !bytes.Equal(b.Bytes(), want) {
					t.Fatalf("%d threads: the result differs from the serial run's", threads)
				}
			}
		})
	}
}

// What cannot run in parallel runs serially, with its reason.
func TestThreadsFallBackToSerial(t *testing.T) {
	for _, c := range []struct {
		workload string
		check    bool
		want     string
	}{
		{"st", false, "grid barriers"},
		{"mt", true, "coherence checker"},
	} {
		cfg := small(4)
		cfg.Check = c.check
		s, err := Build(Options{Workload: c.workload, Policy: "on-touch", Scale: 0.05, Seed: 1, Config: cfg, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if why := fmt.Sprint(s.serialReasons(2)); !strings.Contains(why, c.want) {
			t.Errorf("%s: reasons %s, want %q", c.workload, why, c.want)
		}
		if _, err := s.Run(); err != nil || s.engine.Windows() != 0 {
			t.Errorf("%s: %v, %d windows", c.workload, err, s.engine.Windows())
		}
	}
}
