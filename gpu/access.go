package gpu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
)

// execute runs the pages of the current instruction that are not done yet,
// issued at t: each page is translated in parallel; a translated page's
// lines go through L1V, L2 and DRAM, or over NVLink when it is mapped
// remotely; a page that faults is raised to the GMMU when its walk ends.
func (g *Comp) execute(wf *wavefront, t sim.VTimeInSec) {
	write := wf.inst.Write
	wf.nFaults = 0
	wf.faultAt = 0
	cu := &g.cus[wf.wg.cu]
	for i := 0; i < wf.nPages; i++ {
		if wf.done[i] {
			continue
		}
		page := wf.pages[i]
		tp := t + g.l1tlbLat
		walked := false
		tgen := g.tlbGen[page]
		if cu.l1tlb.Lookup(page, tgen) {
			g.counters.TLBL1Hits++
		} else {
			g.counters.TLBL1Misses++
			tp += g.l2tlbLat
			if g.l2tlb.Lookup(page, tgen) {
				g.counters.TLBL2Hits++
				cu.l1tlb.Insert(page, tgen)
			} else {
				g.counters.TLBL2Misses++
				before := tp
				tp = g.mmu.Walk(tp, page)
				g.stalls.LocalWalk += float64(tp-before) * 1e9
				walked = true
			}
		}
		pte := g.mmu.Entry(page)
		if walked {
			g.countMissBits(pte.Bits)
		}
		if !pte.Kind.Readable() || (write && !pte.Kind.Writable()) {
			if g.check && !walked && !pte.Kind.Readable() {
				panic(fmt.Sprintf("GPU %d: TLB hit on page %d whose PTE is invalid: a shootdown was missed", g.id, page))
			}
			wf.faultPages[wf.nFaults] = uint8(i)
			wf.faultProt[wf.nFaults] = pte.Kind.Readable()
			wf.nFaults++
			wf.faultAt = max(wf.faultAt, tp)
			continue
		}
		if walked {
			g.l2tlb.Insert(page, tgen)
			cu.l1tlb.Insert(page, tgen)
		}
		wf.kind[i], wf.owner[i] = pte.Kind, pte.Owner
		if g.recency != nil && !pte.Kind.Remote() {
			g.recency.Touch(g.id, page)
		}
		g.accessPage(wf, cu, i, tp)
	}
	g.sendRemote(wf)
	if wf.nFaults > 0 {
		wf.state = stRaise
		g.schedule(wf, wf.faultAt)
		return
	}
	g.complete(wf, t)
}

// complete ends the instruction once nothing is outstanding.
func (g *Comp) complete(wf *wavefront, now sim.VTimeInSec) {
	if wf.remoteLeft > 0 || wf.nFaults > 0 {
		wf.state = stWait
		return
	}
	wf.state = stNext
	g.schedule(wf, max(now, wf.localDone))
}

// accessPage moves the lines of page i, translated at t.
func (g *Comp) accessPage(wf *wavefront, cu *computeUnit, i int, t sim.VTimeInSec) {
	write := wf.inst.Write
	wf.done[i] = true
	target := g.id
	if wf.kind[i].Remote() {
		target = int(wf.owner[i])
		wf.remoteAt = t
	}
	if g.observer != nil {
		g.observer.Access(g.id, wf.pages[i], write, target)
	}
	remote := 0
	for l := 0; l < wf.nLines; l++ {
		if int(wf.linePage[l]) != i {
			continue
		}
		if target != g.id {
			remote++
			continue
		}
		wf.localDone = max(wf.localDone, g.localLine(cu, wf.lines[l], write, t))
	}
	if remote > 0 {
		g.remoteCount[target] += remote
		if pages := g.ac.count(wf.pages[i], remote); pages != nil {
			g.mmu.NotifyCounter(t, pages)
		}
	}
}

// sendRemote sends one RDMA request per owner GPU for the lines gathered by
// accessPage.
func (g *Comp) sendRemote(wf *wavefront) {
	write := wf.inst.Write
	for owner, n := range g.remoteCount {
		if n == 0 {
			continue
		}
		g.remoteCount[owner] = 0
		g.counters.RemoteLines += uint64(n)
		wf.remoteLeft++
		req := &RDMAReq{wf: wf, Owner: owner, Lines: n, Write: write}
		bytes := 8 * n
		if write {
			bytes = n << g.lineShift
		}
		g.sendPeer(owner, wf.remoteAt, req, bytes)
	}
}

// localLine returns when one line access issued at t completes. L1V is
// write-through without write-allocate (GCN); L2 is write-back, allocate.
func (g *Comp) localLine(cu *computeUnit, line uint64, write bool, t sim.VTimeInSec) sim.VTimeInSec {
	tl := t + g.l1vLat
	gen := g.lineGen[line>>g.linesPerPage]
	if !write && cu.l1v.Lookup(line, gen) {
		g.counters.L1VHits++
		return tl
	}
	tl = g.memLine(line, tl)
	if !write {
		cu.l1v.Insert(line, gen)
	}
	return tl
}

// memLine is the L2-and-DRAM part of a line access, shared by local and
// remote (RDMA) requests.
func (g *Comp) memLine(line uint64, t sim.VTimeInSec) sim.VTimeInSec {
	t += g.l2Lat
	gen := g.lineGen[line>>g.linesPerPage]
	if g.l2.Lookup(line, gen) {
		g.counters.L2Hits++
		return t
	}
	start := max(t, g.dramFree)
	g.dramFree = start + g.dramLine
	g.counters.DRAMLines++
	g.l2.Insert(line, gen)
	return g.dramFree + g.dramLat
}

// raise hands the instruction's faults to the GMMU and waits.
func (g *Comp) raise(wf *wavefront, now sim.VTimeInSec) {
	wf.state = stWait
	w := waiter{g: g, wf: wf}
	write := wf.inst.Write
	n := 0
	for i := 0; i < wf.nFaults; i++ {
		pi := wf.faultPages[i]
		// The PTE may have been installed since the walk: then there is
		// nothing to raise, the replay will find it.
		if k := g.mmu.Entry(wf.pages[pi]).Kind; k.Readable() && (!write || k.Writable()) {
			continue
		}
		wf.faultPages[n], wf.faultProt[n] = pi, wf.faultProt[i]
		n++
	}
	wf.nFaults, wf.waiting = n, n
	if n == 0 {
		wf.state = stReplay
		g.schedule(wf, now)
		return
	}
	for i := 0; i < n; i++ {
		pi := wf.faultPages[i]
		g.mmu.Fault(now, uvm.FaultEntry{
			Page: wf.pages[pi], Ptr: wf.ptr[pi], Write: write, Protection: wf.faultProt[i],
		}, w)
	}
}

// chargeFault splits a fault stall into the driver's service time and the
// time of the resolving action (GRIT Fig. 3 categories).
func (g *Comp) chargeFault(wf *wavefront, now sim.VTimeInSec) {
	total := float64(now-wf.faultAt) * 1e9
	host := min(total, max(0, float64(wf.lastRes.ServicedAt-wf.faultAt)*1e9))
	rest := total - host
	g.stalls.HostFault += host
	switch wf.lastRes.Cause {
	case uvm.CauseMigration:
		g.stalls.Migration += rest
	case uvm.CauseDuplication:
		g.stalls.Duplication += rest
	case uvm.CauseCollapse:
		g.stalls.WriteCollapse += rest
	case uvm.CauseRemote:
		g.stalls.RemoteAccess += rest
	default:
		g.stalls.HostFault += rest
	}
	wf.faultAt = 0
}

func (g *Comp) countMissBits(b pagepolicy.Bits) {
	switch b {
	case pagepolicy.AccessCounter:
		g.counters.L2MissAccessCounter++
	case pagepolicy.Duplication:
		g.counters.L2MissDuplication++
	default:
		g.counters.L2MissOnTouch++
	}
}
