// Package prefetch decides which pages a fault batch brings to a GPU beyond
// the faulted ones. It is pure (no engine, no globals): the driver passes
// the batch's faulted pages and a residency test, and gets back the extra
// pages to migrate. The driver decides what migrating them means.
//
// The tree-based neighbourhood prefetcher (TBN) is the NVIDIA driver's
// (kernel-open/nvidia-uvm/uvm_perf_prefetch.c), as Early-Adaptor
// ("Early-Adaptor: An Adaptive Framework for Proactive UVM Memory
// Management", ISPASS 2023, Fig. 1) and UVMMU (§II-B) describe it: a
// binary tree per 2 MB VA block, leaves at 64 KB basic blocks, and the
// largest subtree that holds strictly more than threshold% resident pages
// is fetched whole.
package prefetch

import (
	"fmt"
	"strings"

	"github.com/mgpu-sim/mgpu/units"
)

// Prefetcher names, as a config or CLI spells them.
const (
	// Off brings only the faulted pages (EA: "prefetching disabled", the
	// driver then manages 4 KB pages).
	Off = "off"
	// SequentialLocal brings each faulted page's whole basic block (64 KB)
	// and nothing else: Ganguly et al. ISCA'19, as UVMMU §II-B describes
	// it ("prefetches 64KB chunk of pages where the faulty page resides").
	SequentialLocal = "sequential-local"
	// TBN is the driver's tree-based neighbourhood prefetcher.
	TBN = "tbn"
)

// Names lists the prefetchers New accepts.
func Names() []string { return []string{Off, SequentialLocal, TBN} }

// Threshold bounds and default: uvm_perf_prefetch_threshold, "valid values
// 1-100", UVM_PREFETCH_THRESHOLD_DEFAULT 51 (EA's "51% (Baseline)").
const (
	MinThreshold     = 1
	MaxThreshold     = 100
	DefaultThreshold = 51
)

// Config selects a prefetcher and its granularities. Sizes are bytes and
// must be powers of two with PageSize <= BlockSize <= VABlockSize.
type Config struct {
	Policy string `yaml:"policy" doc:"prefetcher: off | sequential-local (Ganguly ISCA'19: the faulted 64KB block) | tbn (NVIDIA driver tree)"`
	// Percentage of a subtree's pages that must be resident (counting the
	// pages arriving now) to fetch the rest of it; strict: a subtree of n
	// pages qualifies when resident*100 > n*threshold. 1 fetches a whole VA
	// block on its first (big-page) fault; 100 never prefetches.
	Threshold int `yaml:"threshold" doc:"tbn threshold in percent, 1..100 (uvm_perf_prefetch_threshold: 51; EA: 1 aggressive, 100 off)"`
	// BigPageFill counts a faulted page's whole basic block as arriving
	// before the tree walk (the driver's grow_fault_granularity). As in the
	// driver it only adds to the tree's counts: the block is fetched because
	// the walk then selects a region that covers it, so at threshold 100
	// nothing beyond the faulted pages moves.
	BigPageFill bool `yaml:"big_page_fill" doc:"tbn counts each faulted 64KB block as arriving (driver grow_fault_granularity: on)"`
	// BlockSize is the basic block: the tree's leaf and the big-page fill
	// and sequential-local unit (64 KB: Early-Adaptor's TBN leaf, ISPASS
	// 2023; UVMMU's page-group).
	BlockSize units.Bytes `yaml:"block_size" doc:"basic block: tree leaf and fill unit (EA, UVMMU: 64KB)"`
	// VABlockSize is the tree's root; prefetching never crosses it (2 MB,
	// UVM_VA_BLOCK_SIZE).
	VABlockSize units.Bytes `yaml:"va_block_size" doc:"tree root, never crossed (UVM_VA_BLOCK_SIZE: 2MB)"`
	// PageSize is the migration page; the driver sets it from page_size
	// (ForPageSize), so it is neither a key nor part of a result.
	PageSize units.Bytes `yaml:"-" json:"-"`
}

// DefaultConfig returns the driver's defaults: TBN at 51 with big-page fill,
// 4 KB pages, 64 KB blocks, 2 MB VA blocks.
func DefaultConfig() Config {
	return Config{Policy: TBN, Threshold: DefaultThreshold, BigPageFill: true,
		BlockSize: 64 * units.KB, VABlockSize: 2 * units.MB, PageSize: 4 * units.KB}
}

// ForPageSize returns c with PageSize set to page and the block sizes
// raised to at least one page, so that large pages (2 MB) give a valid
// config: a block of one page and a VA block of one page prefetch nothing.
func (c Config) ForPageSize(page units.Bytes) Config {
	c.PageSize = page
	c.BlockSize = max(c.BlockSize, page)
	c.VABlockSize = max(c.VABlockSize, c.BlockSize)
	return c
}

// ValidateThreshold reports whether t is a valid threshold.
func ValidateThreshold(t int) error {
	if t < MinThreshold || t > MaxThreshold {
		return fmt.Errorf("prefetch threshold %d: must be in %d..%d (driver default %d)", t, MinThreshold, MaxThreshold, DefaultThreshold)
	}
	return nil
}

// ValidatePolicy reports whether name is a known prefetcher.
func ValidatePolicy(name string) error {
	for _, n := range Names() {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("unknown prefetcher %q: valid prefetchers are %s", name, strings.Join(Names(), ", "))
}

// Validate checks every field and names the first bad one.
func (c Config) Validate() error {
	if err := ValidatePolicy(c.Policy); err != nil {
		return err
	}
	if err := ValidateThreshold(c.Threshold); err != nil {
		return err
	}
	for _, s := range []struct {
		name string
		v    units.Bytes
	}{{"page size", c.PageSize}, {"basic block", c.BlockSize}, {"VA block", c.VABlockSize}} {
		if !s.v.IsPowerOfTwo() {
			return fmt.Errorf("prefetch %s %d bytes: must be a power of two", s.name, uint64(s.v))
		}
	}
	if c.BlockSize < c.PageSize {
		return fmt.Errorf("prefetch basic block %v is smaller than the page size %v: it must hold at least one page", c.BlockSize, c.PageSize)
	}
	if c.VABlockSize < c.BlockSize {
		return fmt.Errorf("prefetch VA block %v is smaller than the basic block %v: the tree's root must hold its leaves", c.VABlockSize, c.BlockSize)
	}
	if c.VABlockSize/c.PageSize > 1<<24 {
		return fmt.Errorf("prefetch VA block %v holds %d pages of %v: at most %d", c.VABlockSize, c.VABlockSize/c.PageSize, c.PageSize, 1<<24)
	}
	return nil
}
