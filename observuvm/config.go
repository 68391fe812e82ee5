// Package observuvm is the decision logic of ObservUVM (Pratheek B, Shah
// and Basu, "Observability-aided GPU Memory Oversubscription", ISCA 2026)
// as a pure package: no engine, no globals, no wall clock.
//
// The UVM driver cannot see GPU accesses to HBM-resident memory. ObservUVM
// makes a 2 MB region "observable" by moving one random 64 KB sample of it
// back to host DRAM, remote-mapping it and arming an access counter with
// threshold 1: a notification then works as an access bit for the region
// (Sec. IV-A, Fig. 4). Eviction policies (LRU, LFU, Cyclic Protection, the
// Tournament meta-policy, Sec. VI-A/B) and prefetchers (FDP, RGP, Sec.
// VI-C/D) are built on that signal.
//
// The package decides; the driver moves pages. Every call that changes what
// the driver must do returns Actions (move a sample out, bring it back,
// release it, prefetch a region, set the tree prefetcher's threshold). The
// parts can be used alone (CounterUnit, Observer, Policy, FDP, RGP) or
// through Engine, which wires them as the paper's userspace engine does
// (Sec. V-C, Table I), with one instance of every per-GPU state per GPU.
//
// Section references are to the paper. Where the paper is silent the
// field's doc tag says "silent; chosen ...".
package observuvm

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mgpu-sim/mgpu/units"
)

// Eviction policy names (Config.Policy, New).
const (
	// LRM is the stock driver's least-recently-migrated list (Fig. 2): the
	// baseline, blind to HBM hits.
	LRM = "lrm"
	// LRU is the observability-approximated LRU (Sec. VI-A, Listing 1).
	LRU = "lru"
	// LFU is the observability-approximated LFU (Sec. VI-A, Fig. 7b).
	LFU = "lfu"
	// CP is Cyclic Protection (Sec. VI-A, Fig. 7c).
	CP = "cp"
	// Tournament is the meta-policy of Algorithm 1 (Sec. VI-B).
	Tournament = "tournament"
	// OracleLRU is true LRU fed every HBM hit (not in the paper; a
	// simulator-only policy): an upper bound on what sampled observability
	// can approach; real hardware cannot build it.
	OracleLRU = "oracle-lru"
)

// PolicyNames lists the eviction policies New accepts.
func PolicyNames() []string { return []string{LRM, LRU, LFU, CP, Tournament, OracleLRU} }

// Intra-region ("shallow") prefetch modes (Config.Shallow). They only set
// the threshold of the simulator's tree prefetcher (package prefetch), as
// setPrefetchThreshold does (Table I).
const (
	ShallowTBP = "tbp" // fixed TBPThreshold (driver default 51)
	ShallowAP  = "ap"  // fixed APThreshold: the whole 2 MB on the first fault
	ShallowOff = "off" // threshold 100: never prefetch (Figs. 10/11)
	ShallowFDP = "fdp" // Algorithm 2 switches between TBP and AP
)

// Inter-region ("deep") prefetch modes (Config.Deep).
const (
	DeepNone = "none"
	DeepRGP  = "rgp" // Region-Grain Prefetching (Sec. VI-D)
)

// Tournament blame readings (Config.TournamentBlame).
const (
	BlameEviction = "eviction" // the first fault after each eviction (Sec. VI-B's prose)
	BlameFault    = "fault"    // every fault on an evicted region (Alg. 1 as printed)
)

// CP victim readings (Config.CPVictim); see the CP type.
const (
	CPBoundary = "boundary" // evict the oldest region of the unprotected window
	CPTail     = "tail"     // evict the list tail (most recently migrated)
)

// Counter scopes (Config.CounterScope).
const (
	// ScopeAll counts every remote access, to host DRAM and to peer HBM,
	// as the evaluated hardware does (Sec. VIII-A).
	ScopeAll = "all"
	// ScopeSamples counts only accesses to armed sample pages: newer GPUs'
	// monitoring of chosen VA ranges (Sec. VIII-A).
	ScopeSamples = "samples"
)

// Granularities lists the access-counter tracking granularities (Sec. II-B:
// 64KB, 2MB, 16MB, 1GB).
func Granularities() []units.Bytes {
	return []units.Bytes{64 * units.KB, 2 * units.MB, 16 * units.MB, units.GB}
}

// Counter threshold range (Sec. II-B: 1 to 65535).
const (
	MinCounterThreshold = 1
	MaxCounterThreshold = 65535
)

// OffThreshold is the tree prefetcher threshold that never prefetches
// (prefetch.MaxThreshold).
const OffThreshold = 100

// Config holds every ObservUVM parameter.
type Config struct {
	Policy string `yaml:"policy" doc:"eviction policy: lrm | lru | lfu | cp | tournament | oracle-lru (paper TM: tournament)"`
	// TournamentPolicies is a comma-separated list, so that it is one
	// config value (--set uvm.observuvm.tournament_policies=lru,cp).
	TournamentPolicies string `yaml:"tournament_policies" doc:"Tournament's constituents, comma-separated (Sec. VI-B: lru,lfu,cp)"`
	// TournamentThreshold is T of Algorithm 1: no policy retires before
	// the blame sum exceeds it. With three equal policies each share is
	// 1/3 +- sqrt(2/9/T); at 256 that is +-0.03, so the 0.4 retire line
	// (1.2/3) is 2.3 standard deviations away and noise rarely retires one.
	TournamentThreshold int     `yaml:"tournament_threshold" doc:"blame sum T before retiring (silent; chosen 256)"`
	TournamentFactor    float64 `yaml:"tournament_factor" doc:"retire when blame share > factor/|A| (Alg. 1: 1.2)"`
	// TournamentBlame is when a fault blames the policy that evicted its
	// region. The prose of Sec. VI-B places "the blame for the bad
	// eviction decision" on its cause: one blame per bad eviction
	// (default), the independent events T's margin assumes. Algorithm 1,
	// "simplified code", never clears CauseMap, so there every later page
	// fault on the region blames its cause too ("fault"): a bad eviction
	// then costs tens of blames (MM-tiled at the similar size: 3,760
	// blames where "eviction" gives 98), T = 256 is passed after a handful
	// of bad evictions, and in Fig. 9 at the similar size the survivor
	// took most of the blames afterwards (Hellinger: CP 42,931 of 44,514).
	TournamentBlame string `yaml:"tournament_blame" doc:"eviction (one blame per bad eviction: Sec. VI-B's prose, 'the blame for the bad eviction decision') | fault (every fault on an evicted region: Alg. 1 lines 10-12 as printed, CauseMap never cleared)"`

	ObservedRegions int `yaml:"observed_regions" doc:"regions observed for eviction per GPU (Sec. IV-A: up to 100; Fig. 17: 75)"`
	// FeedbackRegions and TriggerRegions are FDP's and RGP's own
	// observations. The paper says FDP samples "a few" prefetched regions
	// and gives RGP one trigger per prefetched region; both need counters.
	FeedbackRegions int `yaml:"feedback_regions" doc:"prefetched regions observed for FDP feedback per GPU (Sec. VI-C: 'a few'; silent; chosen 16)"`
	TriggerRegions  int `yaml:"trigger_regions" doc:"RGP trigger pages armed at once per GPU (silent; chosen 16)"`

	Samples         int     `yaml:"samples" doc:"64KB samples per observed region, initial (Sec. V-D: 1)"`
	MaxSamples      int     `yaml:"max_samples" doc:"adaptive ceiling on samples (silent; chosen 4: Fig. 17 sweeps 1..3, doubling from 1 reaches 4)"`
	AdaptiveSamples bool    `yaml:"adaptive_samples" doc:"adapt samples per region (Sec. V-D describes it; whether Figs. 9-16 used it is unstated; chosen on)"`
	MonitorSet      int     `yaml:"monitor_set" doc:"recently evicted regions monitored per GPU (Sec. V-D: 100)"`
	AdaptPeriod     int     `yaml:"adapt_period" doc:"regions leaving the monitor set per decision (silent; chosen 100)"`
	RefaultRaise    float64 `yaml:"refault_raise" doc:"double samples when refaulted fraction > this (Sec. V-D: 0.5)"`
	QuietLower      float64 `yaml:"quiet_lower" doc:"halve samples when not-refaulted fraction >= this (Sec. V-D: 0.8)"`

	Counters           int         `yaml:"counters" doc:"hardware access counters per GPU (Fig. 3: 256)"`
	CounterThreshold   int         `yaml:"counter_threshold" doc:"accesses per notification for observation, 1..65535 (Sec. IV-A: 1)"`
	CounterGranularity units.Bytes `yaml:"counter_granularity" doc:"tracking granularity 64KB | 2MB | 16MB | 1GB (Sec. II-B; observation: 64KB, the sample)"`
	CounterScope       string      `yaml:"counter_scope" doc:"remote accesses counted: all (host and peer, Sec. VIII-A) | samples (newer GPUs' VA-range monitoring)"`
	SampleSize         units.Bytes `yaml:"sample_size" doc:"sample / migration page (Sec. II: 64KB)"`
	RegionSize         units.Bytes `yaml:"region_size" doc:"eviction and observation region (Sec. II: 2MB)"`

	LFUBins        int  `yaml:"lfu_bins" doc:"LFU frequency bins, the top one saturating (silent; chosen 16)"`
	LFUKeepHistory bool `yaml:"lfu_keep_history" doc:"LFU frequency survives eviction, so the fault stream counts DRAM-time accesses (silent; chosen true)"`

	CPProtected float64 `yaml:"cp_protected" doc:"CP initial protected fraction of the resident list, 0..<1 (silent; chosen 0.5)"`
	CPStep      int     `yaml:"cp_step" doc:"CP window change per feedback, in regions (silent; chosen 1)"`
	CPVictim    string  `yaml:"cp_victim" doc:"CP victim: boundary (oldest unprotected: Fig. 7c's S read as the head of the unprotected area) | tail (literal 'tail of the unprotected area': MRU)"`

	Shallow      string `yaml:"shallow" doc:"intra-2MB prefetch: tbp | ap | off | fdp (TM: tbp; TM+, TM++: fdp)"`
	TBPThreshold int    `yaml:"tbp_threshold" doc:"tree prefetcher threshold of TBP (Sec. II-C: 51)"`
	APThreshold  int    `yaml:"ap_threshold" doc:"tree prefetcher threshold of AP (Alg. 2: 1)"`
	// FDPThreshold is T of Algorithm 2: feedback events per decision.
	FDPThreshold int     `yaml:"fdp_threshold" doc:"FDP feedback events before deciding (silent; chosen 50)"`
	FDPRatio     float64 `yaml:"fdp_ratio" doc:"FDP goes AP when accessed/all feedback > this (Alg. 2: 0.8)"`
	FDPReset     bool    `yaml:"fdp_reset" doc:"FDP clears its counts after each decision, so it can switch back (silent; chosen true)"`
	// FDPLiteralCountSum reproduces Algorithm 2 as printed, where CountSum
	// is incremented only with CountEV; see FDP.
	FDPLiteralCountSum bool `yaml:"fdp_literal_count_sum" doc:"count CountSum only on evictions, as Alg. 2 prints it (default false: every event, the evident intent)"`

	Deep          string `yaml:"deep" doc:"inter-2MB prefetch: none | rgp (TM++: rgp)"`
	RGPConfidence int    `yaml:"rgp_confidence" doc:"forward-neighbour faults before an allocation is streaming (silent; chosen 4)"`
	RGPWindow     int    `yaml:"rgp_window" doc:"a fault 1..window 64KB blocks past the last is a neighbour (silent; chosen 2)"`
	RGPDegree     int    `yaml:"rgp_degree" doc:"regions prefetched per trigger (silent; Fig. 8 suggests 1)"`
	RGPLookahead  int    `yaml:"rgp_lookahead" doc:"regions past a trigger searched for one not yet prefetched (silent; chosen 8)"`
	// MessageNs is the driver's time per message between it and the
	// userspace engine (Sec. V-B: tracepoints and eBPF maps up, maps and
	// kfuncs down): each fault, prefetched region, notification and
	// evicted region relayed up, each victim and action carried down. The
	// paper measures the total, 1.8% of run time with enforcement (Sec.
	// VII), not a message. A message is a tracepoint's BPF program writing
	// a BPF ring buffer record, or a map read: the ring buffer moves 45 M
	// records of 128 B a second through one consumer core, 22 ns each
	// (cilium/ebpf's ringbuf zero-copy benchmark), and about as much to
	// produce; 50 ns. (Whole probes, kprobes included, cost 100-500 ns;
	// at 300 ns the messages were 10-20% of TM's time at the similar size,
	// far from the paper's 1.8%.) The userspace engine's own work runs on
	// another core and is not charged.
	MessageNs float64 `yaml:"message_ns" doc:"driver time per driver-userspace message in ns, serial in the batch (paper: 1.8% of run time in total; per message silent; chosen 50: a BPF ring buffer record, 22 ns to consume and as much to produce)"`
	// Seed seeds the sample and trigger choice. It is not a key: the
	// simulator gives its run seed (--seed), the one seed of a run.
	Seed uint64 `yaml:"-" json:"-"`
}

// Constituents are Tournament's policies, in order.
func (c Config) Constituents() []string {
	var out []string
	for _, p := range strings.Split(c.TournamentPolicies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DefaultConfig is TM++ (Tournament + FDP + RGP), the paper's headline
// configuration, with its parameters and the choices documented above.
func DefaultConfig() Config {
	return Config{
		Policy: Tournament, TournamentPolicies: LRU + "," + LFU + "," + CP, TournamentThreshold: 256, TournamentFactor: 1.2,
		TournamentBlame: BlameEviction,
		ObservedRegions: 100, FeedbackRegions: 16, TriggerRegions: 16,
		Samples: 1, MaxSamples: 4, AdaptiveSamples: true, MonitorSet: 100, AdaptPeriod: 100, RefaultRaise: 0.5, QuietLower: 0.8,
		Counters: 256, CounterThreshold: 1, CounterGranularity: 64 * units.KB, CounterScope: ScopeAll,
		SampleSize: 64 * units.KB, RegionSize: 2 * units.MB,
		LFUBins: 16, LFUKeepHistory: true,
		CPProtected: 0.5, CPStep: 1, CPVictim: CPBoundary,
		Shallow: ShallowFDP, TBPThreshold: 51, APThreshold: 1, FDPThreshold: 50, FDPRatio: 0.8, FDPReset: true,
		Deep: DeepRGP, RGPConfidence: 4, RGPWindow: 2, RGPDegree: 1, RGPLookahead: 8, MessageNs: 50, Seed: 1,
	}
}

// Preset names: the paper's configurations (Sec. VII-A). TM, TM+ and TM++
// are Fig. 9's bars; the -nopf presets are Fig. 10/11's policies with
// prefetching disabled.
const (
	PresetUVM    = "uvm"      // stock driver: LRM + TBP 51
	PresetTM     = "tm"       // Tournament, TBP 51
	PresetTMPlus = "tm+"      // Tournament + FDP
	PresetTMPP   = "tm++"     // Tournament + FDP + RGP
	PresetLRU    = "lru-nopf" // Fig. 10 LRU, prefetch off
	PresetLFU    = "lfu-nopf"
	PresetCP     = "cp-nopf"
	PresetTMNoPF = "tm-nopf"
)

// PresetNames lists the presets Preset accepts.
func PresetNames() []string {
	return []string{PresetUVM, PresetTM, PresetTMPlus, PresetTMPP, PresetLRU, PresetLFU, PresetCP, PresetTMNoPF}
}

// Preset returns DefaultConfig with the policy and prefetchers of a named
// configuration.
func Preset(name string) (Config, error) {
	c := DefaultConfig()
	set := func(policy, shallow, deep string) { c.Policy, c.Shallow, c.Deep = policy, shallow, deep }
	switch name {
	case PresetUVM:
		set(LRM, ShallowTBP, DeepNone)
	case PresetTM:
		set(Tournament, ShallowTBP, DeepNone)
	case PresetTMPlus:
		set(Tournament, ShallowFDP, DeepNone)
	case PresetTMPP:
		set(Tournament, ShallowFDP, DeepRGP)
	case PresetLRU:
		set(LRU, ShallowOff, DeepNone)
	case PresetLFU:
		set(LFU, ShallowOff, DeepNone)
	case PresetCP:
		set(CP, ShallowOff, DeepNone)
	case PresetTMNoPF:
		set(Tournament, ShallowOff, DeepNone)
	default:
		return Config{}, fmt.Errorf("unknown observuvm preset %q: valid presets are %s", name, strings.Join(PresetNames(), ", "))
	}
	return c, nil
}

func oneOf(key, v string, valid ...string) error {
	if slices.Contains(valid, v) {
		return nil
	}
	return fmt.Errorf("observuvm.%s %q: valid values are %s", key, v, strings.Join(valid, ", "))
}

func intIn(key string, v, lo, hi int, paper string) error {
	if v < lo || v > hi {
		return fmt.Errorf("observuvm.%s %d: must be in %d..%d (%s)", key, v, lo, hi, paper)
	}
	return nil
}

// fraction checks lo < v < hi, or lo <= v when closedLo.
func fraction(key string, v float64, closedLo bool, paper string) error {
	ok := !math.IsNaN(v) && v < 1 && (v > 0 || closedLo && v == 0)
	if !ok {
		lo := "0 <"
		if closedLo {
			lo = "0 <="
		}
		return fmt.Errorf("observuvm.%s %v: must be %s x < 1 (%s)", key, v, lo, paper)
	}
	return nil
}

func sizeOK(key string, v units.Bytes, paper string) error {
	if !v.IsPowerOfTwo() {
		return fmt.Errorf("observuvm.%s %d bytes: must be a power of two (%s)", key, uint64(v), paper)
	}
	return nil
}

// Validate checks every field and names the first bad one by its key.
func (c Config) Validate() error {
	const big = 1 << 30
	errs := []error{
		oneOf("policy", c.Policy, PolicyNames()...),
		oneOf("shallow", c.Shallow, ShallowTBP, ShallowAP, ShallowOff, ShallowFDP),
		oneOf("deep", c.Deep, DeepNone, DeepRGP),
		oneOf("cp_victim", c.CPVictim, CPBoundary, CPTail),
		oneOf("tournament_blame", c.TournamentBlame, BlameEviction, BlameFault),
		oneOf("counter_scope", c.CounterScope, ScopeAll, ScopeSamples),
		intIn("tournament_threshold", c.TournamentThreshold, 1, big, "silent; default 256"),
		intIn("counters", c.Counters, 1, 1<<20, "Fig. 3: 256"),
		intIn("observed_regions", c.ObservedRegions, 1, c.Counters, "Sec. IV-A: 100, at most the counters"),
		intIn("feedback_regions", c.FeedbackRegions, 0, c.Counters, "silent; default 16"),
		intIn("trigger_regions", c.TriggerRegions, 0, c.Counters, "silent; default 16"),
		intIn("counter_threshold", c.CounterThreshold, MinCounterThreshold, MaxCounterThreshold, "Sec. II-B; observation: 1"),
		sizeOK("sample_size", c.SampleSize, "64KB"),
		sizeOK("region_size", c.RegionSize, "2MB"),
		intIn("lfu_bins", c.LFUBins, 1, 1<<16, "silent; default 16"),
		fraction("cp_protected", c.CPProtected, true, "silent; default 0.5"),
		intIn("cp_step", c.CPStep, 1, big, "silent; default 1"),
		intIn("tbp_threshold", c.TBPThreshold, 1, OffThreshold, "Sec. II-C: 51"),
		intIn("ap_threshold", c.APThreshold, 1, OffThreshold, "Alg. 2: 1"),
		intIn("fdp_threshold", c.FDPThreshold, 0, big, "silent; default 50"),
		fraction("fdp_ratio", c.FDPRatio, true, "Alg. 2: 0.8"),
		intIn("rgp_confidence", c.RGPConfidence, 1, 1<<16, "silent; default 4"),
		intIn("rgp_window", c.RGPWindow, 1, 1<<16, "silent; default 2"),
		intIn("rgp_degree", c.RGPDegree, 1, 64, "silent; default 1"),
		intIn("rgp_lookahead", c.RGPLookahead, 1, 1<<16, "silent; default 8"),
		intIn("monitor_set", c.MonitorSet, 1, 1<<20, "Sec. V-D: 100"),
		intIn("adapt_period", c.AdaptPeriod, 1, 1<<20, "silent; default 100"),
		fraction("refault_raise", c.RefaultRaise, true, "Sec. V-D: 0.5"),
		fraction("quiet_lower", c.QuietLower, false, "Sec. V-D: 0.8"),
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	if m := c.MessageNs; !(m >= 0 && m <= 1e9) {
		return fmt.Errorf("observuvm.message_ns %v: must be between 0 and 1e9 ns (chosen 50)", m)
	}
	if !(c.TournamentFactor > 1) || math.IsInf(c.TournamentFactor, 1) {
		return fmt.Errorf("observuvm.tournament_factor %v: must be a finite number > 1 (Alg. 1: 1.2)", c.TournamentFactor)
	}
	if !slices.Contains(Granularities(), c.CounterGranularity) {
		return fmt.Errorf("observuvm.counter_granularity %v: valid values are 64KB, 2MB, 16MB, 1GB (Sec. II-B)", c.CounterGranularity)
	}
	if c.RegionSize < c.SampleSize || c.RegionSize/c.SampleSize > 64 {
		return fmt.Errorf("observuvm.region_size %v: must hold 1..64 samples of sample_size %v (2MB / 64KB = 32)", c.RegionSize, c.SampleSize)
	}
	blocks := int(c.RegionSize / c.SampleSize)
	if err := intIn("max_samples", c.MaxSamples, 1, min(blocks, c.Counters), "silent; default 4; at most region_size/sample_size"); err != nil {
		return err
	}
	// max_samples bounds only the adaptive controller (Sec. V-D); with
	// adaptive_samples off the count stays at samples.
	if c.AdaptiveSamples {
		if err := intIn("samples", c.Samples, 1, c.MaxSamples, "Sec. V-D: 1; at most max_samples"); err != nil {
			return err
		}
	} else if err := intIn("samples", c.Samples, 1, min(blocks, c.Counters), "Sec. V-D: 1; at most region_size/sample_size"); err != nil {
		return err
	}
	// Only the budgets of the parts that run hold counters: FDP's with
	// shallow=fdp, RGP's with deep=rgp.
	budgets, sum := "observed_regions", c.ObservedRegions
	if c.Shallow == ShallowFDP {
		budgets, sum = budgets+" + feedback_regions", sum+c.FeedbackRegions
	}
	if c.Deep == DeepRGP {
		budgets, sum = budgets+" + trigger_regions", sum+c.TriggerRegions
	}
	if sum > c.Counters {
		return fmt.Errorf("observuvm.%s = %d: must be at most counters (%d), one counter per sample", budgets, sum, c.Counters)
	}
	if c.Policy == Tournament {
		pols := c.Constituents()
		if len(pols) < 2 {
			return fmt.Errorf("observuvm.tournament_policies %v: need at least 2 of %s", pols, strings.Join(constituentNames(), ", "))
		}
		for i, p := range pols {
			if err := oneOf("tournament_policies", p, constituentNames()...); err != nil {
				return err
			}
			if slices.Contains(pols[:i], p) {
				return fmt.Errorf("observuvm.tournament_policies %v: %q appears twice", pols, p)
			}
		}
	}
	return nil
}

// constituentNames are the policies a Tournament may hold (not itself).
func constituentNames() []string { return []string{LRM, LRU, LFU, CP, OracleLRU} }

// shallowThreshold is the tree prefetcher threshold a fixed shallow mode
// sets, and FDP's starting one (TBP).
func (c Config) shallowThreshold() int {
	switch c.Shallow {
	case ShallowAP:
		return c.APThreshold
	case ShallowOff:
		return OffThreshold
	}
	return c.TBPThreshold
}
