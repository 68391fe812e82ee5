package gpu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// execute runs the pages of the current instruction that are not done yet,
// issued at t: each page is translated in parallel; a translated page's
// lines go through L1V, L2 and DRAM, or over NVLink when it is mapped
// remotely; a page that faults is raised to the GMMU when its walk ends.
func (g *Comp) execute(wf *wavefront, x *inflight, t sim.VTimeInSec) {
	write := wf.write
	nFaults, faultAt := 0, sim.VTimeInSec(0)
	cu := &g.cus[wf.wg.cu]
	for i := 0; i < x.nPages; i++ {
		if x.pg[i].done {
			continue
		}
		page := x.pg[i].page
		tp := t + g.l1tlbLat
		walked := false
		key, tgen := page, g.tlbGen[page]
		if g.big != nil {
			key, tgen = g.bigTLBKey(page)
		}
		if cu.l1tlb.Lookup(key, tgen) {
			g.counters.TLBL1Hits++
		} else {
			g.counters.TLBL1Misses++
			tp += g.l2tlbLat
			if g.l2tlb.Lookup(key, tgen) {
				g.counters.TLBL2Hits++
				cu.l1tlb.Insert(key, tgen)
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
				g.fail(fmt.Errorf("TLB hit on page %d whose PTE is invalid: a shootdown was missed", page))
			}
			x.faultPages[nFaults] = uint8(i)
			x.faultProt[nFaults] = pte.Kind.Readable()
			nFaults++
			faultAt = max(faultAt, tp)
			continue
		}
		if walked {
			g.l2tlb.Insert(key, tgen)
			cu.l1tlb.Insert(key, tgen)
		}
		x.pg[i].kind, x.pg[i].owner = pte.Kind, pte.Owner
		if g.recency != nil && !pte.Kind.Remote() {
			g.recency.Touch(g.id, page)
		}
		g.accessPage(wf, x, cu, i, tp)
	}
	g.sendRemote(wf)
	g.do(wf, wf.m.executed(t, nFaults, faultAt))
}

// accessPage moves the lines of page i, translated at t.
func (g *Comp) accessPage(wf *wavefront, x *inflight, cu *computeUnit, i int, t sim.VTimeInSec) {
	write := wf.write
	x.pg[i].done = true
	target, slot := g.id, g.id
	if x.pg[i].kind.Remote() {
		target, slot = int(x.pg[i].owner), int(x.pg[i].owner)
		if target == uvmproto.Host {
			slot = len(g.peers) // zero-copy: host memory over PCIe
		}
		wf.m.remoteAt = t
	}
	if g.observer != nil {
		g.observer.Access(g.id, x.pg[i].page, write, target)
	}
	remote := 0
	for l := int(x.pg[i].start); l < int(x.pg[i+1].start); l++ {
		if target != g.id {
			if g.remoteHitsL1V(cu, wf, x.lines[l], write, t) {
				continue
			}
			g.remoteLines[slot] = append(g.remoteLines[slot], x.lines[l])
			remote++
			continue
		}
		wf.m.localDone = max(wf.m.localDone, g.localLine(cu, x.lines[l], write, t))
	}
	if remote > 0 {
		if pages := g.ac.count(x.pg[i].page, remote); pages != nil {
			g.mmu.NotifyCounter(t, pages)
		}
	}
}

// remoteHitsL1V looks a remote read up in the CU's L1V when remote lines
// are cached there (MGPUSim's R9 Nano puts the RDMA engine below L1V). A
// hit costs the L1V latency and never leaves the GPU, so it is neither a
// remote line nor counted by the access counters; a miss allocates.
func (g *Comp) remoteHitsL1V(cu *computeUnit, wf *wavefront, line uint64, write bool, t sim.VTimeInSec) bool {
	if !g.cfg.RemoteL1V || write {
		return false
	}
	gen := g.lineGen[line>>g.linesPerPage] + g.flushes
	if cu.l1v.Lookup(line, gen) {
		g.counters.L1VHits++
		wf.m.localDone = max(wf.m.localDone, t+g.l1vLat)
		return true
	}
	cu.l1v.Insert(line, gen)
	return false
}

// sendRemote sends one RDMA request per owner GPU, naming by value the
// lines accessPage found on pages mapped to that owner; lines of host pages
// (slot len(peers)) go to host memory over PCIe.
func (g *Comp) sendRemote(wf *wavefront) {
	for owner, lines := range g.remoteLines {
		if len(lines) == 0 {
			continue
		}
		g.counters.RemoteLines += uint64(len(lines))
		wf.m.sentRemote()
		req := g.build.RDMA(lines, wf.write, wf.id, 1<<g.lineShift)
		g.remoteLines[owner] = lines[:0]
		if owner == len(g.peers) {
			g.counters.HostLines += uint64(req.N)
			g.hostOut.Send(req, g.host, wf.m.remoteAt)
			continue
		}
		g.out.Send(req, g.peers[owner], wf.m.remoteAt)
	}
}

// localLine returns when one line access issued at t completes. L1V is
// write-through without write-allocate (GCN); L2 is write-back, allocate.
func (g *Comp) localLine(cu *computeUnit, line uint64, write bool, t sim.VTimeInSec) sim.VTimeInSec {
	tl := t + g.l1vLat
	gen := g.lineGen[line>>g.linesPerPage] + g.flushes
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
	gen := g.lineGen[line>>g.linesPerPage] + g.flushes
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
func (g *Comp) raise(wf *wavefront, x *inflight, now sim.VTimeInSec) {
	w := waiter{g: g, wf: wf}
	write := wf.write
	n := 0
	for i := 0; i < wf.m.nFaults; i++ {
		pi := x.faultPages[i]
		// The PTE may have been installed since the walk: then there is
		// nothing to raise, the replay will find it.
		if k := g.mmu.Entry(x.pg[pi].page).Kind; k.Readable() && (!write || k.Writable()) {
			continue
		}
		x.faultPages[n], x.faultProt[n] = pi, x.faultProt[i]
		n++
	}
	g.do(wf, wf.m.raised(now, n))
	for i := 0; i < n; i++ {
		pi := x.faultPages[i]
		g.mmu.Fault(now, uvmproto.FaultEntry{
			Page: x.pg[pi].page, Ptr: x.pg[pi].ptr, Write: write, Protection: x.faultProt[i],
		}, w)
	}
}

// charge adds a fault stall to its categories.
func (g *Comp) charge(st stall) {
	g.stalls.HostFault += st.hostNs
	switch st.cause {
	case uvmproto.CauseMigration:
		g.stalls.Migration += st.restNs
	case uvmproto.CauseDuplication:
		g.stalls.Duplication += st.restNs
	case uvmproto.CauseCollapse:
		g.stalls.WriteCollapse += st.restNs
	case uvmproto.CauseRemote:
		g.stalls.RemoteAccess += st.restNs
	default:
		g.stalls.HostFault += st.restNs
	}
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
