package figures

import (
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/sweep"
)

// multi-oversub runs the oversubscription runtimes beside OASIS and GRIT,
// which no paper has; docs/oversubscription.md reports it.
func init() { register("oversubscription", func() []Figure { return []Figure{multiOversub()} }) }

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
// Early-Adaptor's windows scale by each GPU's share of the footprint over
// EA's (eaWindows, as the ea-* figures scale them by a GPU's footprint):
// unscaled, its 1 s long window outlasts every run and it never analyses.
// No paper says how they should scale with GPUs; a GPU's share is what
// each GPU's controller sees.
func multiOversub() Figure {
	const gpus = 4
	policies := []string{"on-touch", "oasis", "grit"}
	var series []Selector
	for _, p := range policies {
		if p != "on-touch" {
			series = append(series, sel(p, gpus, multiOversubBase...))
		}
		ea := sel(p, gpus, multiOversubEA...)
		ea.PerRun = func(r *platform.Result) map[string]string {
			return eaWindows(r.Workload, uint64(r.Footprint)/uint64(max(r.GPUs, 1)))
		}
		series = append(series, sel(p, gpus, multiOversubTBN...), ea)
	}
	return Figure{Name: "multi-oversub", YLabel: "speedup over on-touch at 150%",
		Title: "OASIS and GRIT at 150% on 4 GPUs, alone, with the tree prefetcher and with Early-Adaptor",
		SpecsAt: func(w []string, scale float64) ([]sweep.Spec, error) {
			specs := []sweep.Spec{spec(w, policies, []int{gpus}, "", fixed(multiOversubBase)),
				spec(w, policies, []int{gpus}, "", fixed(multiOversubTBN))}
			for _, wl := range w {
				alloc, _, err := setupOn(wl, scale, gpus)
				if err != nil {
					return nil, err
				}
				sets := fixed(multiOversubEA)
				for k, v := range eaWindows(wl, alloc.Footprint()/gpus) {
					sets[k] = []string{v}
				}
				specs = append(specs, spec([]string{wl}, policies, []int{gpus}, "", sets))
			}
			return specs, nil
		},
		Series: speedups(sel("on-touch", gpus, multiOversubBase...), series...)}
}
