// Package uvmproto is the wire protocol of unified memory: the page-table
// entry a GPU holds, and every message that crosses a hardware boundary
// between GPUs, their GMMUs and the host UVM driver. It is shared by mgpu's
// own components and by any Akita model that wants to talk to them.
//
// Messages carry values only, never pointers into another component, so a
// component of another model (or another engine thread) can serve them.
// Every message is made by a Builder, which stamps an Akita message ID, so
// Akita's tracing hooks can follow a request and its response, and sets the
// bytes the message occupies on its link.
package uvmproto

import (
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/pte"
)

// Host is the location of a page in CPU memory, wherever a GPU index is
// expected.
const Host = pte.Host

// MapKind is how a GPU's local PTE maps a page.
type MapKind uint8

// Mapping kinds of a local PTE.
const (
	Unmapped MapKind = iota
	LocalRO
	LocalRW
	RemoteRO
	RemoteRW
)

// Readable reports whether a load may go through the mapping.
func (k MapKind) Readable() bool { return k != Unmapped }

// Writable reports whether a store may go through the mapping.
func (k MapKind) Writable() bool { return k == LocalRW || k == RemoteRW }

// Remote reports a mapping to another GPU's memory.
func (k MapKind) Remote() bool { return k == RemoteRO || k == RemoteRW }

// PTE is a GPU's local page-table entry.
type PTE struct {
	Kind  MapKind
	Owner int8 // the GPU a remote mapping points at
	Bits  pte.Bits
}

// Inval is one page to shoot down on one GPU. Downgrade keeps the data
// (the copy becomes read-only); otherwise the mapping and the cached lines
// go.
type Inval struct {
	GPU       int
	Page      uint64
	Downgrade bool
}

// Mapping is a PTE to install on a GPU.
type Mapping struct {
	GPU   int
	Page  uint64
	Kind  MapKind
	Owner int // the GPU whose memory a remote mapping points at
	Bits  pte.Bits
}

// FaultEntry is one coalesced far fault in a GMMU's fault buffer.
type FaultEntry struct {
	Page       uint64
	Ptr        uint64 // the tagged virtual address that faulted
	Write      bool
	Protection bool
	RaisedAt   sim.VTimeInSec
}

// Cause is the stall category of a fault's resolution, so the stalled
// wavefronts can charge their wait to the right cause (GRIT Fig. 3).
type Cause uint8

// Fault resolution causes.
const (
	CauseHost Cause = iota // only the driver's work (first touch, racing fault)
	CauseMigration
	CauseDuplication
	CauseCollapse
	CauseRemote
)

// Resolution says what resolved a fault and when the driver's fixed
// service of its batch ended.
type Resolution struct {
	ServicedAt sim.VTimeInSec
	Cause      Cause
}
