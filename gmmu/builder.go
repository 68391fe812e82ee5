package gmmu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/cache"
	"github.com/mgpu-sim/mgpu/stats"
)

// Builder makes a GMMU, after Akita's builder style.
type Builder struct {
	engine   sim.Engine
	cfg      Config
	id       int
	pageSize uint64
	pages    uint64
	batch    int
	freqMHz  float64
	counters *stats.Counters
}

// MakeBuilder returns a builder with GRIT Table I defaults.
func MakeBuilder() Builder {
	return Builder{cfg: DefaultConfig(), batch: 256, freqMHz: 1000, pageSize: 4096}
}

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the GMMU parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithGPUID sets which GPU the GMMU belongs to.
func (b Builder) WithGPUID(id int) Builder { b.id = id; return b }

// WithPages sizes the local page table.
func (b Builder) WithPages(pageSize, pages uint64) Builder {
	b.pageSize, b.pages = pageSize, pages
	return b
}

// WithFaultBatch sets how many faults go to the driver at once.
func (b Builder) WithFaultBatch(n int) Builder { b.batch = n; return b }

// WithFreqMHz sets the clock the walk latency is counted in.
func (b Builder) WithFreqMHz(f float64) Builder { b.freqMHz = f; return b }

// WithCounters sets the counters the GMMU increments.
func (b Builder) WithCounters(c *stats.Counters) Builder { b.counters = c; return b }

// Build makes the GMMU named name, e.g. "GPU[0].GMMU".
func (b Builder) Build(name string) (*Comp, error) {
	if b.engine == nil || b.counters == nil {
		return nil, fmt.Errorf("gmmu.Builder: engine and counters are required")
	}
	pwc, err := cache.New(b.cfg.PWCEntries, b.cfg.PWCWays)
	if err != nil {
		return nil, fmt.Errorf("page-walk cache: %w", err)
	}
	m := &Comp{
		ComponentBase: sim.NewComponentBase(name),
		engine:        b.engine, cfg: b.cfg, id: b.id, pageSize: b.pageSize,
		batchMax: b.batch, counters: b.counters,
		table: make([]PTE, b.pages), walkers: make([]sim.VTimeInSec, b.cfg.Walkers),
		pwc: pwc, cycle: sim.VTimeInSec(1e-6 / b.freqMHz),
		outstanding: map[uint64]*fault{},
	}
	m.port = sim.NewLimitNumMsgPort(m, 1<<16, name+".PCIe")
	m.AddPort("PCIe", m.port)
	return m, nil
}
