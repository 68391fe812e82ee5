package uvmproto

import "github.com/sarchlab/akita/v3/sim"

// The messages. Faults, counter notifications, shootdowns, transfer
// commands and PTE installs cross PCIe between a GMMU and the driver; page
// data crosses PCIe (host) or NVLink (peer GPU); RDMA lines cross NVLink.

// FaultBatchMsg carries a GMMU's pending faults (at most one batch) to the
// driver. The GMMU sends the next batch only after the MapMsg that ends
// this one: the driver's BATCH_FLUSH replay policy.
type FaultBatchMsg struct {
	sim.MsgMeta
	GPU    int
	Faults []FaultEntry
}

// CounterBatchMsg carries access-counter notifications to the driver:
// Pages lists, notification by notification, the pages of each group whose
// counter reached the threshold, to migrate to GPU. Notifications are
// batched like faults (uvm_perf_access_counter_batch_count), with their own
// one-batch-in-flight flow, ended by a CounterReplyMsg.
type CounterBatchMsg struct {
	sim.MsgMeta
	GPU           int
	Pages         []uint64
	Notifications int
}

// InvalidateMsg asks a GMMU to shoot down pages: PTE, TLBs, cached lines,
// after draining in-flight work.
type InvalidateMsg struct {
	sim.MsgMeta
	Entries []Inval
	Batch   uint64
	// Writeback: once drained, the GPU sends the pages' data back to the
	// host (a WritebackMsg for Batch) instead of an acknowledgement. It is
	// hardware fault handling's eviction, which needs no driver command.
	Writeback bool
}

// InvalidateAckMsg acknowledges an InvalidateMsg once the drain is done.
type InvalidateAckMsg struct {
	sim.MsgMeta
	RespondTo string
	GPU       int
	Batch     uint64
}

// TransferCmdMsg tells a source GPU to send pages to another GPU (NVLink)
// or back to the host (PCIe).
type TransferCmdMsg struct {
	sim.MsgMeta
	To    int
	Pages []uint64
	Batch uint64
}

// PageDataMsg carries page contents into a GPU's memory, from the host
// over PCIe or from a peer over NVLink. The receiving GPU reports the
// arrival to the driver with a TransferDoneMsg.
type PageDataMsg struct {
	sim.MsgMeta
	From, To int
	Pages    []uint64
	Batch    uint64
	// Entries, when set, are installed as the data lands and wake the
	// faults waiting on them (Resolved is parallel): hardware fault
	// handling rewrites the PTE on the GPU, with no driver reply.
	Entries  []Mapping
	Resolved []Resolution
}

// WritebackMsg carries page contents from a GPU back to host memory (an
// eviction's copy-back). Its arrival at the driver completes the transfer.
type WritebackMsg struct {
	sim.MsgMeta
	From  int
	Pages []uint64
	Batch uint64
}

// TransferDoneMsg tells the driver that pages arrived at a GPU.
type TransferDoneMsg struct {
	sim.MsgMeta
	GPU   int
	Batch uint64
}

// MapMsg installs PTEs on a GMMU and wakes the wavefronts waiting on them.
// EndOfBatch marks the reply that ends the receiving GMMU's fault batch.
type MapMsg struct {
	sim.MsgMeta
	Entries    []Mapping
	Resolved   []Resolution // parallel to Entries
	EndOfBatch bool
}

// CounterReplyMsg installs the PTEs of an access-counter batch's
// migrations on the notifying GPU and ends that batch.
type CounterReplyMsg struct {
	sim.MsgMeta
	Entries  []Mapping
	Resolved []Resolution // parallel to Entries
}

// Meta implements sim.Msg.
func (m *FaultBatchMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *CounterBatchMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *InvalidateMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *InvalidateAckMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *TransferCmdMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *PageDataMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *WritebackMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *TransferDoneMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *MapMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *CounterReplyMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// GetRspTo implements sim.Rsp.
func (m *InvalidateAckMsg) GetRspTo() string { return m.RespondTo }
