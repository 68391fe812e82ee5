package suv

import (
	"fmt"
	"math"

	"github.com/mgpu-sim/mgpu/units"
)

// Config holds SUV-Mgmt's parameters. The paper fixes three of them; the
// fourth comes from SUV-Host's working-set rule, and the page size is the
// simulator's.
type Config struct {
	// DensityThreshold is the access density (accesses per byte) above
	// which a Temporal structure earns a reserved on-demand pool; at or
	// below it SparseTemporal decides. Footnote 4 sets it so
	// that migration cost is amortized; the released SUV-Mgmt compares
	// accesses/bytes with 5 (penguin-suv.h: ad > 5).
	DensityThreshold float64 `yaml:"density_threshold" doc:"Temporal structures migrate on demand only above this access density, accesses per byte; strict (SUV §V-C footnote 4: 5)"`
	// SparseTemporal is where a Temporal structure at or below
	// DensityThreshold goes. The text of §V-C says the host (line 16);
	// the printed Algorithm 1 has no continue after line 16, so lines
	// 17-19 pin it on HBM while space remains, the rest on the host; and
	// the released SUV-Mgmt does the same (penguin-suv.h
	// perform_memory_management: a temporal region with ad <= 5 takes the
	// density path, GPU-pinned while memory is left; "TODO: keep low ad
	// temporal on CPU"). That also agrees with Table I (2DC, FDT, MVT: D)
	// and §VI's account of 2DC and of Fig. 9 (structures pinned on HBM).
	SparseTemporal string `yaml:"sparse_temporal" doc:"where a Temporal structure at or below density_threshold goes: hbm (placed like Density, on HBM while it is left: the printed Algorithm 1 and the released SUV-Mgmt) | host (pinned on the host: the text of SUV §V-C)"`
	// SparseBesideChase is where a structure at or below DensityThreshold
	// goes when its launch also has an Unknown (pointer-chase) structure.
	// §VI: BTR's "two arrays (query and results) that are lightly
	// accessed" are pinned on DRAM, "allowing more HBM capacity for the
	// B-tree", and BFS "pins lightly accessed regions on the DRAM"; the
	// released SUV-Mgmt does so only when the program has a pointer chase
	// (penguin-suv.h perform_memory_management: ad <= 5 and has_pchase, a
	// host pin; without one, HBM while it is left). Algorithm 1 as printed
	// has no such case.
	SparseBesideChase string `yaml:"sparse_beside_chase" doc:"where a structure at or below density_threshold goes when its launch has an Unknown structure: host (SUV §VI: lightly accessed arrays on DRAM, more HBM for the pointer chase; the released SUV-Mgmt) | hbm (as without one: Algorithm 1 as printed)"`
	// TemporalCutoff marks a structure Temporal when its WSS is below this
	// fraction of its size (§V-B: "smaller than a fraction (here, 0.5)").
	TemporalCutoff float64 `yaml:"temporal_cutoff" doc:"a structure is Temporal when WSS < cutoff x size, in (0, 1] (SUV §V-B: 0.5)"`
	// BatchBytes is the prefetch amortisation unit: an iteration span
	// below it is prefetched together with the following iterations' until
	// a batch covers at least this many bytes (§V-C, Algorithm 2).
	BatchBytes units.Bytes `yaml:"batch_bytes" doc:"iteration spans below this are prefetched several iterations at once (SUV §V-C: 2MB; released penguin-suv.h: 8MB)"`
	// ConcurrentFraction is SUV-Host's skip rule: when the workgroups that
	// can be resident at once exceed this fraction of the grid, no
	// structure of the launch is Temporal. Only Oracle uses it: declared
	// hints carry the outcome.
	ConcurrentFraction float64 `yaml:"concurrent_fraction" doc:"a launch whose concurrently resident workgroups exceed this fraction of its grid has no Temporal structures, in (0, 1] (SUV §V-B: 0.5)"`
	// ACThreshold and ACGroup are the access counters SUV enables for
	// Unknown structures (suvEnableAccessCounter). The paper does not give
	// them; the released code enables them with threshold 256 at 64 KB
	// granularity (penguin-suv.h penguinEnableAccessCounters: mimc_gran 1,
	// UVM_ACCESS_COUNTER_GRANULARITY_64K in NVIDIA's nv_uvm_types.h), where
	// the AC baseline keeps the driver's 2 MB.
	ACThreshold int         `yaml:"ac_threshold" doc:"accesses to a counter region before an Unknown structure's region migrates, 1..65535 (released SUV, penguin-suv.h: 256)"`
	ACGroup     units.Bytes `yaml:"ac_group" doc:"access-counter region of Unknown structures: 64KB | 2MB | 16MB | 1GB (released SUV, penguin-suv.h mimc_gran 1: 64KB)"`
	// UnknownFault is what a fault on an Unknown structure's page does.
	// The paper's prose relies "on hardware access counters to migrate
	// pages *only* for that virtual address region"; read strictly, the
	// page is served over PCIe until its counter fires (remote). But the
	// paper also has BTR and DTG among Fig. 9's largest gains without
	// oversubscription, for "avoiding page faults", and XSB "almost
	// identical to AC", the driver's access-counter migration, in which a
	// first touch faults the page in and an evicted page stays mapped over
	// PCIe until its counter pulls it back (uvm_perf_map_remote_on_eviction).
	// The released SUV does exactly that for the range: it turns the
	// counters on, reserves the share and leaves the faults to the stock
	// driver (penguin-suv.h perform_memory_management). So migrate, the
	// default, follows the driver and the released code; the pool's
	// evicted pages stay mapped over PCIe in both.
	UnknownFault string `yaml:"unknown_fault" doc:"a fault on an Unknown structure's page: migrate (into its pool, as the driver's access-counter mode and the released SUV; evicted pages stay mapped over PCIe until their counter fires) | remote (map it over PCIe until its counter fires: SUV §V-B's 'only' read strictly)"`
	// Hints is where the simulator's hints come from: the workload's
	// declarations (what the compiler passes derive) or a functional
	// pre-run (Oracle, an upper bound).
	Hints string `yaml:"hints" doc:"hint source: declared (the workload's, as SUV's compiler derives them) | oracle (measured by a functional pre-run: an upper bound, SUV never profiles)"`
	// PageSize is the simulator's page: every range and reservation is
	// aligned to it, so the invariants hold in pages. The driver sets it
	// from page_size (ForPageSize); it is not a key.
	PageSize units.Bytes `yaml:"-" json:"-"`
}

// Where sparse structures go (Config.SparseTemporal, SparseBesideChase).
const (
	SparseHBM  = "hbm"
	SparseHost = "host"
)

// What a fault on an Unknown structure's page does (Config.UnknownFault).
const (
	UnknownMigrate = "migrate"
	UnknownRemote  = "remote"
)

// Hint sources (Config.Hints).
const (
	HintsDeclared = "declared"
	HintsOracle   = "oracle"
)

// DefaultConfig is the paper's setting over 4 KB pages.
func DefaultConfig() Config {
	return Config{DensityThreshold: 5, SparseTemporal: SparseHBM, SparseBesideChase: SparseHost, TemporalCutoff: 0.5, BatchBytes: 2 * units.MB,
		ConcurrentFraction: 0.5, ACThreshold: 256, ACGroup: 64 * units.KB, UnknownFault: UnknownMigrate, Hints: HintsDeclared, PageSize: 4 * units.KB}
}

// ForPageSize returns c aligned to pages of page bytes.
func (c Config) ForPageSize(page units.Bytes) Config {
	c.PageSize = page
	return c
}

// Validate names the first bad key and its valid range.
func (c Config) Validate() error {
	if !(c.DensityThreshold > 0) || math.IsInf(c.DensityThreshold, 1) {
		return fmt.Errorf("uvm.suv.density_threshold %v: must be a finite number > 0 (SUV: 5)", c.DensityThreshold)
	}
	if c.SparseTemporal != SparseHBM && c.SparseTemporal != SparseHost {
		return fmt.Errorf("uvm.suv.sparse_temporal %q: must be %s or %s", c.SparseTemporal, SparseHBM, SparseHost)
	}
	if c.SparseBesideChase != SparseHBM && c.SparseBesideChase != SparseHost {
		return fmt.Errorf("uvm.suv.sparse_beside_chase %q: must be %s or %s", c.SparseBesideChase, SparseHBM, SparseHost)
	}
	if !(c.TemporalCutoff > 0 && c.TemporalCutoff <= 1) {
		return fmt.Errorf("uvm.suv.temporal_cutoff %v: must be in (0, 1] (SUV: 0.5)", c.TemporalCutoff)
	}
	if !(c.ConcurrentFraction > 0 && c.ConcurrentFraction <= 1) {
		return fmt.Errorf("uvm.suv.concurrent_fraction %v: must be in (0, 1] (SUV: 0.5)", c.ConcurrentFraction)
	}
	if c.ACThreshold < 1 || c.ACThreshold > 65535 {
		return fmt.Errorf("uvm.suv.ac_threshold %d: must be in 1..65535 (released SUV: 256)", c.ACThreshold)
	}
	switch c.ACGroup {
	case 64 * units.KB, 2 * units.MB, 16 * units.MB, units.GB:
	default:
		return fmt.Errorf("uvm.suv.ac_group %v: must be 64KB, 2MB, 16MB or 1GB (released SUV: 64KB)", c.ACGroup)
	}
	if c.UnknownFault != UnknownMigrate && c.UnknownFault != UnknownRemote {
		return fmt.Errorf("uvm.suv.unknown_fault %q: must be %s or %s", c.UnknownFault, UnknownMigrate, UnknownRemote)
	}
	if c.Hints != HintsDeclared && c.Hints != HintsOracle {
		return fmt.Errorf("uvm.suv.hints %q: must be %s or %s", c.Hints, HintsDeclared, HintsOracle)
	}
	if !c.PageSize.IsPowerOfTwo() || c.PageSize > units.TB {
		return fmt.Errorf("suv page size %d bytes: must be a power of two up to 1TB", uint64(c.PageSize))
	}
	if c.BatchBytes == 0 || c.BatchBytes > units.TB {
		return fmt.Errorf("uvm.suv.batch_bytes %d: must be in 1B..1TB (SUV: 2MB)", uint64(c.BatchBytes))
	}
	return nil
}

// page is the page size as the package's byte type.
func (c Config) page() int64 { return int64(c.PageSize) }
