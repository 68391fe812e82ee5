package gpu

import "github.com/mgpu-sim/mgpu/units"

// Config holds one GPU's parameters. Defaults are OASIS Table I (which is
// GRIT Table I) unless a comment says otherwise; the doc tag is what
// `mgpu list` prints.
type Config struct {
	// 64 CUs per GPU (OASIS Table I).
	CUs int `yaml:"cus" doc:"compute units per GPU (OASIS Table I: 64)"`
	// 1.0 GHz (OASIS Table I). All GPU latencies below are in cycles of it.
	FreqMHz float64 `yaml:"freq_mhz" doc:"GPU clock in MHz (OASIS Table I: 1000)"`
	// 40 wavefront slots per CU: 4 SIMDs x 10 wavefronts in GCN3, the R9 Nano
	// that MGPUSim models. Not in the papers. A slot holds one 64-lane
	// wavefront, so an NVIDIA SM takes its resident threads over 64, not its
	// warp count: two 32-thread warps share a slot.
	WavefrontsPerCU int `yaml:"wavefronts_per_cu" doc:"resident wavefront slots per CU (GCN3/MGPUSim R9 Nano: 4 SIMD x 10)"`
	// Issue cost of one memory instruction in the CU pipeline. Not in the
	// papers; 4 cycles is one GCN vector-memory issue.
	IssueCycles int `yaml:"issue_cycles" doc:"cycles to issue one wavefront instruction (GCN: 4)"`

	// L1 TLB: 32 entries, 32-way, private per CU, LRU, 1 cycle (Table I; GRIT
	// Table I for the latency).
	L1TLBEntries int `yaml:"l1tlb_entries" doc:"L1 TLB entries per CU (OASIS Table I: 32)"`
	L1TLBWays    int `yaml:"l1tlb_ways" doc:"L1 TLB associativity (OASIS Table I: 32)"`
	L1TLBCycles  int `yaml:"l1tlb_cycles" doc:"L1 TLB lookup latency (GRIT Table I: 1)"`
	// L2 TLB: 512 entries, 16-way, shared, LRU, 10 cycles (Table I; GRIT).
	L2TLBEntries int `yaml:"l2tlb_entries" doc:"shared L2 TLB entries (OASIS Table I: 512)"`
	L2TLBWays    int `yaml:"l2tlb_ways" doc:"L2 TLB associativity (OASIS Table I: 16)"`
	L2TLBCycles  int `yaml:"l2tlb_cycles" doc:"L2 TLB lookup latency (GRIT Table I: 10)"`

	// Cache lines are 64 B (MGPUSim GCN3 caches).
	LineSize units.Bytes `yaml:"line_size" doc:"cache line size (MGPUSim GCN3: 64B)"`
	// L1 vector cache: 16 KB, 4-way (Table I). Hit latency not in the
	// papers; 20 cycles is a GCN-class L1 hit.
	L1VSize   units.Bytes `yaml:"l1v_size" doc:"L1 vector cache per CU (OASIS Table I: 16KB)"`
	L1VWays   int         `yaml:"l1v_ways" doc:"L1 vector cache associativity (OASIS Table I: 4)"`
	L1VCycles int         `yaml:"l1v_cycles" doc:"L1V hit latency (not in papers; GCN-class 20)"`
	// L2: 256 KB, 16-way (Table I). Hit latency not in the papers; 100
	// cycles is a GCN-class L2 hit.
	L2Size   units.Bytes `yaml:"l2_size" doc:"L2 cache per GPU (OASIS Table I: 256KB)"`
	L2Ways   int         `yaml:"l2_ways" doc:"L2 associativity (OASIS Table I: 16)"`
	L2Cycles int         `yaml:"l2_cycles" doc:"L2 hit latency (not in papers; GCN-class 100)"`

	// DRAM: 4 GB per GPU (Table I). Latency and bandwidth are not in the
	// papers: 100 ns beyond L2 and 512 GB/s are the R9 Nano's HBM, the GPU
	// MGPUSim models.
	Memory        units.Bytes `yaml:"memory" doc:"GPU memory capacity (OASIS Table I: 4GB)"`
	DRAMLatencyNs float64     `yaml:"dram_latency_ns" doc:"DRAM access latency beyond L2 (not in papers; 100)"`
	DRAMGBps      float64     `yaml:"dram_gbps" doc:"DRAM bandwidth in GB/s (R9 Nano HBM, MGPUSim: 512)"`

	// Whether remote reads are cached in the L1 vector cache. MGPUSim's R9
	// Nano builder puts the RDMA engine below L1V (its address-to-module
	// finder sends lines of other GPUs' memory to the RDMA engine), so only
	// L1V misses cross the link; the requester's L2 never holds them.
	RemoteL1V bool `yaml:"remote_l1v" doc:"cache remote reads in L1V, only misses cross the link (MGPUSim R9 Nano: true)"`

	// Cost of flushing the CU pipelines before a shootdown is acknowledged
	// (GRIT §II-B: in-flight instructions are drained). Not given in the
	// papers; 1000 cycles is a pipeline drain plus cache flush walk.
	DrainCycles int `yaml:"drain_cycles" doc:"pipeline drain and flush cost of a shootdown (not in papers; 1000)"`
	// What a shootdown invalidates in the caches. MGPUSim's command
	// processor (amd/timing/cp, processShootdownCommand) flushes the CU
	// pipelines and invalidates every line of every L1 and the L2, not only
	// the page's lines (TLBs only for the shot-down pages).
	ShootdownFlushAll bool `yaml:"shootdown_flush_all" doc:"a shootdown invalidates all L1V and L2 lines, not just the page's (MGPUSim command processor: true)"`
	// How many groups the remote-access counters can track at once. The
	// GRIT/OASIS model has one counter per group (0, unlimited).
	// ObservUVM (Sec. III-D, Fig. 3) measures 256 on the RTX 3090: a
	// group whose first remote access finds every counter in use is not
	// counted; a counter is freed when it notifies (or, latched, when the
	// driver clears it) and when its group's mapping changes.
	ACCounters int `yaml:"ac_counters" doc:"remote-access counters per GPU, groups tracked at once; 0 = one per group (GRIT/OASIS; ObservUVM Fig. 3 measures 256)"`
}

// MaxSlots bounds a GPU's wavefront slots (CUs x wavefronts per CU): each
// is a source in the engine's order of simultaneous events, and 64 GPUs of
// this many fit its numbering with room. A large GPU of today resides
// about 10,000 64-lane wavefronts (132 SMs x 2,048 threads).
const MaxSlots = 1 << 16

// DefaultConfig returns OASIS Table I.
func DefaultConfig() Config {
	return Config{
		CUs: 64, FreqMHz: 1000, WavefrontsPerCU: 40, IssueCycles: 4,
		L1TLBEntries: 32, L1TLBWays: 32, L1TLBCycles: 1,
		L2TLBEntries: 512, L2TLBWays: 16, L2TLBCycles: 10,
		LineSize: 64,
		L1VSize:  16 * units.KB, L1VWays: 4, L1VCycles: 20,
		L2Size: 256 * units.KB, L2Ways: 16, L2Cycles: 100,
		Memory: 4 * units.GB, DRAMLatencyNs: 100, DRAMGBps: 512,
		DrainCycles: 1000, RemoteL1V: true, ShootdownFlushAll: true,
	}
}
