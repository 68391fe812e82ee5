package uvmmu

import (
	"math/bits"

	"github.com/sarchlab/akita/v3/sim"
)

// Fault is a translation that found a remote PTE (§IV-A step 3): UVMMU
// migrates the page-group instead of returning the PTE.
type Fault struct {
	// Group is the faulting page-group's virtual number (VPgN).
	Group uint64
	// CID is the GPU context (IPgT field, §IV-B1).
	CID uint16
	// Critical is the faulting 4 KB page's index in the group: it moves
	// first (§IV-D).
	Critical uint8
	// Remote is the remote frame-group the PTE points at (A != 0). A swap
	// sends the victim there: "the evicted page-group [points] to the
	// remote PFgN, which was originally occupied by the requested
	// page-group" (§IV-D).
	Remote uint64
	// Tag is the caller's, returned in the plan.
	Tag uint64
}

// Direction is a transfer's way over PCIe.
type Direction uint8

// Directions.
const (
	HostToDevice Direction = iota // into the destination frame-group
	DeviceToHost                  // the victim, out of it
)

// Transfer is one PME transfer of some pages of one page-group.
type Transfer struct {
	Dir Direction
	// Group is the page-group whose pages move; First is its first page
	// number (Group x pages per group).
	Group, First uint64
	// Pages is the pages that move, bit i for page First+i.
	Pages uint64
}

// Count is the number of pages.
func (t Transfer) Count() int { return bits.OnesCount64(t.Pages) }

// AppendPages appends the transfer's page numbers, ascending.
func (t Transfer) AppendPages(dst []uint64) []uint64 {
	for m := t.Pages; m != 0; m &= m - 1 {
		dst = append(dst, t.First+uint64(bits.TrailingZeros64(m)))
	}
	return dst
}

// Plan is what the unit decided for one fault: the destination, the
// transfers the PME runs, in order, and when.
type Plan struct {
	Fault
	// Frame is the destination frame-group (PFgN).
	Frame uint32
	// Swap: Frame held page-group Victim (context VictimCID), which goes
	// to Fault.Remote while the faulting group comes in (§IV-D).
	Swap      bool
	Victim    uint64
	VictimCID uint16
	// Stalled: the DCQ had no entry ready when the fault came, and the
	// fault waited for the AFM (counted in Counters.DCQEmptyStalls).
	Stalled bool
	// RaisedAt is when the fault reached the unit; DestAt when the DCQ
	// gave the destination (later than RaisedAt exactly when Stalled);
	// StartAt = DestAt + HandlingCycles, when the PME is configured and
	// every transfer of Moves is issued.
	RaisedAt, DestAt, StartAt sim.VTimeInSec
	// Moves are the transfers, all issued at StartAt, in order:
	//   - the critical page, host to device;
	//   - the rest of the group, host to device, behind it on that link
	//     (absent when a group is one page);
	//   - for a swap, the victim's whole group, device to host, on the
	//     other direction at the same time.
	// Each transfer moves the same group slot by slot, so a swap moves
	// as many pages out as in.
	Moves  [3]Transfer
	NMoves int
	// ResumeOnCritical: the PTE goes back to the SM when Moves[0] has
	// arrived (Config.Resume critical); otherwise when every move is done.
	ResumeOnCritical bool
}

// Transfers is Moves[:NMoves].
func (p *Plan) Transfers() []Transfer { return p.Moves[:p.NMoves] }

// groupMask is the mask of every page of a group of n pages.
func groupMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

// moves fills p.Moves: the critical page first, then the rest of its
// group ("PME fetches the request page (i.e., critical page) first among
// the pages within the page-group", §IV-D), and the victim's pages in
// order ("the pages within the page-group are linearly replaced", §V-C1).
// The victim leaves in address order rather than slot by slot behind the
// incoming pages: the PME reads the victim's 64 KB out of local DRAM in
// about 135 ns (484 GB/s, Table I), well before the first incoming page
// lands one PCIe round trip (1 us) later, so no slot is overwritten
// before it is read.
func (p *Plan) moves(ppg int) {
	all := groupMask(ppg)
	first := p.Group * uint64(ppg)
	crit := uint64(1) << p.Critical
	p.Moves[0] = Transfer{Dir: HostToDevice, Group: p.Group, First: first, Pages: crit}
	p.NMoves = 1
	if rest := all &^ crit; rest != 0 {
		p.Moves[1] = Transfer{Dir: HostToDevice, Group: p.Group, First: first, Pages: rest}
		p.NMoves = 2
	}
	if p.Swap {
		p.Moves[p.NMoves] = Transfer{Dir: DeviceToHost, Group: p.Victim, First: p.Victim * uint64(ppg), Pages: all}
		p.NMoves++
	}
}
