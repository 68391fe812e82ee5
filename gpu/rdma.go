package gpu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvm"
)

// RDMAReq asks the owner GPU for (or sends it) the lines of one instruction
// that live in its memory. One message per instruction and owner keeps the
// event count per access constant.
type RDMAReq struct {
	sim.MsgMeta
	wf    *wavefront
	Owner int
	Lines int
	Write bool
}

// RDMARsp returns the lines (or the write acknowledgement).
type RDMARsp struct {
	sim.MsgMeta
	wf *wavefront
}

// Meta implements sim.Msg.
func (m *RDMAReq) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *RDMARsp) Meta() *sim.MsgMeta { return &m.MsgMeta }

// NotifyRecv schedules a drain of the NVLink port.
func (g *Comp) NotifyRecv(now sim.VTimeInSec, _ sim.Port) {
	if !g.recvPending {
		g.recvPending = true
		g.engine.Schedule(&gpuRecvEvent{t: now, h: g})
	}
}

// NotifyPortFree is unused: links have unbounded send queues.
func (g *Comp) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (g *Comp) receive(now sim.VTimeInSec, msg sim.Msg) {
	switch m := msg.(type) {
	case *RDMAReq:
		g.serveRemote(now, m)
	case *RDMARsp:
		wf := m.wf
		wf.remoteLeft--
		if wf.remoteLeft > 0 {
			return
		}
		g.stalls.RemoteAccess += float64(now-wf.remoteAt) * 1e9
		if wf.state == stWait {
			g.complete(wf, now)
		}
	case *uvm.PageDataMsg:
		g.mmu.DataArrived(now, m.Batch)
	default:
		panic(fmt.Sprintf("gpu: unexpected message %T", msg))
	}
}

// serveRemote runs the requester's lines that live here through this GPU's
// L2 and DRAM and answers when the last one is done.
func (g *Comp) serveRemote(now sim.VTimeInSec, m *RDMAReq) {
	wf := m.wf
	done := now
	for i := 0; i < wf.nLines; i++ {
		pi := wf.linePage[i]
		if !wf.kind[pi].Remote() || int(wf.owner[pi]) != g.id {
			continue
		}
		done = max(done, g.memLine(wf.lines[i], now))
	}
	bytes := 8
	if !m.Write {
		bytes = m.Lines << g.lineShift
	}
	rsp := &RDMARsp{wf: wf}
	meta := rsp.Meta()
	meta.Src, meta.Dst, meta.SendTime, meta.TrafficBytes = g.port, m.Src, done, bytes
	g.mustSend(rsp)
}

func (g *Comp) sendPeer(to int, at sim.VTimeInSec, msg sim.Msg, bytes int) {
	meta := msg.Meta()
	meta.Src, meta.Dst, meta.SendTime, meta.TrafficBytes = g.port, g.peers[to], at, bytes
	g.mustSend(msg)
}

func (g *Comp) mustSend(msg sim.Msg) {
	if err := g.port.Send(msg); err != nil {
		panic("gpu: NVLink send refused; links must have unbounded send queues")
	}
}

// SendPages sends page data to another GPU (a migration or duplication
// copy commanded by the driver).
func (g *Comp) SendPages(now sim.VTimeInSec, to int, pages []uint64, batch uint64) {
	msg := &uvm.PageDataMsg{From: g.id, To: to, Pages: pages, Batch: batch}
	g.sendPeer(to, now, msg, len(pages)*int(g.pageSize))
}

// Shootdown drops or downgrades pages: every TLB entry, and for a drop every
// cached line, after draining the pipelines. It returns when the drain ends.
func (g *Comp) Shootdown(now sim.VTimeInSec, entries []uvm.Inval) sim.VTimeInSec {
	for _, e := range entries {
		g.DropTranslation(e.Page)
		if !e.Downgrade {
			g.lineGen[e.Page]++
		}
	}
	g.pausedUntil = max(g.pausedUntil, now+g.drain)
	return g.pausedUntil
}

// DropTranslation removes a page from the L2 TLB and every L1 TLB, by
// moving the page to a new TLB generation.
func (g *Comp) DropTranslation(page uint64) { g.tlbGen[page]++ }
