package benchmarks

import (
	"math"
	"sort"
)

// The UVMSmart / UVMMU / Early-Adaptor workloads.
//
// UVMMU ("UVMMU: Hardware-Offloaded Page Migration for Heterogeneous
// Computing", DATE 2023) evaluates the unified-memory ports of Rodinia and
// PolyBench of UVMSmart ("Adaptive Page Migration for Irregular
// Data-intensive Applications under GPU Memory Oversubscription", IPDPS
// 2020; github.com/DebashisGanguly/gpgpu-sim_UVMSmart, benchmarks/Managed)
// plus RA; Early-Adaptor ("Early-Adaptor: An Adaptive Framework for
// Proactive UVM Memory Management", ISPASS 2023; "EA" below) runs
// PolyBench/GPU and Rodinia with every cudaMalloc made cudaMallocManaged,
// at about 8 GB each (its Table II), and classes each one regular,
// irregular or mixed. conv2d.go, atax.go, bicg.go, fdtd2d.go, hotspot.go,
// pathfinder.go, nw.go, backprop.go, srad.go, rbfs.go and randomaccess.go
// model these kernels; each doc comment names the source kernel, its
// thread mapping, the objects in ID order (the program's allocation order,
// every allocation managed as in EA) and the instructions per wavefront.
//
// Labels. Each declares the papers' label for it (Info.Aliases): EA's
// Table II and figures (2DC, FDT, HS, PF, ATA, BIC, NW, BFS) and UVMMU's
// RA; and, where ObservUVM's Table II lists the kernel, its preferred
// eviction (2dconv and rbfs are cyclic, so CP).
//
// Sizing. Each workload declares the same paper footprint in all three
// columns (TableII = TableIII8 = TableIII16): these papers are single-GPU
// and give one size per workload, so the footprint does not grow with the
// GPU count as OASIS's Table III does; a run on more GPUs splits the same
// problem (strong scaling), and --scale grows it. Scale 1 is:
//
//   - for the eight workloads of EA Table II, EA's footprint divided by
//     EAScales: 1/32 (about 250-270 MB) for 2dconv, fdtd2d, hotspot,
//     pathfinder, atax, bicg and nw, so --scale 32 is EA's size; 1/256 (33
//     MB) for rbfs, whose graph is generated and searched at set-up (at 264
//     MB that takes seconds; --scale 256 is EA's size);
//   - for backprop and srad, which EA does not run, UVMSmart's own input
//     (its run scripts), 26.5 MB and 24 MB;
//   - for ra, whose size neither paper gives, a 16 MiB HPCC table, the
//     power of two nearest UVMSmart's 12 MB ra (--scale 512 is 8 GiB).
//
// Kernel arguments live in constant memory on the NVIDIA GPUs these papers
// use, so, unlike the OASIS workloads (allocKernarg), these allocate no
// kernel-argument object.
//
// Known simplifications shared by all of them: 32-thread warps become
// 64-lane wavefronts (threads 64w..64w+63 of a block, x fastest); host code
// between launches (srad's ROI statistics, bfs's stop flag copy) is not
// modelled; compute cycles are estimates, as for the OASIS workloads.

// EAScales is, for each workload of Early-Adaptor's Table II, how much
// smaller than EA's footprint it is at scale 1: --scale EAScales[name]
// runs EA's size.
var EAScales = map[string]int{
	"2dconv": 32, "fdtd2d": 32, "hotspot": 32, "pathfinder": 32,
	"atax": 32, "bicg": 32, "nw": 32, "rbfs": 256,
}

// EAFootprints is Early-Adaptor's Table II footprint of each workload it
// runs, in bytes (the table's MB read as MiB, as MiB says).
var EAFootprints = map[string]uint64{
	"2dconv":     8445 * MiB,
	"fdtd2d":     8445 * MiB,
	"hotspot":    8445 * MiB,
	"pathfinder": 8189 * MiB,
	"atax":       8062 * MiB,
	"bicg":       8062 * MiB,
	"nw":         8573 * MiB,
	"rbfs":       8448 * MiB,
}

// flatSize is a PaperSize with one footprint in every column.
func flatSize(b uint64) PaperSize { return PaperSize{TableII: b, TableIII8: b, TableIII16: b} }

// eaSize is the scale-1 size of the EA workload name.
func eaSize(name string) PaperSize { return flatSize(EAFootprints[name] / uint64(EAScales[name])) }

// Scale-1 footprints of the UVMSmart / Early-Adaptor workloads.
var (
	Conv2DSize     = eaSize("2dconv")
	FDTD2DSize     = eaSize("fdtd2d")
	HotspotSize    = eaSize("hotspot")
	PathfinderSize = eaSize("pathfinder")
	ATAXSize       = eaSize("atax")
	BICGSize       = eaSize("bicg")
	NWSize         = eaSize("nw")
	RBFSSize       = eaSize("rbfs")
	// BackpropSize is UVMSmart's run script input, 131056 input units.
	BackpropSize = flatSize(backpropBytes(bpPaperInputs))
	// SRADSize is UVMSmart's run script input, a 1024 x 1024 image.
	SRADSize = flatSize(sradBytes(sradPaperSide))
	// RASize is a 2^21-word HPCC table (neither paper gives one).
	RASize = flatSize(8 << raPaperLog)
)

// Estimated compute cycles shared by these kernels (the papers give no
// instruction timing).
const (
	// loadCycles is the address arithmetic between two back-to-back
	// global loads of one thread: two VALU instructions.
	loadCycles = 8
	// syncCycles is one __syncthreads with the LDS traffic around it.
	syncCycles = 32
)

// fitSide returns the multiple of mult, at least mult, whose footprint
// bytes(n) comes closest to fp. bytes must grow with n.
func fitSide(fp uint64, mult int, bytes func(n int) uint64) int {
	// The largest k with bytes(k*mult) <= fp, by binary search.
	hi := 1
	for bytes(hi*mult) <= fp && hi < 1<<40/mult {
		hi *= 2
	}
	k := sort.Search(hi, func(k int) bool { return bytes((k+1)*mult) > fp })
	if k == 0 {
		return mult
	}
	lo, up := bytes(k*mult), bytes((k+1)*mult)
	if math.Abs(float64(up)-float64(fp)) < math.Abs(float64(fp)-float64(lo)) {
		return (k + 1) * mult
	}
	return k * mult
}

// addLane appends one active lane.
func addLane(in *Instruction, addr uint64) {
	in.Addr[in.Lanes] = addr
	in.Lanes++
}

// elem is the address of element i of an array of size-byte elements.
func elem(base uint64, i, size int) uint64 { return base + uint64(i)*uint64(size) }
