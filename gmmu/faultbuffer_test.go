package gmmu

import (
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvmproto"
)

// named is a Waiter that records its resolutions.
type named struct {
	name string
	log  *[]string
}

func (n named) Resolved(_ sim.VTimeInSec, r uvmproto.Resolution) {
	*n.log = append(*n.log, n.name)
}

func faultBatch(t *testing.T, m sim.Msg) *uvmproto.FaultBatchMsg {
	t.Helper()
	b, ok := m.(*uvmproto.FaultBatchMsg)
	if !ok {
		t.Fatalf("sent %T, want a fault batch", m)
	}
	return b
}

func TestFaultBufferBatching(t *testing.T) {
	for _, c := range []struct {
		name      string
		batchMax  int
		pages     []uint64 // raised in order, one waiter each
		wantNew   int
		firstSize int // faults in the batch sent at once
	}{
		{"one fault goes at once", 256, []uint64{7}, 1, 1},
		{"faults on one page coalesce", 256, []uint64{7, 7, 7}, 1, 1},
		{"while a batch is in flight others wait", 256, []uint64{1, 2, 3}, 3, 1},
		{"a batch holds at most batchMax", 2, []uint64{1, 2, 3}, 3, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewFaultBuffer(3, c.batchMax)
			var log []string
			fresh := 0
			for i, p := range c.pages {
				if b.Raise(sim.VTimeInSec(i), uvmproto.FaultEntry{Page: p}, named{"w", &log}) {
					fresh++
				}
			}
			if fresh != c.wantNew {
				t.Fatalf("%d new faults, want %d", fresh, c.wantNew)
			}
			rd := b.Ready()
			if len(rd.Send) != 1 {
				t.Fatalf("%d batches sent, want exactly one in flight", len(rd.Send))
			}
			fb := faultBatch(t, rd.Send[0])
			if fb.GPU != 3 || len(fb.Faults) != c.firstSize || fb.TrafficBytes != 32*c.firstSize || fb.ID == "" {
				t.Fatalf("batch from GPU %d with %d faults, %d bytes, ID %q", fb.GPU, len(fb.Faults), fb.TrafficBytes, fb.ID)
			}
			if !b.InFlight() || b.Outstanding() != c.wantNew {
				t.Fatalf("in flight %v, %d outstanding", b.InFlight(), b.Outstanding())
			}
		})
	}
}

func TestFaultBufferReplyWakesAndSendsNext(t *testing.T) {
	b := NewFaultBuffer(0, 2)
	var log []string
	b.Raise(0, uvmproto.FaultEntry{Page: 1}, named{"a", &log})
	first := faultBatch(t, b.Ready().Send[0])
	b.Advance()
	b.Raise(1, uvmproto.FaultEntry{Page: 1}, named{"b", &log}) // joins the sent fault
	b.Raise(1, uvmproto.FaultEntry{Page: 2}, named{"c", &log})
	b.Raise(1, uvmproto.FaultEntry{Page: 3}, named{"d", &log})
	b.Raise(1, uvmproto.FaultEntry{Page: 4}, named{"e", &log})
	if len(b.Ready().Send) != 0 {
		t.Fatal("a second batch left while the first was in flight")
	}
	// A PTE for a page whose fault was not sent yet wakes nobody.
	b.Reply([]uvmproto.Mapping{{Page: 2}, {Page: first.Faults[0].Page}},
		make([]uvmproto.Resolution, 2), true, false)
	rd := b.Ready()
	for _, w := range rd.Wake {
		w.Waiter.Resolved(2, w.Resolution)
	}
	if len(log) != 2 || log[0] != "a" || log[1] != "b" {
		t.Fatalf("woke %v, want the two waiters of page 1 in order", log)
	}
	if len(rd.Send) != 1 || len(faultBatch(t, rd.Send[0]).Faults) != 2 {
		t.Fatalf("the end of the batch must send the next one of at most 2 faults: %v", rd.Send)
	}
	b.Advance()
	if b.Outstanding() != 3 {
		t.Fatalf("%d outstanding, want pages 2, 3, 4", b.Outstanding())
	}
}

func TestFaultBufferWriteUpgradesUnsentFault(t *testing.T) {
	b := NewFaultBuffer(0, 256)
	var log []string
	b.Raise(0, uvmproto.FaultEntry{Page: 1}, named{"a", &log})
	b.Advance()
	b.Raise(0, uvmproto.FaultEntry{Page: 2}, named{"b", &log})
	b.Raise(0, uvmproto.FaultEntry{Page: 2, Write: true, Protection: true}, named{"c", &log})
	b.Raise(0, uvmproto.FaultEntry{Page: 1, Write: true}, named{"d", &log}) // already sent: no upgrade
	b.Reply([]uvmproto.Mapping{{Page: 1}}, make([]uvmproto.Resolution, 1), true, false)
	next := faultBatch(t, b.Ready().Send[0])
	if f := next.Faults[0]; f.Page != 2 || !f.Write || !f.Protection {
		t.Fatalf("pending fault %+v: a later write must upgrade it", f)
	}
}

func TestFaultBufferCountersHaveTheirOwnFlow(t *testing.T) {
	b := NewFaultBuffer(1, 2)
	var log []string
	b.Raise(0, uvmproto.FaultEntry{Page: 9}, named{"a", &log})
	b.Notify([]uint64{1, 2})
	b.Notify([]uint64{3})
	b.Notify([]uint64{4, 5})
	rd := b.Ready()
	if len(rd.Send) != 2 {
		t.Fatalf("%d messages: a fault batch in flight must not hold back counters", len(rd.Send))
	}
	cb, ok := rd.Send[1].(*uvmproto.CounterBatchMsg)
	if !ok || cb.Notifications != 1 || len(cb.Pages) != 2 {
		t.Fatalf("first counter batch %+v", rd.Send[1])
	}
	b.Advance()
	b.Reply(nil, nil, false, true)
	rd = b.Ready()
	cb, ok = rd.Send[0].(*uvmproto.CounterBatchMsg)
	if len(rd.Send) != 1 || !ok || cb.Notifications != 2 || len(cb.Pages) != 3 || cb.TrafficBytes != 64 {
		t.Fatalf("the counter reply must release the next two notifications: %+v", rd.Send)
	}
	if !b.InFlight() {
		t.Fatal("a counter reply ended the fault batch")
	}
}

// Notifications queued behind a batch leave in order, each whole, however
// the queue is compacted, and the buffer keeps no caller's slice.
func TestFaultBufferCounterQueueKeepsOrder(t *testing.T) {
	b := NewFaultBuffer(0, 3)
	var want []uint64
	buf := make([]uint64, 0, 8)
	for i := uint64(0); i < 40; i++ {
		// Runs, single pages and a gap: 100i, 100i+1, ..., then 100i+50.
		buf = buf[:0]
		for p := uint64(0); p < i%5; p++ {
			buf = append(buf, 100*i+p)
		}
		buf = append(buf, 100*i+50)
		want = append(want, buf...)
		b.Notify(buf)
		clear(buf) // the caller reuses its slice
	}
	var got []uint64
	notes := 0
	for {
		rd := b.Ready()
		if len(rd.Send) == 0 {
			break
		}
		cb := rd.Send[0].(*uvmproto.CounterBatchMsg)
		got = append(got, cb.Pages...)
		notes += cb.Notifications
		if cb.Notifications > 3 {
			t.Fatalf("a batch of %d notifications, the limit is 3", cb.Notifications)
		}
		b.Advance()
		b.Reply(nil, nil, false, true)
	}
	if notes != 40 || !slices.Equal(got, want) {
		t.Fatalf("%d notifications with pages %v, want 40 with %v", notes, got, want)
	}
}

// What the buffer waits for from the driver, named: the unresolved
// faults' pages and the batch in flight, the counter batch unanswered;
// nothing once the replies came.
func TestFaultBufferUnanswered(t *testing.T) {
	var log []string
	b := NewFaultBuffer(0, 2)
	if u := b.Unanswered(); len(u) != 0 {
		t.Fatalf("an empty buffer waits for %q", u)
	}
	for _, p := range []uint64{9, 3, 5} {
		b.Raise(0, uvmproto.FaultEntry{Page: p}, named{"w", &log})
	}
	b.Notify([]uint64{7})
	want := []string{"3 far faults unanswered (pages 3, 5, 9); the driver never ended the fault batch in flight",
		"an access-counter batch the driver never answered, 0 notifications waiting behind it"}
	if got := b.Unanswered(); !slices.Equal(got, want) {
		t.Errorf("unanswered %q, want %q", got, want)
	}
	b.Advance()
	b.Reply([]uvmproto.Mapping{{Page: 9}}, make([]uvmproto.Resolution, 1), true, false) // page 9 went alone
	b.Advance()
	b.Reply([]uvmproto.Mapping{{Page: 3}, {Page: 5}}, make([]uvmproto.Resolution, 2), true, true)
	if got := b.Unanswered(); len(got) != 0 {
		t.Errorf("after every reply: %q", got)
	}
}

func TestPageList(t *testing.T) {
	for _, c := range []struct {
		pages []uint64
		want  string
	}{
		{[]uint64{4}, "page 4"},
		{[]uint64{4, 1}, "pages 1, 4"},
		{[]uint64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, "pages 0, 1, 2, 3, 4, 5, 6, 7 and 2 more"},
	} {
		if got := PageList(c.pages); got != c.want {
			t.Errorf("PageList(%v) = %q, want %q", c.pages, got, c.want)
		}
	}
}
