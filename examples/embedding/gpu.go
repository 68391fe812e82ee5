package embedding

import (
	"fmt"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/mem/vm/tlb"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/gmmu"
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
// one at a time: reads through its Akita TLB (whose misses go to mgpu's
// GMMU), stores straight to the GMMU. It speaks to mgpu only through
// ports: the GMMU's Control port (uvmproto/control.go) and a data port to
// its peer for page copies.
//
// The contract of Akita's TLB it keeps: a tlb.FlushReq invalidates the
// named entries, resets the TLB's MSHR (the translations it is fetching
// are lost: their answers are dropped) and pauses it; a tlb.RestartReq
// resumes it and discards everything waiting in its top and bottom ports.
// So the GPU sends nothing to the TLB between the flush and the restart,
// and after the restart it re-issues the read that was in flight when
// the flush began. An answer to the lost request may still come: the
// flush keeps the MSHR entry the TLB had begun answering, which it
// answers after the restart with the page it fetched before the flush.
// The GPU matches answers by request ID and ignores those.
type GPU struct {
	*sim.ComponentBase
	engine   sim.Engine
	id       int
	drain    sim.VTimeInSec // how long a shootdown's drain takes
	accesses []Access
	next     int      // the next access to issue
	cur      *pending // the access issued and not answered
	build    uvmproto.Builder

	// req carries reads to the TLB and stores to the GMMU; ctrl talks to
	// the GMMU's Control port, tlbCtrl to the TLB's, data to the peer.
	req, ctrl, tlbCtrl, data                  sim.Port
	reqOut, ctrlOut, tlbOut, dataOut          *uvmproto.Outbox
	tlbTop, tlbControl, mmuTop, mmuCtrl, peer sim.Port

	inbox     []sim.Msg
	scheduled bool      // a handleEvent is on the engine
	flushes   []flushOp // queued TLB flushes; the head is under way
	// aliases are the tagged page addresses the TLB may hold a page
	// under: Akita's TLB keys its entries by the exact VAddr.
	aliases     map[uint64][]uint64
	lastControl map[uint64]uint64 // page -> seq of the last control message naming it
	seq         uint64            // messages handled so far
	answers     []Answer
	reissued    int // reads re-issued after a TLB flush
	// atShootdown counts the reads in flight when a shootdown's flush
	// began.
	atShootdown int
	stale       int // answers to requests a flush had lost
	flushed     int // TLB flushes done
	pagesSent   int // pages copied to the peer
}

// pending is the access in flight; id is its request's, "" once a TLB
// flush lost it.
type pending struct {
	Access
	id string
}

// flushOp is one TLB flush and the shootdown it serves, if any.
type flushOp struct {
	pages     []uint64
	shootdown *uvmproto.ShootdownReq
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

// NewGPU makes GPU id, replaying accesses.
func NewGPU(e sim.Engine, id int, accesses []Access) *GPU {
	name := fmt.Sprintf("GPU[%d]", id)
	g := &GPU{ComponentBase: sim.NewComponentBase(name), engine: e, id: id, drain: 1e-6,
		accesses: accesses, build: uvmproto.MakeBuilder().WithPageSize(PageSize),
		aliases: map[uint64][]uint64{}, lastControl: map[uint64]uint64{}}
	g.req = sim.NewLimitNumMsgPort(g, 8, name+".Req")
	g.ctrl = sim.NewLimitNumMsgPort(g, 8, name+".Control")
	g.tlbCtrl = sim.NewLimitNumMsgPort(g, 8, name+".TLBControl")
	g.data = sim.NewLimitNumMsgPort(g, 8, name+".Data")
	g.reqOut, g.ctrlOut = uvmproto.NewOutbox(g.req, e), uvmproto.NewOutbox(g.ctrl, e)
	g.tlbOut, g.dataOut = uvmproto.NewOutbox(g.tlbCtrl, e), uvmproto.NewOutbox(g.data, e)
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
	for _, o := range []*uvmproto.Outbox{g.reqOut, g.ctrlOut, g.tlbOut, g.dataOut} {
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
	case *vm.TranslationRsp:
		g.answered(now, x)
	case *uvmproto.ShootdownReq:
		pages := make([]uint64, len(x.Entries))
		for i, iv := range x.Entries {
			pages[i] = iv.Page
		}
		g.queueFlush(now, flushOp{pages: pages, shootdown: x})
	case *uvmproto.DropTranslationsReq:
		g.queueFlush(now, flushOp{pages: x.Pages}) // the GMMU wants no answer
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
	case *tlb.FlushRsp:
		g.tlbOut.Send(tlb.RestartReqBuilder{}.Build(), g.tlbControl, now)
	case *tlb.RestartRsp:
		g.flushDone(now)
	default:
		return fmt.Errorf("unexpected message %T", m)
	}
	return nil
}

// queueFlush flushes pages from the TLB once the flushes before it are
// done (the TLB's control port holds one request).
func (g *GPU) queueFlush(now sim.VTimeInSec, op flushOp) {
	for _, p := range op.pages {
		g.lastControl[p] = g.seq
	}
	g.flushes = append(g.flushes, op)
	if len(g.flushes) == 1 {
		g.startFlush(now)
	}
}

// startFlush sends the head flush to the TLB. A read in flight is lost by
// it (the TLB resets its MSHR), so it is marked for re-issue.
func (g *GPU) startFlush(now sim.VTimeInSec) {
	if g.cur != nil && !g.cur.Write {
		g.cur.id = ""
		if g.flushes[0].shootdown != nil {
			g.atShootdown++
		}
	}
	var vaddrs []uint64
	for _, p := range g.flushes[0].pages {
		vaddrs = append(vaddrs, g.aliases[p]...)
	}
	req := tlb.FlushReqBuilder{}.WithVAddrs(vaddrs).WithPID(PID).Build()
	g.tlbOut.Send(req, g.tlbControl, now)
}

// flushDone answers the flush's shootdown once the drain ends (the dated
// answer waits in the outbox) and starts the next flush.
func (g *GPU) flushDone(now sim.VTimeInSec) {
	op := g.flushes[0]
	g.flushes = g.flushes[1:]
	g.flushed++
	if op.shootdown != nil {
		g.ctrlOut.Send(g.build.ShootdownDone(op.shootdown), g.mmuCtrl, now+g.drain)
	}
	if len(g.flushes) > 0 {
		g.startFlush(now)
	}
}

// answered records the answer to the access in flight; an answer to a
// request a flush lost is ignored.
func (g *GPU) answered(now sim.VTimeInSec, rsp *vm.TranslationRsp) {
	if g.cur == nil || g.cur.id == "" || rsp.RespondTo != g.cur.id {
		g.stale++
		return
	}
	g.answers = append(g.answers, Answer{Access: g.cur.Access, Page: pageOf(g.cur.Addr),
		DeviceID: rsp.Page.DeviceID, PAddr: rsp.Page.PAddr, AtNs: float64(now) * 1e9, seq: g.seq})
	g.cur = nil
}

// advance issues the next access, or re-issues a read a flush lost,
// unless an access is in flight or the TLB is being flushed.
func (g *GPU) advance(now sim.VTimeInSec) {
	if len(g.flushes) > 0 {
		return
	}
	switch {
	case g.cur != nil && g.cur.id != "":
		return
	case g.cur != nil:
		g.reissued++
	case g.next < len(g.accesses):
		g.cur = &pending{Access: g.accesses[g.next]}
		g.next++
	default:
		return
	}
	g.send(now)
}

// send issues the access in flight. A read goes to Akita's TLB as a
// vm.TranslationReq. A store goes straight to the GMMU as a
// gmmu.AccessReq with Write set: Akita's TLB has no write flag, so it
// could neither forward the store's type nor tell a read-only entry
// from a writable one (the GMMU's answers carry no permission).
func (g *GPU) send(now sim.VTimeInSec) {
	va := g.cur.Addr &^ (PageSize - 1) // Akita's TLB keys entries by page address
	r := vm.TranslationReqBuilder{}.WithPID(PID).WithVAddr(va).WithDeviceID(uint64(g.id + 1)).Build()
	if g.cur.Write {
		req := &gmmu.AccessReq{TranslationReq: *r, Write: true}
		g.cur.id = req.ID
		g.reqOut.Send(req, g.mmuTop, now)
		return
	}
	g.cur.id = r.ID
	g.alias(va)
	g.reqOut.Send(r, g.tlbTop, now)
}

// alias remembers that the TLB may hold va's page under va.
func (g *GPU) alias(va uint64) {
	p := pageOf(va)
	for _, a := range g.aliases[p] {
		if a == va {
			return
		}
	}
	g.aliases[p] = append(g.aliases[p], va)
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
