package gpu

import (
	"fmt"
	"math/bits"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/cache"
	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Builder makes a GPU, after Akita's builder style.
type Builder struct {
	engine   sim.Engine
	early    bool // dated sends go at once (WithEarlyDatedSends)
	cfg      Config
	id, gpus int
	pageSize uint64
	pages    uint64
	counters *stats.Counters
	stalls   *stats.Stalls
	check    bool
	recency  Toucher
	acThresh int
	acGroup  uint64
	acPage   bool
	acLatch  bool
	bufSize  int
	delay    sim.VTimeInSec
}

// MakeBuilder returns a builder with OASIS Table I defaults.
func MakeBuilder() Builder {
	return Builder{cfg: DefaultConfig(), gpus: 1, pageSize: 4096, acThresh: 256, acGroup: 64 << 10, bufSize: 1 << 16}
}

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the GPU parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithID sets the GPU's index and the number of GPUs in the system.
func (b Builder) WithID(id, gpus int) Builder { b.id, b.gpus = id, gpus; return b }

// WithPages sets the page size (a power of two) and the number of pages in
// the managed address space.
func (b Builder) WithPages(size, pages uint64) Builder {
	b.pageSize, b.pages = size, pages
	return b
}

// WithStats sets where the GPU counts events and stalls.
func (b Builder) WithStats(c *stats.Counters, s *stats.Stalls) Builder {
	b.counters, b.stalls = c, s
	return b
}

// WithAccessCounters sets the remote-access counter threshold, the group
// size in bytes, and whether a notification names only the page that
// reached the threshold (perPage) or the group's pages.
func (b Builder) WithAccessCounters(threshold int, groupBytes uint64, perPage bool) Builder {
	b.acThresh, b.acGroup, b.acPage = threshold, groupBytes, perPage
	return b
}

// WithLatchedCounters makes each access counter notify once, then stay
// silent until a shootdown of one of its group's pages (ObservUVM).
func (b Builder) WithLatchedCounters(on bool) Builder { b.acLatch = on; return b }

// WithBufferSize sets how many incoming messages the NVLink port holds.
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

// WithCheck turns on internal assertions (the coherence checking mode).
func (b Builder) WithCheck(on bool) Builder { b.check = on; return b }

// WithRecency reports every local page access to t (LRU eviction).
func (b Builder) WithRecency(t Toucher) Builder { b.recency = t; return b }

// Build makes the GPU named name, e.g. "GPU[0]".
func (b Builder) Build(name string) (*Comp, error) {
	c := b.cfg
	if b.engine == nil || b.counters == nil || b.stalls == nil {
		return nil, fmt.Errorf("gpu.Builder: engine and stats are required")
	}
	if b.bufSize < 1 {
		return nil, fmt.Errorf("gpu.Builder: buffer size %d: must be at least 1", b.bufSize)
	}
	var err error
	line := uint64(c.LineSize)
	cycle := sim.VTimeInSec(1e-6 / c.FreqMHz)
	g := &Comp{
		ComponentBase: sim.NewComponentBase(name),
		engine:        b.engine, cfg: c, id: b.id,
		counters: b.counters, stalls: b.stalls, check: b.check, recency: b.recency,
		cycle:     cycle,
		pageShift: uint(bits.TrailingZeros64(b.pageSize)),
		lineShift: uint(bits.TrailingZeros64(line)),
		pageSize:  b.pageSize,
		l1tlbLat:  sim.VTimeInSec(c.L1TLBCycles) * cycle,
		l2tlbLat:  sim.VTimeInSec(c.L2TLBCycles) * cycle,
		l1vLat:    sim.VTimeInSec(c.L1VCycles) * cycle,
		l2Lat:     sim.VTimeInSec(c.L2Cycles) * cycle,
		dramLat:   sim.VTimeInSec(c.DRAMLatencyNs * 1e-9),
		dramLine:  sim.VTimeInSec(float64(line) / (c.DRAMGBps * 1e9)),
		drain:     sim.VTimeInSec(c.DrainCycles) * cycle,
		recvDelay: b.delay,
		tlbGen:    make([]uint32, b.pages),
		lineGen:   make([]uint32, b.pages),
	}
	g.linesPerPage = g.pageShift - g.lineShift
	g.ac = newAccessCounters(b.acThresh, b.acGroup, b.pageSize, b.pages, b.acPage)
	g.ac.limit(c.ACCounters)
	if b.acLatch {
		g.ac.latch()
	}
	if g.l2tlb, err = cache.New(c.L2TLBEntries, c.L2TLBWays); err != nil {
		return nil, fmt.Errorf("L2 TLB: %w", err)
	}
	if g.l2, err = cache.New(int(uint64(c.L2Size)/line), c.L2Ways); err != nil {
		return nil, fmt.Errorf("L2 cache: %w", err)
	}
	if c.CUs*c.WavefrontsPerCU > MaxSlots {
		return nil, fmt.Errorf("gpu.Builder: %d CUs of %d wavefront slots: at most %d slots a GPU", c.CUs, c.WavefrontsPerCU, MaxSlots)
	}
	g.slots = c.WavefrontsPerCU
	g.wfs = make([]*wavefront, c.CUs*c.WavefrontsPerCU)
	if g.wfSources, err = engine.NewSourceBlock(b.engine, len(g.wfs)); err != nil {
		return nil, err
	}
	g.src = engine.NewSource(b.engine)
	g.cus = make([]computeUnit, c.CUs)
	for i := range g.cus {
		cu := &g.cus[i]
		cu.free = make([]uint64, (c.WavefrontsPerCU+63)/64)
		for s := 0; s < c.WavefrontsPerCU; s++ {
			cu.release(s)
		}
		if cu.l1tlb, err = cache.New(c.L1TLBEntries, c.L1TLBWays); err != nil {
			return nil, fmt.Errorf("L1 TLB: %w", err)
		}
		if cu.l1v, err = cache.New(int(uint64(c.L1VSize)/line), c.L1VWays); err != nil {
			return nil, fmt.Errorf("L1V cache: %w", err)
		}
	}
	g.port = sim.NewLimitNumMsgPort(g, b.bufSize, name+".NVLink")
	g.AddPort("NVLink", g.port)
	g.out = uvmproto.NewOutbox(g.port, b.engine)
	g.out.SendEarly(b.early)
	g.build = uvmproto.MakeBuilder().WithPageSize(b.pageSize)
	g.hostPort = sim.NewLimitNumMsgPort(g, b.bufSize, name+".PCIe")
	g.AddPort("PCIe", g.hostPort)
	g.hostOut = uvmproto.NewOutbox(g.hostPort, b.engine)
	g.hostOut.SendEarly(b.early)
	g.ctrl = sim.NewLimitNumMsgPort(g, b.bufSize, name+".Control")
	g.AddPort("Control", g.ctrl)
	g.ctrlOut = uvmproto.NewOutbox(g.ctrl, b.engine)
	g.ctrlOut.SendEarly(b.early)
	g.cur = new(inflight)
	g.remoteLines = make([][]uint64, b.gpus+1) // one per GPU, then host memory
	for i := range g.remoteLines {
		g.remoteLines[i] = make([]uint64, 0, uvmproto.MaxLines)
	}
	return g, nil
}
