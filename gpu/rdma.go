package gpu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// NotifyRecv schedules a drain of the GPU's ports. A control request from
// the GMMU takes effect as it arrives, inside the GMMU's send, even with a
// receive delay (which is for Akita's DirectConnection, not the on-chip
// wire): a shootdown reaches the TLBs at the instant the GMMU changes the
// PTEs, or a TLB would hit on a PTE already invalid.
func (g *Comp) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	if p == g.ctrl && g.err == nil {
		for msg := p.Retrieve(now); msg != nil && g.err == nil; msg = p.Retrieve(now) {
			g.fail(g.receive(now, msg))
		}
		if g.err == nil {
			return
		}
	}
	if !g.recvPending {
		g.recvPending = true
		g.engine.Schedule(&gpuRecvEvent{t: now + g.recvDelay, o: g.src.Next(engine.RankGPU), h: g})
	}
}

// NotifyPortFree resends what a full connection refused.
func (g *Comp) NotifyPortFree(now sim.VTimeInSec, _ sim.Port) {
	g.out.PortFree(now)
	g.hostOut.PortFree(now)
	g.ctrlOut.PortFree(now)
}

func (g *Comp) receive(now sim.VTimeInSec, msg sim.Msg) error {
	switch m := msg.(type) {
	case *uvmproto.RDMAReq:
		g.serveRemote(now, m)
	case *uvmproto.RDMARsp:
		tag := m.Tag
		m.Release()
		if tag >= uint64(len(g.wfs)) || g.wfs[tag] == nil {
			return fmt.Errorf("RDMA response for wavefront %d, which does not exist", tag)
		}
		wf := g.wfs[tag]
		nx, st, last := wf.m.remoteReturned(now)
		if last {
			g.stalls.RemoteAccess += st
		}
		g.do(wf, nx)
	case *uvmproto.PageDataMsg:
		if g.mmuCtrl == nil {
			return fmt.Errorf("page data of batch %d arrived, but the GMMU's Control port is not set (SetMMUControl)", m.Batch)
		}
		g.ctrlOut.Send(g.build.PagesArrived(m.Batch), g.mmuCtrl, now)
	case *uvmproto.ShootdownReq:
		g.ctrlOut.Send(g.build.ShootdownDone(m), m.Src, g.shootdown(now, m.Entries))
	case *uvmproto.DropTranslationsReq:
		for _, p := range m.Pages {
			g.dropTranslation(p)
		}
	case *uvmproto.SendPagesReq:
		g.sendPages(now, m.To, m.Pages, m.Batch)
	default:
		return fmt.Errorf("unexpected message %T", msg)
	}
	return nil
}

// serveRemote runs the requested lines through this GPU's L2 and DRAM and
// answers when the last one is done.
func (g *Comp) serveRemote(now sim.VTimeInSec, m *uvmproto.RDMAReq) {
	done := now
	for _, line := range m.Lines[:m.N] {
		done = max(done, g.memLine(line, now))
	}
	rsp := g.build.RDMAResponse(m, 1<<g.lineShift)
	src := m.Src
	m.Release()
	g.out.Send(rsp, src, done)
}

// sendPages sends page data to another GPU (a migration or duplication
// copy commanded by the driver).
func (g *Comp) sendPages(now sim.VTimeInSec, to int, pages []uint64, batch uint64) {
	g.out.Send(g.build.PageData(g.id, to, pages, batch), g.peers[to], now)
}

// shootdown drops or downgrades pages: every TLB entry, and for a drop the
// page's cached lines (or, as MGPUSim's command processor does, every line
// of every L1V and the L2), after draining the pipelines. It returns when
// the drain ends.
func (g *Comp) shootdown(now sim.VTimeInSec, entries []uvmproto.Inval) sim.VTimeInSec {
	for _, e := range entries {
		g.dropTranslation(e.Page)
		g.ac.clear(e.Page)
		if !e.Downgrade {
			g.lineGen[e.Page]++
		}
	}
	if g.cfg.ShootdownFlushAll {
		// A new cache epoch: every line cached before it misses.
		g.flushes++
	}
	g.pausedUntil = max(g.pausedUntil, now+g.drain)
	return g.pausedUntil
}

// dropTranslation removes a page from the L2 TLB and every L1 TLB, by
// moving the page to a new TLB generation, and its big and 2 MB pages'
// entries with it: a change to one page splits their PTEs.
func (g *Comp) dropTranslation(page uint64) {
	g.tlbGen[page]++
	if g.bigShift != 0 {
		g.bigGen[page>>g.bigShift]++
	}
	if g.hugeShift != 0 {
		g.hugeGen[page>>g.hugeShift]++
	}
}
