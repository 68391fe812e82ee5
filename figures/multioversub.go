package figures

import "github.com/mgpu-sim/mgpu/sweep"

// The combinations of multiOversub: what a single-GPU oversubscription
// runtime adds to a multi-GPU policy at 150% on 4 GPUs. Only the driver's
// tree prefetcher and Early-Adaptor (which sets its thresholds) combine
// with OASIS and GRIT today: UVMSmart, ObservUVM, SUV and SC adapt the
// stock driver's on-touch migration, and UVMMU's hardware handling is
// on-touch, so the platform refuses them beside another policy. Those
// combinations need rules no paper has given (which of a runtime's
// decisions wins against a page's OASIS or GRIT policy bits).
var (
	multiOversubBase = []string{"oversubscribe", "1.5"}
	multiOversubTBN  = []string{"oversubscribe", "1.5", "uvm.prefetch.policy", "tbn"}
	multiOversubEA   = []string{"oversubscribe", "1.5", "uvm.prefetch.policy", "tbn", "uvm.prefetch_control", "early-adaptor"}
)

// multiOversub runs OASIS and GRIT at 150% on 4 GPUs alone, with the
// driver's tree prefetcher at 51%, and with Early-Adaptor choosing its
// thresholds, each over on-touch at 150% without prefetching (OASIS Fig.
// 25's baseline); on-touch with the prefetcher and with Early-Adaptor are
// the single-GPU runtimes as the papers ran them, here on 4 GPUs.
// Early-Adaptor's windows stay at their defaults (its own figures scale
// them by footprint; no paper says how they should scale with GPUs).
func multiOversub() Figure {
	policies := []string{"on-touch", "oasis", "grit"}
	var series []Selector
	for _, p := range policies {
		if p != "on-touch" {
			series = append(series, sel(p, 4, multiOversubBase...))
		}
		series = append(series, sel(p, 4, multiOversubTBN...), sel(p, 4, multiOversubEA...))
	}
	return Figure{Name: "multi-oversub", YLabel: "speedup over on-touch at 150%",
		Title: "OASIS and GRIT at 150% on 4 GPUs, alone, with the tree prefetcher and with Early-Adaptor",
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{spec(w, policies, []int{4}, "", fixed(multiOversubBase)),
				spec(w, policies, []int{4}, "", fixed(multiOversubTBN)),
				spec(w, policies, []int{4}, "", fixed(multiOversubEA))}
		},
		Series: speedups(sel("on-touch", 4, multiOversubBase...), series...)}
}
