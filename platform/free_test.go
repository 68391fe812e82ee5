package platform

import (
	"strings"
	"testing"
)

// buildProdcons builds prodcons on two GPUs under policy. No registered
// workload frees, so the tests add frees to the kernels of a built copy.
func buildProdcons(t *testing.T, policy string) *System {
	t.Helper()
	s, err := Build(Options{Workload: "prodcons", Policy: policy, Config: small(2)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFreeReachesOASIS: a launch's Frees mark the object freed in the
// allocator and reach OASIS through the driver. The freed object's O-Table
// entry is gone, so the next shared fault that names it misses, where
// without the free it hits.
func TestFreeReachesOASIS(t *testing.T) {
	run := func(free bool) (*System, *Result) {
		s := buildProdcons(t, "oasis")
		// The last kernel is a consume: GPU 1 reads buf0, which GPU 0
		// produced, so its faults on buf0 are shared.
		last := &s.runner.kernels[len(s.runner.kernels)-1]
		if last.Name != "consume" || last.Barrier {
			t.Fatalf("prodcons changed: last kernel %q", last.Name)
		}
		if free {
			last.Frees = []int{0}
		}
		r, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		return s, r
	}
	_, kept := run(false)
	s, freed := run(true)
	if !s.alloc.Object(0).Freed || s.alloc.Object(1).Freed {
		t.Fatalf("allocator: buf0 freed %v, buf1 freed %v", s.alloc.Object(0).Freed, s.alloc.Object(1).Freed)
	}
	if got, want := freed.PolicyStats["otable_misses"], kept.PolicyStats["otable_misses"]+1; got != want {
		t.Fatalf("O-Table misses %v, want %v: the freed entry must be gone (stats %v)", got, want, freed.PolicyStats)
	}
	if freed.Kernels != kept.Kernels {
		t.Fatalf("a free changed the launch count: %d, %d", freed.Kernels, kept.Kernels)
	}
}

// TestFreeErrors: a bad free fails the run. Akita's serial engine drops
// the runner's error, so until the run reports handler errors the failure
// shows as a stall.
func TestFreeErrors(t *testing.T) {
	for _, c := range []struct {
		name, want string
		edit       func(s *System)
	}{
		{"no such object", "no such object", func(s *System) { s.runner.kernels[1].Frees = []int{7} }},
		{"double free", "already freed", func(s *System) {
			s.runner.kernels[1].Frees = []int{0}
			s.runner.kernels[2].Frees = []int{0}
		}},
		{"a barrier frees", "barrier", func(s *System) {
			s.runner.kernels[1].Barrier = true
			s.runner.kernels[1].Frees = []int{0}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := buildProdcons(t, "on-touch")
			c.edit(s)
			_, err := s.Run()
			if err == nil {
				t.Fatal("the run must fail")
			}
			// The engine stops at the runner's error and reports it, not
			// a later "simulation stalled".
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "stalled") {
				t.Fatalf("error %v, want the runner's own error about %q", err, c.want)
			}
		})
	}
}
