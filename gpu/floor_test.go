package gpu

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/benchmarks"
	_ "github.com/mgpu-sim/mgpu/benchmarks/all"
	"github.com/mgpu-sim/mgpu/cache"
	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/objtable"
)

// The floor (docs/performance.md, "The floor"): the least work a memory
// instruction needs, on the instruction streams of real runs, built up in
// levels. Each level runs every wavefront of every kernel of the workload
// to its end, on 4 GPUs of the default geometry (64 CUs of 40 wavefront
// slots), the workgroups dispatched as the platform does (the mgpusim
// scheme, each GPU's CUs filled round-robin, a workgroup's slots freed
// when its last wavefront ends):
//
//	generate  each resident wavefront's stream fills the next instruction
//	          (Stream.Next), round-robin over every GPU's resident
//	          wavefronts in slot order (GPU, CU, slot), one instruction
//	          each per round: the order the engine runs them in when every
//	          instruction takes the same time
//	coalesce  + the GPU's coalesce of the lanes into lines grouped by page
//	l1        + per page an L1 TLB lookup (a fill on a miss), per line of
//	          a load an L1V lookup (a fill on a miss), in the CU's own
//	          caches of the default geometry; no page table, no L2
//	l1-inturn l1 with each wavefront run to its end before the next
//	          resident one starts: the same kind of work with the host's
//	          caches warm (a CU's caches then serve one wavefront at a
//	          time, so their hit rates differ)
//	engine    + one engine event per instruction (compute-only ones too,
//	          as the GPU does): the wavefront's event popped by the
//	          engine's Run and scheduled again after the issue and compute
//	          cycles and the latencies of the levels modelled (step); the
//	          order is then the engine's, by time, which gives the
//	          round-robin's hit rates in mm and mt but not in pr
//	l2        + the L2 TLB on an L1 TLB miss and the L2 on an L1V miss or
//	          a store, fills on misses (still no page table, DRAM queue,
//	          faults or other GPUs)
//
// Every lookup uses generation 0: the GPU's per-page generations (a load
// from a page-sized array per page and per line) are how it invalidates,
// not work the model needs per instruction.
//
// The platform's BenchmarkFloorFull runs the same workloads through the
// whole simulator; `make bench-floor` runs both in one command.
var floorRuns = []struct {
	workload string
	scale    float64
}{{"mm", 0.3}, {"mt", 1}, {"pr", 0.5}}

type floorLevel int

const (
	floorGenerate floorLevel = iota
	floorCoalesce
	floorL1
	floorEngine
	floorL2
)

var floorLevels = []struct {
	name   string
	level  floorLevel
	inTurn bool
}{
	{"generate", floorGenerate, false},
	{"coalesce", floorCoalesce, false},
	{"l1", floorL1, false},
	{"l1-inturn", floorL1, true},
	{"engine", floorEngine, false},
	{"l2", floorL2, false},
}

// floorGPUs, like the geometry, is the platform's default.
const floorGPUs = 4

func BenchmarkFloor(b *testing.B) {
	for _, run := range floorRuns {
		var kernels []benchmarks.Kernel // set up for the first level run
		for _, lv := range floorLevels {
			b.Run(fmt.Sprintf("%s/%s", run.workload, lv.name), func(b *testing.B) {
				if kernels == nil {
					kernels = floorSetup(b, run.workload, run.scale)
				}
				// One thread for the pass, so that a profiler that counts
				// a function's work per thread (valgrind --tool=callgrind
				// --toggle-collect) sees all of it.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ReportAllocs()
				var st floorStats
				var wall, cpu time.Duration
				var mallocs uint64
				var ms runtime.MemStats
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					f := newFloorRun(b, kernels, lv.level, lv.inTurn)
					runtime.GC()
					runtime.ReadMemStats(&ms)
					m0, c0, t0 := ms.Mallocs, cpuTime(), time.Now()
					b.StartTimer()
					f.run()
					b.StopTimer()
					wall += time.Since(t0)
					cpu += cpuTime() - c0
					runtime.ReadMemStats(&ms)
					mallocs += ms.Mallocs - m0
					if i > 0 && f.stats != st {
						b.Fatalf("pass %d: %+v, pass 1: %+v: the streams are not the same twice", i+1, f.stats, st)
					}
					st = f.stats
					b.StartTimer()
				}
				n := float64(st.mem) * float64(b.N)
				b.ReportMetric(float64(wall.Nanoseconds())/n, "ns/instr")
				b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/instr")
				b.ReportMetric(float64(mallocs)/n, "allocs/instr")
				b.ReportMetric(float64(st.mem), "instr")
				b.ReportMetric(float64(st.lines)/float64(st.mem), "lines/instr")
				b.ReportMetric(float64(st.pages)/float64(st.mem), "pages/instr")
				b.ReportMetric(float64(st.mem+st.compute)/float64(st.mem), "steps/instr")
				if lv.level >= floorL1 {
					b.ReportMetric(float64(st.tlbHits)/float64(st.pages), "l1tlb-hit")
					b.ReportMetric(float64(st.l1vHits)/float64(max(1, st.loadLines)), "l1v-hit")
					b.ReportMetric(float64(st.allHit)/float64(st.mem), "all-l1-hit")
				}
			})
		}
	}
}

// cpuTime is the process's user and system time, every thread's (the
// garbage collector's too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// floorSetup is the workload's kernels as the platform sets them up for a
// run on 4 GPUs under OASIS (4 Obj_ID bits, objects aligned to 2 MB).
func floorSetup(b *testing.B, workload string, scale float64) []benchmarks.Kernel {
	w, err := benchmarks.New(workload)
	if err != nil {
		b.Fatal(err)
	}
	alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: 4, ConfigBit: 1}, 2<<20)
	if err != nil {
		b.Fatal(err)
	}
	k, err := w.Setup(alloc, benchmarks.Params{GPUs: floorGPUs, Scale: scale, Size: benchmarks.SizeAuto, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return k
}

type floorStats struct {
	mem, compute       uint64 // memory and compute-only instructions
	pages, lines       uint64 // after coalescing
	loadLines          uint64
	tlbHits, l1vHits   uint64
	allHit             uint64 // loads whose every page and line hit L1
	l2tlbHits, l2Hits  uint64
	events, workgroups uint64
}

type floorRun struct {
	level  floorLevel
	inTurn bool
	// The latencies of the default configuration, for the engine level's
	// times: the cycle, the issue cycles, and what an L1 TLB, an L2 TLB,
	// an L1V, an L2 and a DRAM access take.
	cycle                       sim.VTimeInSec
	issue                       int
	l1tlb, l2tlb, l1v, l2, dram sim.VTimeInSec
	kernels                     []benchmarks.Kernel
	gpus                        []*floorGPU
	eng                         *engine.Engine
	// order is the resident wavefronts in slot order, rebuilt when one
	// ends or starts (stale).
	order []*floorWF
	stale bool
	live  int
	stats floorStats
}

type floorGPU struct {
	id int
	// g holds what coalesce uses: the shifts, the page index, the
	// scratch, the instruction buffer and the record.
	g      *Comp
	cus    []computeUnit
	nextCU int
	wfs    []*floorWF
	l2tlb  *cache.Cache
	l2     *cache.Cache
	disp   benchmarks.Dispatcher
	k      *benchmarks.Kernel
}

type floorWF struct {
	evt    floorEvent
	src    engine.Source
	gpu    *floorGPU
	cu     int
	slot   int
	stream benchmarks.Stream
	wg     *floorWG
}

type floorWG struct {
	cu, left int
	wfs      []*floorWF
}

type floorEvent struct {
	t  sim.VTimeInSec
	o  engine.Order
	h  *floorRun
	wf *floorWF
}

func (e *floorEvent) Time() sim.VTimeInSec { return e.t }
func (e *floorEvent) Order() engine.Order  { return e.o }
func (e *floorEvent) Handler() sim.Handler { return e.h }
func (e *floorEvent) IsSecondary() bool    { return false }

func newFloorRun(b *testing.B, kernels []benchmarks.Kernel, level floorLevel, inTurn bool) *floorRun {
	c := DefaultConfig()
	f := &floorRun{level: level, inTurn: inTurn, kernels: kernels, eng: engine.New()}
	f.cycle = sim.VTimeInSec(1e-6 / c.FreqMHz)
	f.issue, f.l1tlb, f.l2tlb = c.IssueCycles, sim.VTimeInSec(c.L1TLBCycles)*f.cycle, sim.VTimeInSec(c.L2TLBCycles)*f.cycle
	f.l1v, f.l2, f.dram = sim.VTimeInSec(c.L1VCycles)*f.cycle, sim.VTimeInSec(c.L2Cycles)*f.cycle, sim.VTimeInSec(c.DRAMLatencyNs*1e-9)
	base, err := engine.NewSourceBlock(f.eng, floorGPUs*c.CUs*c.WavefrontsPerCU)
	if err != nil {
		b.Fatal(err)
	}
	must := func(c *cache.Cache, err error) *cache.Cache {
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	line := uint64(c.LineSize)
	for id := 0; id < floorGPUs; id++ {
		g := &floorGPU{id: id, cus: make([]computeUnit, c.CUs), wfs: make([]*floorWF, c.CUs*c.WavefrontsPerCU)}
		g.g = &Comp{pageShift: 12, lineShift: 6, linesPerPage: 6, cur: new(inflight)}
		g.l2tlb = must(cache.New(c.L2TLBEntries, c.L2TLBWays))
		g.l2 = must(cache.New(int(uint64(c.L2Size)/line), c.L2Ways))
		for i := range g.cus {
			cu := &g.cus[i]
			cu.free = make([]uint64, (c.WavefrontsPerCU+63)/64)
			for s := 0; s < c.WavefrontsPerCU; s++ {
				cu.release(s)
			}
			cu.l1tlb = must(cache.New(c.L1TLBEntries, c.L1TLBWays))
			cu.l1v = must(cache.New(int(uint64(c.L1VSize)/line), c.L1VWays))
		}
		for s := range g.wfs {
			wf := &floorWF{gpu: g, cu: s / c.WavefrontsPerCU, slot: s,
				src: engine.SourceAt(base + uint32(id*len(g.wfs)+s))}
			wf.evt.h, wf.evt.wf = f, wf
			g.wfs[s] = wf
		}
		f.gpus = append(f.gpus, g)
	}
	return f
}

// run runs every kernel to its end.
func (f *floorRun) run() {
	c := DefaultConfig()
	for i := range f.kernels {
		k := &f.kernels[i]
		if k.Workgroups == 0 {
			continue
		}
		scheme := benchmarks.SchemeMGPUSim
		if k.PerDevice {
			scheme = benchmarks.SchemeContiguous
		}
		d, err := benchmarks.NewDispatcherOn(scheme, k.Workgroups, floorGPUs, c.CUs)
		if err != nil {
			panic(err)
		}
		for _, g := range f.gpus {
			g.disp, g.k = d, k
			f.fill(g, f.eng.CurrentTime()) // where the last kernel ended
		}
		if f.level >= floorEngine {
			if err := f.eng.Run(); err != nil {
				panic(err)
			}
			continue
		}
		for f.live > 0 {
			if f.stale {
				f.reorder()
			}
			for _, wf := range f.order {
				for wf.stream != nil {
					f.step(wf, 0)
					if !f.inTurn {
						break
					}
				}
			}
		}
	}
}

// reorder lists the resident wavefronts in slot order.
func (f *floorRun) reorder() {
	f.order = f.order[:0]
	for _, g := range f.gpus {
		for _, wf := range g.wfs {
			if wf.stream != nil {
				f.order = append(f.order, wf)
			}
		}
	}
	f.stale = false
}

// fill places workgroups of g's kernel on CUs with room, as Comp.Fill.
func (f *floorRun) fill(g *floorGPU, now sim.VTimeInSec) {
	need := g.k.WavefrontsPerWorkgroup
	n := len(g.cus)
	for {
		cu := -1
		for i := 0; i < n; i++ {
			if c := (g.nextCU + i) % n; g.cus[c].nfree >= need {
				cu = c
				break
			}
		}
		if cu < 0 {
			return
		}
		wgID, ok := g.disp.Next(g.id)
		if !ok {
			return
		}
		g.nextCU = (cu + 1) % n
		wg := &floorWG{cu: cu, left: need, wfs: make([]*floorWF, need)}
		for i := 0; i < need; i++ {
			wf := g.wfs[cu*len(g.wfs)/n+g.cus[cu].take()] // cu x slots + slot
			wf.wg = wg
			wg.wfs[i] = wf
			wf.stream = g.k.Wavefront(wgID, i, g.id)
			f.live++
			f.stale = true
			if f.level >= floorEngine {
				f.schedule(wf, now)
			}
		}
	}
}

func (f *floorRun) schedule(wf *floorWF, t sim.VTimeInSec) {
	wf.evt.t = t
	wf.evt.o = wf.src.Next(engine.RankWavefront)
	f.eng.Schedule(&wf.evt)
}

// Handle is the engine level's step.
func (f *floorRun) Handle(e sim.Event) error {
	ev := e.(*floorEvent)
	f.stats.events++
	if ok, t := f.step(ev.wf, ev.t); ok {
		f.schedule(ev.wf, t)
	}
	return nil
}

// step runs wf's next instruction to the level's depth and reports
// whether wf goes on, and when its next step is due: after the issue and
// compute cycles and the latencies of the levels modelled (an L1V miss
// costs the L2's, an L2 miss the DRAM's, without the DRAM's queue).
func (f *floorRun) step(wf *floorWF, now sim.VTimeInSec) (bool, sim.VTimeInSec) {
	g := wf.gpu
	in := &g.g.inst
	if !wf.stream.Next(in) {
		f.finish(wf, now)
		return false, 0
	}
	t := now + sim.VTimeInSec(in.Compute+f.issue)*f.cycle // as Comp.step
	if in.Lanes == 0 {
		f.stats.compute++
		return true, t
	}
	f.stats.mem++
	if f.level < floorCoalesce {
		return true, t
	}
	x := g.g.cur
	g.g.coalesce(x, in)
	f.stats.pages += uint64(x.nPages)
	f.stats.lines += uint64(x.nLines)
	if f.level < floorL1 {
		return true, t
	}
	cu := &g.cus[wf.cu]
	l2 := f.level >= floorL2
	done := t
	hits := !in.Write
	for i := 0; i < x.nPages; i++ {
		page := x.pg[i].page
		tp := t + f.l1tlb
		if cu.l1tlb.Lookup(page, 0) {
			f.stats.tlbHits++
		} else {
			hits = false
			tp += f.l2tlb
			if l2 {
				if g.l2tlb.Lookup(page, 0) {
					f.stats.l2tlbHits++
				} else {
					g.l2tlb.Insert(page, 0)
				}
			}
			cu.l1tlb.Insert(page, 0)
		}
		for l := int(x.pg[i].start); l < int(x.pg[i+1].start); l++ {
			line := x.lines[l]
			tl := tp + f.l1v
			if !in.Write {
				f.stats.loadLines++
				if cu.l1v.Lookup(line, 0) {
					f.stats.l1vHits++
					done = max(done, tl)
					continue
				}
				cu.l1v.Insert(line, 0)
				hits = false
			}
			tl += f.l2
			if l2 {
				if g.l2.Lookup(line, 0) {
					f.stats.l2Hits++
				} else {
					g.l2.Insert(line, 0)
					tl += f.dram
				}
			}
			done = max(done, tl)
		}
	}
	if hits {
		f.stats.allHit++
	}
	return true, done
}

// finish ends wf; its workgroup's slots free when its last wavefront
// ends, and the GPU places more.
func (f *floorRun) finish(wf *floorWF, now sim.VTimeInSec) {
	wf.stream = nil
	f.live--
	f.stale = true
	wg := wf.wg
	wf.wg = nil
	if wg.left--; wg.left > 0 {
		return
	}
	g := wf.gpu
	slots := len(g.wfs) / len(g.cus)
	for _, w := range wg.wfs {
		g.cus[wg.cu].release(w.slot - wg.cu*slots)
	}
	f.stats.workgroups++
	f.fill(g, now)
}
