package embedding

import (
	"fmt"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/examples/embedding/akitatlb"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// PID is the process every access belongs to.
const PID vm.PID = 1

// Access is one memory access a GPU replays: a tagged pointer
// (objtable.Tagging) and whether it stores.
type Access struct {
	Addr  uint64
	Write bool
}

// Answer is one answered access, as the GPU saw it.
type Answer struct {
	Access
	Page     uint64
	DeviceID uint64 // the GPU that holds the page, plus one
	PAddr    uint64
	AtNs     float64
	// Settled: no shootdown or dropped translation named the page to this
	// GPU after the answer, so the answer must agree with the final table.
	Settled bool
	seq     uint64
}

// GPU is a GPU model of this module, not mgpu's. It replays its accesses
// one at a time through an akitatlb.Requester: reads through its Akita
// TLB (whose misses go to mgpu's GMMU), stores straight to the GMMU. It
// speaks to mgpu only through ports: the GMMU's Control port
// (uvmproto/control.go) and a data port to its peer for page copies. A
// shootdown or a dropped translation flushes the TLB's entries under the
// addresses the GMMU names; the requester re-issues the reads a flush
// lost.
type GPU struct {
	*sim.ComponentBase
	engine   sim.Engine
	id       int
	drain    sim.VTimeInSec // how long a shootdown's drain takes
	accesses []Access
	next     int  // the next access to issue
	busy     bool // an access is issued and not answered
	build    uvmproto.Builder
	tlb      *akitatlb.Requester

	// ctrl talks to the GMMU's Control port, data to the peer.
	ctrl, data       sim.Port
	ctrlOut, dataOut *uvmproto.Outbox
	mmuCtrl, peer    sim.Port
	inbox            []sim.Msg
	scheduled        bool              // a handleEvent is on the engine
	lastControl      map[uint64]uint64 // page -> seq of the last control message naming it
	seq              uint64            // messages handled so far
	answers          []Answer
	atShootdown      int // reads in flight when a shootdown came
	pagesSent        int // pages copied to the peer
}

// pageData is this GPU's own page-copy message to its peer.
type pageData struct {
	sim.MsgMeta
	Pages []uint64
	Batch uint64
}

// Meta implements sim.Msg.
func (m *pageData) Meta() *sim.MsgMeta { return &m.MsgMeta }

// handleEvent handles the inbox a cycle after the messages arrived.
type handleEvent struct {
	t sim.VTimeInSec
	g *GPU
}

func (e handleEvent) Time() sim.VTimeInSec { return e.t }
func (e handleEvent) Handler() sim.Handler { return e.g }
func (e handleEvent) IsSecondary() bool    { return false }

// NewGPU makes GPU id, replaying accesses; its TLB requester is set
// later (SetTLB), since the requester answers the GPU.
func NewGPU(e sim.Engine, id int, accesses []Access) *GPU {
	name := fmt.Sprintf("GPU[%d]", id)
	g := &GPU{ComponentBase: sim.NewComponentBase(name), engine: e, id: id, drain: 1e-6,
		accesses: accesses, build: uvmproto.MakeBuilder().WithPageSize(PageSize), lastControl: map[uint64]uint64{}}
	g.ctrl = sim.NewLimitNumMsgPort(g, 8, name+".Control")
	g.data = sim.NewLimitNumMsgPort(g, 8, name+".Data")
	g.ctrlOut, g.dataOut = uvmproto.NewOutbox(g.ctrl, e), uvmproto.NewOutbox(g.data, e)
	return g
}

// Start makes the GPU issue its first access at now.
func (g *GPU) Start(now sim.VTimeInSec) { g.wake(now) }

func (g *GPU) wake(at sim.VTimeInSec) {
	if !g.scheduled {
		g.scheduled = true
		g.engine.Schedule(handleEvent{at, g})
	}
}

// NotifyRecv takes the messages and handles them a cycle later: Akita's
// DirectConnection does not deliver a message sent at an instant it has
// already ticked, and a component that answered inside the delivery
// could send at such an instant.
func (g *GPU) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	for m := p.Retrieve(now); m != nil; m = p.Retrieve(now) {
		g.inbox = append(g.inbox, m)
	}
	g.wake(now + 1e-9)
}

// NotifyPortFree resends what a full connection refused.
func (g *GPU) NotifyPortFree(now sim.VTimeInSec, p sim.Port) {
	for _, o := range []*uvmproto.Outbox{g.ctrlOut, g.dataOut} {
		o.PortFree(now)
	}
}

// Handle handles the inbox, then issues what the GPU may issue.
func (g *GPU) Handle(e sim.Event) error {
	if _, ok := e.(handleEvent); !ok {
		return fmt.Errorf("%s: unexpected event %T", g.Name(), e)
	}
	now := e.Time()
	g.scheduled = false
	msgs := g.inbox
	g.inbox = nil
	for _, m := range msgs {
		g.seq++
		if err := g.receive(now, m); err != nil {
			return fmt.Errorf("%s: %w", g.Name(), err)
		}
	}
	g.advance(now)
	return nil
}

func (g *GPU) receive(now sim.VTimeInSec, m sim.Msg) error {
	switch x := m.(type) {
	case *uvmproto.ShootdownReq:
		for _, iv := range x.Entries {
			g.lastControl[iv.Page] = g.seq
		}
		if g.busy && !g.accesses[g.next-1].Write {
			g.atShootdown++
		}
		g.tlb.Flush(now, x.VAddrs, func(now sim.VTimeInSec) {
			g.ctrlOut.Send(g.build.ShootdownDone(x), g.mmuCtrl, now+g.drain) // answered once drained
		})
	case *uvmproto.DropTranslationsReq:
		for _, p := range x.Pages {
			g.lastControl[p] = g.seq
		}
		g.tlb.Flush(now, x.VAddrs, nil) // the GMMU wants no answer
	case *uvmproto.SendPagesReq:
		if x.To != 1-g.id {
			return fmt.Errorf("asked to send pages to GPU %d, not a peer", x.To)
		}
		msg := &pageData{MsgMeta: sim.MsgMeta{ID: sim.GetIDGenerator().Generate(),
			TrafficBytes: len(x.Pages) * PageSize}, Pages: x.Pages, Batch: x.Batch}
		g.dataOut.Send(msg, g.peer, now)
		g.pagesSent += len(x.Pages)
	case *pageData:
		g.ctrlOut.Send(g.build.PagesArrived(x.Batch), g.mmuCtrl, now)
	default:
		return fmt.Errorf("unexpected message %T", m)
	}
	return nil
}

// answered records the answer to the access in flight (akitatlb.Answered).
func (g *GPU) answered(now sim.VTimeInSec, a akitatlb.Access, page vm.Page) {
	g.answers = append(g.answers, Answer{Access: g.accesses[a.ID], Page: pageOf(a.Addr),
		DeviceID: page.DeviceID, PAddr: page.PAddr, AtNs: float64(now) * 1e9, seq: g.seq})
	g.busy = false
	g.wake(now)
}

// advance issues the next access unless one is in flight.
func (g *GPU) advance(now sim.VTimeInSec) {
	if g.busy || g.next >= len(g.accesses) {
		return
	}
	a := g.accesses[g.next]
	g.tlb.Send(now, akitatlb.Access{ID: uint64(g.next), Addr: a.Addr, Write: a.Write})
	g.next++
	g.busy = true
}

// Outstanding implements engine.Waiting: accesses never issued.
func (g *GPU) Outstanding() error {
	if g.next < len(g.accesses) || g.busy {
		return fmt.Errorf("%s: %d of %d accesses answered", g.Name(), len(g.answers), len(g.accesses))
	}
	return nil
}

// settle marks the answers no later control message contradicts.
func (g *GPU) settle() []Answer {
	out := make([]Answer, len(g.answers))
	for i, a := range g.answers {
		last, named := g.lastControl[a.Page]
		a.Settled = !named || a.seq > last
		out[i] = a
	}
	return out
}

func pageOf(ptr uint64) uint64 { return objtable.Strip(ptr) / PageSize }
