package gmmu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Waiter is whoever waits for a far fault to be resolved: a stalled
// wavefront, or a translation request from another model.
type Waiter interface {
	Resolved(now sim.VTimeInSec, r uvmproto.Resolution)
}

// FaultBuffer is the GMMU's side of the far-fault protocol, as a pure state
// machine in the style of etcd's raft: no engine, no ports. Its inputs are
// method calls (Raise, Notify, Reply); what it wants done comes out of
// Ready, in order: the waiters to wake, then the batches to send.
//
// Its rules: faults on one page coalesce (a later write upgrades a fault
// not yet sent); at most one fault batch of at most batchMax faults is in
// flight, and the next leaves only when the driver's reply ends the
// current one (the driver's BATCH_FLUSH replay policy); access-counter
// notifications batch the same way, with their own batch in flight.
type FaultBuffer struct {
	gpu      int
	batchMax int
	build    uvmproto.Builder

	pending     []uvmproto.FaultEntry
	outstanding map[uint64]*fault
	inFlight    bool
	concurrent  bool
	// Notifications waiting for the batch in flight, each kept as runs of
	// consecutive pages (a 2 MB group's 512 pages in one run): they can
	// pile up by the million behind a slow batch (bicgstab under the AC
	// baseline), and page lists made that 5 GB. acEnds[i] is the end of
	// notification acHead+i's runs in acRuns[acRunHead:].
	acRuns     []pageRun
	acEnds     []int
	acRunHead  int
	acHead     int
	acInFlight bool

	ready Ready
}

type fault struct {
	entry   uvmproto.FaultEntry
	sent    bool
	waiters []Waiter
}

// Ready is what the buffer asks its host to do, in this order.
type Ready struct {
	Wake []Wake
	// Send holds unaddressed FaultBatchMsg and CounterBatchMsg for the
	// driver.
	Send []sim.Msg
}

// Wake resumes one waiter with its fault's resolution.
type Wake struct {
	Waiter     Waiter
	Resolution uvmproto.Resolution
	// Page is the fault's page.
	Page uint64
}

// NewFaultBuffer makes the fault buffer of GPU gpu, sending batches of at
// most batchMax faults.
func NewFaultBuffer(gpu, batchMax int) *FaultBuffer {
	return &FaultBuffer{gpu: gpu, batchMax: max(1, batchMax), build: uvmproto.MakeBuilder(),
		outstanding: map[uint64]*fault{}}
}

// Raise records a far fault raised at now by w. It reports whether the
// fault is new; a fault on a page already outstanding only adds a waiter.
func (b *FaultBuffer) Raise(now sim.VTimeInSec, e uvmproto.FaultEntry, w Waiter) (isNew bool) {
	if f, ok := b.outstanding[e.Page]; ok {
		f.waiters = append(f.waiters, w)
		if !f.sent && e.Write && !f.entry.Write {
			f.entry.Write, f.entry.Protection = true, e.Protection
			b.upgradePending(e)
		}
		return false
	}
	e.RaisedAt = now
	b.outstanding[e.Page] = &fault{entry: e, waiters: []Waiter{w}}
	b.pending = append(b.pending, e)
	if !b.inFlight {
		b.flush()
	}
	return true
}

// Concurrent drops the one-batch-in-flight rule: each Raise sends its
// fault at once, and replies end nothing.
func (b *FaultBuffer) Concurrent() { b.concurrent = true }

func (b *FaultBuffer) upgradePending(e uvmproto.FaultEntry) {
	for i := range b.pending {
		if b.pending[i].Page == e.Page {
			b.pending[i].Write, b.pending[i].Protection = true, e.Protection
		}
	}
}

// pageRun is n consecutive pages from first.
type pageRun struct{ first, n uint64 }

// Notify queues an access-counter notification naming pages. It keeps no
// reference to pages.
func (b *FaultBuffer) Notify(pages []uint64) {
	for i, p := range pages {
		if k := len(b.acRuns) - 1; i > 0 && b.acRuns[k].first+b.acRuns[k].n == p {
			b.acRuns[k].n++
			continue
		}
		b.acRuns = append(b.acRuns, pageRun{first: p, n: 1})
	}
	b.acEnds = append(b.acEnds, len(b.acRuns))
	if !b.acInFlight {
		b.flushCounters()
	}
}

// Reply takes the driver's PTE installs for entries, resolved as given.
// endFaults or endCounters marks the reply that ends the batch in flight.
func (b *FaultBuffer) Reply(entries []uvmproto.Mapping, resolved []uvmproto.Resolution, endFaults, endCounters bool) {
	for i, e := range entries {
		f, ok := b.outstanding[e.Page]
		if !ok || !f.sent {
			continue
		}
		delete(b.outstanding, e.Page)
		for _, w := range f.waiters {
			b.ready.Wake = append(b.ready.Wake, Wake{Waiter: w, Resolution: resolved[i], Page: e.Page})
		}
	}
	if endFaults {
		b.inFlight = false
		b.flush()
	}
	if endCounters {
		b.acInFlight = false
		b.flushCounters()
	}
}

// Ready returns what the buffer wants done since the last Advance.
func (b *FaultBuffer) Ready() Ready { return b.ready }

// Advance tells the buffer its Ready was carried out.
func (b *FaultBuffer) Advance() {
	clear(b.ready.Wake)
	clear(b.ready.Send)
	b.ready.Wake, b.ready.Send = b.ready.Wake[:0], b.ready.Send[:0]
}

// Outstanding is the number of pages with an unresolved fault.
func (b *FaultBuffer) Outstanding() int { return len(b.outstanding) }

// InFlight reports whether a fault batch awaits the driver's reply.
func (b *FaultBuffer) InFlight() bool { return b.inFlight }

func (b *FaultBuffer) flush() {
	if len(b.pending) == 0 {
		return
	}
	n := min(len(b.pending), b.batchMax)
	batch := make([]uvmproto.FaultEntry, n)
	copy(batch, b.pending[:n])
	b.pending = append(b.pending[:0], b.pending[n:]...)
	for _, e := range batch {
		b.outstanding[e.Page].sent = true
	}
	b.inFlight = !b.concurrent
	b.ready.Send = append(b.ready.Send, b.build.FaultBatch(b.gpu, batch))
}

func (b *FaultBuffer) flushCounters() {
	waiting := len(b.acEnds) - b.acHead
	if waiting == 0 {
		return
	}
	n := min(waiting, b.batchMax)
	end := b.acEnds[b.acHead+n-1]
	var pages []uint64
	for _, r := range b.acRuns[b.acRunHead:end] {
		for p := r.first; p < r.first+r.n; p++ {
			pages = append(pages, p)
		}
	}
	b.acHead += n
	b.acRunHead = end
	if b.acHead == len(b.acEnds) {
		b.acRuns, b.acEnds = b.acRuns[:0], b.acEnds[:0]
		b.acHead, b.acRunHead = 0, 0
	} else if b.acHead > len(b.acEnds)/2 { // compact, so the queue's memory follows its length
		for i := b.acHead; i < len(b.acEnds); i++ {
			b.acEnds[i-b.acHead] = b.acEnds[i] - b.acRunHead
		}
		b.acEnds = b.acEnds[:len(b.acEnds)-b.acHead]
		b.acRuns = b.acRuns[:copy(b.acRuns, b.acRuns[b.acRunHead:])]
		b.acHead, b.acRunHead = 0, 0
	}
	b.acInFlight = true
	b.ready.Send = append(b.ready.Send, b.build.CounterBatch(b.gpu, pages, n))
}

// Unanswered says what the buffer still waits for from the driver, one
// line each, none when nothing: at the end of a run, a fault nobody will
// answer.
func (b *FaultBuffer) Unanswered() []string {
	var out []string
	if len(b.outstanding) > 0 {
		pages := make([]uint64, 0, len(b.outstanding))
		for p := range b.outstanding {
			pages = append(pages, p)
		}
		line := fmt.Sprintf("%d far faults unanswered (%s)", len(pages), PageList(pages))
		if b.inFlight {
			line += "; the driver never ended the fault batch in flight"
		}
		out = append(out, line)
	}
	if b.acInFlight {
		out = append(out, fmt.Sprintf("an access-counter batch the driver never answered, %d notifications waiting behind it", len(b.acEnds)-b.acHead))
	}
	return out
}

// PageList names pages for a message: sorted, the first few only.
func PageList(pages []uint64) string {
	const shown = 8
	s := slices.Sorted(slices.Values(pages))
	var b strings.Builder
	b.WriteString("page")
	if len(s) > 1 {
		b.WriteString("s")
	}
	for i, p := range s[:min(len(s), shown)] {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", p)
	}
	if len(s) > shown {
		fmt.Fprintf(&b, " and %d more", len(s)-shown)
	}
	return b.String()
}
