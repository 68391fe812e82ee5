package benchmarks

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
// irregular or mixed. polybench's 2dconv, atax, bicg and fdtd2d,
// rodinia's hotspot, pathfinder, nw, backprop, srad and rbfs, and hpcc's
// ra model these kernels; each doc comment names the source kernel, its
// thread mapping, the objects in ID order (the program's allocation order,
// every allocation managed as in EA) and the instructions per wavefront.
// What they share is here: EA's footprints and the sizing from them.
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
//     (its run scripts), 26.5 MB and 24 MB counting every array (UVMSmart's
//     srad manages only one of its six, 4 MB);
//   - for ra, whose size neither paper gives, a 16 MiB HPCC table, the
//     power of two nearest the 12 MiB of UVMSmart's ra, a gather
//     microbenchmark of three 4 MiB arrays (--scale 512 is 8 GiB).
//
// UVMMU's figures at --size paper run UVMSmart's own inputs
// (figures.UVMMUPaperScales).
//
// Kernel arguments live in constant memory on the NVIDIA GPUs these papers
// use, so, unlike the OASIS workloads (AllocKernarg), these allocate no
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

// EASize is the scale-1 size of the EA workload name.
func EASize(name string) PaperSize { return FlatSize(EAFootprints[name] / uint64(EAScales[name])) }
