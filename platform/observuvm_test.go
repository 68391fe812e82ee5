package platform

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/observuvm"
	observuvmrt "github.com/mgpu-sim/mgpu/runtimes/observuvm"
	"github.com/mgpu-sim/mgpu/uvm"
)

// observeConfig is ObservUVM on gpus small GPUs at over, with eviction
// policy pol and intra-region prefetch shallow.
func observeConfig(gpus int, over float64, pol, shallow string) config.Config {
	c := small(gpus)
	c.Oversubscribe = over
	c.UVM.Prefetch.Policy = "tbn"
	c.UVM.Adaptive = observuvmrt.Name
	observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.Policy, s.Shallow = pol, shallow })
	return c
}

// TestObservUVMCoherent runs ObservUVM's engine in the driver, with the
// checker on: every eviction policy with the tree prefetcher (hotspot) and
// without it (ra) on one GPU, and Tournament on two GPUs (hotspot, mm).
// Samples leave for the host and come back, regions are evicted whole, and
// every read still sees the latest write; another GPU's fault maps a
// sample rather than migrating it. Observing policies must set up
// observations. make test runs each policy once, with and without the
// tree in turn, and Tournament on two GPUs on mm; make test-full runs the
// rest.
func TestObservUVMCoherent(t *testing.T) {
	type run struct {
		w, pol, shallow string
		gpus            int
		quick           bool
	}
	var runs []run
	for i, pol := range observuvm.PolicyNames() {
		runs = append(runs, run{"hotspot", pol, observuvm.ShallowTBP, 1, i%2 == 0}, run{"ra", pol, observuvm.ShallowOff, 1, i%2 == 1})
	}
	runs = append(runs, run{"hotspot", observuvm.Tournament, observuvm.ShallowTBP, 2, false}, run{"mm", observuvm.Tournament, observuvm.ShallowTBP, 2, true})
	for _, c := range runs {
		t.Run(fmt.Sprintf("%s/%s/%s/%dgpu", c.w, c.pol, c.shallow, c.gpus), func(t *testing.T) {
			if !c.quick {
				fullOnly(t)
			}
			t.Parallel()
			cfg := observeConfig(c.gpus, 1.5, c.pol, c.shallow)
			spreadAll(&cfg)
			r := mustRun(t, Options{Workload: c.w, Policy: "on-touch", Scale: 0.05, Seed: 1, Config: cfg})
			st := r.PolicyStats
			if r.Totals.Evictions == 0 {
				t.Fatalf("no eviction at %v of %v", r.GPUCapacity, r.Footprint)
			}
			observing := c.pol != observuvm.LRM && c.pol != observuvm.OracleLRU
			if observing && (st["observuvm_samples_out"] == 0 || st["observuvm_observations"] == 0) {
				t.Errorf("no observation: %v", st)
			}
			if !observing && st["observuvm_samples_out"] != 0 {
				t.Errorf("%s observes: %v", c.pol, st)
			}
			if st["observuvm_samples_in"] > st["observuvm_samples_out"] || st["observuvm_hits"] > st["observuvm_observations"] {
				t.Errorf("more back than out: %v", st)
			}
			// mm's GPUs share B: they meet each other's samples, which
			// stay on the host, mapped, rather than migrate.
			if c.w == "mm" && st["observuvm_peer_sample_maps"] == 0 {
				t.Errorf("no GPU met another's sample: %v", st)
			}
		})
	}
}

// TestObservUVMPrefetchers runs TM+ (FDP) and TM++ (FDP and RGP) with the
// checker on: FDP's threshold changes reach the tree prefetcher and RGP's
// regions come in with their trigger block left on the host.
func TestObservUVMPrefetchers(t *testing.T) {
	for _, preset := range []string{observuvm.PresetTMPlus, observuvm.PresetTMPP} {
		for _, w := range []string{"2dconv", "mm"} {
			for _, gpus := range []int{1, 2} {
				if w == "mm" && gpus == 1 || w == "2dconv" && gpus == 2 {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%dgpu", preset, w, gpus), func(t *testing.T) {
					t.Parallel()
					c := observeConfig(gpus, 1.5, observuvm.Tournament, observuvm.ShallowTBP)
					pc, err := observuvm.Preset(preset)
					if err != nil {
						t.Fatal(err)
					}
					observuvmrt.Config.Set(&c.UVM, pc)
					r := mustRun(t, Options{Workload: w, Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c})
					st := r.PolicyStats
					if st["observuvm_observations"] == 0 || r.Totals.Evictions == 0 {
						t.Errorf("no observation or eviction: %v", st)
					}
					if preset == observuvm.PresetTMPP && st["observuvm_region_prefetches"] > 0 && st["observuvm_region_pages"] == 0 {
						t.Errorf("region prefetches brought nothing: %v", st)
					}
				})
			}
		}
	}
}

func TestObservUVMRejectsBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name, policy string
		set          func(c *config.Config)
		msg          string
	}{
		{"unknown prefetch", "on-touch", func(c *config.Config) {
			observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.Shallow = "tree" })
		}, "shallow"},
		{"unknown region prefetch", "on-touch", func(c *config.Config) {
			observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.Deep = "stream" })
		}, "deep"},
		{"another page policy", "oasis", func(*config.Config) {}, "--policy on-touch"},
		{"budget 0", "on-touch", func(c *config.Config) {
			observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.ObservedRegions = 0 })
		}, "observed_regions"},
		{"samples 0", "on-touch", func(c *config.Config) { observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.Samples = 0 }) }, "samples"},
		{"unknown eviction", "on-touch", func(c *config.Config) {
			observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.Policy = "arc" })
		}, "policy"},
		{"tree threshold without the tree", "on-touch", func(c *config.Config) { c.UVM.Prefetch.Policy = "off" }, "uvm.prefetch.policy=tbn"},
	} {
		c := observeConfig(1, 1.5, observuvm.Tournament, observuvm.ShallowTBP)
		tc.set(&c)
		_, err := Build(Options{Workload: "hotspot", Policy: tc.policy, Scale: 0.05, Seed: 1, Config: c})
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
		}
	}
}

// A counter threshold above 1 still observes: the GPU's notification
// stands for threshold accesses, and the engine's counter model is offered
// that many (it once counted notifications as accesses and saw none).
func TestObservUVMCounterThreshold(t *testing.T) {
	t.Parallel()
	c := observeConfig(1, 1.5, observuvm.LRU, observuvm.ShallowTBP)
	observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.CounterThreshold = 4 })
	r := mustRun(t, Options{Workload: "hotspot", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c})
	if r.PolicyStats["observuvm_hits"] == 0 || r.PolicyStats["observuvm_notifications"] == 0 {
		t.Errorf("threshold 4: no observation hit: %v", r.PolicyStats)
	}
}

// TestObservUVMMessageCost: every message between the driver and the
// engine costs message_ns of driver time in its batch. The messages are
// counted at every cost, and the run at a cost is slower than without
// one, by more than nothing and at most the messages times the cost (the
// batches' delays are serial at most).
func TestObservUVMMessageCost(t *testing.T) {
	runAt := func(ns float64) *Result {
		c := observeConfig(1, 1.5, observuvm.Tournament, observuvm.ShallowTBP)
		observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.MessageNs = ns })
		return mustRun(t, Options{Workload: "hotspot", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c})
	}
	free, paid := runAt(0), runAt(2000)
	msgs := paid.PolicyStats["observuvm_messages"]
	if free.PolicyStats["observuvm_messages"] == 0 || msgs == 0 {
		t.Fatalf("no messages counted: %v, %v", free.PolicyStats["observuvm_messages"], msgs)
	}
	extra := paid.SimTimeNs - free.SimTimeNs
	if extra <= 0 || extra > msgs*2000 {
		t.Errorf("%v messages at 2000 ns made the run %.0f ns longer (%.0f vs %.0f): want (0, %.0f]", msgs, extra, paid.SimTimeNs, free.SimTimeNs, msgs*2000)
	}
}

// TestEvictionCensus: the census (ObservUVM Fig. 5) only measures. A run
// with it is the run without it, byte for byte but for the histogram,
// which counts at least one victim chunk per chunk's worth of evictions,
// and every entry of it is a count of blocks from 0 to a chunk's 32.
func TestEvictionCensus(t *testing.T) {
	for _, adaptive := range []string{uvm.AdaptiveNone, observuvmrt.Name} {
		c := observeConfig(1, 1.5, observuvm.Tournament, observuvm.ShallowTBP)
		c.UVM.Adaptive = adaptive
		off := mustRun(t, Options{Workload: "hotspot", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c})
		c.UVM.EvictionCensus = true
		on := mustRun(t, Options{Workload: "hotspot", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c})
		if len(on.EvictedChunkBlocks) != 33 || off.EvictedChunkBlocks != nil {
			t.Fatalf("%s: histogram %v with the census, %v without", adaptive, on.EvictedChunkBlocks, off.EvictedChunkBlocks)
		}
		chunks := uint64(0)
		for _, n := range on.EvictedChunkBlocks {
			chunks += n
		}
		perChunk := uint64(2<<20) / uint64(c.PageSize)
		if chunks == 0 || chunks < on.Totals.Evictions/perChunk {
			t.Errorf("%s: %d victim chunks counted for %d evicted pages", adaptive, chunks, on.Totals.Evictions)
		}
		on.EvictedChunkBlocks, on.Config.UVM.EvictionCensus = nil, false
		var a, b bytes.Buffer
		if err := off.WriteJSON(&a); err != nil {
			t.Fatal(err)
		}
		if err := on.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: the census changed the run", adaptive)
		}
	}
}

// TestObservUVMTournamentReports: the report says whether Tournament chose.
// Below its blame threshold no constituent retires; at threshold 1 some do,
// but never the last one of a GPU (Algorithm 1's shares are of the whole
// blame sum, so the last active share cannot exceed 1.2 times itself).
func TestObservUVMTournamentReports(t *testing.T) {
	t.Parallel()
	runAt := func(thr int) map[string]float64 {
		c := observeConfig(1, 1.5, observuvm.Tournament, observuvm.ShallowTBP)
		observuvmrt.Config.Edit(&c.UVM, func(s *observuvm.Config) { s.TournamentThreshold = thr })
		return mustRun(t, Options{Workload: "hotspot", Policy: "on-touch", Scale: 0.05, Seed: 1, Config: c}).PolicyStats
	}
	never, soon := runAt(1<<30), runAt(1)
	if r, ok := never["observuvm_tournament_retired"]; !ok || r != 0 || never["observuvm_tournament_blames"] == 0 {
		t.Errorf("threshold 2^30: blames %v, retired %v; want some blames and none retired",
			never["observuvm_tournament_blames"], never["observuvm_tournament_retired"])
	}
	if r := soon["observuvm_tournament_retired"]; r < 1 || r > 2 {
		t.Errorf("threshold 1: %v of 3 constituents retired, want 1 or 2", r)
	}
	// Each constituent's blames add up to the sum, and the active ones
	// are the constituents not retired (one GPU).
	for _, st := range []map[string]float64{never, soon} {
		var blames, active float64
		for _, p := range []string{observuvm.LRU, observuvm.LFU, observuvm.CP} {
			blames += st["observuvm_tournament_blames_"+p]
			active += st["observuvm_tournament_active_"+p]
		}
		if blames != st["observuvm_tournament_blames"] || active+st["observuvm_tournament_retired"] != 3 {
			t.Errorf("per-constituent blames %v (sum %v), active %v with %v retired, want 3 in all",
				blames, st["observuvm_tournament_blames"], active, st["observuvm_tournament_retired"])
		}
	}
	lru := mustRun(t, Options{Workload: "hotspot", Policy: "on-touch", Scale: 0.05, Seed: 1,
		Config: observeConfig(1, 1.5, observuvm.LRU, observuvm.ShallowTBP)}).PolicyStats
	if _, ok := lru["observuvm_tournament_blames"]; ok {
		t.Errorf("LRU alone reports Tournament's blames: %v", lru)
	}
}
