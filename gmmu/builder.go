package gmmu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Builder makes a GMMU, after Akita's builder style.
type Builder struct {
	engine   sim.Engine
	early    bool // dated sends go at once (WithEarlyDatedSends)
	cfg      Config
	id       int
	pageSize uint64
	pages    uint64
	base     uint64
	batch    int
	freqMHz  float64
	counters *stats.Counters
	bufSize  int
	delay    sim.VTimeInSec
	frames   *Frames
	// concurrent sends each fault at once (WithConcurrentFaults).
	concurrent bool
}

// MakeBuilder returns a builder with GRIT Table I defaults.
func MakeBuilder() Builder {
	return Builder{cfg: DefaultConfig(), batch: 256, freqMHz: 1000, pageSize: 4096, bufSize: 1 << 16}
}

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the GMMU parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithGPUID sets which GPU the GMMU belongs to.
func (b Builder) WithGPUID(id int) Builder { b.id = id; return b }

// WithPages sizes the local page table: pages pages of pageSize bytes.
func (b Builder) WithPages(pageSize, pages uint64) Builder {
	b.pageSize, b.pages = pageSize, pages
	return b
}

// WithAddressBase sets the virtual address of page 0, for translation
// requests that arrive on the Top port (default 0).
func (b Builder) WithAddressBase(va uint64) Builder { b.base = va; return b }

// WithFaultBatch sets how many faults go to the driver at once.
func (b Builder) WithFaultBatch(n int) Builder { b.batch = n; return b }

// WithFreqMHz sets the clock the walk latency is counted in.
func (b Builder) WithFreqMHz(f float64) Builder { b.freqMHz = f; return b }

// WithCounters sets the counters the GMMU increments; by default it keeps
// its own (see Counters).
func (b Builder) WithCounters(c *stats.Counters) Builder { b.counters = c; return b }

// WithBufferSize sets how many incoming messages each port holds.
func (b Builder) WithBufferSize(n int) Builder { b.bufSize = n; return b }

// WithRecvDelay sets the time between a message's arrival and its
// handling. mgpu's links fold it into their latency, so the default is 0.
// Akita's own connections deliver again only in a later tick, so a
// component that retrieves in the same instant a tick found its buffer full
// would never be ticked again: give it a cycle there.
func (b Builder) WithRecvDelay(d sim.VTimeInSec) Builder { b.delay = d; return b }

// WithEarlyDatedSends hands a message sent for a later time to the
// connection at once, its SendTime in the future, as mgpu did before
// link.future_sends=hold (its reserve); by default it waits until due.
func (b Builder) WithEarlyDatedSends(on bool) Builder { b.early = on; return b }

// WithFrames gives the GPUs' physical memory, shared by every GMMU of the
// system: translations through Top then answer with the physical address
// of the page's frame (see Frames). Without it PAddr is the page's virtual
// address.
func (b Builder) WithFrames(f *Frames) Builder { b.frames = f; return b }

// WithConcurrentFaults sends every fault to the driver as soon as it is
// raised, with no limit on faults in flight (Comp.Concurrent): what a
// driver that handles faults in hardware (uvm.fault_handling=hardware)
// needs, since it ends no fault batch.
func (b Builder) WithConcurrentFaults(on bool) Builder { b.concurrent = on; return b }

// Build makes the GMMU named name, e.g. "GPU[0].GMMU".
func (b Builder) Build(name string) (*Comp, error) {
	if b.engine == nil {
		return nil, fmt.Errorf("gmmu.Builder: an engine is required")
	}
	watcher, ok := b.engine.(engine.Watcher)
	if !ok {
		return nil, fmt.Errorf("gmmu.Builder: engine %T would drop the GMMU's errors and could not tell a finished run from a stalled one; build on mgpu's engine (engine.New(), or a partition of it)", b.engine)
	}
	if b.id < 0 {
		return nil, fmt.Errorf("gmmu.Builder: GPU %d: WithGPUID takes the GPU's index from 0", b.id)
	}
	if b.pageSize == 0 || b.pageSize&(b.pageSize-1) != 0 {
		return nil, fmt.Errorf("gmmu.Builder: page size %d is not a power of two", b.pageSize)
	}
	if b.bufSize < 1 {
		return nil, fmt.Errorf("gmmu.Builder: buffer size %d: must be at least 1", b.bufSize)
	}
	if f := b.frames; f != nil && (f.pageSize != b.pageSize || f.pages != b.pages || b.id >= len(f.gpu)) {
		return nil, fmt.Errorf("gmmu.Builder: frames for %d GPUs and %d pages of %d B, but GPU %d has %d pages of %d B",
			len(f.gpu), f.pages, f.pageSize, b.id, b.pages, b.pageSize)
	}
	pwc, err := newWalkCache(b.cfg.PWCEntries, b.cfg.PWCWays)
	if err != nil {
		return nil, fmt.Errorf("page-walk cache: %w", err)
	}
	counters := b.counters
	if counters == nil {
		counters = &stats.Counters{}
	}
	m := &Comp{
		ComponentBase: sim.NewComponentBase(name),
		engine:        b.engine, cfg: b.cfg, id: b.id, pageSize: b.pageSize, base: b.base,
		counters: counters, faults: NewFaultBuffer(b.id, b.batch),
		build: uvmproto.MakeBuilder().WithPageSize(b.pageSize),
		table: make([]PTE, b.pages), big: newBigPages(uint64(b.cfg.BigPage), uint64(b.cfg.HugePage), b.pageSize, b.pages), walkers: newWalkerPool(b.cfg.Walkers),
		pwc: pwc, cycle: sim.VTimeInSec(1e-6 / b.freqMHz), recvDelay: b.delay, frames: b.frames,
	}
	m.port = uvmproto.NewPort(m, b.bufSize, name+".PCIe")
	m.AddPort("PCIe", m.port)
	m.top = uvmproto.NewPort(m, b.bufSize, name+".Top")
	m.AddPort("Top", m.top)
	m.ctrl = uvmproto.NewPort(m, b.bufSize, name+".Control")
	m.AddPort("Control", m.ctrl)
	m.src = engine.NewSource(b.engine)
	m.out, m.topOut, m.ctrlOut = uvmproto.NewOutbox(m.port, b.engine), uvmproto.NewOutbox(m.top, b.engine), uvmproto.NewOutbox(m.ctrl, b.engine)
	m.shootdowns = map[string]*uvmproto.InvalidateMsg{}
	for _, o := range []*uvmproto.Outbox{m.out, m.topOut, m.ctrlOut} {
		o.SendEarly(b.early)
	}
	if b.concurrent {
		m.Concurrent()
	}
	watcher.Watch(m)
	return m, nil
}
