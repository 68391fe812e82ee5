package earlyadaptor

// outcome is Fig. 12's verdict for one VA block.
type outcome uint8

const (
	noChange outcome = iota // "No change"
	decrease                // "Threshold is decreased by 25%"
	disable                 // "Threshold = 100%"
	enable                  // "Threshold = 1%"
)

// signals are one block's inputs to Fig. 12.
type signals struct {
	burst  bool // [Short Term] VFR > ShortFactor x G.Avg
	steady bool // [Long Term] VFR > LongFactor x G.Avg
	risk   bool // "Is there a risk of thrashing?" (the GPU's, not the block's)
}

// decide is Fig. 12 under reading rd (see Config.Reading).
//
// riskFirst: risk? no -> 1%; yes -> burst? -25% : steady? 100% : no change.
// shortFirst: burst? -25% : steady? (risk? 100% : 1%) : no change.
func decide(rd reading, s signals) outcome {
	if rd == riskFirst {
		switch {
		case !s.risk:
			return enable
		case s.burst:
			return decrease
		case s.steady:
			return disable
		}
		return noChange
	}
	switch {
	case s.burst:
		return decrease
	case s.steady && s.risk:
		return disable
	case s.steady:
		return enable
	}
	return noChange
}

// next is the threshold outcome o gives a block at cur, within 1..100.
func (c *Controller) next(o outcome, cur int) int {
	switch o {
	case decrease:
		return stepDown(c.cfg.StepMode, c.cfg.Step, cur)
	case disable:
		return c.cfg.Disabled
	case enable:
		return c.cfg.Aggressive
	}
	return cur
}

// stepDown lowers threshold cur by step points, or by step percent of cur,
// never below MinThreshold (Fig. 12 "decreased by 25%"; lower = more
// aggressive prefetching).
func stepDown(mode string, step, cur int) int {
	n := cur - step
	if mode == StepRelative {
		n = cur * (100 - step) / 100
	}
	return min(max(n, MinThreshold), MaxThreshold)
}

// refs are the fault counts a block's windows must exceed to pass Fig.
// 12's two tests.
type refs struct{ short, long float64 }

// census is the GPU-wide state of the windows at one analysis.
type census struct {
	activeShort, activeLong uint64 // VA blocks with a fault in the window
	risky                   uint64 // VA blocks faulting in >= ConsistentSlices long slices
	sumShort, sumLong       uint64 // faults in the window, all blocks
}

// take advances every row to now and counts the census ("Proposed
// Method": "tracks the number of VABlocks that have generated consistent
// page faults recently").
func (c *Controller) take(si, li int64) census {
	var k census
	need := uint32(c.cfg.ConsistentSlices)
	for b := 0; b < c.blocks; b++ {
		if s, _ := c.short.at(b, si); s > 0 {
			k.activeShort++
		}
		s, nz := c.long.at(b, li)
		if s > 0 {
			k.activeLong++
		}
		if nz >= need {
			k.risky++
		}
	}
	s, _ := c.short.at(c.blocks, si)
	l, _ := c.long.at(c.blocks, li)
	k.sumShort, k.sumLong = uint64(s), uint64(l)
	return k
}

// thrashing is the thrashing-risk analysis (paper: "compares the count of
// VABlocks with the size of GPU memory. If the total size of risky VABlocks
// is larger than the GPU memory, the framework sends a throttling signal",
// "Proposed Method"): risky blocks x VA block size > capacity, strictly.
func (c *Controller) thrashing(k census) bool {
	return c.gpu.CapacityPages > 0 && k.risky*c.gpu.PagesPerVABlock > c.gpu.CapacityPages
}

// references turns the census into the tests' thresholds in faults per
// block-window. VFR is a block's faults in a window over its length; G.Avg
// is the window's faults per VA block (Config.Average) over the same
// length, so within one window the lengths cancel. With ShortReference =
// RefLong the short test compares rates: VFR_short > f x G.Avg_long, with
// each window's length cut to the history since the reset.
func (c *Controller) references(k census, now float64) refs {
	den := func(active uint64) float64 {
		if c.cfg.Average == AverageAll {
			return float64(c.blocks)
		}
		return float64(max(active, 1))
	}
	avgLong := float64(k.sumLong) / den(k.activeLong)
	r := refs{long: c.cfg.LongFactor * avgLong}
	if c.cfg.ShortReference == RefLong {
		r.short = c.cfg.ShortFactor * avgLong * c.span(&c.short, now) / c.span(&c.long, now)
	} else {
		r.short = c.cfg.ShortFactor * float64(k.sumShort) / den(k.activeShort)
	}
	return r
}

// span is how much history window w holds at now: its length, or the time
// since the reset when shorter, but at least one slice.
func (c *Controller) span(w *window, now float64) float64 {
	l := w.width * float64(w.n)
	return max(min(l, now-c.since), w.width)
}

// evaluate runs the thrashing-risk analysis and then Fig. 12 on every VA
// block with a fault in the long window (Fig. 12 is per VABlock, VFR
// being a block's fault rate; skipping blocks with no fault history is
// our choice, not stated in the paper); blocks without one keep their
// threshold.
func (c *Controller) evaluate(now float64) error {
	si, li := c.short.index(now), c.long.index(now)
	k := c.take(si, li)
	risk := c.thrashing(k)
	if risk {
		c.riskUntil = now + c.cfg.RiskHoldWindows*c.cfg.LongWindowNs
		c.st.RiskSignals++
	} else if now < c.riskUntil {
		risk = true // Config.RiskHoldWindows: an earlier signal still holds
		c.st.RiskHeld++
	}
	c.st.Evaluations++
	c.st.RiskyVABlocks = k.risky
	c.st.RiskyPeak = max(c.st.RiskyPeak, k.risky)
	c.st.ShortBlocks += k.activeShort
	c.st.LongBlocks += k.activeLong
	r := c.references(k, now)
	for b := 0; b < c.blocks; b++ {
		lsum := c.long.sum[b]
		if lsum == 0 {
			continue
		}
		o := decide(c.rd, signals{burst: float64(c.short.sum[b]) > r.short,
			steady: float64(lsum) > r.long, risk: risk})
		c.count(o)
		cur := int(c.thr[b])
		if n := c.next(o, cur); n != cur {
			c.thr[b] = uint8(n)
			c.st.Changes++
			if err := c.t.SetThreshold(uint64(b), n); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Controller) count(o outcome) {
	switch o {
	case decrease:
		c.st.Decreases++
	case disable:
		c.st.Disables++
	case enable:
		c.st.Enables++
	default:
		c.st.Unchanged++
	}
}
