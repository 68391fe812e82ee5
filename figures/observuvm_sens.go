package figures

// ObservUVM's sensitivity studies (Sec. VII-C, Figs. 14-17) and its
// access-counter capacity microbenchmark (Sec. III-D, Fig. 3): Pratheek B,
// Shah and Basu, "Observability-aided GPU Memory Oversubscription", ISCA
// 2026, with its setup in Sec. VII and Table II.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/synthetic"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/observuvm"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/sweep"
)

// ObservLevel is an ObservUVM oversubscription level: x% means the
// footprint is x% larger than the available HBM (Sec. VII), so
// oversubscribe (footprint / available memory) is 1 + x/100.
type ObservLevel struct{ Label, Over string }

// ObservLevels are Fig. 15's levels, 10% to 70%; Fig. 14 shows 30% and
// 70% (and here 50%, Fig. 9's level, between them).
var ObservLevels = []ObservLevel{{"10%", "1.1"}, {"30%", "1.3"}, {"50%", over150}, {"70%", "1.7"}}

// observZero is UVM.Zero's level: no oversubscription (capacity is
// gpu.memory, above every footprint; see over100).
const observZero = over100

// observAt is c at oversubscription over.
func observAt(c observRun, over string) observRun {
	kv := slices.Clone(c.kv)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "oversubscribe" {
			kv[i+1] = over
		}
	}
	c.kv = kv
	return c
}

func observLevel(label string) ObservLevel {
	for _, l := range ObservLevels {
		if l.Label == label {
			return l
		}
	}
	panic("figures: no ObservUVM level " + label)
}

// observFig14 is ObservUVM Fig. 14: "the execution time of UVM and TM++,
// with two sections along the x-axis for 30% and 70% oversubscription"
// (26% and 38% better on average). As Fig. 9, each level's TM++ time is
// normalised to UVM's at the same level (UVM is 1, lower is better); the
// paper plots time, so this figure does too, where Fig. 9 here plots
// speedup. The paper shows no TM bar and no 50% section; 50% is added
// between the two (its runs are Fig. 9's), TM is not.
func observFig14() Figure {
	var series []Series
	var configs []observRun
	for _, label := range []string{"30%", "50%", "70%"} {
		l := observLevel(label)
		uvm, tmpp := observAt(observUVM, l.Over), observAt(observTMPP, l.Over)
		series = append(series, Series{Label: "TM++ @" + l.Label, Run: observSel(tmpp), Base: observSel(uvm), Metric: Slowdown})
		configs = append(configs, uvm, tmpp)
	}
	return Figure{Name: "observuvm-fig14", Title: "ObservUVM Fig. 14: TM++ time over UVM at 30, 50, 70%",
		YLabel: "time over UVM at the same level", Workloads: ObservUVMWorkloads, SimilarScales: ObservUVMSimilarScales,
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) { return observSpecs(w, scale, configs...) },
		Series:  series, Summary: preferRows}
}

// observFig15 is ObservUVM Fig. 15: "the geometric mean of normalized
// runtimes of all applications, normalized to UVM with no
// oversubscription" (UVM.Zero, the line at 1), for UVM and TM++ from 10%
// to 70%. Its table has the paper's shape: one row per level, one column
// per configuration, each the geomean over the applications of the run's
// time over the same application's UVM.Zero time (observLevelGeomeans).
func observFig15() Figure {
	zero := observAt(observUVM, observZero)
	configs := []observRun{zero}
	var series []Series
	for _, l := range ObservLevels {
		for _, c := range []struct {
			label string
			run   observRun
		}{{"UVM", observUVM}, {"TM++", observTMPP}} {
			r := observAt(c.run, l.Over)
			series = append(series, Series{Label: c.label + " @" + l.Label, Run: observSel(r), Base: observSel(zero), Metric: Slowdown})
			configs = append(configs, r)
		}
	}
	return Figure{Name: "observuvm-fig15", Title: "ObservUVM Fig. 15: geomean time over UVM.Zero, 10-70%",
		YLabel: "geomean time over UVM.Zero", Workloads: ObservUVMWorkloads, SimilarScales: ObservUVMSimilarScales,
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) { return observSpecs(w, scale, configs...) },
		Series:  series, Summary: observLevelGeomeans}
}

// observLevelGeomeans turns a table whose series are labelled "config
// @level" into one row per level and one column per configuration, each
// the geometric mean over the applications (Reduce's "average" row
// dropped; missing values skipped, a value <= 0 makes the mean missing).
func observLevelGeomeans(t plots.Table) plots.Table {
	apps := len(t.Apps)
	if apps > 0 && t.Apps[apps-1] == "average" {
		apps--
	}
	return pivot(t.Series, func(label string) (row, col string) {
		config, level, _ := strings.Cut(label, " @")
		return level, config
	}, func(i int) float64 {
		sum, n := 0.0, 0
		for a := 0; a < apps; a++ {
			v := t.Values[a][i]
			if v != v {
				continue
			}
			if !(v > 0) {
				return nan
			}
			sum += math.Log(v)
			n++
		}
		if n == 0 {
			return nan
		}
		return math.Exp(sum / float64(n))
	})
}

// ObservFig16Budgets are Fig. 16's observed-region budgets in the paper's
// regions: its default 100 and, where the paper gives no values (Sec.
// VII-C only says "decreasing"), 50, 25 and 10, our choice.
var ObservFig16Budgets = []int{100, 50, 25, 10}

// observLRUBudget is Fig. 10's LRU (prefetch off, 50%) observing paper
// regions, scaled to each run's footprint by observBudgets' rule. At 100
// it is Fig. 10's LRU run.
func observLRUBudget(kv []string, paper int) observRun {
	return observRun{policy: oversubPolicy, kv: kv, per: func(w string, fp uint64) map[string]string {
		m := observBudgets(w, fp)
		m["uvm.observuvm.observed_regions"] = strconv.Itoa(observScaled(w, fp, paper))
		return m
	}}
}

// observFig16 is ObservUVM Fig. 16: "the performance of LRU eviction
// policy with decreasing number of observable 2MB regions" (little effect,
// except GMM and SPM). Where the paper is silent: LRU is Fig. 10's (no
// prefetching, 50%, the only LRU runs the paper shows), each budget's time
// is normalised to the same application's at 100 (lower is better), and
// the budgets are the paper's scaled as every ObservUVM run's are
// (observBudgets: x footprint / Table II footprint, at least 1). Budgets
// that scale to the same count are one run: at --quick every application
// observes 1 region at every budget, and at scale 1 at most 3 at 100, so
// the sweep only separates at larger scales.
func observFig16() Figure {
	lru := observNoPFs["LRU"]
	var runs []observRun
	var labels []string
	for _, b := range ObservFig16Budgets {
		runs = append(runs, observLRUBudget(lru.kv, b))
		labels = append(labels, fmt.Sprintf("LRU %d regions", b))
	}
	return observOverFirst("observuvm-fig16", "ObservUVM Fig. 16: LRU, observed regions over 100",
		"time over 100 observed regions", runs, labels)
}

// observOverFirst is a figure of runs that differ in one setting, each
// application's time under every run but the first over its time under
// the first (lower is better).
func observOverFirst(name, title, ylabel string, runs []observRun, labels []string) Figure {
	var series []Series
	for i, r := range runs[1:] {
		series = append(series, Series{Label: labels[i+1], Run: observSel(r), Base: observSel(runs[0]), Metric: Slowdown})
	}
	return Figure{Name: name, Title: title, YLabel: ylabel, Workloads: ObservUVMWorkloads, SimilarScales: ObservUVMSimilarScales,
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) { return observSpecs(w, scale, runs...) },
		Series:  series, Summary: preferRows}
}

// ObservFig17Samples are Fig. 17's 64 KB samples per observed region.
var ObservFig17Samples = []int{1, 2, 3}

// observFig17Regions are Fig. 17's observed regions (paper regions).
const observFig17Regions = 75

// observLRUSamples is Fig. 16's LRU with 75 observed regions (scaled) and
// a fixed samples per region: adaptive sampling (Sec. V-D) off, or it
// would change the count mid-run.
func observLRUSamples(kv []string, samples int) observRun {
	kv = join(kv, []string{"uvm.observuvm.adaptive_samples", "false", "uvm.observuvm.samples", strconv.Itoa(samples)})
	return observLRUBudget(kv, observFig17Regions)
}

// observFig17 is ObservUVM Fig. 17: "the execution time with 75
// observable 2MB regions, tracking 1, 2, or 3 64KB pages per 2MB region"
// (no benefit from more). Where the paper is silent: the policy is Fig.
// 16's LRU (prefetch off, 50%; the paper studies both in one paragraph),
// 75 is scaled as every budget is (so 1 region at --quick), and each
// count's time is normalised to 1 sample's (lower is better).
func observFig17() Figure {
	lru := observNoPFs["LRU"]
	var runs []observRun
	var labels []string
	for _, n := range ObservFig17Samples {
		runs = append(runs, observLRUSamples(lru.kv, n))
		labels = append(labels, fmt.Sprintf("%d samples", n))
	}
	return observOverFirst("observuvm-fig17", "ObservUVM Fig. 17: LRU, 75 regions, samples over 1", "time over 1 sample", runs, labels)
}

// observFig3Sets are the microbenchmark's runs on the paper's GPU, no
// prefetching: the regions stay on the host, read remotely (zero-copy),
// counted per 2 MB with threshold x (synthetic.CounterCapAccesses); a
// notification migrates only the page that reached it, so the run's
// host-to-GPU migrations count its notifications. The base is on-touch,
// which migrates each region's one page: p migrations.
func observFig3Sets() (acbm, touch []string) {
	touch = join(rtx3090, []string{"uvm.prefetch.policy", "off"})
	acbm = join(touch, []string{"policy.ac_host", "remote", "policy.ac_group", "2MB",
		"policy.ac_threshold", strconv.Itoa(synthetic.CounterCapAccesses), "policy.ac_migrate", "page"})
	return acbm, touch
}

// Fig. 3's columns.
const (
	fig3Sim   = "simulator (GPU counters)"
	fig3Model = "model (observuvm unit)"
	fig3Paper = "paper (256 counters)"
)

// observFig3 is ObservUVM Fig. 3, the counter-capacity microbenchmark:
// notifications against p, the 2 MB regions read x times each with the
// threshold at x (workloads countercap-p). The paper counts min(p, 256).
// Its table has one row per p and three columns: the notifications of a
// simulator run (the GPUs' counters of the access-counter policy, which
// ObservUVM's ACBM baseline uses; Fig. 13), those of ObservUVM's counter
// model (observuvm.CounterUnit with its default capacity, fed the
// workload's accesses; counters freed only when the driver clears them,
// which the microbenchmark never does) and the paper's line. The
// simulator's value is its host-to-GPU migrations over on-touch's (one
// page per region) times p: the figure machinery has no metric for a
// count, and with ac_migrate=page each notification migrates one page.
func observFig3() Figure {
	acbm, touch := observFig3Sets()
	var w []string
	for _, p := range synthetic.CounterCapRegions {
		w = append(w, synthetic.CounterCapName(p))
	}
	return Figure{Name: "observuvm-fig3", Title: "ObservUVM Fig. 3: counter notifications, p regions read x times",
		YLabel: "notifications", Workloads: w,
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{spec(w, []string{"access-counter"}, []int{1}, "", fixed(acbm)),
				spec(w, []string{oversubPolicy}, []int{1}, "", fixed(touch))}
		},
		Series:  []Series{{Label: fig3Sim, Run: sel("access-counter", 1, acbm...), Base: sel(oversubPolicy, 1, touch...), Metric: MigratedPages}},
		Summary: func(t plots.Table) plots.Table { return counterCapTable(t, observuvm.DefaultConfig().Counters) }}
}

// counterCapRegions is p of a countercap-p workload, 0 for another name.
func counterCapRegions(workload string) int {
	for _, p := range synthetic.CounterCapRegions {
		if workload == synthetic.CounterCapName(p) {
			return p
		}
	}
	return 0
}

// counterCapTable is Fig. 3's table from Reduce's (one column, the
// simulator's notifications per region): a row per p with the simulator's
// count, the model's with capacity counters, and the paper's.
func counterCapTable(t plots.Table, capacity int) plots.Table {
	out := plots.Table{Series: []string{fig3Sim, fig3Model, fig3Paper}}
	for i, app := range t.Apps {
		p := counterCapRegions(app)
		if p == 0 {
			continue
		}
		model := nan
		if n, err := counterCapModel(app, capacity); err == nil {
			model = float64(n)
		}
		out.Apps = append(out.Apps, fmt.Sprintf("p=%d", p))
		out.Values = append(out.Values, []float64{t.Values[i][0] * float64(p), model, float64(min(p, 256))})
	}
	return out
}

// counterCapModel feeds every access of workload (set up on one GPU) to an
// observuvm counter unit of capacity counters, threshold x, 2 MB granules,
// that is never cleared, and returns its notifications: Fig. 3's
// experiment on the model.
func counterCapModel(workload string, capacity int) (uint64, error) {
	_, ks, err := setupAt(workload, 1)
	if err != nil {
		return 0, err
	}
	const page = 4096
	u, err := observuvm.NewCounterUnit(capacity, synthetic.CounterCapAccesses, observuvm.ACBMGranularity, page)
	if err != nil {
		return 0, err
	}
	benchmarks.EachInstruction(ks, func(in *benchmarks.Instruction) {
		for l := 0; l < in.Lanes; l++ {
			u.Access(objtable.Strip(in.Addr[l])/page, observuvm.HostSource())
		}
	})
	return u.Stats().Notifications, nil
}
