package benchmarks

import "math"

// The dense linear-algebra and finance workloads of ObservUVM and SUV
// (issue 16, section 3): mm-tiled, gmm, syrk, syr2k, gemv, hellinger, lu,
// blackscholes (ObservUVM) and doitgen, mvt, gramschmidt, bicgstab (SUV;
// mm-tiled, gmm and hellinger are in both), in the packages of their
// suites: polybench (gmm, syrk, syr2k, lu, doitgen, mvt, gramschmidt),
// cuda (mm-tiled, gemv, blackscholes), hecbench (hellinger) and papers
// (bicgstab). One file per workload; each doc comment names the source
// kernel, its thread mapping, the objects in ID order (the program's
// allocation order, every allocation managed) and the instructions per
// wavefront, as for the UVMSmart workloads. Those whose objects are n x n
// matrices and n-float vectors of one side (gmm, syrk, syr2k, mm-tiled,
// gemv, mvt, gramschmidt) get their labels, sizing and Setup from
// DenseLinalg and keep only their kernels. What they share is here: the
// papers' footprints, the sizing from them and ObservUVM's preferred
// evictions.
//
// Sizing. Like the UVMSmart workloads (see EAScales), each declares
// one paper footprint in all three columns: these papers are single-GPU,
// so more GPUs split the same problem and --scale grows it. Scale 1 is the
// reference footprint (ObservUVM's where it runs the workload, SUV's
// otherwise) divided by LinalgScales[name], a power of two chosen to keep
// scale 1 at or below 320 MiB and at or below about 50M memory
// instructions, a minute or two of simulation. Most of these kernels do
// O(n^3) work on O(n^2) data, so the instruction budget, not the memory
// one, sets most divisors: gmm's scale 1 is 12 MiB. --scale
// LinalgScales[name] runs the reference footprint; LinalgPaperScale gives
// the scale of either paper's. At the papers' sizes the cubic kernels issue
// 10^10 to 10^12 instructions, far beyond a simulation: run them there
// only for set-up, sizing and characterisation checks, or with
// oversubscription at a scale the simulation can finish.
//
// Kernel arguments live in constant memory on the NVIDIA GPUs these papers
// use, so no kernel-argument object is allocated. The simplifications
// shared with the UVMSmart workloads apply: 32-thread warps become
// 64-lane wavefronts (threads 64w..64w+63 of a block, x fastest); host code
// between launches is not modelled; compute cycles are estimates.

// linalgGiB is a footprint the papers print in GB, read as GiB (as MiB
// reads their MB), rounded to a whole MiB.
func linalgGiB(gb float64) uint64 { return uint64(math.Round(gb*1024)) * MiB }

// LinalgObservUVMFootprints is the footprint ObservUVM gives each
// workload it runs, in bytes, as issue 16 lists them.
var LinalgObservUVMFootprints = map[string]uint64{
	"mm-tiled":     linalgGiB(10.1),
	"gmm":          linalgGiB(12.0),
	"syrk":         linalgGiB(9.6),
	"syr2k":        linalgGiB(8.3),
	"gemv":         linalgGiB(23.6),
	"hellinger":    linalgGiB(7.9),
	"lu":           linalgGiB(12.0),
	"blackscholes": linalgGiB(10.0),
}

// LinalgSUVFootprints is the footprint SUV gives each workload it runs, in
// bytes (its MB read as MiB), as issue 16 lists them.
var LinalgSUVFootprints = map[string]uint64{
	"mm-tiled":    5760 * MiB,
	"gmm":         6912 * MiB,
	"hellinger":   6912 * MiB,
	"doitgen":     8192 * MiB,
	"mvt":         4096 * MiB,
	"gramschmidt": 3072 * MiB,
	"bicgstab":    4096 * MiB,
}

// LinalgScales is, for each of these workloads, how much smaller than its
// reference footprint (LinalgObservUVMFootprints, else
// LinalgSUVFootprints) scale 1 is.
var LinalgScales = map[string]int{
	"mm-tiled":     128,  // 80.8 MiB
	"gmm":          1024, // 12 MiB
	"syrk":         1024, // 9.6 MiB
	"syr2k":        1024, // 8.3 MiB
	"gemv":         128,  // 188.8 MiB
	"hellinger":    1024, // 7.9 MiB
	"lu":           64,   // 192 MiB
	"blackscholes": 32,   // 320 MiB
	"doitgen":      256,  // 32 MiB
	"mvt":          16,   // 256 MiB
	"gramschmidt":  256,  // 12 MiB
	"bicgstab":     16,   // 256 MiB
}

// linalgRef is the reference footprint of workload name.
func linalgRef(name string) uint64 {
	if b, ok := LinalgObservUVMFootprints[name]; ok {
		return b
	}
	return LinalgSUVFootprints[name]
}

// LinalgSize is the scale-1 size of workload name.
func LinalgSize(name string) PaperSize {
	return FlatSize(linalgRef(name) / uint64(LinalgScales[name]))
}

// LinalgPaperScale returns the --scale at which workload name comes to the
// footprint paper ("ObservUVM" or "SUV") gives it, and false when that
// paper does not run it.
func LinalgPaperScale(name, paper string) (float64, bool) {
	var b uint64
	var ok bool
	switch paper {
	case "ObservUVM":
		b, ok = LinalgObservUVMFootprints[name]
	case "SUV":
		b, ok = LinalgSUVFootprints[name]
	}
	if !ok {
		return 0, false
	}
	return float64(b) / float64(LinalgSize(name).TableII), true
}

// observUVMTable is where ObservUVM names each workload's preferred
// eviction.
const observUVMTable = "ObservUVM Table II"

// ObservUVM's preferred evictions (Info.PreferredEviction).
var (
	ObservUVMLRU = EvictionPreference{Policy: "lru", Source: observUVMTable}
	ObservUVMLFU = EvictionPreference{Policy: "lfu", Source: observUVMTable}
	ObservUVMCP  = EvictionPreference{Policy: "cp", Source: observUVMTable}
)

// LinalgSide returns the side, a multiple of mult, at which bytes(n) comes
// closest to the footprint of s for p.
func LinalgSide(s PaperSize, p Params, mult int, bytes func(n int) uint64) (int, error) {
	fp, err := s.Footprint(p)
	if err != nil {
		return 0, err
	}
	return FitSide(fp, mult, bytes), nil
}
