// Package earlyadaptor is the Early-Adaptor prefetch controller (Go et al.,
// "Early-Adaptor: An Adaptive Framework for Proactive UVM Memory
// Management", ISPASS 2023) as a pure state machine: one Controller per
// GPU, fed the GPU's fault batches and evictions in simulated time, driving
// the per-VA-block thresholds of that GPU's tree prefetcher through the
// Thresholds interface. It has no engine, no globals and no wall clock.
//
// Section references: the paper is a poster without numbered sections, so
// references name its panels ("Problem Statement and Research Objectives",
// "Proposed Method", "Evaluation and Results"), figures and tables. Every
// constant is a Config field whose comment names its source; where the
// paper is silent the comment says "silent; chosen: ...".
package earlyadaptor

import (
	"fmt"
	"math"
	"strings"
)

// Threshold bounds: the driver's uvm_perf_prefetch_threshold range, "valid
// values 1-100" (prefetch.MinThreshold, prefetch.MaxThreshold; from the
// driver's uvm_perf_prefetch.c, not stated in the paper).
const (
	MinThreshold = 1
	MaxThreshold = 100
)

// Modes.
const (
	// Adaptive is Early-Adaptor ("Proposed Method", Fig. 10 and Fig. 12).
	Adaptive = "adaptive"
	// Static holds every block at StaticThreshold for the whole run: the
	// paper's static-threshold baselines (1%..91%, 100%, and 51% the
	// baseline) and, swept per workload class, OPT (Fig. 13 and Fig. 14).
	Static = "static"
)

// Readings of Fig. 12, whose arrows are lost in the extracted poster text
// (only its boxes and yes/no labels survive); see Config.Reading.
const (
	// RiskFirst asks "Is there a risk of thrashing?" first: no -> 1%; yes
	// -> [short] VFR > 10 x G.Avg -> -25%, else [long] VFR > 2 x G.Avg ->
	// 100%, else no change. Our first reconstruction's alternative
	// ("plausible") reading.
	RiskFirst = "risk-first"
	// ShortFirst asks the short-term test first: yes -> -25%; else the
	// long-term test: yes -> (risk ? 100% : 1%), no -> no change. Our
	// first reconstruction, rated "most consistent (medium confidence)".
	ShortFirst = "short-first"
)

// Oversubscription signals; see Config.Detect.
const (
	// OnEviction detects oversubscription at the GPU's first eviction.
	OnEviction = "eviction"
	// OnCapacity detects it when the GPU's used pages reach its capacity.
	OnCapacity = "capacity"
)

// Step modes; see Config.StepMode.
const (
	StepPoints   = "points"   // 100 -> 75 -> 50 -> 25 -> 1
	StepRelative = "relative" // x (100-Step)/100: 100 -> 75 -> 56 -> 42 -> ... -> 1
)

// Global-average denominators; see Config.Average.
const (
	AverageFaulting = "faulting" // VA blocks with a fault in the window
	AverageAll      = "all"      // every VA block of the footprint
)

// Short-test references; see Config.ShortReference.
const (
	RefShort = "short" // G.Avg over the short window
	RefLong  = "long"  // G.Avg rate over the long window
)

// Warm-ups after a reset; see Config.Warmup.
const (
	// WarmupConsistent waits ConsistentSlices long slices: the least
	// history in which a block can fault "consistently".
	WarmupConsistent = "consistent"
	// WarmupWindow waits one long window: the history over which the
	// risky set is defined.
	WarmupWindow = "window"
)

// MaxSlices bounds Config.Slices (each slice costs 8 bytes per VA block).
const MaxSlices = 1000

// MaxRiskHoldWindows bounds Config.RiskHoldWindows: 1000 long windows,
// 1000 s at the paper's 1 s window, outlast any run, so a larger hold is a
// typo rather than a setting.
const MaxRiskHoldWindows = 1000

// Config is one Controller's configuration. Times are simulated ns.
type Config struct {
	// Mode: Adaptive (EA) or Static (a fixed threshold; OPT is the best
	// Static value per workload class, found by a sweep, Fig. 14).
	Mode string `yaml:"mode" doc:"adaptive (Early-Adaptor) | static (StaticThreshold on every block; sweep it for OPT)"`
	// StaticThreshold is every block's threshold in Static mode; 51 is the
	// driver default, the paper's "51% (Baseline)" (Fig. 13's legend).
	StaticThreshold int `yaml:"static_threshold" doc:"static mode threshold 1..100 (driver default 51 = EA's baseline)"`
	// Reading selects the reconstruction of Fig. 12. Silent in the
	// extracted text; chosen: RiskFirst, see DefaultConfig.
	Reading string `yaml:"reading" doc:"Fig. 12 reading: risk-first (recommended) | short-first (our first reconstruction)"`
	// Detect is what signals oversubscription. The paper has a "Mem
	// Oversubscribed" signal from the driver's VM manager (Fig. 10) but does
	// not say what raises it; chosen: OnEviction, the VM manager's first
	// eviction (OnCapacity is the other signal offered; neither is stated
	// in the paper).
	Detect string `yaml:"detect" doc:"oversubscription signal: eviction (first eviction) | capacity (used pages reach capacity)"`
	// ResetOnDetect clears the fault history at detection, so the analysis
	// sees only faults taken at 100% ("for accurate measurement of page
	// fault history", paper "Proposed Method"). Silent on clearing; chosen:
	// true. With it, the first analysis waits for the warm-up (Controller).
	ResetOnDetect bool `yaml:"reset_on_detect" doc:"clear the fault history at detection (silent; chosen true)"`
	// ShortWindowNs is the short-term window, "last 20ms" (paper,
	// "Proposed Method"), for the bursty faults of regular regions.
	ShortWindowNs float64 `yaml:"short_window_ns" doc:"short-term fault window in ns (EA: 20 ms)"`
	// LongWindowNs is the long-term window, "last 1s" (paper, "Proposed
	// Method"), for the steady faults of irregular regions.
	LongWindowNs float64 `yaml:"long_window_ns" doc:"long-term fault window in ns (EA: 1 s)"`
	// Slices is how many ring slots each window keeps: the paper splits
	// the 1 s window into "fifty 20ms-long time slices" ("Proposed
	// Method"). The short window is kept the same way (50 x 0.4 ms), so
	// "the last 20 ms" slides at 0.4 ms; the paper does not say how it
	// keeps it.
	Slices int `yaml:"slices" doc:"ring slices per window (EA: 50 for the 1 s window)"`
	// EvalPeriodNs is how often the analysis runs once oversubscribed.
	// Silent; chosen: one long slice (20 ms), the history's granularity.
	EvalPeriodNs float64 `yaml:"eval_period_ns" doc:"benefit-analysis period in ns (silent; chosen 20 ms = one long slice)"`
	// ShortFactor: "[Short Term] VFR > (10 x G. Avg.)" (Fig. 12).
	ShortFactor float64 `yaml:"short_factor" doc:"short-term test: VFR > factor x G.Avg (EA Fig. 12: 10)"`
	// LongFactor: "[Long Term] VFR > (2 x G. Avg.)" (Fig. 12).
	LongFactor float64 `yaml:"long_factor" doc:"long-term test: VFR > factor x G.Avg (EA Fig. 12: 2)"`
	// Step: "Threshold is decreased by 25%" (Fig. 12), 1..99.
	Step int `yaml:"step" doc:"threshold decrease on a short-term hit (EA Fig. 12: 25)"`
	// StepMode: whether the step is percentage points or relative (Fig.
	// 12 says only "decreased by 25%"). Silent; chosen: points, since
	// thresholds are themselves percentages and 4 steps then reach 1 from
	// 100.
	StepMode string `yaml:"step_mode" doc:"points (-25: 100,75,50,25,1) | relative (x0.75) (silent; chosen points)"`
	// Aggressive is every block's threshold before oversubscription and the
	// "Threshold = 1%" outcome (paper, "Proposed Method" and Fig. 12).
	Aggressive int `yaml:"aggressive" doc:"threshold with no oversubscription and Fig. 12's 1% outcome (EA: 1)"`
	// Disabled is every block's threshold at detection and the "Threshold
	// = 100%" outcome (paper, "Proposed Method" and Fig. 12): 100 never
	// prefetches.
	Disabled int `yaml:"disabled" doc:"threshold at detection and Fig. 12's 100% outcome (EA: 100)"`
	// ConsistentSlices: a VA block "consistently" faults (is risky for the
	// thrashing analysis) when it faulted in at least this many of the
	// long window's slices. Silent ("Proposed Method" says only
	// "consistent page faults recently"); chosen: 3, the fewest that no
	// single short-window burst can reach (a 20 ms burst spans at most 2
	// adjacent 20 ms slices).
	ConsistentSlices int `yaml:"consistent_slices" doc:"long-window slices with a fault that make a VA block consistently faulting (silent; chosen 3)"`
	// Average is G.Avg's denominator. Silent (Fig. 12 only names the
	// "Global Average (G. Avg.)"); chosen: the VA blocks with a fault in
	// the window, the likelier reading.
	Average string `yaml:"average" doc:"G.Avg per: faulting (VA blocks with a fault in the window) | all (every VA block) (silent; chosen faulting)"`
	// ShortReference is the G.Avg the short-term test compares with:
	// RefShort, the same 20 ms window (Fig. 12 labels the whole test
	// "[Short Term]"), or RefLong, the per-block fault rate over the 1 s
	// window, which makes the test a burst detector even when every
	// faulting block is equally bursty. Silent; chosen: RefShort.
	ShortReference string `yaml:"short_reference" doc:"short-term test's G.Avg: short (same 20 ms window) | long (rate over the 1 s window) (silent; chosen short)"`
	// Warmup is how long the 100% set at detection lasts before the first
	// analysis, with ResetOnDetect: WarmupConsistent (ConsistentSlices
	// long slices, the least history in which any block can be risky) or
	// WarmupWindow (one long window, the span the risky set is counted
	// over). The paper says only that the 100% is "for accurate
	// measurement of page fault history" ("Proposed Method"). Silent;
	// chosen: WarmupConsistent. Under the risk-first reading the first
	// analysis that finds no risk sets every block with history to 1%,
	// after which a block faults again only when evicted, so the warm-up
	// is the one chance the risk test has to see the 100% pattern.
	Warmup string `yaml:"warmup" doc:"100% spell after detection before the first analysis: consistent (consistent_slices long slices) | window (one long window) (silent; chosen consistent)"`
	// RiskHoldWindows is how long a thrashing-risk signal lasts after the
	// analysis that found it, in long windows: later analyses within it
	// read "risk" even when the risky count has fallen back under capacity.
	// The poster says only that the thrashing analysis "sends a throttling
	// signal" (Fig. 10), not how long the throttle holds. Silent; chosen:
	// 0, the signal lasts its own analysis. 1 holds it for the span the
	// risky set is counted over. In windows, so ScaledWindows scales it.
	RiskHoldWindows float64 `yaml:"risk_hold_windows" doc:"how long a thrashing-risk signal holds after the analysis that found it, in long windows (silent; chosen 0 = that analysis only)"`
}

// DefaultConfig returns the paper's constants and the choices documented on
// each field. Reading is RiskFirst, recommended over ShortFirst because:
//
//   - With G.Avg over the same window, the blocks of a purely regular
//     workload fault alike, so few or none stand 10x above the short
//     average or 2x above the long one, and ShortFirst leaves them at the
//     100% set at detection, against the poster's "aggressive prefetching is
//     effective, regardless of memory oversubscription" for regular
//     workloads. RiskFirst gives them 1% whenever their bursts do not add
//     up to a thrashing risk (bursts span <= 2 slices: not consistent).
//   - RiskFirst yields every behaviour the poster's "Memory access
//     characteristics by workload type" states: regular -> aggressive;
//     irregular beyond capacity -> no prefetch for the consistent faulters;
//     mixed -> aggressive "if the irregularly accessed regions [fit] in GPU
//     memory", bursts stepped down and steady faulters off when not.
//   - The thrashing analysis runs first and sends its "throttling signal"
//     to the benefit analysis (Fig. 10, Fig. 12's start node "Thrashing risk
//     analysis completed"), which RiskFirst consults first.
//
// Both readings fit the surviving labels (3 yes, 3 no); ShortFirst stays
// selectable.
func DefaultConfig() Config {
	return Config{Mode: Adaptive, StaticThreshold: 51, Reading: RiskFirst, Detect: OnEviction,
		ResetOnDetect: true, ShortWindowNs: 20e6, LongWindowNs: 1e9, Slices: 50, EvalPeriodNs: 20e6,
		ShortFactor: 10, LongFactor: 2, Step: 25, StepMode: StepPoints, Aggressive: MinThreshold,
		Disabled: MaxThreshold, ConsistentSlices: 3, Average: AverageFaulting, ShortReference: RefShort,
		Warmup: WarmupConsistent, RiskHoldWindows: 0}
}

// oneOf reports whether v is one of valid, naming the key otherwise.
func oneOf(key, v string, valid ...string) error {
	for _, s := range valid {
		if v == s {
			return nil
		}
	}
	return fmt.Errorf("earlyadaptor %s %q: valid values are %s", key, v, strings.Join(valid, ", "))
}

func validThreshold(key string, t int) error {
	if t < MinThreshold || t > MaxThreshold {
		return fmt.Errorf("earlyadaptor %s %d: must be a threshold in %d..%d", key, t, MinThreshold, MaxThreshold)
	}
	return nil
}

func positive(key string, v float64, paper string) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("earlyadaptor %s %v: must be a finite number > 0 (EA: %s)", key, v, paper)
	}
	return nil
}

// Validate checks every field and names the first bad one by its key.
func (c Config) Validate() error {
	for _, e := range []error{
		oneOf("mode", c.Mode, Adaptive, Static),
		oneOf("reading", c.Reading, RiskFirst, ShortFirst),
		oneOf("detect", c.Detect, OnEviction, OnCapacity),
		oneOf("step_mode", c.StepMode, StepPoints, StepRelative),
		oneOf("average", c.Average, AverageFaulting, AverageAll),
		oneOf("short_reference", c.ShortReference, RefShort, RefLong),
		oneOf("warmup", c.Warmup, WarmupConsistent, WarmupWindow),
		validThreshold("static_threshold", c.StaticThreshold),
		validThreshold("aggressive", c.Aggressive),
		validThreshold("disabled", c.Disabled),
		positive("short_window_ns", c.ShortWindowNs, "20 ms = 2e7"),
		positive("long_window_ns", c.LongWindowNs, "1 s = 1e9"),
		positive("eval_period_ns", c.EvalPeriodNs, "silent; default 2e7"),
		positive("short_factor", c.ShortFactor, "10"),
		positive("long_factor", c.LongFactor, "2"),
	} {
		if e != nil {
			return e
		}
	}
	if c.ShortWindowNs > c.LongWindowNs {
		// The short-term reading is against the long-term one: a short
		// window longer than the long one inverts the two.
		return fmt.Errorf("earlyadaptor short_window_ns %v is longer than long_window_ns %v: the short window must be at most the long one (EA: 2e7 and 1e9)", c.ShortWindowNs, c.LongWindowNs)
	}
	if !(c.RiskHoldWindows >= 0) || c.RiskHoldWindows > MaxRiskHoldWindows {
		return fmt.Errorf("earlyadaptor risk_hold_windows %v: must be in 0..%d long windows (silent; default 0)", c.RiskHoldWindows, MaxRiskHoldWindows)
	}
	if c.Slices < 1 || c.Slices > MaxSlices {
		return fmt.Errorf("earlyadaptor slices %d: must be in 1..%d (EA: 50)", c.Slices, MaxSlices)
	}
	if c.Step < 1 || c.Step > 99 {
		return fmt.Errorf("earlyadaptor step %d: must be in 1..99 (EA: 25)", c.Step)
	}
	if c.ConsistentSlices < 1 || c.ConsistentSlices > c.Slices {
		return fmt.Errorf("earlyadaptor consistent_slices %d: must be in 1..slices (%d)", c.ConsistentSlices, c.Slices)
	}
	return nil
}
