package uvmsmart

import (
	"fmt"
	"slices"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// Config is UVMSmart's one parameter.
type Config struct {
	// MigrateThreshold is how many accesses a 64 KB block takes over
	// zero-copy before it migrates. The driver sets the GPUs' access
	// counters to it, at the prefetcher's basic block.
	MigrateThreshold int `yaml:"migrate_threshold" doc:"zero-copy accesses to a 64 KB block before it migrates (UVMSmart gpgpusim.config -migrate_threshold: 8)"`
}

// DefaultConfig is the released simulator's GTX 1080 Ti configuration.
func DefaultConfig() Config { return Config{MigrateThreshold: 8} }

// Validate rejects a threshold below 1.
func (c Config) Validate() error {
	if c.MigrateThreshold < 1 {
		return fmt.Errorf("uvm.uvmsmart.migrate_threshold %d: must be at least 1 (UVMSmart: 8)", c.MigrateThreshold)
	}
	return nil
}

// Stats are a controller's counts, for a run's policy_stats.
type Stats struct {
	// Decisions is how many evictions re-ran the classification.
	Decisions uint64
	// ZeroCopyAtNs and TBNAtNs are when each mode came on (-1: never).
	ZeroCopyAtNs, TBNAtNs float64
	// RemoteMaps counts reads answered with a zero-copy mapping; Hot
	// counts blocks whose counter reached the threshold.
	RemoteMaps, Hot uint64
	// Patterns counts allocations per pattern at the last decision.
	Patterns [MixedReuse + 1]uint64
}

// Controller is one system's UVMSmart runtime: the classifier, the modes
// it turned on, and the blocks whose access counter reached the
// threshold. The driver feeds it; Policy consults it.
type Controller struct {
	cls      *Classifier
	perBlock uint64
	dec      Decision
	hot      []bool
	batch    []note
	stats    Stats
}

type note struct {
	block uint64
	alloc int
}

// New returns a controller over pages pages grouped into basic blocks of
// pagesPerBlock (64 KB / page size).
func New(c Config, pages, pagesPerBlock uint64) (*Controller, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if pagesPerBlock < 1 {
		return nil, fmt.Errorf("uvmsmart: %d pages per block: must be at least 1", pagesPerBlock)
	}
	blocks := (pages + pagesPerBlock - 1) / pagesPerBlock
	return &Controller{cls: NewClassifier(blocks), perBlock: pagesPerBlock, hot: make([]bool, blocks),
		stats: Stats{ZeroCopyAtNs: -1, TBNAtNs: -1}}, nil
}

// Migrated notes that page of allocation alloc is being migrated in the
// current batch (a demand fault or a prefetch). Flush records the batch.
func (c *Controller) Migrated(alloc int, page uint64) {
	if alloc >= 0 {
		c.batch = append(c.batch, note{block: page / c.perBlock, alloc: alloc})
	}
}

// Flush records the batch's blocks, each once, in address order.
func (c *Controller) Flush() {
	slices.SortFunc(c.batch, func(a, b note) int {
		if a.block < b.block {
			return -1
		}
		if a.block > b.block {
			return 1
		}
		return 0
	})
	for i, n := range c.batch {
		if i == 0 || n.block != c.batch[i-1].block {
			c.cls.Record(n.alloc, n.block)
		}
	}
	c.batch = c.batch[:0]
}

// Launch starts a kernel.
func (c *Controller) Launch() { c.cls.Launch() }

// Evicting re-classifies at an eviction, at nowNs, and returns what is on.
func (c *Controller) Evicting(nowNs float64) Decision {
	c.Flush()
	c.stats.Decisions++
	d := c.cls.Decide()
	if d.ZeroCopy && !c.dec.ZeroCopy {
		c.dec.ZeroCopy, c.stats.ZeroCopyAtNs = true, nowNs
	}
	if d.TBNEviction && !c.dec.TBNEviction {
		c.dec.TBNEviction, c.stats.TBNAtNs = true, nowNs
	}
	c.stats.Patterns = [MixedReuse + 1]uint64{}
	for a := 0; a < c.cls.Allocations(); a++ {
		c.stats.Patterns[c.cls.Pattern(a)]++
	}
	return c.dec
}

// Decision is what is on now.
func (c *Controller) Decision() Decision { return c.dec }

// Hot notes that page's block reached the access-counter threshold: from
// now on a fault in it migrates (the released code's per-block counter
// stays at or above the threshold).
func (c *Controller) Hot(page uint64) {
	if b := page / c.perBlock; !c.hot[b] {
		c.hot[b] = true
		c.stats.Hot++
	}
}

// Stats are the controller's counts.
func (c *Controller) Stats() Stats { return c.stats }

// Policy wraps a page policy with UVMSmart's zero-copy: once it is on, a
// read fault on a page that lives only on the host, in a block not yet
// hot, maps the page remotely over PCIe instead of migrating it. Writes,
// and faults in hot blocks, go to the wrapped policy (on-touch).
type Policy struct {
	pagepolicy.Policy
	c *Controller
}

// Wrap returns p with c's zero-copy.
func Wrap(p pagepolicy.Policy, c *Controller) *Policy { return &Policy{Policy: p, c: c} }

// Decide answers a fault.
func (p *Policy) Decide(f pagepolicy.Fault, pg pagepolicy.Page) pagepolicy.Decision {
	c := p.c
	if c.dec.ZeroCopy && !f.Write && pg.Owner == pagepolicy.Host && pg.Copies == 0 && !c.hot[f.Page/c.perBlock] {
		c.stats.RemoteMaps++
		return pagepolicy.Decision{Action: pagepolicy.MapRemote, Bits: pg.Bits, HostRemote: true}
	}
	return p.Policy.Decide(f, pg)
}

// Observe passes events on and starts a kernel at each launch.
func (p *Policy) Observe(e pagepolicy.Event) error {
	if e.Kind == pagepolicy.Launch {
		p.c.Launch()
	}
	return p.Policy.Observe(e)
}
