package figures

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/sweep"
)

func init() { register("observuvm", observFigures) }

// ObservUVMWorkloads are ObservUVM's Table II applications, in its order
// ("Observability-aided GPU Memory Oversubscription", ISCA 2026, Sec. VII,
// Table II): MM, GMM, SRK, SR2, HEL, 2DC, GMV, LU, BLK, SPM, AN, SN, BTR
// and Rodinia's BFS.
var ObservUVMWorkloads = []string{"mm-tiled", "gmm", "syrk", "syr2k", "hellinger", "2dconv", "gemv", "lu",
	"blackscholes", "spgemm", "alexnet", "squeezenet", "btree", "rbfs"}

// observFootprintGB is Table II's footprint of each application, in GB.
var observFootprintGB = map[string]float64{"mm-tiled": 10.1, "gmm": 12.0, "syrk": 9.6, "syr2k": 8.3,
	"hellinger": 7.9, "2dconv": 18.0, "gemv": 23.6, "lu": 12.0, "blackscholes": 10.0, "spgemm": 8.0,
	"alexnet": 10.3, "squeezenet": 19.8, "btree": 5.0, "rbfs": 2.1}

// observBudgets are the observation budgets of a run of workload with
// footprint bytes per GPU: the paper's 100 observed regions (and FDP's and
// RGP's 16 each) scaled by footprint / Table II footprint, at least 1.
// ObservUVM observes 100 of the thousands of 2 MB regions an 8 GB
// footprint leaves in memory at 50%, about 3%; scaling keeps that share,
// as the EA figures keep their windows' share of the run (eaWindows).
// Even at the similar size, where the paper's 100 fit, the share is what
// observation needs: observing 100 of the 150 regions a GPU holds there
// observes hot regions, whose samples are hit at once and move 64 KB out
// and back each time (MM-tiled's TM: 14,433 observations, 99% hit, 462 K
// sample pages moved, 2.5x slower than with 4 observed regions; see
// docs/observuvm.md). No paper gives this rule.
func observBudgets(workload string, footprint uint64) map[string]string {
	n := func(paper int) string { return strconv.Itoa(observScaled(workload, footprint, paper)) }
	return map[string]string{"uvm.observuvm.observed_regions": n(100), "uvm.observuvm.feedback_regions": n(16),
		"uvm.observuvm.trigger_regions": n(16)}
}

// observScaled is observBudgets' rule for one budget: paper regions
// scaled by footprint / Table II footprint, rounded, at least 1.
func observScaled(workload string, footprint uint64, paper int) int {
	ratio := 1.0
	if gb, ok := observFootprintGB[workload]; ok {
		ratio = float64(footprint) / (gb * (1 << 30))
	}
	return max(1, int(math.Round(float64(paper)*ratio)))
}

// The ObservUVM figures' similar size (issue 33: the smallest size where
// the paper's counts could hold): the GPU holds the paper's 100 observed
// regions and FDP's and RGP's 16 each, 132 regions of 2 MB, at the highest
// level the figures run (Figs. 14 and 15: 70%). The budgets still keep
// the paper's share (observBudgets), not its count.
const (
	observSimilarRegions = 100 + 16 + 16
	observSimilarOver    = 1.7
)

// observSimilarFootprint is the smallest footprint of the similar size.
var observSimilarFootprint = uint64(math.Ceil(observSimilarOver * observSimilarRegions * (2 << 20)))

// observSimilar reports whether a footprint is at or above the similar
// size.
func observSimilar(footprint uint64) bool { return footprint >= observSimilarFootprint }

// ObservUVMSimilarScales are the scales at which each ObservUVM workload's
// footprint first reaches observSimilarFootprint (449 MB), rounded up to
// a hundredth (TestObservUVMSimilarScales checks the rule).
var ObservUVMSimilarScales = map[string]float64{
	"mm-tiled": 5.55, "gmm": 37.33, "syrk": 46.69, "syr2k": 53.97, "hellinger": 57.01, "2dconv": 1.70,
	"gemv": 2.38, "lu": 2.34, "blackscholes": 1.41, "spgemm": 1.76, "alexnet": 2.09, "squeezenet": 1.52,
	"btree": 2.81, "rbfs": 13.60,
}

// ObservUVMPaperScales are the scales at which each ObservUVM workload's
// footprint is its Table II footprint (observFootprintGB, read as GiB),
// to a hundredth (TestPaperScales checks each within 2%). The runs keep
// the similar size's truncation (observSize); even so they are hours each.
var ObservUVMPaperScales = map[string]float64{
	"mm-tiled": 128.11, "gmm": 1024, "syrk": 1027.18, "syr2k": 1024.07, "hellinger": 1027.25, "2dconv": 69.69,
	"gemv": 127.79, "lu": 63.83, "blackscholes": 32, "spgemm": 31.99, "alexnet": 47.36, "squeezenet": 65.15,
	"btree": 32, "rbfs": 65.15,
}

// observSampled is one workgroup in how many the similar size simulates
// of the applications whose work grows as footprint^1.5: at 449 MB they
// issue 0.24 G (MM-tiled) to 15 G (SYR2K) memory instructions, hours each
// at this simulator's 0.2-0.4 M per CPU-second. Each is the smallest power
// of two that brings the run under 64 M instructions (the size of the
// default runs of SYRK and SYR2K, about 45 M); benchmarks.SampleWorkgroups
// keeps every page touched. TestObservUVMSampledBudget checks the rule.
var observSampled = map[string]int{"mm-tiled": 4, "gmm": 128, "syrk": 256, "syr2k": 256, "hellinger": 128}

// observSampledBudget is the memory instructions observSampled aims under.
const observSampledBudget = 64e6

// observSize is the sets every ObservUVM run of workload at footprint
// bytes per GPU takes from its size: the truncation at the similar size.
func observSize(workload string, footprint uint64) map[string]string {
	if n, ok := observSampled[workload]; ok && observSimilar(footprint) {
		return map[string]string{"sample_workgroups": strconv.Itoa(n)}
	}
	return nil
}

// observBase is ObservUVM's setup: one RTX 3090 at 50% oversubscription
// (footprint / available HBM = 1.5, the existing --oversubscribe), the
// driver's tree prefetcher at 51 unless pf is false.
func observBase(pf bool) []string {
	kv := join(rtx3090, []string{"oversubscribe", over150, "uvm.prefetch.policy", "tbn", "uvm.prefetch.threshold", "51"})
	if !pf {
		kv = join(rtx3090, []string{"oversubscribe", over150, "uvm.prefetch.policy", "off"})
	}
	return kv
}

// observConfig is ObservUVM with an eviction policy and prefetchers.
func observConfig(pf bool, policy, shallow, deep string) []string {
	return join(observBase(pf), []string{"uvm.adaptive", "observuvm", "uvm.observuvm.policy", policy,
		"uvm.observuvm.shallow", shallow, "uvm.observuvm.deep", deep})
}

// observRun is one configuration of the ObservUVM figures: a page policy,
// its sets, and the sets that depend on each run's workload and footprint
// (nil: none).
type observRun struct {
	policy string
	kv     []string
	per    func(workload string, footprint uint64) map[string]string
}

// observ is ObservUVM with its budgets.
func observ(kv []string) observRun { return observRun{oversubPolicy, kv, observBudgets} }

// acbmSets are NVIDIA's access-counter migration as the driver runs it
// (ObservUVM Fig. 1b; SUV, MICRO 2024, §II-A): threshold 256 over 2 MB
// regions, the driver's defaults (SUV states both), migrating the notified
// region; a first touch faults and migrates as without counters
// (policy.ac_host=migrate), and a page evicted to the host stays mapped on
// the GPU over PCIe until the counters pull it back (policy.ac_evict=remote:
// open-gpu-kernel-modules, uvm_perf_map_remote_on_eviction, default on
// when access-counter migration is); the GPU has 256 counters (ObservUVM
// Sec. III-D, Fig. 3).
var acbmSets = []string{"policy.ac_threshold", "256", "policy.ac_group", "2MB", "policy.ac_migrate", "group",
	"policy.ac_host", "migrate", "policy.ac_evict", "remote", "gpu.ac_counters", "256"}

// The paper's configurations (Sec. VII-A) and baselines (Sec. VII-E).
var (
	observUVM  = observRun{policy: oversubPolicy, kv: observBase(true)}
	observTM   = observ(observConfig(true, "tournament", "tbp", "none"))
	observTMP  = observ(observConfig(true, "tournament", "fdp", "none"))
	observTMPP = observ(observConfig(true, "tournament", "fdp", "rgp"))
	// ACBM is the driver's access-counter migration in "its default
	// configuration" (Sec. VII-B, Sec. II-B, Fig. 1b).
	observACBM = observRun{policy: "access-counter", kv: join(observBase(true), acbmSets)}
	// EA is Early-Adaptor with its windows scaled by footprint / Table II
	// footprint, as the EA figures scale them by EA's own Table II.
	observEA = observRun{policy: oversubPolicy, kv: join(observBase(true), []string{"uvm.prefetch_control", "early-adaptor"}),
		per: func(w string, fp uint64) map[string]string {
			return eaWindowsAt(fp, uint64(observFootprintGB[w]*(1<<30)))
		}}
	observNoPF  = observRun{policy: oversubPolicy, kv: observBase(false)}
	observNoPFs = map[string]observRun{
		"LRU": observ(observConfig(false, "lru", "off", "none")), "LFU": observ(observConfig(false, "lfu", "off", "none")),
		"CP": observ(observConfig(false, "cp", "off", "none")), "TM": observ(observConfig(false, "tournament", "off", "none")),
	}
	observNoPFOrder = []string{"LRU", "LFU", "CP", "TM"}
)

// sets are c's sets that depend on the run of workload at footprint
// bytes per GPU: its size's (observSize) and its own (per).
func (c observRun) sets(workload string, footprint uint64) map[string]string {
	m := observSize(workload, footprint)
	if c.per != nil {
		if m == nil {
			m = map[string]string{}
		}
		maps.Copy(m, c.per(workload, footprint))
	}
	return m
}

// observSel selects a run of c.
func observSel(c observRun) Selector {
	s := sel(c.policy, 1, c.kv...)
	s.PerRun = func(r *platform.Result) map[string]string {
		return c.sets(r.Workload, uint64(r.Footprint)/uint64(max(r.GPUs, 1)))
	}
	return s
}

// observSpecs are the runs of configs on w at scale: one spec per
// workload, with its per-run sets (observRun.sets), or one for them all
// where none has any.
func observSpecs(w []string, scale float64, configs ...observRun) ([]sweep.Spec, error) {
	fps := map[string]uint64{}
	for _, wl := range w {
		fp, err := footprintAt(wl, scale)
		if err != nil {
			return nil, err
		}
		fps[wl] = fp
	}
	var out []sweep.Spec
	for _, c := range configs {
		if !slices.ContainsFunc(w, func(wl string) bool { return c.sets(wl, fps[wl]) != nil }) {
			out = append(out, spec(w, []string{c.policy}, []int{1}, "", fixed(c.kv)))
			continue
		}
		for _, wl := range w {
			sets := fixed(c.kv)
			for k, v := range c.sets(wl, fps[wl]) {
				sets[k] = []string{v}
			}
			out = append(out, spec([]string{wl}, []string{c.policy}, []int{1}, "", sets))
		}
	}
	return out, nil
}

// preferredOf is the eviction ObservUVM says an application prefers.
func preferredOf(app string) string {
	w, err := benchmarks.New(app)
	if err != nil {
		return ""
	}
	if pol := w.Info().PreferredEviction.Policy; pol != "" {
		return "prefers " + pol
	}
	return ""
}

// preferRows ends a table with a mean per preferred eviction (the paper's
// grouping of Fig. 11), the average and the geomean.
func preferRows(t plots.Table) plots.Table {
	return groupRows(t, preferredOf, []string{"prefers lru", "prefers lfu", "prefers cp"})
}

// observFig9 is ObservUVM Fig. 9 (time) or Fig. 12 (faults): TM, TM+ and
// TM++ over the stock driver (UVM) at 50%.
func observFig9(name, title, ylabel string, m Metric) Figure {
	base := observSel(observUVM)
	var series []Series
	for _, c := range []struct {
		label string
		run   observRun
	}{{"TM", observTM}, {"TM+", observTMP}, {"TM++", observTMPP}} {
		series = append(series, Series{Label: c.label, Run: observSel(c.run), Base: base, Metric: m})
	}
	return Figure{Name: name, Title: title, YLabel: ylabel, Workloads: ObservUVMWorkloads, SimilarScales: ObservUVMSimilarScales,
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) {
			return observSpecs(w, scale, observUVM, observTM, observTMP, observTMPP)
		},
		Series: series, Summary: preferRows}
}

// observFig10 is ObservUVM Fig. 10 (time) or Fig. 11 (evictions): each
// eviction policy and Tournament with prefetching off, over the stock
// driver's LRM with prefetching off.
func observFig10(name, title, ylabel string, m Metric) Figure {
	base := observSel(observNoPF)
	var series []Series
	configs := []observRun{observNoPF}
	for _, l := range observNoPFOrder {
		series = append(series, Series{Label: l, Run: observSel(observNoPFs[l]), Base: base, Metric: m})
		configs = append(configs, observNoPFs[l])
	}
	return Figure{Name: name, Title: title, YLabel: ylabel, Workloads: ObservUVMWorkloads, SimilarScales: ObservUVMSimilarScales,
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) { return observSpecs(w, scale, configs...) },
		Series:  series, Summary: preferRows}
}

// observFig13 is ObservUVM Fig. 13: TM++ against the driver's access-
// counter migration (ACBM) and Early-Adaptor, each over UVM at 50%.
func observFig13() Figure {
	base := observSel(observUVM)
	var series []Series
	for _, c := range []struct {
		label string
		run   observRun
	}{{"TM++", observTMPP}, {"ACBM", observACBM}, {"EA", observEA}} {
		series = append(series, Series{Label: c.label, Run: observSel(c.run), Base: base, Metric: Speedup})
	}
	return Figure{Name: "observuvm-fig13", Title: "ObservUVM Fig. 13: TM++, ACBM and Early-Adaptor over UVM at 50% oversubscription (RTX 3090)",
		YLabel: "speedup over UVM", Workloads: ObservUVMWorkloads, SimilarScales: ObservUVMSimilarScales,
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) {
			return observSpecs(w, scale, observUVM, observTMPP, observACBM, observEA)
		},
		Series: series, Summary: preferRows}
}

// observFig5 is ObservUVM Fig. 5 (Sec. III-C): how many of the 64 KB
// pages of each evicted 2 MB region the GPU accessed before the eviction
// ("all constituent pages of more than 90% of regions are accessed";
// average occupancy over 90%). The paper does not say which configuration
// it measured; this is its baseline, the stock driver (UVM) at 50%, as in
// Fig. 9, with the census on (uvm.eviction_census). The paper plots the
// histogram; the table gives, per application, the share of victim
// regions with all 32 pages accessed and the mean share accessed.
func observFig5() Figure {
	census := observRun{policy: oversubPolicy, kv: join(observBase(true), []string{"uvm.eviction_census", "true"})}
	s := observSel(census)
	return Figure{Name: "observuvm-fig5", Title: "ObservUVM Fig. 5: 64 KB pages of each evicted 2 MB region accessed before eviction (UVM, 50%)",
		YLabel: "share of victim regions / of their pages", Workloads: ObservUVMWorkloads, SimilarScales: ObservUVMSimilarScales,
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) { return observSpecs(w, scale, census) },
		Series: []Series{{Label: "all 32 pages accessed", Run: s, Metric: VictimsWhole},
			{Label: "pages accessed (mean share)", Run: s, Metric: VictimBlocks}},
		Summary: preferRows}
}

// observFigures are ObservUVM's figures: Figs. 9-13 here, the sensitivity
// studies (Figs. 14-17) and the counter microbenchmark (Fig. 3) in
// observuvm_sens.go.
func observFigures() []Figure {
	return sized(ObservUVMWorkloads, ObservUVMPaperScales, ObservUVMSimilarScales, []Figure{
		observFig5(),
		observFig9("observuvm-fig9", "ObservUVM Fig. 9: TM, TM+, TM++ speedup over UVM at 50% oversubscription (RTX 3090)", "speedup over UVM", Speedup),
		observFig9("observuvm-fig12", "ObservUVM Fig. 12: page faults of TM, TM+, TM++ over UVM at 50% oversubscription", "faults over UVM", Faults),
		observFig10("observuvm-fig10", "ObservUVM Fig. 10: speedup of each eviction policy over LRM, prefetch off, 50% oversubscription", "speedup over LRM", Speedup),
		observFig13(),
		observFig10("observuvm-fig11", "ObservUVM Fig. 11: evictions of each eviction policy over LRM, prefetch off, 50% oversubscription", "evictions over LRM", EvictedPages),
		observFig14(), observFig15(), observFig16(), observFig17(), observFig3(),
	})
}
