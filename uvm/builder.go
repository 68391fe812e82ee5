package uvm

import (
	"fmt"
	"slices"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Builder makes a Driver (or its bare Service core), after Akita's builder
// style.
type Builder struct {
	engine   sim.Engine
	early    bool // dated sends go at once (WithEarlyDatedSends)
	cfg      Config
	policy   string
	polCfg   pagepolicy.Config
	gpus     int
	pageSize uint64
	pages    uint64
	objectOf func(uint64) int
	counters []*stats.Counters
	capacity int
	bufSize  int
	delay    sim.VTimeInSec
	log      zerolog.Logger
	seed     uint64
	line     int
	objects  bool // objectOf knows the allocations
	clockMHz float64
	moves    MoveObserver
	base     uint64
	workload Workload
}

// WithWorkload tells the runtimes the run's allocations, kernels and GPU
// geometry (a runtime with a host-side half plans launches from them).
func (b Builder) WithWorkload(w Workload) Builder { b.workload = w; return b }

// MoveObserver is told of every page the driver moves from one GPU to
// another (not replicas, not host copies), when the copy is issued: the
// ping-pong analysis of on-touch migration. It must not change the run.
type MoveObserver interface {
	Moved(page uint64, from, to int, now sim.VTimeInSec)
}

// WithMoveObserver sets the observer of GPU-to-GPU page moves.
func (b Builder) WithMoveObserver(o MoveObserver) Builder { b.moves = o; return b }

// MakeBuilder returns a builder with the default driver config.
func MakeBuilder() Builder {
	return Builder{cfg: DefaultConfig(), objectOf: func(uint64) int { return -1 }, bufSize: 1 << 16, log: zerolog.Nop(), clockMHz: 1000}
}

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the driver parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithPolicy names the page policy and its parameters. The driver builds
// it over a read-only view of its own page table, so a policy can only
// ever read the table the driver keeps.
func (b Builder) WithPolicy(name string, c pagepolicy.Config) Builder {
	b.policy, b.polCfg = name, c
	return b
}

// WithGPUs sets the number of GPUs the driver serves.
func (b Builder) WithGPUs(n int) Builder { b.gpus = n; return b }

// WithPages sets the page size and the number of pages in the managed space.
func (b Builder) WithPages(pageSize, pages uint64) Builder {
	b.pageSize, b.pages = pageSize, pages
	return b
}

// WithAddressBase sets the virtual address of page 0, as the GMMUs'
// WithAddressBase does: the object lookup is asked with base +
// page·pageSize for a page the driver moves outside a fault.
func (b Builder) WithAddressBase(va uint64) Builder { b.base = va; return b }

// WithObjectLookup sets how a faulting pointer maps to an object ID. It is
// asked with a faulting pointer (with its tag, if the model tags pointers)
// or, for a page the driver moves outside a fault, with the page's address
// (WithAddressBase).
// Without it every address is outside any object but still allocated (the
// prefetcher then may bring any page).
func (b Builder) WithObjectLookup(f func(ptr uint64) int) Builder {
	b.objectOf, b.objects = f, true
	return b
}

// WithCounters gives the per-GPU counters the driver increments; by default
// it keeps its own.
func (b Builder) WithCounters(c []*stats.Counters) Builder { b.counters = c; return b }

// WithCapacity limits every GPU to pages resident pages; beyond it the
// driver evicts with the configured eviction policy. 0 means no limit.
func (b Builder) WithCapacity(pages int) Builder { b.capacity = pages; return b }

// WithBufferSize sets how many incoming messages the PCIe port holds.
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

// WithLineSize sets the cache-line size of zero-copy host accesses.
func (b Builder) WithLineSize(n int) Builder { b.line = n; return b }

// WithSeed seeds the random evictions (random-4kb, linear-random).
func (b Builder) WithSeed(seed uint64) Builder { b.seed = seed; return b }

// WithClockMHz sets the GPU clock, in which UVMMU counts its cycles
// (default 1000).
func (b Builder) WithClockMHz(f float64) Builder { b.clockMHz = f; return b }

// WithLogger sets where the driver logs: fault batches at trace, policy
// and phase changes at debug. By default it logs nothing. The Service core
// never logs; the Driver adapter logs what goes in and comes out of it.
func (b Builder) WithLogger(l zerolog.Logger) Builder { b.log = l; return b }

// BuildService makes the driver's engine-free protocol core.
func (b Builder) BuildService() (*Service, error) {
	gpus := b.gpus
	if gpus == 0 {
		gpus = len(b.counters)
	}
	switch {
	case b.policy == "":
		return nil, fmt.Errorf("uvm.Builder: a policy is required")
	case gpus < 1 || gpus > 64:
		return nil, fmt.Errorf("uvm.Builder: %d GPUs: must be 1..64", gpus)
	case b.pageSize == 0 || b.pageSize&(b.pageSize-1) != 0:
		return nil, fmt.Errorf("uvm.Builder: page size %d is not a power of two", b.pageSize)
	case b.capacity < 0:
		return nil, fmt.Errorf("uvm.Builder: capacity %d pages: must not be negative", b.capacity)
	case len(b.counters) != 0 && len(b.counters) != gpus:
		return nil, fmt.Errorf("uvm.Builder: %d counters for %d GPUs", len(b.counters), gpus)
	}
	counters := b.counters
	if len(counters) == 0 {
		counters = make([]*stats.Counters, gpus)
		for i := range counters {
			counters[i] = &stats.Counters{}
		}
	}
	s := &Service{
		cfg: b.cfg, gpus: gpus, table: NewPageTable(b.pages), mapped: make([]uint64, b.pages), tracer: untraced{},
		objectOf: b.objectOf, objects: b.objects, counters: counters, pageSize: b.pageSize, base: b.base,
		build: uvmproto.MakeBuilder().WithPageSize(b.pageSize),
	}
	if b.cfg.HostThreads < 0 {
		return nil, fmt.Errorf("uvm.Builder: %d host threads: must be >= 0", b.cfg.HostThreads)
	}
	s.threads = make([]sim.VTimeInSec, b.cfg.HostThreads)
	s.thrash, s.faultThrash = offThrashing{}, offThrashing{}
	if b.moves != nil {
		s.copied = append(s.copied, func(t Transfer, now sim.VTimeInSec) {
			if !t.Replica && t.From != Host && t.To != Host {
				b.moves.Moved(t.Page, t.From, t.To, now)
			}
		})
	}
	if b.cfg.Thrashing {
		t := newThrashing(b.cfg, b.pages)
		s.thrash = t
		if b.cfg.ThrashingFaults {
			s.faultThrash = t
		}
		s.copied = append(s.copied, func(tr Transfer, now sim.VTimeInSec) {
			if !tr.Replica {
				t.moved(tr.Page, now)
			}
		})
	}
	pf := b.cfg.Prefetch.ForPageSize(units.Bytes(b.pageSize))
	if err := pf.Validate(); err != nil {
		return nil, err
	}
	s.prefetchStage = func(int, [][]uvmproto.Inval) {}
	if pf.Policy != prefetch.Off && b.pages > 0 {
		s.prefetchStage = s.prefetch
		s.trees = make([]*prefetch.Tree, gpus)
		for g := range s.trees {
			t, err := prefetch.New(pf, b.pages)
			if err != nil {
				return nil, err
			}
			s.trees[g] = t
		}
	}
	env := RuntimeEnv{Config: b.cfg, Policy: b.policy, Hardware: b.cfg.FaultHandling != HandlingSoftware && b.cfg.FaultHandling != "", GPUs: gpus,
		Pages: b.pages, PageSize: b.pageSize, Capacity: max(0, b.capacity), Prefetch: pf, Trees: s.trees,
		ObjectOf: b.objectOf, Objects: b.objects, AddressBase: b.base, Seed: b.seed, Ops: ops{s}, Log: b.log, Workload: b.workload}
	if err := s.buildRuntime(b, KeyPrefetchControl, b.cfg.PrefetchControl, env); err != nil {
		return nil, err
	}
	if err := s.buildHandling(b, gpus); err != nil {
		return nil, err
	}
	if err := s.buildRuntime(b, KeyAdaptive, b.cfg.Adaptive, env); err != nil {
		return nil, err
	}
	if s.handler == nil && b.capacity > 0 && uint64(b.capacity) < b.pages {
		o := eviction.Options{GPUs: gpus, Pages: b.pages,
			PagesPerChunk: max(1, uint64(b.cfg.EvictionChunk)/b.pageSize),
			PagesPerBlock: max(1, uint64(pf.BlockSize)/b.pageSize), Seed: b.seed}
		ev, err := eviction.NewWith(b.cfg.Eviction, o)
		if err != nil {
			return nil, err
		}
		for _, r := range s.rts {
			if d, ok := r.(EvictionDecorator); ok {
				if ev, err = d.DecorateEviction(ev, o); err != nil {
					return nil, err
				}
			}
		}
		if b.cfg.EvictionCensus {
			ev = eviction.NewCensus(ev, o)
		}
		s.capacity, s.evictor = b.capacity, ev
		s.table.Observe(ev)
		s.pinned = make([]uint64, b.pages)
	}
	if s.evictor == nil { // a runtime may still watch pages come and go
		for _, r := range s.rts {
			if w, ok := r.(Residency); ok {
				s.table.Observe(w)
			}
		}
	}
	if s.pinned == nil && slices.ContainsFunc(s.rts, Runtime.Evicts) { // a runtime that evicts spares the batch's pages
		s.pinned = make([]uint64, b.pages)
	}
	p, err := pagepolicy.New(b.policy, b.polCfg, pagepolicy.Env{Table: s.table, Log: b.log})
	if err != nil {
		return nil, err
	}
	if t, err := pagepolicy.TraitsOf(b.policy); err == nil && t.Unserviced {
		s.unserviced = true
	}
	for _, r := range s.rts {
		if d, ok := r.(PolicyDecorator); ok {
			p = d.DecoratePolicy(p)
		}
	}
	s.policy = p
	s.composeEviction()
	s.core = s
	if s.handler != nil {
		s.core = handled{s, s.handler}
		s.reporters = append(s.reporters, s.handler.Report)
	}
	return s, nil
}

// Build makes the driver component named name (e.g. "Driver").
func (b Builder) Build(name string) (*Driver, error) {
	if b.engine == nil {
		return nil, fmt.Errorf("uvm.Builder: an engine is required")
	}
	watcher, ok := b.engine.(engine.Watcher)
	if !ok {
		return nil, fmt.Errorf("uvm.Builder: engine %T would drop the driver's errors and could not tell a finished run from a stalled one; build on mgpu's engine (engine.New(), or a partition of it)", b.engine)
	}
	if b.bufSize < 1 {
		return nil, fmt.Errorf("uvm.Builder: buffer size %d: must be at least 1", b.bufSize)
	}
	svc, err := b.BuildService()
	if err != nil {
		return nil, err
	}
	line := b.line
	if line == 0 {
		line = 64
	}
	d := &Driver{ComponentBase: sim.NewComponentBase(name), engine: b.engine, svc: svc, core: svc.Core(), recvDelay: b.delay, log: b.log,
		lineBytes: line, hostMem: sim.VTimeInSec(b.cfg.HostMemoryNs * 1e-9)}
	d.src = engine.NewSource(b.engine)
	d.port = uvmproto.NewPort(d, b.bufSize, name+".PCIe")
	d.AddPort("PCIe", d.port)
	out := uvmproto.NewOutbox(d.port, b.engine)
	out.SendEarly(b.early)
	d.out = out
	svc.tracer = driverTasks{d}
	watcher.Watch(d)
	return d, nil
}

// composeEviction chooses the eviction stage: the runtimes' room-making
// (SUV's pools) and the eviction policy's victims, either, or none.
func (s *Service) composeEviction() {
	switch {
	case s.evictor != nil:
		s.evictStage = func(invals [][]uvmproto.Inval) {
			s.makeRoom(invals)
			s.evict(invals)
		}
	case slices.ContainsFunc(s.rts, Runtime.Evicts):
		s.evictStage = s.makeRoom
	default:
		s.evictStage = func([][]uvmproto.Inval) {}
	}
}
