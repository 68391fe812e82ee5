package figures

// UVMMU's figures (Park, Jeong, Kim, "UVMMU: Hardware-Offloaded Page
// Migration for Heterogeneous Computing", DATE 2023: its setup in §V-A1
// and Table I, Fig. 1, Fig. 4, Fig. 5 and Fig. 6); docs/uvmmu.md sets them
// beside the paper.

import (
	"fmt"
	"strconv"

	"github.com/mgpu-sim/mgpu/sweep"
)

func init() {
	register("uvmmu", func() []Figure { return []Figure{uvmmuFig1(), uvmmuFig4(), uvmmuFig5(), uvmmuFig6()} })
}

// UVMMUWorkloads are UVMSmart's Rodinia and PolyBench ports UVMMU
// evaluates (§V-A1: nine workloads from Rodinia and PolyBench, of which
// §V-A2 names only RA, NW and BFS; which nine is not stated in the paper,
// so UVMSmart's: backprop, bfs, hotspot, nw, pathfinder, srad_v2, 2DCONV,
// ATAX, FDTD-2D) and RA, ordered by EA class as EAWorkloads. RA is
// UVMSmart's own (uvmsmart-ra, benchmarks/Managed/ra), the program UVMMU's
// simulator ran, not HPCC's RandomAccess (ra).
var UVMMUWorkloads = []string{"2dconv", "fdtd2d", "hotspot", "pathfinder", "backprop", "srad", "atax", "nw", "uvmsmart-ra", "rbfs"}

// UVMMUPaperScales are the scales at which each UVMMU workload runs
// UVMSmart's own input (github.com/DebashisGanguly/gpgpu-sim_UVMSmart,
// benchmarks/Managed: each program's #defines and run script, checked
// against its simulation logs), which UVMMU simulated on its GTX 1080 Ti:
// 2dconv NI = NJ = 1024; fdtd2d NX = NY = 1200, 5 steps (n must be a
// multiple of 32: 1184, the nearest in bytes); hotspot 1024 x 1024;
// pathfinder 50000 columns, 200 rows; backprop 131056 inputs; srad
// 1024 x 1024 (UVMSmart manages only J of its six arrays, mgpu all six);
// atax NX = NY = 1200 (a multiple of 64: 1216); nw 1024; bfs graph256k,
// 261,444 nodes (a multiple of 512: 261,632, mgpu's own random graph of
// about 6 edges per node, as graphgen's); and uvmsmart-ra, N = 2^20, its
// 12 MiB (scale 1).
var UVMMUPaperScales = map[string]float64{
	"2dconv": 0.030314, "fdtd2d": 0.062479, "hotspot": 0.045471, "pathfinder": 0.149812,
	"backprop": 1, "srad": 1, "atax": 0.021858, "nw": 0.029920, "uvmsmart-ra": 1, "rbfs": 0.2946,
}

// UVMMUFaultLatencies are UVMMU Fig. 1's software fault-handling
// latencies in ns: 50, 20 and 0 us.
var UVMMUFaultLatencies = []string{"50000", "20000", "0"}

// uvmmuUM is UVMMU's "NVIDIA UM" baseline as UVMSmart's GPGPU-Sim models it
// (UVMMU §II-B and §V-A1; the 2 MB LRU eviction is that simulator's
// default, not stated in the paper): the GTX 1080 Ti, the tree prefetcher
// with the "more than half" rule (threshold 50) over 64 KB leaves
// (big-page fill on, the default), LRU eviction of 2 MB (-eviction_policy
// 0), one fault batch at a time. The handling latency is charged as that
// simulator charges it, per distinct newly faulting page, serially
// (uvm.per_fault_charge=new-pages, whose doc gives the source), on
// uvmmuLatencyKey; no fixed time per batch. mgpu's default charges a
// batch (the multi-GPU lineage's); docs/uvmmu.md compares the two.
func uvmmuUM() []string {
	return join(gtx1080ti, []string{"uvm.host_threads", "0", "uvm.fault_service_ns", "0", "uvm.per_fault_charge", "new-pages",
		"uvm.prefetch.policy", "tbn", "uvm.prefetch.threshold", "50", "uvm.eviction", "lru-2mb"})
}

// uvmmuLatencyKey carries the UM baseline's handling latency: per new
// page, as UVMSmart's simulator charges it.
const uvmmuLatencyKey = "uvm.per_fault_ns"

func uvmmuSel(latency, over string) Selector {
	return sel(oversubPolicy, 1, join(uvmmuUM(), []string{uvmmuLatencyKey, latency, "oversubscribe", over})...)
}

// uvmmuFig1 is UVMMU Fig. 1: the speedup of 20 us and 0 us fault handling
// over 50 us, at 100%, 125% and 150% (each over 50 us at the same point).
func uvmmuFig1() Figure {
	var series []Series
	for _, o := range []string{over100, over125, over150} {
		base := uvmmuSel(UVMMUFaultLatencies[0], o)
		for _, l := range UVMMUFaultLatencies[1:] {
			us, _ := strconv.Atoi(l)
			series = append(series, Series{Label: fmt.Sprintf("%dus @%s", us/1000, overLabel(o)), Run: uvmmuSel(l, o), Base: base, Metric: Speedup})
		}
	}
	return Figure{Name: "uvmmu-fig1", Title: "UVMMU Fig. 1: fault latency 20 and 0 us over 50 us (GTX 1080 Ti, NVIDIA UM) at 100/125/150%",
		YLabel: "speedup over 50 us faults", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs: func(w []string) []sweep.Spec {
			sets := withSweep(fixed(uvmmuUM()), uvmmuLatencyKey, UVMMUFaultLatencies...)
			return []sweep.Spec{spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", over100, over125, over150))}
		},
		Series: series, Summary: classRows}
}

// UVMMUEvictions are UVMMU Fig. 5's victim choices under hardware
// handling: the paper's Linear-Random first, then Sequential-local, Tree-
// based and NRU.
var UVMMUEvictions = []string{"linear-random", "sequential-local", "tbn", "nru"}

// uvmmuHW is UVMMU on the GTX 1080 Ti: hardware fault handling, no
// prefetcher, victims chosen by ev.
func uvmmuHW(ev string) []string {
	return join(gtx1080ti, []string{"uvm.fault_handling", "hardware", "uvm.eviction", ev})
}

func uvmmuHWSel(ev, over string) Selector {
	return sel(oversubPolicy, 1, join(uvmmuHW(ev), []string{"oversubscribe", over})...)
}

// uvmmuBaselineLatency is the NVIDIA UM baseline's software handling,
// 45 us (UVMMU Table I; UVMSmart's page_fault_latency).
const uvmmuBaselineLatency = "45000"

func uvmmuHWSpec(w []string, evs []string, overs ...string) sweep.Spec {
	sets := withSweep(fixed(uvmmuHW(evs[0])), "uvm.eviction", evs...)
	return spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", overs...))
}

func uvmmuUMSpec(w []string, overs ...string) sweep.Spec {
	sets := withSweep(fixed(uvmmuUM()), uvmmuLatencyKey, uvmmuBaselineLatency)
	return spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(sets, "oversubscribe", overs...))
}

// uvmmuSmart is UVMSmart (DATE'21) as UVMMU Fig. 4's middle bar: the
// NVIDIA UM baseline with UVMSmart's runtime, which at the first eviction
// may turn on zero-copy and tree eviction (package uvmsmart).
func uvmmuSmart() []string {
	return join(uvmmuUM(), []string{uvmmuLatencyKey, uvmmuBaselineLatency, "uvm.adaptive", "uvmsmart"})
}

func uvmmuSmartSel(over string) Selector {
	return sel(oversubPolicy, 1, join(uvmmuSmart(), []string{"oversubscribe", over})...)
}

func uvmmuSmartSpec(w []string, overs ...string) sweep.Spec {
	return spec(w, []string{oversubPolicy}, []int{1}, "", withSweep(fixed(uvmmuSmart()), "oversubscribe", overs...))
}

// uvmmuFig4 is UVMMU Fig. 4: UVMSmart's and UVMMU's speedups over NVIDIA
// UM (45 us software handling, tree prefetch, LRU 2 MB) at 100, 125 and
// 150%, and UVMMU's over UVMSmart (the paper's 2.21x and 2.40x).
func uvmmuFig4() Figure {
	overs := []string{over100, over125, over150}
	var series []Series
	for _, o := range overs {
		um := uvmmuSel(uvmmuBaselineLatency, o)
		series = append(series,
			Series{Label: "UVMSmart @" + overLabel(o), Run: uvmmuSmartSel(o), Base: um, Metric: Speedup},
			Series{Label: "UVMMU @" + overLabel(o), Run: uvmmuHWSel("linear-random", o), Base: um, Metric: Speedup})
	}
	for _, o := range overs {
		series = append(series, Series{Label: "UVMMU/UVMSmart @" + overLabel(o), Run: uvmmuHWSel("linear-random", o),
			Base: uvmmuSmartSel(o), Metric: Speedup})
	}
	return Figure{Name: "uvmmu-fig4", Title: "UVMMU Fig. 4: UVMSmart and UVMMU over NVIDIA UM (GTX 1080 Ti) at 100/125/150%",
		YLabel: "speedup over NVIDIA UM", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{uvmmuUMSpec(w, overs...), uvmmuSmartSpec(w, overs...), uvmmuHWSpec(w, UVMMUEvictions[:1], overs...)}
		},
		Series: series, Summary: classRows}
}

// uvmmuFig5 is UVMMU Fig. 5: each victim choice under UVMMU, as a speedup
// over Linear-Random at 125% and 150%.
func uvmmuFig5() Figure {
	overs := []string{over125, over150}
	var series []Series
	for _, o := range overs {
		for _, ev := range UVMMUEvictions[1:] {
			series = append(series, Series{Label: ev + " @" + overLabel(o), Run: uvmmuHWSel(ev, o),
				Base: uvmmuHWSel(UVMMUEvictions[0], o), Metric: Speedup})
		}
	}
	return Figure{Name: "uvmmu-fig5", Title: "UVMMU Fig. 5: victim choice under UVMMU, speedup over Linear-Random at 125/150%",
		YLabel: "speedup over linear-random", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs:  func(w []string) []sweep.Spec { return []sweep.Spec{uvmmuHWSpec(w, UVMMUEvictions, overs...)} },
		Series: series, Summary: classRows}
}

// uvmmuFig6 is UVMMU Fig. 6: execution time from 100% to 200%, over the
// same system's at 100%, for UVMMU, NVIDIA UM and UVMSmart (the paper's
// third curve, which it reports failing beyond 150%).
func uvmmuFig6() Figure {
	overs := []string{over100, over125, over150, over175, over200}
	var series []Series
	for _, o := range overs[1:] {
		series = append(series, Series{Label: "UVMMU @" + overLabel(o), Run: uvmmuHWSel("linear-random", o),
			Base: uvmmuHWSel("linear-random", over100), Metric: Slowdown})
	}
	for _, o := range overs[1:] {
		series = append(series, Series{Label: "UM @" + overLabel(o), Run: uvmmuSel(uvmmuBaselineLatency, o),
			Base: uvmmuSel(uvmmuBaselineLatency, over100), Metric: Slowdown})
	}
	for _, o := range overs[1:] {
		series = append(series, Series{Label: "UVMSmart @" + overLabel(o), Run: uvmmuSmartSel(o),
			Base: uvmmuSmartSel(over100), Metric: Slowdown})
	}
	return Figure{Name: "uvmmu-fig6", Title: "UVMMU Fig. 6: execution time at 125-200% over 100% (UVMMU, NVIDIA UM and UVMSmart)",
		YLabel: "time over 100%", Workloads: UVMMUWorkloads, PaperScales: UVMMUPaperScales,
		Specs: func(w []string) []sweep.Spec {
			return []sweep.Spec{uvmmuUMSpec(w, overs...), uvmmuSmartSpec(w, overs...), uvmmuHWSpec(w, UVMMUEvictions[:1], overs...)}
		},
		Series: series, Summary: classRows}
}
