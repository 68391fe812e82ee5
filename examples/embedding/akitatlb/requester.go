// Package akitatlb puts Akita's TLB (mem/vm/tlb) in front of an mgpu GMMU
// and keeps its contract for the GPU model that asks it: Requester sends
// the GPU's accesses, flushes and restarts the TLB when the GMMU asks it
// to drop translations, and re-issues the reads a flush lost.
//
// Akita's TLB keeps three rules an embedder learns the hard way. A
// tlb.FlushReq invalidates the entries it names, resets the MSHR (the
// translations it is fetching are lost: their answers are dropped) and
// pauses the TLB; a tlb.RestartReq resumes it and discards what waits in
// its ports. So nothing may be sent to the TLB between the two, and every
// read the TLB held at the flush must be asked again. Asked again through
// the TLB, a read can be lost again by the next flush, and under hardware
// fault handling every page-group a migration installs flushes: a GPU
// that re-issues through the TLB can lose the same read for ever.
// Requester re-issues a lost read straight to the GMMU's Top port, which
// no flush touches. And the TLB keys an entry by the exact (tagged)
// address it was asked: Requester flushes the addresses the GMMU names in
// its shootdowns and dropped translations (uvmproto.ShootdownReq.VAddrs).
package akitatlb

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sarchlab/akita/v3/mem/vm"
	"github.com/sarchlab/akita/v3/mem/vm/tlb"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/gmmu"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Access is one memory access to translate: Addr (which may carry an
// OASIS pointer tag above bit 48) and whether it stores. ID is the
// caller's, handed back with the answer.
type Access struct {
	ID    uint64
	Addr  uint64
	Write bool
}

// Answered is told each access's answer: the GMMU's page (DeviceID is the
// GPU that holds it plus one, PAddr its physical address there).
type Answered func(now sim.VTimeInSec, a Access, page vm.Page)

// Builder makes a Requester, after Akita's builder style.
type Builder struct {
	engine   sim.Engine
	pid      vm.PID
	device   uint64
	pageSize uint64
	delay    sim.VTimeInSec
	buf      int
	tlb      *tlb.TLB
	mmuTop   sim.Port
	answered Answered
}

// MakeBuilder returns a builder for 4 KB pages, process 1, a one-cycle
// (1 ns) receive delay and 8-message ports.
func MakeBuilder() Builder {
	return Builder{pid: 1, pageSize: 4096, delay: 1e-9, buf: 8}
}

// WithEngine sets the engine: mgpu's (engine.New), whose Run reports the
// accesses left unanswered.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithPID sets the process the accesses belong to.
func (b Builder) WithPID(pid vm.PID) Builder { b.pid = pid; return b }

// WithDeviceID sets the requests' DeviceID (Akita's numbering: the GPU's
// index plus one).
func (b Builder) WithDeviceID(id uint64) Builder { b.device = id; return b }

// WithPageSize sets the page size the TLB was built with.
func (b Builder) WithPageSize(n uint64) Builder { b.pageSize = n; return b }

// WithRecvDelay sets the time between a message's arrival and its
// handling: on Akita's DirectConnection at least a cycle.
func (b Builder) WithRecvDelay(d sim.VTimeInSec) Builder { b.delay = d; return b }

// WithTLB sets the Akita TLB reads go through.
func (b Builder) WithTLB(t *tlb.TLB) Builder { b.tlb = t; return b }

// WithGMMU sets the GMMU's Top port, where stores and re-issued reads go.
func (b Builder) WithGMMU(top sim.Port) Builder { b.mmuTop = top; return b }

// WithAnswered sets who is told the answers.
func (b Builder) WithAnswered(f Answered) Builder { b.answered = f; return b }

// Build makes the requester named name. Plug Port into one connection
// with the TLB's Top and the GMMU's Top, and Control into one with the
// TLB's Control.
func (b Builder) Build(name string) (*Requester, error) {
	w, ok := b.engine.(engine.Watcher)
	switch {
	case b.engine == nil:
		return nil, errors.New("akitatlb.Builder: an engine is required")
	case !ok:
		return nil, fmt.Errorf("akitatlb.Builder: engine %T would drop errors and could not report an access left unanswered; build on mgpu's engine (engine.New())", b.engine)
	case b.tlb == nil || b.mmuTop == nil:
		return nil, errors.New("akitatlb.Builder: the TLB (WithTLB) and the GMMU's Top port (WithGMMU) are required")
	case b.answered == nil:
		return nil, errors.New("akitatlb.Builder: WithAnswered is required")
	case b.pageSize == 0 || b.pageSize&(b.pageSize-1) != 0:
		return nil, fmt.Errorf("akitatlb.Builder: page size %d is not a power of two", b.pageSize)
	case !(b.delay > 0):
		return nil, fmt.Errorf("akitatlb.Builder: receive delay %v: Akita's TLB talks over a DirectConnection, which needs at least a cycle", b.delay)
	}
	r := &Requester{ComponentBase: sim.NewComponentBase(name), engine: b.engine, pid: b.pid, device: b.device,
		pageSize: b.pageSize, delay: b.delay, answered: b.answered, tlbTop: b.tlb.GetPortByName("Top"),
		tlbCtrl: b.tlb.GetPortByName("Control"), mmuTop: b.mmuTop, sent: map[string]*sent{}}
	r.port = sim.NewLimitNumMsgPort(r, b.buf, name+".Port")
	r.ctrl = sim.NewLimitNumMsgPort(r, b.buf, name+".Control")
	r.AddPort("Port", r.port)
	r.AddPort("Control", r.ctrl)
	r.out, r.ctrlOut = uvmproto.NewOutbox(r.port, b.engine), uvmproto.NewOutbox(r.ctrl, b.engine)
	w.Watch(r)
	return r, nil
}

// Requester sends a GPU's accesses through an Akita TLB to an mgpu GMMU
// and flushes the TLB on request (see the package doc).
type Requester struct {
	*sim.ComponentBase
	engine   sim.Engine
	pid      vm.PID
	device   uint64
	pageSize uint64
	delay    sim.VTimeInSec
	answered Answered

	port, ctrl               sim.Port
	out, ctrlOut             *uvmproto.Outbox
	tlbTop, tlbCtrl, mmuTop  sim.Port
	sent                     map[string]*sent // by request ID
	waiting                  []Access         // held while a flush is under way
	flushes                  []flush          // queued; the head is under way
	inbox                    []sim.Msg
	scheduled                bool
	seq                      uint64 // requests sent so far
	reissued, stale, flushed int
	lostAtFlush, skipped     int
}

// sent is an access whose request is out: the seq-th, to the TLB if
// viaTLB.
type sent struct {
	Access
	seq    uint64
	viaTLB bool
}

// flush is one TLB flush and who waits for its end.
type flush struct {
	vaddrs []uint64
	done   func(now sim.VTimeInSec)
}

// Port is where requests leave and answers arrive.
func (r *Requester) Port() sim.Port { return r.port }

// Control is the port to the TLB's Control port.
func (r *Requester) Control() sim.Port { return r.ctrl }

// Counts is what the requester did: reads re-issued after a flush lost
// them, answers to lost requests ignored, flushes done and flushes skipped
// (they named no address the TLB could hold).
func (r *Requester) Counts() (reissued, stale, flushed, skipped int) {
	return r.reissued, r.stale, r.flushed, r.skipped
}

// Send issues a. A read goes to the TLB as a vm.TranslationReq for its
// page (the TLB keys entries by page address, with the tag); a store goes
// straight to the GMMU as a gmmu.AccessReq with Write set, since Akita's
// TLB has no write flag and its answers no permission. While a flush is
// under way reads wait.
func (r *Requester) Send(now sim.VTimeInSec, a Access) {
	switch {
	case a.Write:
		r.request(now, a, r.mmuTop)
	case len(r.flushes) > 0:
		r.waiting = append(r.waiting, a)
	default:
		r.request(now, a, r.tlbTop)
	}
}

func (r *Requester) request(now sim.VTimeInSec, a Access, dst sim.Port) {
	va := a.Addr &^ (r.pageSize - 1)
	t := vm.TranslationReqBuilder{}.WithPID(r.pid).WithVAddr(va).WithDeviceID(r.device).Build()
	var msg sim.Msg = t
	if a.Write {
		msg = &gmmu.AccessReq{TranslationReq: *t, Write: true}
	}
	r.seq++
	r.sent[msg.Meta().ID] = &sent{Access: a, seq: r.seq, viaTLB: dst == r.tlbTop}
	r.out.Send(msg, dst, now)
}

// Flush drops vaddrs (the exact addresses the TLB keys, as the GMMU's
// ShootdownReq.VAddrs and DropTranslationsReq.VAddrs name them) from the
// TLB, after the flushes queued before; done, if not nil, is called when
// the TLB runs again. A flush that names no address is skipped: the TLB
// cannot hold a page the GMMU never answered, and a flush would only
// lose the reads in flight.
func (r *Requester) Flush(now sim.VTimeInSec, vaddrs []uint64, done func(now sim.VTimeInSec)) {
	if len(vaddrs) == 0 && len(r.flushes) == 0 {
		r.skipped++
		if done != nil {
			done(now)
		}
		return
	}
	r.flushes = append(r.flushes, flush{vaddrs: vaddrs, done: done})
	if len(r.flushes) == 1 {
		r.startFlush(now)
	}
}

// startFlush sends the head flush. Every read the TLB holds is lost by it.
func (r *Requester) startFlush(now sim.VTimeInSec) {
	var lost []*sent
	for id, s := range r.sent {
		if s.viaTLB {
			delete(r.sent, id)
			lost = append(lost, s)
		}
	}
	slices.SortFunc(lost, func(a, b *sent) int { return cmp.Compare(a.seq, b.seq) })
	for _, s := range lost { // in the order they were sent, before the reads held back
		r.waiting = slices.Insert(r.waiting, r.lostAtFlush, s.Access)
		r.lostAtFlush++
	}
	req := tlb.FlushReqBuilder{}.WithVAddrs(r.flushes[0].vaddrs).WithPID(r.pid).Build()
	r.ctrlOut.Send(req, r.tlbCtrl, now)
}

// restarted ends the head flush: its waiter is told, then the next flush
// starts, or the reads resume: those a flush lost straight to the GMMU,
// those that waited through the TLB.
func (r *Requester) restarted(now sim.VTimeInSec) {
	f := r.flushes[0]
	r.flushes = r.flushes[1:]
	r.flushed++
	if f.done != nil {
		f.done(now)
	}
	if len(r.flushes) > 0 {
		r.startFlush(now)
		return
	}
	waiting := r.waiting
	r.waiting = nil
	lost := r.lostAtFlush
	r.lostAtFlush = 0
	for i, a := range waiting {
		if i < lost {
			r.reissued++
			r.request(now, a, r.mmuTop)
		} else {
			r.request(now, a, r.tlbTop)
		}
	}
}

// NotifyRecv takes the messages and handles them a receive delay later.
func (r *Requester) NotifyRecv(now sim.VTimeInSec, p sim.Port) {
	for m := p.Retrieve(now); m != nil; m = p.Retrieve(now) {
		r.inbox = append(r.inbox, m)
	}
	if !r.scheduled {
		r.scheduled = true
		r.engine.Schedule(handleEvent{now + r.delay, r})
	}
}

// NotifyPortFree resends what a full connection refused.
func (r *Requester) NotifyPortFree(now sim.VTimeInSec, _ sim.Port) {
	r.out.PortFree(now)
	r.ctrlOut.PortFree(now)
}

// handleEvent handles the inbox.
type handleEvent struct {
	t sim.VTimeInSec
	r *Requester
}

func (e handleEvent) Time() sim.VTimeInSec { return e.t }
func (e handleEvent) Handler() sim.Handler { return e.r }
func (e handleEvent) IsSecondary() bool    { return false }

// Handle handles the inbox.
func (r *Requester) Handle(e sim.Event) error {
	now := e.Time()
	r.scheduled = false
	msgs := r.inbox
	r.inbox = nil
	for _, m := range msgs {
		switch x := m.(type) {
		case *vm.TranslationRsp:
			s, ok := r.sent[x.RespondTo]
			if !ok { // a request a flush lost, answered after all
				r.stale++
				continue
			}
			delete(r.sent, x.RespondTo)
			r.answered(now, s.Access, x.Page)
		case *tlb.FlushRsp:
			r.ctrlOut.Send(tlb.RestartReqBuilder{}.Build(), r.tlbCtrl, now)
		case *tlb.RestartRsp:
			r.restarted(now)
		default:
			return fmt.Errorf("%s: unexpected message %T", r.Name(), m)
		}
	}
	return nil
}

// Outstanding implements engine.Waiting: the accesses not answered and
// the flushes not done when the run ends.
func (r *Requester) Outstanding() error {
	var what []string
	if n := len(r.sent); n > 0 {
		ids := make([]uint64, 0, n)
		for _, s := range r.sent {
			ids = append(ids, s.ID)
		}
		slices.Sort(ids)
		what = append(what, fmt.Sprintf("%d accesses sent and never answered (IDs %v)", n, ids))
	}
	if n := len(r.flushes); n > 0 {
		what = append(what, fmt.Sprintf("%d TLB flushes not done: no FlushRsp or RestartRsp came back (is %s plugged into a connection with the TLB's Control port?)", n, r.ctrl.Name()))
	}
	if n := len(r.waiting); n > 0 {
		what = append(what, fmt.Sprintf("%d accesses waiting for a flush to end", n))
	}
	if len(what) == 0 {
		return nil
	}
	return errors.New(r.Name() + ": " + strings.Join(what, "; "))
}
