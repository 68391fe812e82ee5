// Package platform builds a multi-GPU system from a config.Config
// (engine, GPUs, GMMUs, the UVM driver, NVLink and PCIe), runs a workload
// on it, and collects the result.
package platform

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/benchmarks"
	_ "github.com/mgpu-sim/mgpu/benchmarks/all" // registers every workload
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/gpu"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	_ "github.com/mgpu-sim/mgpu/runtimes/all" // registers every runtime
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

// Options name a run: what to run, under which policy, on which config.
type Options struct {
	Workload   string
	Policy     string
	Seed       uint64
	Scale      float64
	Size       string
	Iterations int
	Config     config.Config
	// Sets records the --set overrides that made Config, for the result's
	// readers (sweeps group by them); Config already includes them.
	Sets map[string]string
	// Observer, if set, sees every page access (the characteriser).
	Observer gpu.AccessObserver
	// directBuffer, when set, replaces mgpu's links with Akita's own
	// DirectConnection and gives every port that many buffer slots: the
	// test that the components honour back-pressure.
	directBuffer int
	// unreadKeys, when set, lets a policy.* key or im2col through where
	// the policy or workload ignores it: the test that shows they do.
	unreadKeys bool
	// workload, when set, runs in place of the named one: a test's
	// workload that the registry, and so `mgpu list`, never shows.
	workload benchmarks.Workload
	// Program, if set, runs in place of the workload Workload names: a
	// recording replayed (replay.Program). Workload is then its name.
	Program benchmarks.Workload
	// Moves, if set, is told of every GPU-to-GPU page move (see
	// uvm.MoveObserver).
	Moves uvm.MoveObserver
	// Launches, if set, is told of every kernel start (the characteriser's
	// phases); see LaunchObserver.
	Launches LaunchObserver
	// Progress, if set, is called on the simulating goroutine every
	// ProgressEvents engine events and once at the end, with a snapshot
	// of the run; it must not block for long. It does not change the run.
	Progress func(Progress)
	// Log, if set, is where the run logs instead of the logger SetLogger
	// set.
	Log *zerolog.Logger
	// progressEvery, when set, replaces ProgressEvents (tests).
	progressEvery uint64
	// Threads runs the GPUs on up to this many threads (parallel.go);
	// 0 or 1 runs serially. The results are the same either way, so it
	// is not part of the config.
	Threads int
}

// System is a built, runnable platform.
type System struct {
	opts     Options
	engine   *engine.Engine
	alloc    *objtable.Allocator
	gpus     []*gpu.Comp
	gmmus    []*gmmu.Comp
	driver   *uvm.Driver
	pcie     trafficCounter
	nvlink   trafficCounter
	runner   *runner
	check    *uvm.Checker
	perGPU   []gpuStats
	capacity int // pages per GPU
	log      zerolog.Logger

	progressHook *progressHook
}

// capacityPages is the number of pages each GPU may hold: gpu.memory, or
// with oversubscription footprint / GPUs / factor (never above gpu.memory).
// maxPages bounds the simulated address space, in pages: the driver's and
// every GPU's page-indexed tables are allocated whole, so a footprint of
// terabytes (an absurd --scale with --oversubscribe, which lifts the GPU
// memory check) died in the allocation instead of failing with a message.
// 2^27 pages is 512 GB at 4 KB, far above any paper's input.
const maxPages = 1 << 27

func capacityPages(c config.Config, footprint uint64, workload string) (int, error) {
	mem := uint64(c.GPU.Memory)
	if c.Oversubscribe == 0 {
		if total := mem * uint64(c.GPUs); footprint > total {
			return 0, fmt.Errorf("footprint %s of %s exceeds the total GPU memory %s (%d GPUs x %s): lower --scale, raise gpu.memory, or enable oversubscription with --oversubscribe F",
				units.Bytes(footprint).Human(), workload, units.Bytes(total).Human(), c.GPUs, c.GPU.Memory.Human())
		}
	} else {
		mem = min(mem, uint64(float64(footprint)/float64(c.GPUs)/c.Oversubscribe))
	}
	pages := mem / uint64(c.PageSize)
	if pages < 1 {
		advice := "raise gpu.memory or lower page_size"
		if c.Oversubscribe != 0 {
			advice = "lower --oversubscribe, raise --scale or lower page_size"
		}
		return 0, fmt.Errorf("GPU capacity %s is less than one %s page (footprint %s over %d GPUs, oversubscription %v): %s",
			units.Bytes(mem).Human(), c.PageSize.Human(), units.Bytes(footprint).Human(), c.GPUs, c.Oversubscribe, advice)
	}
	return int(min(pages, 1<<40)), nil
}

type trafficCounter interface {
	sim.Connection
	Traffic() []interconnect.Traffic
	BytesFrom(sim.Port) uint64
}

// localView lets the checker read every GMMU's page table.
type localView []*gmmu.Comp

func (l localView) Mapping(g int, page uint64) (uvm.MapKind, int) { return l[g].Mapping(page) }

// observers fans one access out to several observers.
type observers []gpu.AccessObserver

func (o observers) Access(g int, page uint64, write bool, target int) {
	for _, x := range o {
		x.Access(g, page, write, target)
	}
}

// setUp is a run's workload, validated and set up, before the checks of
// its set-up: what Build, EstimateInstructions and Program start from.
type setUp struct {
	o       Options
	w       benchmarks.Workload
	traits  pagepolicy.Traits
	alloc   *objtable.Allocator
	kernels []benchmarks.Kernel
}

// Program is the run o describes as its runtimes would see it (its
// allocations, kernels and GPU geometry), set up without simulating it: a
// runtime's analysis of a workload starts from it.
func Program(o Options) (uvm.Workload, error) {
	u, err := o.setUp()
	if err != nil {
		return uvm.Workload{}, err
	}
	c := u.o.Config
	return uvm.Workload{Alloc: u.alloc, Kernels: u.kernels, CUs: c.GPU.CUs, SlotsPerCU: c.GPU.WavefrontsPerCU}, nil
}

func (o Options) setUp() (setUp, error) {
	o, w, traits, err := o.resolve()
	if err != nil {
		return setUp{}, err
	}
	alloc, kernels, err := setupWorkload(w, o, traits)
	if err != nil {
		return setUp{}, err
	}
	return setUp{o, w, traits, alloc, kernels}, nil
}

// setupWorkload allocates the workload's objects and returns its kernels.
// Pointers carry policy.id_bits of Obj_ID (OASIS §V-B), widened when the
// workload allocates more objects than that many bits can name, and the
// configuration bit 1, or no tag at all for a policy that wants untagged
// pointers (OASIS-InMem). The policy sees the objects once the driver has
// built it (System.build).
func setupWorkload(w benchmarks.Workload, o Options, traits pagepolicy.Traits) (*objtable.Allocator, []benchmarks.Kernel, error) {
	if err := checkDeclaredSize(w, o); err != nil {
		return nil, nil, err
	}
	c := o.Config
	tag := taggingOf(c, traits)
	params := o.params()
	for {
		alloc, err := objtable.NewAllocator(tag, c.AllocAlign())
		if err != nil {
			return nil, nil, err
		}
		kernels, err := w.Setup(alloc, params)
		if err != nil {
			return nil, nil, fmt.Errorf("workload %s: %w", o.Workload, err)
		}
		kernels = benchmarks.SampleWorkgroups(kernels, c.SampleWorkgroups)
		n := len(alloc.Objects())
		if need := bits.Len(uint(n - 1)); need > tag.IDBits && tag.ConfigBit == 1 {
			if need > objtable.MaxIDBits {
				if traits.ObjectIDs {
					return nil, nil, fmt.Errorf("workload %s allocates %d objects, more than %d Obj_ID bits can name: use oasis-inmem", o.Workload, n, objtable.MaxIDBits)
				}
			} else {
				tag.IDBits = need
				continue // allocate again with IDs wide enough
			}
		}
		return alloc, kernels, nil
	}
}

// taggingOf is the pointer tagging a run starts from: policy.id_bits of
// Obj_ID and the configuration bit, or no tag for a policy that wants
// untagged pointers.
func taggingOf(c config.Config, traits pagepolicy.Traits) objtable.Tagging {
	tag := objtable.Tagging{IDBits: c.Policy.IDBits, ConfigBit: 1}
	if traits.Untagged {
		tag.ConfigBit = 0
	}
	return tag
}

// params is what the workload is sized from.
func (o Options) params() benchmarks.Params {
	return benchmarks.Params{GPUs: o.Config.GPUs, Scale: o.Scale, Size: o.Size, Iterations: o.Iterations, Seed: o.Seed, Im2col: o.Config.Im2col}
}

// Build validates the options and builds the system. Check makes the
// same checks without building.
func Build(o Options) (*System, error) {
	u, err := o.setUp()
	if err != nil {
		return nil, err
	}
	o, w, traits, alloc, kernels := u.o, u.w, u.traits, u.alloc, u.kernels
	capacity, err := checkSetup(o, w, factsOf(alloc, kernels, func() error { return benchmarks.CheckAccess(kernels, len(alloc.Objects())) }))
	if err != nil {
		return nil, err
	}
	eng := engine.New()
	eng.PermuteSources(uint64(o.Config.TieOrder))
	s := &System{opts: o, engine: eng, alloc: alloc, capacity: capacity, log: runLogger(o)}
	if err := s.build(traits, kernels); err != nil {
		return nil, err
	}
	s.installProgress()
	if note := benchmarks.ClampNote(w, o.params(), alloc.Footprint()); note != "" {
		s.log.Warn().Msg(note)
	}
	if note := spreadNote(o, kernels); note != "" {
		s.log.Warn().Msg(note)
	}
	if e := s.log.Debug(); e.Enabled() {
		e.Int("kernels", len(kernels)).Int("objects", len(alloc.Objects())).Uint64("footprint_bytes", alloc.Footprint()).
			Int("capacity_pages", capacity).Msg("system built")
	}
	return s, nil
}

func (s *System) build(traits pagepolicy.Traits, kernels []benchmarks.Kernel) error {
	c := s.opts.Config
	n := c.GPUs
	pageSize := uint64(c.PageSize)
	pages := s.alloc.End() / pageSize
	s.perGPU = make([]gpuStats, n)
	cptr := make([]*stats.Counters, n)
	for i := range cptr {
		cptr[i] = &s.perGPU[i].counters
	}
	bufSize, delay := 1<<16, sim.VTimeInSec(0)
	// A dated send waits in its sender until due, unless the links are to
	// book it at once (reserve, to reproduce the tables before the fix).
	early := c.Link.FutureSends == interconnect.FutureReserve
	if s.opts.directBuffer > 0 {
		bufSize, delay = s.opts.directBuffer, sim.VTimeInSec(1e-9)
	}
	driver, err := uvm.MakeBuilder().WithEngine(s.engine).WithBufferSize(bufSize).WithRecvDelay(delay).WithEarlyDatedSends(early).WithGPUs(n).WithConfig(c.UVM).WithSeed(s.opts.Seed).WithMoveObserver(s.opts.Moves).WithLineSize(int(c.GPU.LineSize)).WithClockMHz(c.GPU.FreqMHz).WithPolicy(s.opts.Policy, c.Policy).
		WithPages(pageSize, pages).WithCounters(cptr).WithCapacity(s.capacity).WithLogger(s.log).
		WithWorkload(uvm.Workload{Alloc: s.alloc, Kernels: kernels, CUs: c.GPU.CUs, SlotsPerCU: c.GPU.WavefrontsPerCU}).
		WithObjectLookup(func(ptr uint64) int {
			if o := s.alloc.ObjectAt(objtable.Strip(ptr)); o != nil {
				return o.ID
			}
			return -1
		}).Build("Driver")
	if err != nil {
		return err
	}
	s.driver = driver
	for _, obj := range s.alloc.Objects() {
		if err := driver.Observe(pagepolicy.Allocated(obj, s.alloc.Tagging())); err != nil {
			return fmt.Errorf("workload %s: %w", s.opts.Workload, err)
		}
	}
	if err := s.buildLinks(); err != nil {
		return err
	}
	s.pcie.PlugIn(driver.Port(), 1)
	var evictor eviction.Toucher
	if t, ok := driver.Evictor().(eviction.Toucher); ok {
		evictor = t
	}
	peers := make([]sim.Port, n)
	ac := accessCounters(c)
	for i := 0; i < n; i++ {
		part := s.engine.Part(i + 1) // GPU i, its GMMU and their ports
		var recency gpu.Toucher
		if evictor != nil {
			recency = newDeferredTouch(part, evictor)
		}
		m, err := gmmu.MakeBuilder().WithEngine(part).WithConfig(c.GMMU).WithGPUID(i).
			WithPages(pageSize, pages).WithFaultBatch(c.UVM.FaultBatch).WithFreqMHz(c.GPU.FreqMHz).
			WithCounters(cptr[i]).WithBufferSize(bufSize).WithRecvDelay(delay).WithEarlyDatedSends(early).Build(fmt.Sprintf("GPU[%d].GMMU", i))
		if err != nil {
			return err
		}
		g, err := gpu.MakeBuilder().WithEngine(part).WithConfig(c.GPU).WithID(i, n).
			WithPages(pageSize, pages).WithStats(cptr[i], &s.perGPU[i].stalls).WithCheck(c.Check).
			WithAccessCounters(ac.Threshold, ac.Group, ac.PerPage).WithLatchedCounters(ac.Latched).
			WithRecency(recency).WithBufferSize(bufSize).WithRecvDelay(delay).WithEarlyDatedSends(early).
			Build(fmt.Sprintf("GPU[%d]", i))
		if err != nil {
			return err
		}
		for _, p := range []sim.Port{m.Port(), m.Top(), m.Control(), g.Port(), g.HostPort(), g.Control()} {
			s.engine.AssignPort(p, part.ID())
		}
		m.SetDriver(driver.Port())
		if h, ok := c.UVM.Handling(); ok && h.Concurrent {
			m.Concurrent()
		}
		g.SetMMU(m)
		joinControl(part, i, m, g, early)
		if err := driver.ConnectGPU(i, m.Port()); err != nil {
			return err
		}
		plugDevice(s.pcie, i, m.Port(), g.HostPort())
		g.SetHost(driver.Port())
		s.nvlink.PlugIn(g.Port(), 1)
		peers[i] = g.Port()
		s.gpus = append(s.gpus, g)
		s.gmmus = append(s.gmmus, m)
	}
	s.runner = &runner{engine: s.engine, src: engine.NewSource(s.engine), kernels: kernels, scheme: c.Distribution, gpus: s.gpus,
		parts:  s.gpuParts(),
		driver: driver, alloc: s.alloc, launch: sim.VTimeInSec(c.KernelLaunchNs * 1e-9),
		onLaunch: s.opts.Launches, cus: c.GPU.CUs, log: s.log}
	s.runner.doneFn = func(uint64, sim.Msg) { s.runner.done(s.runner.engine.CurrentTime()) }
	s.runner.places = driver.Service().Places()
	var obs observers
	if c.Check {
		s.check = uvm.NewChecker(driver.Policy().Name(), n, pages, driver.Table(), localView(s.gmmus))
		s.check.Incoherent = traits.Incoherent
		s.check.OnViolation = s.engine.Stop
		driver.SetChecker(s.check)
		obs = append(obs, s.check)
	}
	if s.opts.Observer != nil {
		obs = append(obs, s.opts.Observer)
	}
	for _, g := range s.gpus {
		g.SetPeers(peers)
		g.SetWorkSource(s.runner)
		if len(obs) > 0 {
			g.SetObserver(obs)
		}
	}
	if c.Placement == "spread" {
		s.spread()
	}
	return nil
}

// joinControl joins GMMU m and GPU g by the control protocol's messages
// (uvmproto/control.go), as an embedder's GPU is joined, over a wire of
// their own in their partition of the engine: the GMMU's one way to its
// GPU (docs/performance.md measures what the messages cost).
func joinControl(part sim.Engine, i int, m *gmmu.Comp, g *gpu.Comp, early bool) {
	w := interconnect.NewWire(fmt.Sprintf("GPU[%d].OnChip", i), part)
	w.DeliverEarly(early)
	w.PlugIn(m.Control(), 1)
	w.PlugIn(g.Control(), 1)
	m.ConnectGPU(g.Control())
	g.SetMMUControl(m.Control())
}

// buildLinks makes PCIe and NVLink: mgpu's message-level links, or for
// the back-pressure test Akita's DirectConnection.
func (s *System) buildLinks() error {
	c := s.opts.Config
	if s.opts.directBuffer > 0 {
		s.pcie = direct{sim.NewDirectConnection("PCIe", s.engine, sim.GHz)}
		s.nvlink = direct{sim.NewDirectConnection("NVLink", s.engine, sim.GHz)}
		return nil
	}
	var err error
	lb := interconnect.MakeBuilder().WithEngine(s.engine).WithHeaderBytes(c.Link.HeaderBytes).
		WithHeldFutureSends(c.Link.FutureSends == interconnect.FutureHold)
	pcie := lb.WithPCIe(c.Link)
	if c.Link.PCIeTopology == interconnect.PCIeTree {
		s.pcie, err = pcie.WithSwitchLatencyNs(c.Link.PCIeSwitchLatencyNs).BuildTree("PCIe", c.Link.PCIeGPUsPerSwitch)
	} else {
		s.pcie, err = pcie.BuildFullyConnected("PCIe")
	}
	if err != nil {
		return err
	}
	nv := lb.WithBandwidthGBps(c.Link.NVLinkGBps).WithLatencyNs(c.Link.NVLinkLatencyNs)
	if c.Topology == "switch" {
		s.nvlink, err = nv.WithSwitchLatencyNs(c.Link.SwitchLatencyNs).BuildSwitch("NVSwitch")
	} else {
		s.nvlink, err = nv.BuildFullyConnected("NVLink")
	}
	return err
}

// plugDevice plugs GPU i's PCIe ports in, as one device where the topology
// groups a device's ports (a PCIe tree gives each GPU one link).
func plugDevice(c sim.Connection, i int, ports ...sim.Port) {
	t, tree := c.(interface{ PlugInDevice(sim.Port, int) })
	for _, p := range ports {
		if tree {
			t.PlugInDevice(p, i)
		} else {
			c.PlugIn(p, 1)
		}
	}
}

// direct is Akita's DirectConnection, which counts no traffic.
type direct struct{ *sim.DirectConnection }

func (direct) Traffic() []interconnect.Traffic { return nil }
func (direct) BytesFrom(sim.Port) uint64       { return 0 }

// spread places each object's pages in n contiguous, equal slices, one per
// GPU (OASIS Fig. 21's "pages initially spread").
func (s *System) spread() {
	n := uint64(s.opts.Config.GPUs)
	ps := uint64(s.opts.Config.PageSize)
	for _, o := range s.alloc.Objects() {
		first, count := o.FirstPage(ps), o.Pages(ps)
		for i := uint64(0); i < count; i++ {
			g := int(i * n / count)
			s.driver.Table().Place(first+i, g)
			s.gmmus[g].Place(first+i, gmmu.PTE{Kind: uvm.LocalRW, Owner: int8(g)})
		}
	}
}

// Run simulates the workload to completion.
func (s *System) Run() (*Result, error) {
	start := time.Now()
	s.log.Debug().Msg("simulating")
	s.runner.scheduleNext(0)
	if err := s.runEngine(); err != nil {
		return nil, err
	}
	if !s.runner.finished() {
		return nil, fmt.Errorf("simulation stalled at %.0f ns in kernel %d of %d with %d workgroups unfinished: a wavefront waits on an event that never comes",
			float64(s.engine.CurrentTime())*1e9, s.runner.idx, len(s.runner.kernels), s.runner.left)
	}
	if s.check != nil {
		if err := s.check.Final(); err != nil {
			return nil, err
		}
	}
	s.finishProgress()
	res := s.result()
	res.wall = time.Since(start)
	s.warnRuntimes(res)
	return res, nil
}

// warnRuntimes logs what the selected runtimes say of the run's result
// (uvm.RuntimeSpec.Warn).
func (s *System) warnRuntimes(r *Result) {
	for _, rt := range s.opts.Config.UVM.Selected() {
		if rt.Spec.Warn == nil {
			continue
		}
		if msg := rt.Spec.Warn(s.opts.Config.UVM, r.PolicyStats, r.SimTimeNs); msg != "" {
			s.log.Warn().Str(rt.Key, rt.Name).Float64("sim_time_ns", r.SimTimeNs).Msg(msg)
		}
	}
}

// Run builds and runs in one call.
func Run(o Options) (*Result, error) {
	s, err := Build(o)
	if err != nil {
		return nil, err
	}
	return s.Run()
}

// accessCounters are the GPUs' counter settings: those of the first
// selected runtime that counts with its own (uvm.RuntimeSpec.Counters),
// else the page policy's.
func accessCounters(c config.Config) uvm.Counters {
	if own, ok := c.UVM.OwnCounters(); ok {
		return own
	}
	return uvm.Counters{Threshold: c.Policy.ACThreshold, Group: uint64(c.Policy.ACGroup), PerPage: c.Policy.ACMigrate == pagepolicy.ACMigratePage}
}

// BeforeConcurrentRuns makes Akita's message-ID generator, which Akita
// makes on first use and reads without a lock from then on. A program
// that runs several systems on goroutines (a sweep, a figure) calls it
// once before starting them; no package of mgpu touches Akita's global
// state at init, so an embedding model may still pick its own generator
// (sim.UseParallelIDGenerator) before its first message.
func BeforeConcurrentRuns() { sim.GetIDGenerator() }

// spreadNote is benchmarks.SpreadNote for a replayed recording, whose
// grids are what the recorded program launched (a built-in workload
// sizes its grids to the GPUs).
func spreadNote(o Options, kernels []benchmarks.Kernel) string {
	if o.Program == nil {
		return ""
	}
	wgs := make([]int, len(kernels))
	for i, k := range kernels {
		wgs[i] = k.Workgroups
	}
	c := o.Config
	return benchmarks.SpreadNote(wgs, c.Distribution, c.GPUs, c.GPU.CUs)
}
