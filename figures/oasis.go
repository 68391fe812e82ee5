package figures

// OASIS's figures ("OASIS: Object-Aware Page Management for Multi-GPU
// Systems", HPCA 2025): Figs. 2 and 15-25 on 4 GPUs and the cost-model
// ablation; docs/oasis.md sets them beside the paper. Its characterisation
// figures (§IV) are in characterization_figs.go.

import (
	"maps"
	"slices"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/sweep"
)

func init() { register("oasis", oasisFigures) }

var ot4 = Selector{Policy: "on-touch", GPUs: 4}

// policies of fig. 15 in the paper's order.
var fig15Policies = []string{"on-touch", "access-counter", "duplication", "oasis", "oasis-inmem", "ideal"}

// oasisFigures are OASIS's figures (HPCA 2025, §VI), in its order, and the
// cost-model ablation of its Fig. 15.
func oasisFigures() []Figure {
	fig15 := Figure{
		Name: "fig15", Title: "OASIS Fig. 15: speedup over on-touch (4 GPUs)", YLabel: "speedup over on-touch",
		Specs: func(w []string) []sweep.Spec { return []sweep.Spec{spec(w, fig15Policies, []int{4}, "", nil)} },
		Series: speedups(ot4, sel("access-counter", 4), sel("duplication", 4), sel("oasis", 4),
			sel("oasis-inmem", 4), sel("ideal", 4)),
	}
	fig2 := fig15
	fig2.Name, fig2.Title = "fig2", "OASIS Fig. 2: uniform policies and Ideal over on-touch (4 GPUs)"
	fig2.Series = speedups(ot4, sel("access-counter", 4), sel("duplication", 4), sel("ideal", 4))
	figs := []Figure{fig2, fig15,
		{Name: "fig16", Title: "OASIS Fig. 16: reset thresholds 4, 8, 32", YLabel: "speedup over on-touch",
			Specs: func(w []string) []sweep.Spec {
				return []sweep.Spec{spec(w, []string{"on-touch"}, []int{4}, "", nil),
					spec(w, []string{"oasis"}, []int{4}, "", map[string][]string{"policy.reset_threshold": {"4", "8", "32"}})}
			},
			Series: speedups(ot4, sel("oasis", 4, "policy.reset_threshold", "4"), sel("oasis", 4, "policy.reset_threshold", "8"),
				sel("oasis", 4, "policy.reset_threshold", "32"))},
		{Name: "fig17", Title: "OASIS Fig. 17: 8 and 16 GPUs (Table III sizes)", YLabel: "speedup over on-touch",
			Specs: func(w []string) []sweep.Spec {
				return []sweep.Spec{spec(w, []string{"on-touch", "oasis"}, []int{8, 16}, "", nil)}
			},
			Series: append(speedups(sel("on-touch", 8), sel("oasis", 8)), speedups(sel("on-touch", 16), sel("oasis", 16))...)},
		{Name: "fig18", Title: "OASIS Fig. 18: 16-GPU input sizes on 4 GPUs", YLabel: "speedup over on-touch",
			Specs: func(w []string) []sweep.Spec {
				return []sweep.Spec{spec(w, []string{"on-touch", "access-counter", "duplication", "oasis"}, []int{4}, benchmarks.Size16GPU, nil)}
			},
			Series: speedups(ot4, sel("access-counter", 4), sel("duplication", 4), sel("oasis", 4))},
		onePolicy("fig19", "OASIS Fig. 19: 2 MB pages", "page_size", "2MB", "on-touch", "access-counter", "duplication", "oasis"),
		onePolicy("fig21", "OASIS Fig. 21: pages initially spread over the GPUs", "placement", "spread", "on-touch", "oasis"),
		// GRIT twice: its PA lookups beside the host walk (GRIT §V-B, the
		// default) and after it (policy.grit_pa_lookup=serial), the
		// reading OASIS §VI-C's explanation of its lead needs.
		{Name: "fig22", Title: "OASIS Fig. 22: OASIS vs GRIT", YLabel: "speedup over on-touch",
			Specs: func(w []string) []sweep.Spec {
				return []sweep.Spec{spec(w, []string{"on-touch", "grit", "oasis"}, []int{4}, "", nil),
					spec(w, []string{"grit"}, []int{4}, "", map[string][]string{"policy.grit_pa_lookup": {"serial"}})}
			},
			Series: speedups(ot4, sel("grit", 4), sel("grit", 4, "policy.grit_pa_lookup", "serial"), sel("oasis", 4))},
		{Name: "fig23", Title: "OASIS Fig. 23: L2 TLB misses by PTE policy bits under OASIS", YLabel: "share of L2 TLB misses", Stacked: true,
			Specs: func(w []string) []sweep.Spec { return []sweep.Spec{spec(w, []string{"oasis"}, []int{4}, "", nil)} },
			Series: []Series{{Label: "on-touch", Run: sel("oasis", 4), Metric: ShareOnTouch},
				{Label: "access-counter", Run: sel("oasis", 4), Metric: ShareAccessCounter},
				{Label: "duplication", Run: sel("oasis", 4), Metric: ShareDuplication}}},
		{Name: "fig24", Title: "OASIS Fig. 24: page faults relative to on-touch", YLabel: "page faults / on-touch",
			Specs: func(w []string) []sweep.Spec {
				return []sweep.Spec{spec(w, []string{"on-touch", "grit", "oasis"}, []int{4}, "", nil)}
			},
			Series: []Series{{Label: "grit", Run: sel("grit", 4), Base: ot4, Metric: Faults},
				{Label: "oasis", Run: sel("oasis", 4), Base: ot4, Metric: Faults}}},
		onePolicy("fig25", "OASIS Fig. 25: 150% oversubscription", "oversubscribe", "1.5", "on-touch", "oasis"),
	}
	return append(figs, fidelityAblation())
}

// onePolicy is a figure of policies[1:] over policies[0], on 4 GPUs, with
// key set to value in every run.
func onePolicy(name, title, key, value string, policies ...string) Figure {
	var runs []Selector
	for _, p := range policies[1:] {
		runs = append(runs, sel(p, 4, key, value))
	}
	return Figure{Name: name, Title: title, YLabel: "speedup over on-touch",
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{spec(w, policies, []int{4}, "", map[string][]string{key: {value}})}
		},
		Series: speedups(sel(policies[0], 4, key, value), runs...)}
}

// AblationSteps are the cost-model levers of the fidelity work (issue 13),
// added one at a time to the model mgpu had before it: each step's keys
// are the ones it changes from the previous step. Step 11 is the current
// default; step 8 shows the driver's access-counter reading beside step 7.
var AblationSteps = []struct {
	Label string
	Sets  []string // key, value, key, value...
}{
	{"0 before", []string{"uvm.host_threads", "0", "uvm.fault_service_ns", "45000", "uvm.per_fault_ns", "400",
		"distribution", "greedy", "policy.dup_write_first", "migrate", "policy.ac_migrate", "group", "gpu.remote_l1v", "false", "gpu.shootdown_flush_all", "false",
		"policy.ac_host", "migrate", "im2col", "per-element", "link.pcie_topology", "pairs", "link.future_sends", "reserve"}},
	{"1 host threads", []string{"uvm.host_threads", "16", "uvm.fault_service_ns", "0", "uvm.per_fault_ns", "1000"}},
	{"2 mgpusim dispatch", []string{"distribution", "mgpusim"}},
	{"3 dup read-only first", []string{"policy.dup_write_first", "read-only-copy"}},
	{"4 AC per page", []string{"policy.ac_migrate", "page"}},
	{"5 remote in L1V", []string{"gpu.remote_l1v", "true"}},
	{"6 shootdown flushes caches", []string{"gpu.shootdown_flush_all", "true"}},
	{"7 AC zero-copy host pages", []string{"policy.ac_host", "remote"}},
	// Not a lever but the other reading of item 4: access counters as the
	// NVIDIA driver runs them (group migration with thrashing control).
	{"8 AC as the driver", []string{"policy.ac_migrate", "group", "uvm.thrashing", "true"}},
	// Issue 29's workload step, on step 7 (it undoes step 8): the DNN-Mark
	// workloads' im2col as MGPUSim's gputensor runs it. The default.
	{"9 im2col as MGPUSim", []string{"im2col", "mgpusim", "policy.ac_migrate", "page", "uvm.thrashing", "false"}},
	// Issue 29, step 2: PCIe as MGPUSim's platform wires it, a switch per
	// two GPUs under one root complex. The default.
	{"10 PCIe tree as MGPUSim", []string{"link.pcie_topology", "tree"}},
	// A fix, not a lever: links take a message dated later than now onto
	// their lane when it is due instead of booking it at once (issue 32
	// found the head-of-line blocking). The default.
	{"11 dated sends held", []string{"link.future_sends", "hold"}},
}

// fidelityAblation is fig15 under each ablation step: the speedup of the
// uniform policies, OASIS and Ideal over on-touch at that step.
func fidelityAblation() Figure {
	policies := []string{"on-touch", "access-counter", "duplication", "oasis", "ideal"}
	var steps [][]string
	cur := map[string]string{}
	for _, st := range AblationSteps {
		for i := 0; i+1 < len(st.Sets); i += 2 {
			cur[st.Sets[i]] = st.Sets[i+1]
		}
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(cur)) {
			kv = append(kv, k, cur[k])
		}
		steps = append(steps, kv)
	}
	var series []Series
	for i, kv := range steps {
		base := sel("on-touch", 4, kv...)
		for _, p := range policies[1:] {
			series = append(series, Series{Label: AblationSteps[i].Label + ": " + p, Run: sel(p, 4, kv...), Base: base, Metric: Speedup})
		}
	}
	return Figure{Name: "fidelity-ablation", Title: "fig15 averages under each cost-model step", YLabel: "mean speedup over on-touch",
		Summary: stepAverages,
		Specs: func(w []string) []sweep.Spec {
			var out []sweep.Spec
			for _, kv := range steps {
				sets := map[string][]string{}
				for i := 0; i+1 < len(kv); i += 2 {
					sets[kv[i]] = []string{kv[i+1]}
				}
				out = append(out, spec(w, policies, []int{4}, "", sets))
			}
			return out
		},
		Series: series}
}
