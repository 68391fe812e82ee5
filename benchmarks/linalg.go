package benchmarks

import "math"

// The dense linear-algebra and finance workloads of ObservUVM and SUV
// (issue 16, section 3): mm-tiled, gmm, syrk, syr2k, gemv, hellinger, lu,
// blackscholes (ObservUVM) and doitgen, mvt, gramschmidt, bicgstab (SUV;
// mm-tiled, gmm and hellinger are in both). One file per workload; each
// doc comment names the source kernel, its thread mapping, the objects in
// ID order (the program's allocation order, every allocation managed) and
// the instructions per wavefront, as for the UVMSmart workloads. Those
// whose objects are n x n matrices and n-float vectors of one side (gmm,
// syrk, syr2k, mm-tiled, gemv, mvt, gramschmidt) get their labels, sizing
// and Setup from denseLinalg (dense.go) and keep only their kernels.
//
// Sizing. Like the UVMSmart workloads (see uvmsmart.go), each declares
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

// linalgSize is the scale-1 size of workload name.
func linalgSize(name string) PaperSize {
	return flatSize(linalgRef(name) / uint64(LinalgScales[name]))
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
	return float64(b) / float64(linalgSize(name).TableII), true
}

// Scale-1 footprints of these workloads.
var (
	MMTiledSize      = linalgSize("mm-tiled")
	GEMMSize         = linalgSize("gmm")
	SYRKSize         = linalgSize("syrk")
	SYR2KSize        = linalgSize("syr2k")
	GEMVSize         = linalgSize("gemv")
	HellingerSize    = linalgSize("hellinger")
	LUSize           = linalgSize("lu")
	BlackScholesSize = linalgSize("blackscholes")
	DoitgenSize      = linalgSize("doitgen")
	MVTSize          = linalgSize("mvt")
	GramSchmidtSize  = linalgSize("gramschmidt")
	BiCGStabSize     = linalgSize("bicgstab")
)

// observUVMTable is where ObservUVM names each workload's preferred
// eviction.
const observUVMTable = "ObservUVM Table II"

// ObservUVM's preferred evictions (Info.PreferredEviction).
var (
	observUVMLRU = EvictionPreference{Policy: "lru", Source: observUVMTable}
	observUVMLFU = EvictionPreference{Policy: "lfu", Source: observUVMTable}
	observUVMCP  = EvictionPreference{Policy: "cp", Source: observUVMTable}
)

// linalgSide returns the side, a multiple of mult, at which bytes(n) comes
// closest to the footprint of s for p.
func linalgSide(s PaperSize, p Params, mult int, bytes func(n int) uint64) (int, error) {
	fp, err := s.Footprint(p)
	if err != nil {
		return 0, err
	}
	return fitSide(fp, mult, bytes), nil
}

// squareBytes is the footprint of k float32 n x n matrices.
func squareBytes(k int) func(n int) uint64 {
	return func(n int) uint64 { return uint64(k) * floatBytes * uint64(n) * uint64(n) }
}

// addBlock adds one lane for each element [i][j] of the row-major float32
// matrix at base (row pitch pitch) with i in i0 .. i0+rows-1, i < ni, and
// j in j0 .. j0+cols-1, j < nj; rows outer, so a 2 x 32 block is lanes
// 32*r + c. A row (rows 1) is one coalesced access; a column (cols 1) puts
// each lane on its own row.
func addBlock(in *Instruction, base uint64, pitch, i0, rows, ni, j0, cols, nj int) {
	for i := i0; i < i0+rows && i < ni; i++ {
		a := base + (uint64(i)*uint64(pitch)+uint64(j0))*floatBytes
		for j := j0; j < j0+cols && j < nj; j++ {
			addLane(in, a)
			a += floatBytes
		}
	}
}

// polyWave is the first thread row and column of wavefront wf of
// workgroup wg in a PolyBench 2-D launch of 32x8 blocks (convBlockX x
// convBlockY) over a grid gx blocks wide, x fastest: the wavefront holds
// rows i0 and i0+1, columns j0 .. j0+31.
func polyWave(wg, wf, gx int) (i0, j0 int) {
	return wg/gx*convBlockY + wf*convRows, wg % gx * convBlockX
}

// idleStream is the stream of a wavefront none of whose threads passes the
// kernel's bounds check: one compute-only instruction.
func idleStream() Stream {
	return &Loop{N: 1, Gen: func(_ int, in *Instruction) { in.Compute = indexCycles }}
}

// vecBlock is the 1-D block of the vector kernels (PolyBench's
// DIM_THREAD_BLOCK_X for 1-D launches).
const vecBlock = 256

// vecOp is one access of a 1-D elementwise kernel: thread t reads or
// writes element t of the float32 array at base.
type vecOp struct {
	base  uint64
	write bool
}

// vecKernel is a 1-D launch of ceil(n/256) blocks of 256 threads in which
// thread t < n issues ops in order, each on element t; a wavefront with
// no thread below n issues one compute-only instruction.
func vecKernel(name string, args []int, n int, ops []vecOp) Kernel {
	return Kernel{
		Name: name, Args: args,
		Workgroups: ceilDiv(n, vecBlock), WavefrontsPerWorkgroup: vecBlock / WavefrontSize,
		Wavefront: func(wg, wf, _ int) Stream {
			t0 := wg*vecBlock + wf*WavefrontSize
			if t0 >= n {
				return idleStream()
			}
			return &Loop{N: len(ops), Gen: func(k int, in *Instruction) {
				op := ops[k]
				switch {
				case k == 0:
					in.Compute = indexCycles
				case op.write:
					in.Compute = mvFMACycles
				default:
					in.Compute = loadCycles
				}
				in.Write = op.write
				addBlock(in, op.base, 0, 0, 1, 1, t0, WavefrontSize, n)
			}}
		},
	}
}

// Operand shapes of the inner loop of a PolyBench 2-D kernel, for the
// thread computing [i][j] at step k.
const (
	atIK = iota // element [i][k]: one lane per thread row (2 per wavefront)
	atJK        // element [j][k]: one lane per column, each on its own row
	atKJ        // element [k][j]: a row of consecutive floats
)

// kAccess is one load of the inner loop: element [·][·] (see atIK) of the
// row-major float32 matrix at base with row pitch pitch.
type kAccess struct {
	base  uint64
	pitch int
	at    int
}

// innerLoop is a PolyBench 2-D kernel over an ni x nj output c (row pitch
// nj) whose thread (i, j) first loads c[i][j] (or stores 0 to it when
// zero), then for k in 0 .. nk-1 issues loads, then stores c[i][j]: gemm,
// syrk, syr2k, doitgen_kernel1.
type innerLoop struct {
	c          uint64
	ni, nj, nk int
	zero       bool
	loads      []kAccess
}

// innerInstructions is the length of a wavefront of l.
func (l innerLoop) innerInstructions() int { return 2 + l.nk*len(l.loads) }

// kernel is the launch of l: a grid of ceil(nj/32) x ceil(ni/8) blocks of
// 32x8 threads (polyWave).
//
// Without __restrict__ the compiled kernels reload and re-store c[i][j]
// in every iteration, since a store might alias the operands; those
// accesses hit one line per wavefront and touch no new page, so, as atax
// does, the model keeps the sum in a register (load or zero before the
// loop, store after).
func (l innerLoop) kernel(name string, args []int) Kernel {
	gx := ceilDiv(l.nj, convBlockX)
	last := l.innerInstructions() - 1
	per := len(l.loads)
	return Kernel{
		Name: name, Args: args,
		Workgroups: gx * ceilDiv(l.ni, convBlockY), WavefrontsPerWorkgroup: convBlockX * convBlockY / WavefrontSize,
		Wavefront: func(wg, wf, _ int) Stream {
			i0, j0 := polyWave(wg, wf, gx)
			if i0 >= l.ni || j0 >= l.nj {
				return idleStream()
			}
			return &Loop{N: last + 1, Gen: func(x int, in *Instruction) {
				switch {
				case x == 0 || x == last:
					in.Compute = indexCycles
					if x == last {
						in.Compute = mvFMACycles
					}
					in.Write = x == last || l.zero
					addBlock(in, l.c, l.nj, i0, convRows, l.ni, j0, convBlockX, l.nj)
				default:
					k, op := (x-1)/per, (x-1)%per
					in.Compute = loadCycles
					if op == 0 && k > 0 {
						in.Compute = mvFMACycles
					}
					acc := l.loads[op]
					switch acc.at {
					case atIK:
						addBlock(in, acc.base, acc.pitch, i0, convRows, l.ni, k, 1, l.nk)
					case atJK:
						addBlock(in, acc.base, acc.pitch, j0, convBlockX, l.nj, k, 1, l.nk)
					default:
						addBlock(in, acc.base, acc.pitch, k, 1, l.nk, j0, convBlockX, l.nj)
					}
				}
			}}
		},
	}
}
