package uvm

import (
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/units"
)

// Config holds the host UVM driver's parameters.
type Config struct {
	// Faults fetched and serviced per batch: uvm_perf_fault_batch_count
	// (NVIDIA driver default 256; IDYLL §3).
	FaultBatch int `yaml:"fault_batch" doc:"faults serviced per batch (NVIDIA driver default: 256)"`
	// Fixed far-fault service latency per batch (interrupt, fault-buffer
	// fetch), on top of the per-fault work. The GRIT author's MGPUSim UVM
	// prototype charges none: its 1000 cycles are per fault (below).
	// UVMSmart's page_fault_latency, 45 us per batch, is the single-GPU
	// GPGPU-Sim figure mgpu used before; keep it as a sensitivity point
	// with --set uvm.fault_service_ns=45000 uvm.host_threads=0.
	FaultServiceNs float64 `yaml:"fault_service_ns" doc:"fixed far-fault service latency per batch in ns (GRIT prototype: 0; UVMSmart: 45000)"`
	// Host work per fault: the GRIT prototype's UVM_BATCH_FIXED_LATENCY,
	// 1000 cycles at its 1 GHz MMU clock, charged on every fault that
	// reaches the host (wangw42/try_mgpusim mgpusim_uvm2/mem/vm/mmu/mmu.go;
	// public but unpublished, a hint-grade source). With host_threads 0 it
	// is serial within a batch.
	PerFaultNs float64 `yaml:"per_fault_ns" doc:"host service per fault in ns (GRIT prototype: 1000 cycles at 1 GHz = 1000)"`
	// Host threads that service faults, from any GPU's batch. 0 keeps the
	// single-threaded model: one batch at a time, each costing
	// fault_service_ns plus per_fault_ns per fault. With N threads every
	// fault of an arriving batch takes per_fault_ns of the earliest-free
	// thread, so batches from different GPUs are serviced side by side,
	// and the batch is ready fault_service_ns after its last fault. The
	// decisions and their waves still follow one batch at a time, in
	// arrival order (MGPUSim's driver handles one migration at a time).
	// The GRIT author's MGPUSim UVM prototype (wangw42/try_mgpusim,
	// mgpusim_uvm2/mem/vm/mmu/mmu.go) uses 16 threads and 1000 cycles
	// (1 GHz: 1 us) per fault; it is public but unpublished, so a
	// hint-grade source.
	HostThreads int `yaml:"host_threads" doc:"host threads servicing faults of any batch; 0 = one batch at a time (GRIT prototype: 16)"`
	// Which faults of a batch pay per_fault_ns when one batch is serviced
	// at a time (host_threads 0): every one, or only those whose page is
	// not already mapped when the batch starts. UVMSmart's simulator, on
	// which UVMMU's results stand, charges page_fault_latency (45 us) once
	// per distinct newly faulting 4 KB page, serially in its PCIe read
	// lane (enable_accurate_simulation; with it off, the shipped GTX 1080
	// Ti config, it adds the same per-page sum to the reported time), and
	// a fault on a page whose 64 KB block or prefetch is already on its
	// way joins that transfer at no charge (DebashisGanguly/
	// gpgpu-sim_UVMSmart, src/gpgpu-sim/gpu-sim.cc: get_faulty_pages,
	// do_hardware_prefetch, the pcie_read_latency_queue).
	PerFaultCharge string `yaml:"per_fault_charge" doc:"faults of a batch charged per_fault_ns with host_threads 0: every | new-pages (only pages not yet mapped when the batch starts: UVMSmart's simulator)"`
	// The driver's thrashing control over access-counter migrations, with
	// the defaults of NVIDIA open-gpu-kernel-modules
	// kernel-open/nvidia-uvm/uvm_perf_thrashing.c
	// (uvm_perf_thrashing_lapse_usec, uvm_perf_thrashing_threshold,
	// uvm_perf_thrashing_pin_threshold). Off by default: the papers'
	// simulators have none, so the GRIT/OASIS access-counter baseline
	// migrates every notified page.
	Thrashing             bool    `yaml:"thrashing" doc:"ignore access-counter notifications for thrashing pages, then pin them (NVIDIA driver; papers' simulators: off)"`
	ThrashingLapseNs      float64 `yaml:"thrashing_lapse_ns" doc:"two migrations of a page within this gap are a thrashing event (uvm_perf_thrashing_lapse_usec: 500us)"`
	ThrashingThreshold    int     `yaml:"thrashing_threshold" doc:"consecutive thrashing events that mark a page thrashing (uvm_perf_thrashing_threshold: 3, max 7)"`
	ThrashingPinThreshold int     `yaml:"thrashing_pin_threshold" doc:"ignored notifications before the page is pinned for 300 lapses (uvm_perf_thrashing_pin_threshold: 10)"`
	// The driver applies the same detection to fault-driven migrations
	// (uvm_perf_thrashing.c serves replayable faults first): a fault on a
	// thrashing page is throttled, then the page is pinned and the
	// faulting GPU maps it remotely. mgpu serves every such fault at once
	// with a remote mapping where the page is (no nap). Off by default,
	// like thrashing: the papers' on-touch baseline has none (issue 29's
	// pingpong measurement is why it exists).
	ThrashingFaults bool `yaml:"thrashing_faults" doc:"also apply thrashing detection to faults: a fault on a thrashing page maps it remotely where it is instead of migrating it (NVIDIA driver's THROTTLE/PIN; papers' simulators: off)"`
	// Which pages leave a full GPU: the NVIDIA driver's 2 MB root chunks,
	// least recently migrated in (open-gpu-kernel-modules
	// kernel-open/nvidia-uvm/uvm_pmm_gpu.c, pick_root_chunk_to_evict: a chunk
	// moves to the tail of the used list when a VA block allocates or
	// unpins it, not when it is accessed), or a true per-page LRU oracle.
	Eviction string `yaml:"eviction" doc:"eviction policy: lrm-2mb (NVIDIA driver default) | lru-4kb (oracle) | lru-2mb | lfu-2mb | random-4kb (UVMSmart) | sequential-local | tbn | linear-random (UVMMU) | nru"`
	// The unit the lrm-2mb policy evicts: the driver's root chunk.
	EvictionChunk units.Bytes `yaml:"eviction_chunk" doc:"lrm-2mb chunk size in bytes (NVIDIA root chunk: 2MB)"`
	// EvictionCensus measures how many 64 KB blocks of each victim chunk
	// were accessed (ObservUVM Fig. 5, eviction.Census). It costs a call
	// per accessed page, so it is off unless a figure asks.
	EvictionCensus bool `yaml:"eviction_census" doc:"count the accessed 64KB blocks of each victim chunk (ObservUVM Fig. 5; result evicted_chunk_blocks); costs a call per access"`
	// Host DRAM time of a zero-copy line access (a GPU reading or writing
	// a page that stays on the host, over PCIe). No paper gives it; 100 ns
	// is the host memory latency policy.host_mem_ns uses for OASIS-InMem.
	HostMemoryNs float64 `yaml:"host_memory_ns" doc:"host DRAM time of a zero-copy access over PCIe (no source; 100, as policy.host_mem_ns)"`
	// What a fault batch brings beyond its faulted pages: the driver's
	// tree prefetcher over 2 MB VA blocks of 64 KB basic blocks. Off by
	// default: the papers' multi-GPU simulators (MGPUSim and its UVM
	// extensions) have no prefetcher, while the NVIDIA driver's default
	// is tbn at 51 (the oversubscription studies use it).
	Prefetch prefetch.Config `yaml:"prefetch" doc:"what a fault batch brings beyond its faulted pages: the NVIDIA driver's tree prefetcher over VA blocks of basic blocks (off by default)."`
	// Who sets the prefetcher's per-VA-block thresholds while a run goes:
	// nobody (every block keeps uvm.prefetch.threshold) or Early-Adaptor
	// (package earlyadaptor, one controller per GPU; needs the tbn
	// prefetcher).
	PrefetchControl string `yaml:"prefetch_control" doc:"who sets the tbn thresholds per VA block: none | early-adaptor (EA, ISPASS'23)"`
	// Who handles far faults: the host driver in batches (software), or
	// each GPU's MMU per fault (hardware, UVMMU; needs --policy on-touch,
	// as UVMMU migrates on every fault, and no prefetcher).
	FaultHandling string `yaml:"fault_handling" doc:"far-fault handling: software (host driver batches) | hardware (UVMMU, per fault in the GPU MMU; on-touch, no prefetch)"`
	// Who adapts eviction and zero-copy at oversubscription: nobody, or
	// UVMSmart's pattern detection (package uvmsmart; needs --policy
	// on-touch and software handling, and sets the GPUs' access counters
	// to uvm.uvmsmart.migrate_threshold over 64 KB blocks).
	Adaptive string `yaml:"adaptive" doc:"oversubscription runtime: none | uvmsmart (UVMSmart DATE'21: per-allocation pattern detection turns on zero-copy and tbn eviction) | observuvm (ObservUVM: sampled observability picks 2 MB victims) | suv (SUV MICRO'24: the workload's static hints pin, reserve, prefetch and count per launch) | sc (SUV's SC baseline: whole structures by access count) | griffin-dpc (Griffin HPCA'20's DPC, approximated: each epoch, pages one GPU dominates in the access counters migrate there; over --policy access-counter)"`
	// Each registered runtime's own settings, uvm.<name>.* (the runtimes'
	// packages register them: RegisterSection), by slot; nil holds the
	// section's default.
	sections [MaxSections]any
}

// The value of uvm.adaptive and uvm.prefetch_control that selects no
// runtime; each runtime's name is a constant of its package under
// runtimes/.
const (
	AdaptiveNone = "none"
	ControlNone  = "none"
)

// DefaultConfig returns the driver defaults above.
func DefaultConfig() Config {
	return Config{FaultBatch: 256, FaultServiceNs: 0, PerFaultNs: 1000, HostThreads: 16,
		ThrashingLapseNs: 500000, ThrashingThreshold: 3, ThrashingPinThreshold: 10, Eviction: "lrm-2mb", EvictionChunk: 2 * units.MB,
		HostMemoryNs: 100, Prefetch: defaultPrefetch(), PrefetchControl: ControlNone,
		FaultHandling: HandlingSoftware, PerFaultCharge: ChargeEvery,
		Adaptive: AdaptiveNone}
}

// defaultPrefetch is the driver's prefetcher configuration, switched off.
func defaultPrefetch() prefetch.Config {
	c := prefetch.DefaultConfig()
	c.Policy = prefetch.Off
	return c
}

// The faults a batch charges per_fault_ns for (uvm.per_fault_charge).
const (
	// ChargeEvery charges every fault of the batch.
	ChargeEvery = "every"
	// ChargeNewPages charges only the faults whose page is not mapped as
	// the fault needs when the batch starts (UVMSmart's simulator).
	ChargeNewPages = "new-pages"
)
