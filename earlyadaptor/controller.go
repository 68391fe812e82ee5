package earlyadaptor

import "fmt"

// Thresholds is the prefetcher a Controller steers: one GPU's per-VA-block
// tree prefetch thresholds (1..100). *prefetch.Tree satisfies it.
type Thresholds interface {
	// VABlock returns the VA block that holds page.
	VABlock(page uint64) uint64
	// VABlocks returns how many VA blocks the footprint spans.
	VABlocks() uint64
	// SetThreshold sets VA block vb's threshold.
	SetThreshold(vb uint64, t int) error
	// SetAllThresholds sets every VA block's threshold.
	SetAllThresholds(t int) error
}

// GPU is the memory a Controller manages.
type GPU struct {
	// CapacityPages is the pages the GPU may hold (the thrashing analysis's
	// "GPU memory size", Fig. 10); 0 means unlimited: never a thrashing
	// risk, and OnCapacity never detects.
	CapacityPages uint64
	// PagesPerVABlock is the VA block size in pages (2 MB / 4 KB = 512):
	// the thrashing analysis's "total size of risky VABlocks" is their
	// count times this.
	PagesPerVABlock uint64
}

// States, as Stats.State reports them.
const (
	StateAggressive = "aggressive" // adaptive, no oversubscription yet: every block at Aggressive
	StateAdaptive   = "adaptive"   // adaptive, oversubscribed: Fig. 12 per block
	StateStatic     = "static"     // static mode
)

// Stats are a Controller's counters.
type Stats struct {
	State          string  // StateAggressive, StateAdaptive or StateStatic
	Detections     uint64  // oversubscription detections (0 or 1: detection is sticky)
	DetectedAtNs   float64 // when, if Detections > 0
	Faults         uint64  // faults recorded (OnFaults pages)
	EvictedPages   uint64  // pages OnEvict reported
	Evaluations    uint64  // benefit analyses run
	RiskSignals    uint64  // analyses that found a thrashing risk
	RiskHeld       uint64  // analyses that found none but read risk from an earlier signal (Config.RiskHoldWindows)
	RiskyVABlocks  uint64  // consistently faulting VA blocks at the last analysis
	RiskyPeak      uint64  // the most consistently faulting VA blocks at any analysis: the risk test fires above CapacityBlocks
	CapacityBlocks uint64  // GPU capacity in whole VA blocks
	ShortBlocks    uint64  // VA blocks with a fault in the short window, summed over analyses
	LongBlocks     uint64  // VA blocks with a fault in the long window, summed over analyses
	BulkSets       uint64  // SetAllThresholds calls
	Changes        uint64  // SetThreshold calls (a block's threshold changed)
	Decreases      uint64  // Fig. 12 "decreased by 25%" outcomes
	Disables       uint64  // Fig. 12 "Threshold = 100%" outcomes
	Enables        uint64  // Fig. 12 "Threshold = 1%" outcomes
	Unchanged      uint64  // Fig. 12 "No change" outcomes
	ThresholdSum   uint64  // sum of the blocks' thresholds now (mean = /VABlocks)
	BlocksDisabled uint64  // blocks at Disabled now
}

// Controller is Early-Adaptor for one GPU ("Proposed Method", Fig. 10): it
// holds the GPU's per-VA-block thresholds and sets them on its Thresholds.
//
// Life cycle: New sets every block to Aggressive (1%: "when memory
// oversubscription is not detected, the prefetch threshold is set to 1%").
// Detection (Config.Detect) sets every block to Disabled (100%: "when
// oversubscription is detected, ... each VABlock to 100% for accurate
// measurement of page fault history") and, with ResetOnDetect, clears the
// history. From then on the analysis runs every EvalPeriodNs (lazily, on
// the first input at or after it is due): the thrashing-risk analysis,
// then Fig. 12 for each block with a fault in the long window. Detection
// is sticky (the paper is silent on leaving the oversubscribed state).
//
// Warm-up (Config.Warmup; silent): after a reset the first analysis runs
// max(EvalPeriodNs, warm-up) after detection: by default ConsistentSlices
// long slices, enough history for a block to fault in ConsistentSlices
// slices ("consistently"); earlier, an empty risk test would read as "no
// risk" and undo the 100% reset.
//
// A Controller is not safe for concurrent use. Inputs should come in
// non-decreasing simulated time; a late one is counted in the newest slice.
type Controller struct {
	cfg         Config
	t           Thresholds
	gpu         GPU
	rd          reading
	blocks      int
	thr         []uint8
	short, long window  // rows 0..blocks-1 are VA blocks, row blocks the GPU
	since       float64 // start of the history: 0, or the detection time after a reset
	oversub     bool
	nextEval    float64
	riskUntil   float64 // an earlier thrashing-risk signal holds before this (Config.RiskHoldWindows)
	st          Stats
}

type reading uint8

const (
	riskFirst reading = iota
	shortFirst
)

// New returns the controller for the GPU whose prefetcher is t, and sets
// every block of t to cfg.Aggressive (Adaptive) or cfg.StaticThreshold.
func New(cfg Config, t Thresholds, gpu GPU) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("earlyadaptor: no prefetcher (the tree prefetcher must be on)")
	}
	if gpu.PagesPerVABlock == 0 {
		return nil, fmt.Errorf("earlyadaptor: 0 pages per VA block")
	}
	n := t.VABlocks()
	if n == 0 || n > 1<<26 {
		return nil, fmt.Errorf("earlyadaptor: %d VA blocks: must be in 1..%d", n, 1<<26)
	}
	c := &Controller{cfg: cfg, t: t, gpu: gpu, blocks: int(n), thr: make([]uint8, n),
		short: newWindow(cfg.ShortWindowNs, cfg.Slices, int(n)+1),
		long:  newWindow(cfg.LongWindowNs, cfg.Slices, int(n)+1)}
	if cfg.Reading == ShortFirst {
		c.rd = shortFirst
	}
	c.st.State = StateAggressive
	all := cfg.Aggressive
	if cfg.Mode == Static {
		c.st.State, all = StateStatic, cfg.StaticThreshold
	}
	return c, c.setAll(all)
}

// Config returns the configuration New was given.
func (c *Controller) Config() Config { return c.cfg }

// Oversubscribed reports whether oversubscription has been detected.
func (c *Controller) Oversubscribed() bool { return c.oversub }

// Threshold returns the threshold the controller set for VA block vb.
func (c *Controller) Threshold(vb uint64) int { return int(c.thr[vb]) }

// Stats returns the counters.
func (c *Controller) Stats() Stats {
	s := c.st
	s.ThresholdSum, s.BlocksDisabled = 0, 0
	s.CapacityBlocks = c.gpu.CapacityPages / c.gpu.PagesPerVABlock
	for _, v := range c.thr {
		s.ThresholdSum += uint64(v)
		if int(v) == c.cfg.Disabled {
			s.BlocksDisabled++
		}
	}
	return s
}

// OnFaults records a serviced fault batch of this GPU at nowNs: pages are
// the faulted pages the batch brought to (or mapped on) this GPU, one entry
// per page (each entry counts as one fault), without the pages prefetched
// with them ("fault history ... after PF handling", Fig. 10). Then it runs
// the analysis if due. Pages beyond the footprint are not counted; the
// first is reported. It allocates nothing.
func (c *Controller) OnFaults(nowNs float64, pages []uint64) error {
	si, li := c.short.index(nowNs), c.long.index(nowNs)
	var bad error
	n := uint32(0)
	for _, p := range pages {
		vb := c.t.VABlock(p)
		if vb >= uint64(c.blocks) {
			if bad == nil {
				bad = fmt.Errorf("earlyadaptor: page %d is in VA block %d, beyond the footprint's %d", p, vb, c.blocks)
			}
			continue
		}
		c.short.add(int(vb), si, 1)
		c.long.add(int(vb), li, 1)
		n++
	}
	c.short.add(c.blocks, si, n)
	c.long.add(c.blocks, li, n)
	c.st.Faults += uint64(n)
	if err := c.Tick(nowNs); err != nil {
		return err
	}
	return bad
}

// OnEvict records that this GPU evicted pages pages at nowNs; with
// Detect = OnEviction the first eviction is the oversubscription signal.
func (c *Controller) OnEvict(nowNs float64, pages int) error {
	if pages <= 0 {
		return c.Tick(nowNs)
	}
	c.st.EvictedPages += uint64(pages)
	if c.cfg.Detect == OnEviction && !c.oversub {
		if err := c.detect(nowNs); err != nil {
			return err
		}
	}
	return c.Tick(nowNs)
}

// OnUsage reports this GPU's used pages at nowNs (resident plus arriving);
// with Detect = OnCapacity, reaching CapacityPages is the signal.
func (c *Controller) OnUsage(nowNs float64, usedPages uint64) error {
	if c.cfg.Detect == OnCapacity && !c.oversub && c.gpu.CapacityPages > 0 && usedPages >= c.gpu.CapacityPages {
		if err := c.detect(nowNs); err != nil {
			return err
		}
	}
	return c.Tick(nowNs)
}

// Tick runs the analysis if it is due at nowNs. The inputs call it, so a
// driver need not: thresholds matter only at the next fault batch.
func (c *Controller) Tick(nowNs float64) error {
	if !c.oversub || c.cfg.Mode != Adaptive || !(nowNs >= c.nextEval) { // NaN: not due
		return nil
	}
	p := c.cfg.EvalPeriodNs
	k := float64(int64((nowNs-c.nextEval)/p)) + 1 // skip the periods with no input
	c.nextEval += k * p
	return c.evaluate(nowNs)
}

// detect enters the oversubscribed state at now.
func (c *Controller) detect(now float64) error {
	c.oversub = true
	c.st.Detections++
	c.st.DetectedAtNs = now
	if c.cfg.Mode != Adaptive {
		return nil
	}
	c.st.State = StateAdaptive
	first := c.cfg.EvalPeriodNs
	if c.cfg.ResetOnDetect {
		c.short.reset(c.short.index(now))
		c.long.reset(c.long.index(now))
		c.since = now
		first = max(first, c.warmup())
	}
	c.nextEval = now + first
	return c.setAll(c.cfg.Disabled)
}

// warmup is how long after a reset the first analysis waits (Config.Warmup).
func (c *Controller) warmup() float64 {
	if c.cfg.Warmup == WarmupWindow {
		return c.cfg.LongWindowNs
	}
	return float64(c.cfg.ConsistentSlices) * c.long.width
}

func (c *Controller) setAll(t int) error {
	for i := range c.thr {
		c.thr[i] = uint8(t)
	}
	c.st.BulkSets++
	return c.t.SetAllThresholds(t)
}
