// Package gpu is the GPU component: compute units running the wavefronts of
// a workload, L1/L2 TLBs, L1V/L2 caches and DRAM modelled functionally with
// their latencies added inline, and an RDMA engine that serves and issues
// remote cache lines over NVLink.
//
// A wavefront costs one engine event per instruction: the whole memory
// instruction (coalescing, translation, cache lookups, DRAM queueing) is
// computed when it issues, using busy-until timestamps for shared
// resources. Messages leave the GPU only for remote lines and page data.
package gpu

import (
	"fmt"
	"math/bits"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/cache"
	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/stats"
	"github.com/mgpu-sim/mgpu/trace"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// MMU is what the GPU needs from its GMMU.
type MMU interface {
	Entry(page uint64) uvmproto.PTE
	Walk(now sim.VTimeInSec, page uint64) sim.VTimeInSec
	Fault(now sim.VTimeInSec, e uvmproto.FaultEntry, w gmmu.Waiter)
	NotifyCounter(now sim.VTimeInSec, pages []uint64)
}

// Stream yields a wavefront's instructions in program order; Next reports
// false when the wavefront has finished. The GPU reuses one Instruction per
// wavefront, so Next must overwrite every field it relies on. Declared here,
// where it is consumed, so the GPU does not depend on who produces it.
type Stream interface {
	Next(in *trace.Instruction) bool
}

// Kernel is what the GPU needs of the running kernel to dispatch its
// workgroups.
type Kernel interface {
	WavefrontsPerWorkgroup() int
	// Wavefront returns the stream of wavefront wf of workgroup wg on GPU
	// gpu; it is called when the workgroup is dispatched.
	Wavefront(wg, wf, gpu int) Stream
}

// WorkSource is the command processor handing out workgroups.
type WorkSource interface {
	// Kernel is the running kernel, nil between launches.
	Kernel() Kernel
	Next(gpu int) (wg int, ok bool)
	Done(now sim.VTimeInSec, gpu int)
}

// AccessObserver sees every page access (the coherence checker, the
// workload characteriser). target is where the data lives.
type AccessObserver interface {
	Access(gpu int, page uint64, write bool, target int)
}

type computeUnit struct {
	l1tlb, l1v *cache.Cache
	// free has a bit set per free wavefront slot, nfree counts them. A
	// slot is a wavefront's place in the engine's order of simultaneous
	// events; a workgroup takes the lowest free ones.
	free  []uint64
	nfree int
}

// take marks the lowest free slot used and returns it.
func (c *computeUnit) take() int {
	for i, w := range c.free {
		if w != 0 {
			b := bits.TrailingZeros64(w)
			c.free[i] = w &^ (1 << b)
			c.nfree--
			return i*64 + b
		}
	}
	panic("gpu: no free wavefront slot")
}

// release frees slot.
func (c *computeUnit) release(slot int) {
	c.free[slot/64] |= 1 << (slot % 64)
	c.nfree++
}

// Toucher records page accesses for an eviction policy that needs them.
type Toucher interface {
	Touch(g int, p uint64)
}

// Comp is one GPU.
type Comp struct {
	*sim.ComponentBase
	engine sim.Engine
	cfg    Config
	id     int
	port   sim.Port
	out    *uvmproto.Outbox
	build  uvmproto.Builder
	peers  []sim.Port
	// hostPort and hostOut reach host memory over PCIe (zero-copy);
	// host is the host memory's port.
	hostPort sim.Port
	hostOut  *uvmproto.Outbox
	host     sim.Port
	// ctrl takes the GMMU's control requests as messages
	// (uvmproto/control.go; the GMMU's ConnectGPU); mmuCtrl is the GMMU's
	// Control port, told of page arrivals.
	ctrl     sim.Port
	ctrlOut  *uvmproto.Outbox
	mmuCtrl  sim.Port
	mmu      MMU
	work     WorkSource
	observer AccessObserver
	counters *stats.Counters
	stalls   *stats.Stalls
	check    bool
	// recency, when set, is told of every local page access (the LRU
	// eviction oracle).
	recency Toucher

	cycle              sim.VTimeInSec
	pageShift          uint
	lineShift          uint
	linesPerPage       uint // log2 of lines per page
	pageSize           uint64
	l1tlbLat, l2tlbLat sim.VTimeInSec
	l1vLat, l2Lat      sim.VTimeInSec
	dramLat, dramLine  sim.VTimeInSec
	drain              sim.VTimeInSec

	cus         []computeUnit
	nextCU      int
	l2tlb, l2   *cache.Cache
	dramFree    sim.VTimeInSec
	pausedUntil sim.VTimeInSec
	// wfs are the wavefronts by slot (CU x slots per CU + slot), made at
	// a slot's first use; a wavefront's index is the tag its RDMA
	// responses carry back.
	wfs         []*wavefront
	slots       int
	wfSources   uint32 // the engine source of slot 0
	src         engine.Source
	recvPending bool
	recvDelay   sim.VTimeInSec
	// Per-page generations: bumping one invalidates the page's TLB entries
	// or cached lines everywhere in this GPU (see package cache).
	tlbGen, lineGen []uint32
	// big, when the MMU maps big pages, says which are; bigGen is each big
	// page's TLB generation, bumped when any of its pages is dropped.
	big      BigPager
	bigShift uint
	bigGen   []uint32
	// hugeShift and hugeGen are the same for 2 MB PTEs (0 and nil without).
	hugeShift uint
	hugeGen   []uint32
	// flushes counts whole-cache flushes; it is added to every line's
	// generation, so bumping it invalidates every cached line at once.
	flushes uint32

	ac accessCounters
	// The page index of the instruction being coalesced (pageIndex).
	pageStamp  uint32
	pageStamps [pageSlots]uint32
	pageAt     [pageSlots]uint8
	scratch    coalescing
	// inst is the instruction being issued: its lanes are needed only
	// until coalesce, so one buffer serves every wavefront and stays in
	// the host's cache (a lane buffer per wavefront was 2.5 KB of cold
	// memory written on every instruction).
	inst trace.Instruction
	// cur is the record the issuing instruction is coalesced into; a
	// wavefront that has to wait takes it, and spare records replace it.
	cur   *inflight
	spare []*inflight
	// remoteLines gathers, per owner, the lines an RDMA request names.
	remoteLines [][]uint64
	err         error
}

// SetMMU attaches the GMMU. One that maps big pages (BigPager) gets one
// TLB entry per big or 2 MB page while one PTE maps it.
func (g *Comp) SetMMU(m MMU) {
	g.mmu = m
	g.big, g.bigShift, g.bigGen, g.hugeShift, g.hugeGen = nil, 0, nil, 0, nil
	b, ok := m.(BigPager)
	if !ok || b.BigPageShift()+b.HugePageShift() == 0 {
		return
	}
	g.big, g.bigShift, g.hugeShift = b, b.BigPageShift(), b.HugePageShift()
	if g.bigShift != 0 {
		g.bigGen = make([]uint32, (uint64(len(g.tlbGen))>>g.bigShift)+1)
	}
	if g.hugeShift != 0 {
		g.hugeGen = make([]uint32, (uint64(len(g.tlbGen))>>g.hugeShift)+1)
	}
}

// BigPager is an MMU that maps aligned groups of 2^BigPageShift pages, and
// of 2^HugePageShift pages (0: none), with one PTE while all of them are
// mapped alike (gmmu.Config.BigPage, HugePage).
type BigPager interface {
	BigPageShift() uint
	InBigPage(page uint64) bool
	HugePageShift() uint
	InHugePage(page uint64) bool
}

// bigKey and hugeKey mark a TLB key as a big or 2 MB page's, apart from
// every page number and each other.
const (
	bigKey  = 1 << 63
	hugeKey = 1 << 62
)

// bigTLBKey is the TLB entry that translates page when the MMU maps big
// pages, with its generation: its 2 MB page's or its big page's while such
// a PTE maps it, else the page's own (execute takes the page's own at once
// without big pages).
func (g *Comp) bigTLBKey(page uint64) (key uint64, gen uint32) {
	if g.hugeShift != 0 && g.big.InHugePage(page) {
		grp := page >> g.hugeShift
		return hugeKey | grp, g.hugeGen[grp]
	}
	if g.bigShift != 0 && g.big.InBigPage(page) {
		grp := page >> g.bigShift
		return bigKey | grp, g.bigGen[grp]
	}
	return page, g.tlbGen[page]
}

// SetWorkSource attaches the command processor.
func (g *Comp) SetWorkSource(w WorkSource) { g.work = w }

// SetObserver attaches an access observer (nil for none).
func (g *Comp) SetObserver(o AccessObserver) { g.observer = o }

// SetPeers gives every GPU's NVLink port, indexed by GPU.
func (g *Comp) SetPeers(p []sim.Port) { g.peers = p }

// Port is the NVLink port.
func (g *Comp) Port() sim.Port { return g.port }

// Control is the port that takes the GMMU's control requests as messages,
// the documented protocol (uvmproto/control.go): shootdowns, dropped
// translations and page copies, as from any embedder's GMMU.
func (g *Comp) Control() sim.Port { return g.ctrl }

// SetMMUControl gives the GMMU's Control port, which hears of page data
// that landed here.
func (g *Comp) SetMMUControl(p sim.Port) { g.mmuCtrl = p }

// HostPort is the GPU's PCIe port for zero-copy accesses to host memory.
func (g *Comp) HostPort() sim.Port { return g.hostPort }

// SetHost gives the port of host memory (the driver's PCIe port).
func (g *Comp) SetHost(p sim.Port) { g.host = p }

// ID is the GPU's index.
func (g *Comp) ID() int { return g.id }

func (g *Comp) schedule(wf *wavefront, t sim.VTimeInSec) {
	wf.evt.t = t
	wf.evt.o = wf.src.Next(engine.RankWavefront)
	g.engine.Schedule(&wf.evt)
}

// Fill dispatches workgroups of the current kernel to CUs with free
// wavefront slots, round-robin over the CUs.
func (g *Comp) Fill(now sim.VTimeInSec) {
	k := g.work.Kernel()
	if k == nil {
		return
	}
	need := k.WavefrontsPerWorkgroup()
	for {
		cu := g.freeCU(need)
		if cu < 0 {
			return
		}
		wgID, ok := g.work.Next(g.id)
		if !ok {
			return
		}
		g.nextCU = (cu + 1) % len(g.cus) // the round-robin moves on a placement
		wg := &workgroup{cu: cu, left: need, wfs: make([]*wavefront, need)}
		for i := 0; i < need; i++ {
			wf := g.newWavefront(cu)
			wf.wg = wg
			wg.wfs[i] = wf
			wf.stream = k.Wavefront(wgID, i, g.id)
			g.schedule(wf, now)
		}
	}
}

// freeCU is the first CU from the round-robin's position with room for a
// workgroup of need wavefronts, -1 when none has.
func (g *Comp) freeCU(need int) int {
	n := len(g.cus)
	for i := 0; i < n; i++ {
		c := (g.nextCU + i) % n
		if g.cus[c].nfree >= need {
			return c
		}
	}
	return -1
}

// newWavefront takes cu's lowest free slot and its wavefront.
func (g *Comp) newWavefront(cu int) *wavefront {
	id := cu*g.slots + g.cus[cu].take()
	if wf := g.wfs[id]; wf != nil {
		wf.m.phase = phNext
		return wf
	}
	wf := &wavefront{id: uint64(id), src: engine.SourceAt(g.wfSources + uint32(id))}
	wf.evt.h = g
	wf.evt.wf = wf
	g.wfs[id] = wf
	return wf
}

// finish ends wf; the workgroup's slots free when its last wavefront ends.
func (g *Comp) finish(wf *wavefront, now sim.VTimeInSec) {
	wg := wf.wg
	wf.stream, wf.wg = nil, nil
	wg.left--
	if wg.left > 0 {
		return
	}
	for _, w := range wg.wfs {
		g.cus[wg.cu].release(int(w.id) - wg.cu*g.slots)
	}
	g.work.Done(now, g.id)
	g.Fill(now)
}

// Refused is how many sends the NVLink connection refused and it resent.
func (g *Comp) Refused() uint64 { return g.out.Refused() }

// Err is the first error the GPU met, if any; it stops handling then.
func (g *Comp) Err() error { return g.err }

func (g *Comp) fail(err error) {
	if err != nil && g.err == nil {
		g.err = fmt.Errorf("%s: %w", g.Name(), err)
	}
}

// Handle runs a wavefront step or drains the NVLink port.
func (g *Comp) Handle(e sim.Event) error {
	if g.err != nil {
		return g.err
	}
	switch ev := e.(type) {
	case *wfEvent:
		g.step(ev.wf, ev.t)
	case *gpuRecvEvent:
		g.recvPending = false
		for _, p := range [2]sim.Port{g.port, g.hostPort} {
			for msg := p.Retrieve(ev.t); msg != nil && g.err == nil; msg = p.Retrieve(ev.t) {
				g.fail(g.receive(ev.t, msg))
			}
		}
	default:
		g.fail(fmt.Errorf("unexpected event %T", e))
	}
	return g.err
}

// do carries out the machine's answer.
func (g *Comp) do(wf *wavefront, nx next) {
	if nx.schedule {
		g.schedule(wf, nx.at)
	}
}

func (g *Comp) step(wf *wavefront, now sim.VTimeInSec) {
	switch wf.m.phase {
	case phRaise:
		g.raise(wf, wf.x, now)
		return
	case phReplay:
		wf.m.replaying()
		g.execute(wf, wf.x, max(now, g.pausedUntil))
		return
	}
	g.release(wf)
	in := &g.inst
	if !wf.stream.Next(in) {
		g.finish(wf, now)
		return
	}
	t := now + sim.VTimeInSec(in.Compute+g.cfg.IssueCycles)*g.cycle
	t = max(t, g.pausedUntil)
	if in.Lanes == 0 {
		g.schedule(wf, t)
		return
	}
	g.counters.MemInstructions++
	wf.write = in.Write
	x := g.cur
	g.coalesce(x, in)
	wf.m.issued(t)
	g.execute(wf, x, t)
	if wf.m.phase != phNext { // it waits: it keeps the record
		wf.x = x
		g.cur = g.newRecord()
	}
}

// release returns the record of wf's last instruction, done, if it kept
// one.
func (g *Comp) release(wf *wavefront) {
	if wf.x != nil {
		g.spare = append(g.spare, wf.x)
		wf.x = nil
	}
}

// newRecord is a spare record, or a new one.
func (g *Comp) newRecord() *inflight {
	if n := len(g.spare); n > 0 {
		x := g.spare[n-1]
		g.spare = g.spare[:n-1]
		return x
	}
	return new(inflight)
}

// coalesce turns the lanes into distinct lines, grouped by page. Lanes
// usually walk addresses in order, so each page's lines arrive together
// and are grouped as they come; otherwise a counting sort by page, stable,
// groups them after.
func (g *Comp) coalesce(x *inflight, in *trace.Instruction) {
	sc := &g.scratch
	n := 0
	x.nPages = 0
	if g.pageStamp++; g.pageStamp == 0 { // wrapped: old stamps could match
		clear(g.pageStamps[:])
		g.pageStamp = 1
	}
	grouped := true
	lastLine := ^uint64(0)
	pi := 0 // the last lane's page
	for i := 0; i < in.Lanes; i++ {
		ptr := in.Addr[i]
		line := objtable.Strip(ptr) >> g.lineShift
		if line == lastLine {
			continue
		}
		page := line >> (g.pageShift - g.lineShift)
		if x.nPages == 0 || x.pg[pi].page != page {
			known := x.nPages
			if pi = g.pageIndex(x, page, ptr); pi == known {
				x.pg[pi].start = int8(n) // a new page
			}
		}
		if bit := uint64(1) << (line & 63); sc.bits[pi]&bit == 0 {
			sc.bits[pi] |= bit
		} else if g.linesPerPage <= 6 || seenLine(x, n, line) { // at most 64 lines a page: the bit is the line
			continue
		}
		lastLine = line
		grouped = grouped && pi == x.nPages-1
		x.lines[n], sc.page[n] = line, int8(pi)
		n++
	}
	x.nLines = n
	x.pg[x.nPages].start = int8(n)
	if !grouped {
		sc.group(x)
	}
}

// coalescing is coalesce's working state: each line's page, and a bit per
// line%64 seen on each page, whose clear bit proves a line new.
type coalescing struct {
	page [trace.WavefrontSize]int8
	bits [trace.WavefrontSize]uint64
	tmp  [trace.WavefrontSize]uint64
}

// seenLine reports whether line is among x's first n lines.
func seenLine(x *inflight, n int, line uint64) bool {
	for l := 0; l < n; l++ {
		if x.lines[l] == line {
			return true
		}
	}
	return false
}

// group sorts x's lines by page, keeping their order within a page, and
// sets pageStart.
func (sc *coalescing) group(x *inflight) {
	var count [trace.WavefrontSize + 1]int8
	for l := 0; l < x.nLines; l++ {
		count[sc.page[l]+1]++
	}
	for p := 0; p < x.nPages; p++ {
		count[p+1] += count[p]
		x.pg[p].start = count[p]
	}
	copy(sc.tmp[:x.nLines], x.lines[:x.nLines])
	for l := 0; l < x.nLines; l++ {
		p := sc.page[l]
		x.lines[count[p]] = sc.tmp[l]
		count[p]++
	}
}

// pageSlots is the size of the open-addressed page index coalesce uses,
// twice the most pages an instruction can touch.
const pageSlots = 2 * trace.WavefrontSize

// pageIndex returns page's index in the instruction's pages, adding it
// (with ptr, a tagged address in it, and no lines yet) if new. Slots
// stamped with another coalesce are empty, so the index is never cleared.
func (g *Comp) pageIndex(x *inflight, page, ptr uint64) int {
	h := int((page * 0x9E3779B97F4A7C15) >> 57) // log2(pageSlots) bits
	for ; g.pageStamps[h] == g.pageStamp; h = (h + 1) & (pageSlots - 1) {
		if pi := g.pageAt[h]; x.pg[pi].page == page {
			return int(pi)
		}
	}
	pi := x.nPages
	g.pageStamps[h], g.pageAt[h] = g.pageStamp, uint8(pi)
	x.pg[pi].page = page
	x.pg[pi].ptr = ptr
	x.pg[pi].done = false
	g.scratch.bits[pi] = 0
	x.nPages++
	return pi
}
