package earlyadaptor

// PaperFootprintBytes is the footprint EA's windows were tuned at when a
// workload has no Table II entry: 8445 MB (read as MiB), the most common
// footprint of Table II (2DC, FDT, HS). Table II's per-workload values are
// benchmarks.EAFootprints.
const PaperFootprintBytes = 8445 << 20

// FootprintScale is the scale ScaledWindows takes for a run whose
// footprint is footprint bytes, against EA's footprint paper bytes for the
// same workload (benchmarks.EAFootprints; 0 uses PaperFootprintBytes).
func FootprintScale(footprint, paper uint64) float64 {
	if paper == 0 {
		paper = PaperFootprintBytes
	}
	return float64(footprint) / float64(paper)
}

// ScaledWindows returns cfg with its time constants (ShortWindowNs,
// LongWindowNs, EvalPeriodNs) multiplied by scale, the run's footprint over
// EA's (FootprintScale); Slices, the 10x and 2x factors, the step and
// ConsistentSlices are ratios or counts and stay. A scale <= 0 gives
// windows Validate rejects.
//
// The rule: windows scale with footprint / paper footprint. EA measured
// ~8 GB footprints on an RTX 3090 ("Evaluation and Results", Table II); a
// scaled-down input at the same oversubscription ratio moves `scale` times
// the pages at the same per-page cost (fault service, PCIe bytes), so its
// run, and every phase of it, lasts about `scale` times as long. Scaling
// the windows by the same factor keeps what they see as at EA's size: the
// share of the run and of the footprint each window covers, hence the
// number of VA blocks faulting per window against capacity (the thrashing
// test), the per-block counts behind VFR / G.Avg, and the number of
// analyses per run.
//
// Caveat: one VA block's own burst (up to 512 faults at the modelled
// per-fault cost) does not shrink with the footprint, so at a small scale
// the short window may be shorter than a single block's burst. At the
// benchmarks' scale 1 for EA's workloads (1/32 of Table II, except rbfs
// 1/256) the short window is 0.625 ms and the long 31.25 ms; check the
// run lasts several long windows, and sweep short_window_ns on its own
// when it matters. The alternative rule, scaling by the run's expected
// duration over EA's, needs EA's run times, which the poster does not give.
func ScaledWindows(cfg Config, scale float64) Config {
	cfg.ShortWindowNs *= scale
	cfg.LongWindowNs *= scale
	cfg.EvalPeriodNs *= scale
	return cfg
}
