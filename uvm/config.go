package uvm

import "github.com/mgpu-sim/mgpu/units"

// Config holds the host UVM driver's parameters.
type Config struct {
	// Faults fetched and serviced per batch: uvm_perf_fault_batch_count
	// (NVIDIA driver default 256; IDYLL §3).
	FaultBatch int `yaml:"fault_batch" doc:"faults serviced per batch (NVIDIA driver default: 256)"`
	// Far-fault service latency per batch: interrupt, fault fetch, host
	// page-table walk, PTE update. UVMSmart's page_fault_latency is 45 us;
	// the often quoted range is 20-50 us. Sweep it with --set.
	FaultServiceNs float64 `yaml:"fault_service_ns" doc:"far-fault service latency per batch in ns (UVMSmart: 45000)"`
	// Per-fault host work inside a batch (centralized page-table walk:
	// 4 levels x 100 cycles, notes §5 gap 9).
	PerFaultNs float64 `yaml:"per_fault_ns" doc:"host page walk per fault in a batch, ns (4 levels x 100 cycles: 400)"`
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
	// Which pages leave a full GPU: the NVIDIA driver's 2 MB root chunks,
	// least recently migrated in (uvm_pmm_gpu.c; notes §3.6), or a true
	// per-page LRU oracle.
	Eviction string `yaml:"eviction" doc:"eviction policy: lrm-2mb (NVIDIA driver default) | lru-4kb"`
	// The unit the lrm-2mb policy evicts: the driver's root chunk.
	EvictionChunk units.Bytes `yaml:"eviction_chunk" doc:"lrm-2mb chunk size in bytes (NVIDIA root chunk: 2MB)"`
}

// DefaultConfig returns the driver defaults above.
func DefaultConfig() Config {
	return Config{FaultBatch: 256, FaultServiceNs: 45000, PerFaultNs: 400, Eviction: "lrm-2mb", EvictionChunk: 2 * units.MB}
}
