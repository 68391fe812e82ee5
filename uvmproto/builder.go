package uvmproto

import "github.com/sarchlab/akita/v3/sim"

// Wire sizes. None of the papers gives them; they are the sizes of the
// fields a message must carry, and they only matter through the link's
// bandwidth.
const (
	faultEntryBytes = 32 // address, access type, client, timestamp
	notifyBytes     = 32 // one access-counter notification
	invalBytes      = 16 // page and downgrade flag
	pageIDBytes     = 8  // one page number in a transfer command
	mappingBytes    = 16 // one PTE
	ackBytes        = 8  // an acknowledgement
)

// Builder makes protocol messages, after Akita's builder style. Every
// message it builds gets a fresh Akita ID and the bytes it occupies on its
// link. Src, Dst and SendTime may be left unset and filled in by the
// sending port's outbox.
type Builder struct {
	src, dst sim.Port
	sendTime sim.VTimeInSec
	pageSize uint64
}

// MakeBuilder returns a builder for 4 KB pages.
func MakeBuilder() Builder { return Builder{pageSize: 4096} }

// WithSrc sets the sending port.
func (b Builder) WithSrc(p sim.Port) Builder { b.src = p; return b }

// WithDst sets the receiving port.
func (b Builder) WithDst(p sim.Port) Builder { b.dst = p; return b }

// WithSendTime sets when the message leaves.
func (b Builder) WithSendTime(t sim.VTimeInSec) Builder { b.sendTime = t; return b }

// WithPageSize sets the page size that page-data messages carry.
func (b Builder) WithPageSize(s uint64) Builder { b.pageSize = s; return b }

func (b Builder) meta(bytes int) sim.MsgMeta {
	return sim.MsgMeta{ID: sim.GetIDGenerator().Generate(), Src: b.src, Dst: b.dst,
		SendTime: b.sendTime, TrafficBytes: bytes}
}

// FaultBatch builds a GMMU's fault batch.
func (b Builder) FaultBatch(gpu int, faults []FaultEntry) *FaultBatchMsg {
	return &FaultBatchMsg{MsgMeta: b.meta(faultEntryBytes * len(faults)), GPU: gpu, Faults: faults}
}

// CounterBatch builds a batch of n access-counter notifications naming
// pages.
func (b Builder) CounterBatch(gpu int, pages []uint64, n int) *CounterBatchMsg {
	return &CounterBatchMsg{MsgMeta: b.meta(notifyBytes * n), GPU: gpu, Pages: pages, Notifications: n}
}

// Invalidate builds a shootdown of entries for batch.
func (b Builder) Invalidate(entries []Inval, batch uint64) *InvalidateMsg {
	return &InvalidateMsg{MsgMeta: b.meta(invalBytes * len(entries)), Entries: entries, Batch: batch}
}

// InvalidateAck acknowledges req on behalf of gpu.
func (b Builder) InvalidateAck(req *InvalidateMsg, gpu int) *InvalidateAckMsg {
	return &InvalidateAckMsg{MsgMeta: b.meta(ackBytes), RespondTo: req.ID, GPU: gpu, Batch: req.Batch}
}

// TransferCmd tells a GPU to send pages to another GPU or to the host.
func (b Builder) TransferCmd(to int, pages []uint64, batch uint64) *TransferCmdMsg {
	return &TransferCmdMsg{MsgMeta: b.meta(pageIDBytes * len(pages)), To: to, Pages: pages, Batch: batch}
}

// PageData carries pages into GPU to's memory.
func (b Builder) PageData(from, to int, pages []uint64, batch uint64) *PageDataMsg {
	return &PageDataMsg{MsgMeta: b.meta(len(pages) * int(b.pageSize)), From: from, To: to, Pages: pages, Batch: batch}
}

// PageDataMapped carries pages into GPU to's memory with the PTEs that it
// installs when they land.
func (b Builder) PageDataMapped(from, to int, pages []uint64, batch uint64, entries []Mapping, resolved []Resolution) *PageDataMsg {
	m := b.PageData(from, to, pages, batch)
	m.Entries, m.Resolved = entries, resolved
	return m
}

// InvalidateWriteback builds a shootdown whose pages then go back to the
// host, for batch.
func (b Builder) InvalidateWriteback(entries []Inval, batch uint64) *InvalidateMsg {
	m := b.Invalidate(entries, batch)
	m.Writeback = true
	return m
}

// Writeback carries pages from GPU from back to host memory.
func (b Builder) Writeback(from int, pages []uint64, batch uint64) *WritebackMsg {
	return &WritebackMsg{MsgMeta: b.meta(len(pages) * int(b.pageSize)), From: from, Pages: pages, Batch: batch}
}

// TransferDone reports that batch's pages arrived at gpu.
func (b Builder) TransferDone(gpu int, batch uint64) *TransferDoneMsg {
	return &TransferDoneMsg{MsgMeta: b.meta(ackBytes), GPU: gpu, Batch: batch}
}

// Map installs entries; end marks the reply that ends a fault batch.
func (b Builder) Map(entries []Mapping, resolved []Resolution, end bool) *MapMsg {
	return &MapMsg{MsgMeta: b.meta(mappingBytes * len(entries)), Entries: entries, Resolved: resolved, EndOfBatch: end}
}

// CounterReply installs entries and ends an access-counter batch.
func (b Builder) CounterReply(entries []Mapping, resolved []Resolution) *CounterReplyMsg {
	return &CounterReplyMsg{MsgMeta: b.meta(mappingBytes * len(entries)), Entries: entries, Resolved: resolved}
}
