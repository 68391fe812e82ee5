package pagepolicy

import "github.com/mgpu-sim/mgpu/units"

// Config holds the parameters of every page-management scheme. Each field
// names its source; where no paper gives a number the comment says so.
type Config struct {
	// Access-counter threshold: 256 remote accesses (OASIS Table I, GRIT
	// §II-B, NVIDIA uvm_perf_access_counter_threshold).
	ACThreshold int `yaml:"ac_threshold" doc:"remote accesses per group that trigger migration (OASIS Table I: 256)"`
	// Counter group: 64 KB (GRIT §II-B). 2MB selects the driver's default
	// tracking granularity with 32 sub-regions (NVIDIA open-gpu-kernel-modules
	// kernel-open/nvidia-uvm/uvm_gpu_access_counters.c:
	// UVM_ACCESS_COUNTER_GRANULARITY_2M, UVM_SUB_GRANULARITY_REGIONS 32).
	ACGroup units.Bytes `yaml:"ac_group" doc:"access-counter group size: 64KB (GRIT) or 2MB with 32 sub-regions (driver)"`

	// What an access-counter notification migrates. GRIT §II-B, the
	// description closest to the papers' simulator: "the page" whose
	// counter reached the threshold. The NVIDIA driver migrates the
	// notified group (its accessed 64 KB sub-regions under 2 MB tracking).
	ACMigrate string `yaml:"ac_migrate" doc:"access-counter migration unit: page (GRIT §II-B) | group (NVIDIA driver)"`
	// What access-counter does with a page still on the host. OASIS §IV-B
	// explains access-counter's loss on i2c's private output (pages start
	// on the host) by "defers data migration until the counter threshold
	// is met, leading to increased remote access latency": the paper's
	// access-counter maps host pages remotely (zero-copy over PCIe) until
	// the threshold, as the NVIDIA driver does for pages it maps in system
	// memory. migrate is the first-touch migration mgpu used before.
	ACHost string `yaml:"ac_host" doc:"access-counter on a host page: remote (zero-copy over PCIe until the threshold; OASIS §IV-B) | migrate (on first touch)"`
	// What access-counter does with a page a GPU evicts to the host. The
	// NVIDIA driver, with access-counter migration on, maps it remotely on
	// the evicting GPU "since access counters can pull the data back to
	// vidmem" (open-gpu-kernel-modules, uvm_va_block.h,
	// uvm_va_space_map_remote_on_eviction; module parameter
	// uvm_perf_map_remote_on_eviction, default 1), as ObservUVM, MICRO
	// 2024, §II-B and Fig. 1b describe ACBM. MGPUSim's access counters
	// (OASIS, GRIT) have no such path: unmap, the next access faults.
	ACEvict string `yaml:"ac_evict" doc:"access-counter on an evicted page: unmap (next access faults; OASIS/GRIT lineage) | remote (mapped over PCIe until the counters pull it back; NVIDIA driver uvm_perf_map_remote_on_eviction)"`

	// OASIS §V-C: a 16-entry, LRU-managed O-Table.
	OTableEntries int `yaml:"otable_entries" doc:"O-Table entries, LRU-managed (OASIS §V-C: 16)"`
	// OASIS §V-E calls the on-chip lookup negligible; 1 ns is a 24-byte
	// SRAM read. Added after the host page walk, as the O-Table is
	// consulted once the walk shows the page is shared.
	OTableNs float64 `yaml:"otable_ns" doc:"O-Table lookup latency in ns (OASIS §V-E: negligible; 1)"`
	// OASIS §V-D: the PF Count resets at 8 shared faults (Fig. 16 sweeps 4,
	// 8, 32).
	ResetThreshold int `yaml:"reset_threshold" doc:"shared faults per O-Table learning cycle (OASIS: 8; Fig. 16: 4, 8, 32)"`
	// OASIS §V-B: 4 Obj_ID bits, up to 15. The platform widens the ID to
	// fit a workload with more objects, as §V-C describes for apps beyond
	// 2^4 objects; the O-Table keeps its size and manages entries by LRU.
	IDBits int `yaml:"id_bits" doc:"minimum Obj_ID pointer bits, widened to fit the objects (OASIS §V-B: 4, max 15)"`

	// OASIS-InMem §V-F: N-bit shadow-map entries (the paper's example: 16).
	ShadowIDBits int `yaml:"shadow_id_bits" doc:"OASIS-InMem shadow-map entry width N (OASIS §V-F example: 16)"`
	// The host LLC that caches the shadow map and the O-Table-InMem. The
	// paper gives no size or latency. 1 MB of a server LLC, 16-way, 20 ns
	// per hit and 100 ns per DRAM access are our estimates; sweep them.
	HostLLCSize  units.Bytes `yaml:"host_llc_size" doc:"host LLC share for shadow map + O-Table-InMem (not in paper; 1MB)"`
	HostLLCWays  int         `yaml:"host_llc_ways" doc:"host LLC associativity (not in paper; 16)"`
	HostLLCHitNs float64     `yaml:"host_llc_hit_ns" doc:"host LLC hit latency in ns (not in paper; 20)"`
	HostMemNs    float64     `yaml:"host_mem_ns" doc:"host DRAM access in ns: LLC miss, GRIT PA-Table read (not in paper; 100)"`

	// How the duplication mechanism (the baseline, and OASIS's and GRIT's
	// duplication-bit pages) answers a write fault on a page with one copy:
	// OASIS §IV-B makes a read-only copy, and the write then takes a
	// protection fault and collapses; "migrate" moves the page writable in
	// one fault.
	DupWriteFirst string `yaml:"dup_write_first" doc:"duplication's first write: read-only-copy (OASIS §IV-B) | migrate"`

	// GRIT §V-A: 4 faults (local + protection) per page trigger a scheme
	// decision (Fig. 21 sweeps 2, 4, 8, 16).
	GRITThreshold int `yaml:"grit_threshold" doc:"faults per page before GRIT decides its scheme (GRIT §V-A: 4)"`
	// GRIT §V-B: a 64-entry, 4-way PA-Cache; a hit costs 1 cycle (our
	// choice: the paper gives no latency; 1 ns at the 1 GHz clock), a miss
	// reads the PA-Table in host memory (host_mem_ns), one memory access
	// as §V-B says.
	PACacheEntries int     `yaml:"pa_cache_entries" doc:"GRIT PA-Cache entries (GRIT §V-B: 64)"`
	PACacheWays    int     `yaml:"pa_cache_ways" doc:"GRIT PA-Cache associativity (GRIT §V-B: 4)"`
	PACacheNs      float64 `yaml:"pa_cache_ns" doc:"GRIT PA-Cache hit latency in ns (1 cycle: 1)"`
	// GRIT §V-D: neighbouring-aware prediction over 8/64/512-page groups.
	GRITNeighbors bool `yaml:"grit_neighbors" doc:"GRIT neighbouring-aware prediction on (GRIT §V-D: on)"`
	// When GRIT's PA-Cache and PA-Table lookups cost the fault time. GRIT
	// §V-B runs them "in parallel with the page table walk", so a PA-Table
	// read hides under the host's per-fault time (overlapped). Two sources
	// read them on the critical path: OASIS §VI-C credits part of its lead
	// over GRIT to GRIT's per-page "memory access overhead", and GRIT's own
	// ablation (Fig. 20: PA-Table alone +31%, with the PA-Cache +47%) needs
	// lookups that cost time for the PA-Cache to matter. serial adds them
	// after the walk, as OASIS's O-Table lookup is.
	GRITPALookup string `yaml:"grit_pa_lookup" doc:"when GRIT's PA-Cache/PA-Table lookup costs fault time: overlapped (beside the host page walk, GRIT §V-B) | serial (after it, as the O-Table lookup; the reading under which OASIS §VI-C's memory-access overhead and GRIT Fig. 20's PA-Cache gain appear)"`
}

// The values of grit_pa_lookup.
const (
	GRITLookupOverlapped = "overlapped"
	GRITLookupSerial     = "serial"
)

// The values of ac_host.
const (
	ACHostRemote  = "remote"
	ACHostMigrate = "migrate"
)

// The values of ac_evict.
const (
	ACEvictUnmap  = "unmap"
	ACEvictRemote = "remote"
)

// The values of ac_migrate.
const (
	ACMigratePage  = "page"
	ACMigrateGroup = "group"
)

// DefaultConfig returns the defaults above.
func DefaultConfig() Config {
	return Config{
		ACThreshold: 256, ACGroup: 64 * units.KB, ACMigrate: ACMigratePage, ACHost: ACHostRemote, ACEvict: ACEvictUnmap,
		OTableEntries: 16, OTableNs: 1, ResetThreshold: 8, IDBits: 4,
		ShadowIDBits: 16, HostLLCSize: units.MB, HostLLCWays: 16, HostLLCHitNs: 20, HostMemNs: 100,
		DupWriteFirst: DupReadOnlyCopy,
		GRITThreshold: 4, PACacheEntries: 64, PACacheWays: 4, PACacheNs: 1, GRITNeighbors: true,
		GRITPALookup: GRITLookupOverlapped,
	}
}
