package observuvm

// FDP is Feedback-Driven Prefetching (Sec. VI-C, Algorithm 2), per GPU. It
// chooses the tree prefetcher's threshold: TBP (51) by default, AP (1: the
// whole 2 MB on the first fault) when prefetches prove useful. A few
// prefetched regions are observed through a prefetched block; a hit is
// positive feedback (the prefetch was used), an eviction before any hit
// negative. After more than FDPThreshold (T) events, FDP goes AP if more
// than FDPRatio (0.8) of them were hits, and TBP otherwise.
//
// Algorithm 2 as printed increments CountSum only in the else branch, with
// CountEV; CountSum would then count evictions only, a run of hits would
// never reach T, and "every application except GMM switched to AP" could
// not happen. The intent is evidently one CountSum++ per event, which is
// the default; FDPLiteralCountSum reproduces the printed version. The
// paper does not say whether the counts reset: with FDPReset (default)
// each decision uses a fresh window of events, so FDP can switch back;
// without it the counts are cumulative and every later event re-decides.
type FDP struct {
	cfg Config
	per []fdpState
}

type fdpState struct {
	thr              int
	ac, ev, sum      int
	decisions, flips uint64
}

// NewFDP returns FDP for gpus GPUs, each starting at TBPThreshold.
func NewFDP(cfg Config, gpus int) *FDP {
	f := &FDP{cfg: cfg, per: make([]fdpState, gpus)}
	for g := range f.per {
		f.per[g].thr = cfg.TBPThreshold
	}
	return f
}

// Threshold is g's current tree prefetcher threshold.
func (f *FDP) Threshold(g int) int { return f.per[g].thr }

// Counts are g's CountAC, CountEV and CountSum.
func (f *FDP) Counts(g int) (ac, ev, sum int) {
	s := f.per[g]
	return s.ac, s.ev, s.sum
}

// Decisions is how many times g decided, and how many changed the
// threshold.
func (f *FDP) Decisions(g int) (decisions, flips uint64) { return f.per[g].decisions, f.per[g].flips }

// Feedback records one feedback event on g: accessed is true for an
// access-counter hit on a sampled prefetched block, false for its
// region's eviction before any hit. It returns the threshold and whether
// it changed.
func (f *FDP) Feedback(g int, accessed bool) (thr int, changed bool) {
	s := &f.per[g]
	if accessed {
		s.ac++
	} else {
		s.ev++
	}
	if !f.cfg.FDPLiteralCountSum || !accessed {
		s.sum++
	}
	if s.sum <= f.cfg.FDPThreshold {
		return s.thr, false
	}
	next := f.cfg.TBPThreshold
	if float64(s.ac)/float64(s.sum) > f.cfg.FDPRatio {
		next = f.cfg.APThreshold
	}
	s.decisions++
	if f.cfg.FDPReset {
		s.ac, s.ev, s.sum = 0, 0, 0
	}
	if next == s.thr {
		return s.thr, false
	}
	s.thr = next
	s.flips++
	return next, true
}
