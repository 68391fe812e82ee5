package platform

import (
	"fmt"
	"math"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/stats"
)

// A run on several threads (Options.Threads) advances each GPU, with its
// GMMU, in a partition of its own (engine.Partition), a window of one
// lookahead at a time: the least time in which anything a GPU does reaches
// another GPU or the host. Everything else a GPU does to what others share
// (a send over a link, a workgroup's end, the eviction policy's recency)
// is deferred to the host's thread and merged there in the documented
// order, so the run is the serial one, event for event. docs/design.md,
// "GPUs in parallel", gives the design.

// gpuStats are one GPU's counters and stall times, a cache line apart
// from the next GPU's: in a parallel run each GPU's thread writes its own on
// every instruction, and two threads writing one line take turns at it.
type gpuStats struct {
	counters stats.Counters
	stalls   stats.Stalls
	_        [64]byte
}

// gpuParts are the GPUs' partitions, GPU i's at i.
func (s *System) gpuParts() []*engine.Partition {
	parts := make([]*engine.Partition, len(s.gpus))
	for i := range parts {
		parts[i] = s.engine.Part(i + 1)
	}
	return parts
}

// deferredTouch tells the eviction policy of a GPU's page access at its
// place in the order: the policy is the host's.
type deferredTouch struct {
	part    *engine.Partition
	evictor eviction.Toucher
	gpu     int
	touch   func(uint64, sim.Msg)
}

func newDeferredTouch(part *engine.Partition, ev eviction.Toucher) *deferredTouch {
	d := &deferredTouch{part: part, evictor: ev, gpu: part.ID() - 1}
	d.touch = func(p uint64, _ sim.Msg) { d.evictor.Touch(d.gpu, p) }
	return d
}

// Touch implements gpu.Toucher.
func (d *deferredTouch) Touch(_ int, p uint64) { d.part.Defer(d.touch, p, nil) }

// lookahead is the least time in which a message from one partition
// reaches another's queue: over NVLink (its latency, plus the NVSwitch's
// when there is one), or from the host over PCIe to a GPU (the PCIe
// latency of a one-byte message, plus, in the tree, the root complex and
// the GPU's switch). A GPU's message to the host needs no bound: partition
// 0 runs after the GPUs' window, and hears it at its instant.
func lookahead(c config.Config) (sim.VTimeInSec, error) {
	pcie, err := interconnect.PCIeTiming(c.Link)
	if err != nil {
		return 0, err
	}
	t := pcie(1)
	la := t.Latency + t.Occupancy
	if c.Link.PCIeTopology == interconnect.PCIeTree {
		la += 2 * sim.VTimeInSec(c.Link.PCIeSwitchLatencyNs*1e-9)
	}
	if c.GPUs > 1 {
		nv := c.Link.NVLinkLatencyNs
		if c.Topology == "switch" {
			nv += c.Link.SwitchLatencyNs
		}
		la = min(la, sim.VTimeInSec(nv*1e-9))
	}
	return la, nil
}

// serialReasons says why a run of threads > 1 runs serially, empty when
// it can run in parallel.
func (s *System) serialReasons(threads int) []string {
	c := s.opts.Config
	var why []string
	add := func(ok bool, reason string) {
		if ok {
			why = append(why, reason)
		}
	}
	la, err := lookahead(c)
	add(err != nil || !(la > 0), "the links' least latency is 0")
	add(c.GPUs < 2, "one GPU")
	add(threads < 2, "one thread")
	add(c.Check, "the coherence checker (check) reads every GPU's accesses")
	add(s.opts.Observer != nil, "an access observer (the characteriser) sees every GPU's accesses")
	add(s.opts.directBuffer > 0, "Akita's DirectConnection")
	add(c.Distribution == benchmarks.SchemeGreedy, "the greedy distribution hands workgroups from one queue to whichever GPU asks first")
	barrier := false
	for _, k := range s.runner.kernels {
		barrier = barrier || k.Barrier
	}
	add(barrier, "grid barriers restart every GPU at the instant the last one arrives")
	add(err == nil && float64(la) > c.KernelLaunchNs*1e-9, fmt.Sprintf("kernel_launch_ns (%g) is shorter than the lookahead (%.0f ns)", c.KernelLaunchNs, float64(la)*1e9))
	return why
}

// runEngine runs the engine on s.opts.Threads threads, or serially when
// the run cannot be split (logged at debug).
func (s *System) runEngine() error {
	threads := s.opts.Threads
	if threads <= 1 {
		return s.engine.Run()
	}
	if why := s.serialReasons(threads); len(why) > 0 {
		s.log.Debug().Int("threads", threads).Str("why", strings.Join(why, "; ")).Msg("running serially")
		return s.engine.Run()
	}
	la, _ := lookahead(s.opts.Config)
	s.log.Debug().Int("threads", threads).Int64("lookahead_ns", int64(math.Round(float64(la)*1e9))).Msg("running in parallel")
	return s.engine.RunParallel(threads, la)
}
