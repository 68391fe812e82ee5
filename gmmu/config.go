package gmmu

import "github.com/mgpu-sim/mgpu/units"

// Config holds the GPU memory-management unit's parameters (OASIS Table I /
// GRIT Table I).
type Config struct {
	// 8 shared page-table walkers (GRIT Table I).
	Walkers int `yaml:"walkers" doc:"page-table walkers per GPU (GRIT Table I: 8)"`
	// 4-level radix table, 100 cycles per level (GRIT Table I).
	Levels      int `yaml:"levels" doc:"page-table levels (x86-64/GRIT: 4)"`
	LevelCycles int `yaml:"level_cycles" doc:"cycles per page-table level (GRIT Table I: 100)"`
	// Page-walk cache of 128 entries (GRIT Table I); it caches upper-level
	// entries, so a hit skips the levels above the leaf.
	PWCEntries int `yaml:"pwc_entries" doc:"page-walk cache entries (GRIT Table I: 128)"`
	PWCWays    int `yaml:"pwc_ways" doc:"page-walk cache associativity (not in papers; 8)"`
	// BigPage, when larger than the page, is the aligned group of pages
	// that one PTE, and so one TLB entry, maps once every page of it is
	// mapped alike: NVIDIA's driver merges 4 KB PTEs into 64 KB big PTEs
	// (open-gpu-kernel-modules, uvm_va_block.c,
	// block_gpu_compute_new_pte_state). MGPUSim and GRIT translate each
	// page alone, so the default is 0. It widens the TLBs of mgpu's own GPU
	// (gpu.BigPager); answers on the Top port stay one page each,
	// since Frames places each page on its own.
	BigPage units.Bytes `yaml:"big_page" doc:"a group of pages one PTE and TLB entry maps once all its pages are mapped alike, as NVIDIA's driver merges 64KB big PTEs (uvm_va_block.c); 0 or at most page_size: each page alone (MGPUSim, GRIT)"`
	// HugePage, when larger than BigPage and the page, is the aligned group
	// one PTE maps once all its pages are mapped alike: the driver maps a
	// whole 2 MB VA block with one 2 MB PTE ("If all pages in the 2M mask
	// have the same attributes after the operation is applied, we can use
	// a 2M PTE", block_gpu_compute_new_pte_state), since GPU memory for a
	// whole block is one 2 MB chunk. The walk costs the same as a 4 KB
	// one: mgpu does not shorten it by the level it skips. 0 by default,
	// as for BigPage.
	HugePage units.Bytes `yaml:"huge_page" doc:"a 2MB-style group one PTE and TLB entry maps once all its pages are mapped alike, as NVIDIA's driver maps a whole VA block with a 2MB PTE (uvm_va_block.c); 0 or at most big_page/page_size: off (MGPUSim, GRIT)"`
}

// DefaultConfig returns GRIT Table I.
func DefaultConfig() Config {
	return Config{Walkers: 8, Levels: 4, LevelCycles: 100, PWCEntries: 128, PWCWays: 8}
}
