package uvm

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/stats"
)

// Builder makes a Driver, after Akita's builder style.
type Builder struct {
	engine   sim.Engine
	cfg      Config
	policy   string
	polCfg   pagepolicy.Config
	pageSize uint64
	pages    uint64
	objectOf func(uint64) int
	counters []*stats.Counters
	capacity int
}

// MakeBuilder returns a builder with the default driver config.
func MakeBuilder() Builder {
	return Builder{cfg: DefaultConfig(), objectOf: func(uint64) int { return -1 }}
}

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the driver parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithPolicy names the page policy and its parameters. The driver builds
// it in Build, over a read-only view of its own page table, so a policy
// can only ever read the table the driver keeps.
func (b Builder) WithPolicy(name string, c pagepolicy.Config) Builder {
	b.policy, b.polCfg = name, c
	return b
}

// WithPages sets the page size and the number of pages in the managed space.
func (b Builder) WithPages(pageSize, pages uint64) Builder {
	b.pageSize, b.pages = pageSize, pages
	return b
}

// WithObjectLookup sets how a faulting pointer maps to an object ID.
func (b Builder) WithObjectLookup(f func(ptr uint64) int) Builder { b.objectOf = f; return b }

// WithCounters gives the per-GPU counters the driver increments.
func (b Builder) WithCounters(c []*stats.Counters) Builder { b.counters = c; return b }

// WithCapacity limits every GPU to pages resident pages; beyond it the
// driver evicts with the configured eviction policy. 0 means no limit.
func (b Builder) WithCapacity(pages int) Builder { b.capacity = pages; return b }

// Build makes the driver named name (e.g. "Driver").
func (b Builder) Build(name string) (*Driver, error) {
	if b.engine == nil || b.policy == "" || b.pageSize == 0 || len(b.counters) == 0 {
		return nil, fmt.Errorf("uvm.Builder: engine, policy, pages and counters are required")
	}
	d := &Driver{
		ComponentBase: sim.NewComponentBase(name),
		engine:        b.engine, cfg: b.cfg,
		pageSize: b.pageSize, table: NewPageTable(b.pages),
		objectOf: b.objectOf, counters: b.counters,
	}
	if b.capacity < 0 {
		return nil, fmt.Errorf("uvm.Builder: capacity %d pages: must not be negative", b.capacity)
	}
	if b.capacity > 0 && uint64(b.capacity) < b.pages {
		per := uint64(b.cfg.EvictionChunk) / b.pageSize
		ev, err := eviction.New(b.cfg.Eviction, len(b.counters), b.pages, per)
		if err != nil {
			return nil, err
		}
		d.capacity, d.evictor = b.capacity, ev
		d.table.Observe(ev)
		d.pinned = make([]uint64, b.pages)
	}
	p, err := pagepolicy.New(b.policy, b.polCfg, pagepolicy.Env{Table: d.table})
	if err != nil {
		return nil, err
	}
	d.policy = p
	d.port = sim.NewLimitNumMsgPort(d, 1<<16, name+".PCIe")
	d.AddPort("PCIe", d.port)
	return d, nil
}
