package figures

import (
	"maps"
	"strconv"

	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/plots"
	"github.com/mgpu-sim/mgpu/sweep"
)

func init() { register("suv", suvFigures) }

// SUVWorkloads are SUV's Table I applications, in its order ("SUV: Static
// Analysis Guided Unified Virtual Memory", MICRO 2024, §VI, Table I): 2DC,
// AN, BFS, BCG, BTR, DTG, FDT, FW, GMM, GRM, HEL, MM, MVT, SN, XSB.
var SUVWorkloads = []string{"2dconv", "alexnet", "rbfs", "bicgstab", "btree", "doitgen", "fdtd2d", "floyd-warshall",
	"gmm", "gramschmidt", "hellinger", "mm-tiled", "mvt", "squeezenet", "xsbench"}

// suvTypes are Table I's types, reduced to the one that sets each
// application's treatment (iterative, unknown and temporal before the
// density every application has), for the figures' group rows.
var suvTypes = map[string]string{"doitgen": "iterative", "floyd-warshall": "iterative", "gramschmidt": "iterative",
	"rbfs": "unknown", "btree": "unknown", "xsbench": "unknown",
	"alexnet": "temporal", "gmm": "temporal", "hellinger": "temporal", "mm-tiled": "temporal", "squeezenet": "temporal",
	"2dconv": "density", "bicgstab": "density", "fdtd2d": "density", "mvt": "density"}

func suvTypeRows(t plots.Table) plots.Table {
	return groupRows(t, func(app string) string { return suvTypes[app] }, []string{"iterative", "unknown", "temporal", "density"})
}

// SUV's oversubscription levels (§VI-A: footprint over the HBM left after
// a cudaMalloc reservation, the existing --oversubscribe), and 0%: all
// of the GPU's memory.
const (
	over115 = "1.15"
	over130 = "1.3"
)

var suvLevels = []string{over100, over115, over130, over150}

func suvLevelLabel(o string) string {
	switch o {
	case over100:
		return "0%"
	case over115:
		return "15%"
	case over130:
		return "30%"
	case over150:
		return "50%"
	}
	return o
}

// suvBase is SUV's machine and its UVM: one RTX 3090 (§VI; the same
// testbed as ObservUVM's Sec. VII), the driver's tree prefetcher at 51
// and LRM eviction (§VI-B "UVM").
func suvBase(over string) []string {
	return join(rtx3090, []string{"oversubscribe", over, "uvm.prefetch.policy", "tbn", "uvm.prefetch.threshold", "51"})
}

// suvRun is SUV-Mgmt (mode suv) or the SC baseline (mode sc) over suvBase.
func suvRun(mode, over string, extra ...string) []string {
	return join(suvBase(over), []string{"uvm.adaptive", mode}, extra)
}

// suvAC is the AC baseline: NVIDIA's access-counter migration, 256
// accesses over 2 MB regions (§VI-B "AC"), as the driver SUV cites for it
// runs it: a first touch faults and migrates under TBP, an evicted page
// stays mapped over PCIe ("accessed over the PCIe without faulting", §II)
// until its region's counter reaches 256, on the GPU's 256 counters.
func suvAC(over string) []string {
	return join(suvBase(over), acbmSets)
}

func suvSel(kv []string) Selector   { return sel(oversubPolicy, 1, kv...) }
func suvACSel(over string) Selector { return sel("access-counter", 1, suvAC(over)...) }

func suvSpec(w []string, kv []string) sweep.Spec {
	return spec(w, []string{oversubPolicy}, []int{1}, "", fixed(kv))
}

// suvFig5 is SUV Fig. 5: runtime of UVM and SUV at 0, 15, 30 and 50%,
// over UVM's at 0% (lower is better).
func suvFig5() Figure {
	base := suvSel(suvBase(over100))
	var series []Series
	var specs []func(w []string) sweep.Spec
	for _, cfg := range []struct {
		label string
		kv    func(over string) []string
	}{{"UVM", suvBase}, {"SUV", func(o string) []string { return suvRun("suv", o) }}} {
		for _, o := range suvLevels {
			kv := cfg.kv(o)
			series = append(series, Series{Label: cfg.label + " @" + suvLevelLabel(o), Run: suvSel(kv), Base: base, Metric: Slowdown})
			specs = append(specs, func(w []string) sweep.Spec { return suvSpec(w, kv) })
		}
	}
	return Figure{Name: "suv-fig5", Title: "SUV Fig. 5: runtime of UVM and SUV at 0-50% oversubscription, over UVM at 0% (RTX 3090)",
		YLabel: "time over UVM at 0%", Workloads: SUVWorkloads, Series: series, Summary: suvTypeRows,
		Specs: func(w []string) []sweep.Spec {
			var out []sweep.Spec
			for _, s := range specs {
				out = append(out, s(w))
			}
			return out
		}}
}

// suvFig6 is SUV Fig. 6: SUV's page faults over UVM's at 50%.
func suvFig6() Figure {
	return Figure{Name: "suv-fig6", Title: "SUV Fig. 6: page faults of SUV over UVM at 50% oversubscription",
		YLabel: "faults over UVM", Workloads: SUVWorkloads, Summary: suvTypeRows,
		Series: []Series{{Label: "SUV", Run: suvSel(suvRun("suv", over150)), Base: suvSel(suvBase(over150)), Metric: Faults}},
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{suvSpec(w, suvBase(over150)), suvSpec(w, suvRun("suv", over150))}
		}}
}

// suvCompare are the runs of Figs. 7 and 8: SUV, SC and AC at 50%.
func suvCompare(w []string) []sweep.Spec {
	ac := spec(w, []string{"access-counter"}, []int{1}, "", fixed(suvAC(over150)))
	return []sweep.Spec{suvSpec(w, suvRun("suv", over150)), suvSpec(w, suvRun("sc", over150)), ac}
}

// suvFig7 is SUV Fig. 7: SC's and AC's runtime over SUV's at 50% (the
// paper normalises to SUV: above 1, SUV is faster).
func suvFig7() Figure {
	s := suvSel(suvRun("suv", over150))
	return Figure{Name: "suv-fig7", Title: "SUV Fig. 7: runtime of SC and AC over SUV at 50% oversubscription",
		YLabel: "time over SUV", Workloads: SUVWorkloads, Summary: suvTypeRows, Specs: suvCompare,
		Series: []Series{
			{Label: "SC", Run: suvSel(suvRun("sc", over150)), Base: s, Metric: Slowdown},
			{Label: "AC", Run: suvACSel(over150), Base: s, Metric: Slowdown},
		}}
}

// suvFig8 is SUV Fig. 8: bytes over PCIe (both directions, migrations and
// remote accesses) of SC and AC over SUV's, at 50%. The paper normalises
// to SUV ("PCIe traffic normalized to that of SUV"), as in Fig. 7, and
// gives its averages as SUV's saving ("81% less"): read as one minus the
// inverse of the mean bar, the table's "average" row is the comparable one.
func suvFig8() Figure {
	s := suvSel(suvRun("suv", over150))
	return Figure{Name: "suv-fig8", Title: "SUV Fig. 8: PCIe bytes of SC and AC over SUV at 50% oversubscription",
		YLabel: "PCIe bytes over SUV's", Workloads: SUVWorkloads, Summary: suvTypeRows, Specs: suvCompare,
		Series: []Series{
			{Label: "SC", Run: suvSel(suvRun("sc", over150)), Base: s, Metric: PCIeBytes},
			{Label: "AC", Run: suvACSel(over150), Base: s, Metric: PCIeBytes},
		}}
}

// suvFig9 is SUV Fig. 9: SUV's speedup over UVM with no oversubscription.
func suvFig9() Figure {
	return Figure{Name: "suv-fig9", Title: "SUV Fig. 9: speedup of SUV over UVM with no oversubscription",
		YLabel: "speedup over UVM", Workloads: SUVWorkloads, Summary: suvTypeRows,
		Series: []Series{{Label: "SUV", Run: suvSel(suvRun("suv", over100)), Base: suvSel(suvBase(over100)), Metric: Speedup}},
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{suvSpec(w, suvBase(over100)), suvSpec(w, suvRun("suv", over100))}
		}}
}

// SUVDensityThresholds is the sweep of Temporal's density threshold
// (footnote 4 fixes 5 by a microbenchmark; the paper does not sweep it).
var SUVDensityThresholds = []float64{1, 2.5, 5, 10, 20}

// suvDensity is the density-threshold sweep at 50%: SUV's speedup at
// each threshold over SUV at 5.
func suvDensity() Figure {
	at := func(d float64) []string {
		return suvRun("suv", over150, "uvm.suv.density_threshold", strconv.FormatFloat(d, 'g', -1, 64))
	}
	base := suvSel(at(5))
	var series []Series
	var values []string
	for _, d := range SUVDensityThresholds {
		series = append(series, Series{Label: "threshold " + strconv.FormatFloat(d, 'g', -1, 64), Run: suvSel(at(d)), Base: base, Metric: Speedup})
		values = append(values, strconv.FormatFloat(d, 'g', -1, 64))
	}
	return Figure{Name: "suv-density", Title: "SUV density-threshold sweep at 50% oversubscription: speedup over the paper's 5",
		YLabel: "speedup over threshold 5", Workloads: SUVWorkloads, Summary: suvTypeRows, Series: series,
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{spec(w, []string{oversubPolicy}, []int{1}, "",
				withSweep(fixed(suvRun("suv", over150)), "uvm.suv.density_threshold", values...))}
		}}
}

// suvTableIMB is SUV's Table I footprint of each application, in MB.
var suvTableIMB = map[string]float64{"2dconv": 8192, "alexnet": 3504, "rbfs": 2610, "bicgstab": 4096, "btree": 5120,
	"doitgen": 8192, "fdtd2d": 6912, "floyd-warshall": 4096, "gmm": 6912, "gramschmidt": 3072, "hellinger": 6912,
	"mm-tiled": 5760, "mvt": 4096, "squeezenet": 4976, "xsbench": 3884}

// SUVPaperScales are the scales at which each SUV workload's footprint is
// its Table I footprint (suvTableIMB, MB read as MiB), to a hundredth
// (TestPaperScales checks each within 2%).
var SUVPaperScales = map[string]float64{
	"2dconv": 30.97, "alexnet": 15.73, "rbfs": 79.08, "bicgstab": 15.98, "btree": 32, "doitgen": 261.33,
	"fdtd2d": 26.21, "floyd-warshall": 32, "gmm": 576, "gramschmidt": 256, "hellinger": 877.71, "mm-tiled": 71.35,
	"mvt": 15.99, "squeezenet": 15.93, "xsbench": 31.98,
}

// SUVSimilarScales are SUV's similar size: for each workload the smallest
// power of two (or its paper scale, if smaller) at which the share of each
// of SUV's classes among its (launch, object) pairs is within
// suvSimilarTolerance of its share at the paper's size (SUVPaperScales).
// The class is what Algorithm 1 acts on, and size sets it: a structure is
// Temporal when the working set a GPU's resident workgroups span is under
// half of it, and that working set does not grow with the input, so at
// the default size most of Table I's Temporal structures are Density
// (2DC, FDT, MM, GMM, FW). TestSUVSimilarScales checks the rule.
var SUVSimilarScales = map[string]float64{
	"2dconv": 4, "alexnet": 4, "rbfs": 1, "bicgstab": 1, "btree": 1, "doitgen": 1, "fdtd2d": 4,
	"floyd-warshall": 16, "gmm": 64, "gramschmidt": 16, "hellinger": 1, "mm-tiled": 4, "mvt": 15.99,
	"squeezenet": 2, "xsbench": 4,
}

// suvSimilarTolerance is how far, in share of (launch, object) pairs, a
// class may be from its share at the paper's size at the similar size. No
// paper gives one; 5 points lets AlexNet's and SqueezeNet's layer tensors,
// which turn Temporal one by one as the input grows, settle.
const suvSimilarTolerance = 0.05

// suvSampled is one workgroup in how many the similar size (and above)
// simulates of the SUV applications that issue more than 64 M memory
// instructions there (observSampledBudget, ObservUVM's rule): the
// smallest power of two that brings each under it. At the similar size
// they issue about 101 M (FDT), 83 M (FW), 147 M (MM), 537 M (MVT) and
// 17 G (GMM) instructions (platform.EstimateInstructions); GRM 232 M at
// one in 8, and one in 16 keeps one workgroup of each of its launches.
// The workgroups not kept still issue their outlines
// (benchmarks.SampleWorkgroups), so FDT at one in 2 issues 72 M and
// needs one in 4.
// SUV still plans from the whole grid's hints (benchmarks.Kernel.Access):
// its compiler sees the program, not the truncation. TestSUVSampledBudget
// checks the rule.
var suvSampled = map[string]int{"fdtd2d": 4, "floyd-warshall": 2, "mm-tiled": 4, "mvt": 16, "gramschmidt": 16, "gmm": 512}

// suvSizeSets are the sets a run of workload at scale takes from its size:
// the truncation, at the similar scale and above.
func suvSizeSets(workload string, scale float64) map[string]string {
	if n, ok := suvSampled[workload]; ok && scale >= SUVSimilarScales[workload] {
		return map[string]string{"sample_workgroups": strconv.Itoa(n)}
	}
	return nil
}

// suvTruncated turns a figure's specs into specs by scale that truncate
// each suvSampled workload at or above its similar scale.
func suvTruncated(specs func(w []string) []sweep.Spec) func(w []string, scale float64) ([]sweep.Spec, error) {
	return func(ws []string, scale float64) ([]sweep.Spec, error) {
		var out []sweep.Spec
		for _, w := range ws {
			for _, sp := range specs([]string{w}) {
				if extra := suvSizeSets(w, scale); extra != nil {
					sets := maps.Clone(sp.Sets)
					for k, v := range extra {
						sets[k] = []string{v}
					}
					sp.Sets = sets
				}
				out = append(out, sp)
			}
		}
		return out, nil
	}
}

// suvSized makes a selector match its runs at any size, truncated or not.
func suvSized(s Selector) Selector {
	s.PerRun = func(r *platform.Result) map[string]string { return suvSizeSets(r.Workload, r.Scale) }
	return s
}

// suvFigures are SUV's figures.
func suvFigures() []Figure {
	figs := sized(SUVWorkloads, SUVPaperScales, SUVSimilarScales, []Figure{suvFig5(), suvFig6(), suvFig7(), suvFig8(), suvFig9(), suvDensity()})
	for i := range figs {
		figs[i].SpecsAt = suvTruncated(figs[i].Specs)
		for j := range figs[i].Series {
			figs[i].Series[j].Run, figs[i].Series[j].Base = suvSized(figs[i].Series[j].Run), suvSized(figs[i].Series[j].Base)
		}
	}
	return figs
}
