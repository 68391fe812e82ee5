package uvm

import "github.com/sarchlab/akita/v3/sim"

// The messages between the GMMUs and the driver. They cross the PCIe link;
// PageData may cross NVLink. TrafficBytes is set by the sender.

// FaultEntry is one coalesced far fault in a GMMU's fault buffer.
type FaultEntry struct {
	Page       uint64
	Ptr        uint64 // the tagged virtual address that faulted
	Write      bool
	Protection bool
	RaisedAt   sim.VTimeInSec
}

// FaultBatchMsg carries a GMMU's pending faults (at most one batch) to the
// driver. The GMMU sends the next batch only after the driver's reply with
// EndOfBatch: the driver's BATCH_FLUSH replay policy.
type FaultBatchMsg struct {
	sim.MsgMeta
	GPU    int
	Faults []FaultEntry
	// Counter marks an access-counter notification: Faults lists the pages
	// of the group whose counter reached the threshold, to migrate to GPU.
	// Notifications counted in it are batched like faults
	// (uvm_perf_access_counter_batch_count, 256), with their own
	// one-batch-in-flight flow.
	Counter       bool
	Notifications int
}

// InvalidateMsg asks a GMMU to shoot down pages: PTE, TLBs, cached lines,
// after draining in-flight work.
type InvalidateMsg struct {
	sim.MsgMeta
	Entries []Inval
	Batch   uint64
}

// InvalidateAckMsg acknowledges an InvalidateMsg once the drain is done.
type InvalidateAckMsg struct {
	sim.MsgMeta
	GPU   int
	Batch uint64
}

// TransferCmdMsg tells a source GPU to send pages to another GPU (NVLink)
// or back to the host (PCIe).
type TransferCmdMsg struct {
	sim.MsgMeta
	To    int
	Pages []uint64
	Batch uint64
}

// PageDataMsg carries page contents.
type PageDataMsg struct {
	sim.MsgMeta
	From, To int
	Pages    []uint64
	Batch    uint64
}

// TransferDoneMsg tells the driver that pages arrived at a GPU.
type TransferDoneMsg struct {
	sim.MsgMeta
	GPU   int
	Batch uint64
}

// Resolution says what resolved a fault, so the stalled wavefronts can
// charge their wait to the right cause (GRIT Fig. 3).
type Resolution struct {
	// ServicedAt is when the driver finished its fixed fault service.
	ServicedAt sim.VTimeInSec
	Cause      Cause
}

// Cause is the stall category of a fault's resolution.
type Cause uint8

// Fault resolution causes.
const (
	CauseHost Cause = iota // only the driver's work (first touch, racing fault)
	CauseMigration
	CauseDuplication
	CauseCollapse
	CauseRemote
)

// MapMsg installs PTEs on a GMMU and wakes the wavefronts waiting on them.
type MapMsg struct {
	sim.MsgMeta
	Entries    []Mapping
	Resolved   []Resolution // parallel to Entries
	EndOfBatch bool
	// EndOfCounterBatch ends an access-counter notification batch.
	EndOfCounterBatch bool
}

// Meta implements sim.Msg.
func (m *FaultBatchMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *InvalidateMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *InvalidateAckMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *TransferCmdMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *PageDataMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *TransferDoneMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *MapMsg) Meta() *sim.MsgMeta { return &m.MsgMeta }
