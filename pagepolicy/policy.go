// Package pagepolicy decides how the UVM driver resolves a page fault: the
// pure, engine-free core of every page-management scheme (on-touch,
// access-counter, duplication, ideal, GRIT, OASIS).
//
// A policy sees one fault and a read-only view of the page's centralized
// page-table entry, and answers with an Action and the PTE policy bits to
// record. The driver (package uvm) turns the answer into invalidations,
// transfers and PTE updates. A policy never imports the engine.
package pagepolicy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mgpu-sim/mgpu/objtable"
)

// Bits are the two PTE policy bits of OASIS Fig. 12.
type Bits uint8

// The PTE policy-bit encodings (OASIS Fig. 12).
const (
	OnTouch       Bits = 0b00
	AccessCounter Bits = 0b01
	Duplication   Bits = 0b11
)

func (b Bits) String() string {
	switch b {
	case OnTouch:
		return "on-touch"
	case AccessCounter:
		return "access-counter"
	case Duplication:
		return "duplication"
	}
	return fmt.Sprintf("bits(%02b)", uint8(b))
}

// Action is what the driver does to resolve a fault.
type Action uint8

// Actions.
const (
	// Migrate moves the page to the faulting GPU, invalidating every other
	// mapping and copy first.
	Migrate Action = iota
	// Duplicate gives the faulting GPU a read-only replica; existing
	// copies become read-only.
	Duplicate
	// Collapse makes the faulting GPU the only, writable copy, dropping
	// every other replica (write-collapse).
	Collapse
	// MapRemote maps the page on the faulting GPU to where it lives now;
	// accesses then go line by line over the link (RDMA).
	MapRemote
	// LocalCopy gives the faulting GPU its own writable copy and touches
	// no other copy: the Ideal bound, not a coherent mechanism.
	LocalCopy
)

func (a Action) String() string {
	return [...]string{"migrate", "duplicate", "collapse", "map-remote", "local-copy"}[a]
}

// Host is the residency of a page that lives in CPU memory.
const Host = -1

// Fault is one far fault as the driver sees it.
type Fault struct {
	GPU  int
	Page uint64
	// Write is set for a store (or a read-modify-write).
	Write bool
	// Protection marks a write to a read-only replica.
	Protection bool
	// Object is the ID of the object the page belongs to, or -1.
	Object int
	// Ptr is the faulting virtual address as the program holds it: tagged
	// with the object ID under OASIS, untagged under OASIS-InMem.
	Ptr uint64
	// TimeNs is the simulated time of the decision, for policy histories.
	TimeNs float64
}

// Page is the centralized page-table entry a policy may read.
type Page struct {
	// Owner is the GPU that holds the authoritative copy, or Host.
	Owner int
	// Copies has bit g set when GPU g holds a physical copy (the owner's
	// or a replica).
	Copies uint64
	// Remote has bit g set when GPU g maps the page remotely.
	Remote uint64
	Bits   Bits
}

// Shared reports whether another GPU than g holds the page: OASIS's test for
// a shared fault (a fault on a page resident on another GPU).
func (p Page) Shared(g int) bool { return p.Owner != Host && p.Copies&^(1<<uint(g)) != 0 }

// Decision is a policy's answer.
type Decision struct {
	Action Action
	// Bits is recorded in the page's PTEs as part of resolving the fault.
	Bits Bits
	// LookupNs is the time the policy's own lookups took (O-Table,
	// shadow map, PA-Cache/PA-Table). Overlapped lookups run beside the
	// driver's host page walk and cost only what exceeds it (GRIT §V-B);
	// others follow it (OASIS's O-Table is consulted after the walk).
	LookupNs   float64
	Overlapped bool
}

// Policy decides how a fault is resolved.
type Policy interface {
	Name() string
	Decide(f Fault, p Page) Decision
}

// Incoherent is implemented by policies that are bounds rather than
// mechanisms: the checker lets their copies diverge.
type Incoherent interface {
	Incoherent() bool
}

// KernelObserver is implemented by policies that react to kernel launches
// (OASIS resets the entries of the kernel's argument objects).
type KernelObserver interface {
	KernelLaunch(args []int)
}

// ObjectObserver is implemented by policies that track allocations (the
// O-Table and shadow map are filled at cudaMallocManaged time).
type ObjectObserver interface {
	// Allocated sees each object in allocation order, with the pointer
	// tagging the allocator used.
	Allocated(o *objtable.Object, t objtable.Tagging) error
	Freed(o *objtable.Object)
}

// Untagged is implemented by policies whose pointers must keep their upper
// bits clear (OASIS-InMem: configuration bit 0).
type Untagged interface {
	UntaggedPointers() bool
}

// TableWriter lets a policy set the policy bits of pages other than the
// faulting one in the centralized page table (GRIT's neighbour prediction
// updates the host PTEs of a whole group).
type TableWriter interface {
	SetBits(page uint64, b Bits)
	Page(page uint64) Page
	Len() uint64
}

// TableUser is implemented by policies that need a TableWriter.
type TableUser interface {
	UseTable(t TableWriter)
}

// Reporter is implemented by policies with their own statistics; the
// result carries them under the policy's name.
type Reporter interface {
	Stats() map[string]float64
}

// PolicyChange is one change of an object's recorded policy.
type PolicyChange struct {
	TimeNs float64 `json:"time_ns"`
	Object int     `json:"object"`
	Policy string  `json:"policy"`
	// Cause is "learned" (first shared fault, or after an explicit reset)
	// or "relearned" (after an implicit reset).
	Cause string `json:"cause"`
}

// Historian is implemented by policies that record per-object policy
// changes over time.
type Historian interface {
	History() []PolicyChange
}

var registry = map[string]func(Config) (Policy, error){}

// Register makes a policy constructor available by name.
func Register(name string, mk func(Config) (Policy, error)) {
	if _, dup := registry[name]; dup {
		panic("pagepolicy: registered twice: " + name)
	}
	registry[name] = mk
}

// Names lists the registered policies, sorted.
func Names() []string {
	n := make([]string, 0, len(registry))
	for k := range registry {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// New builds the named policy, or returns an error naming the valid ones.
func New(name string, c Config) (Policy, error) {
	mk, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q: valid policies are %s", name, strings.Join(Names(), ", "))
	}
	return mk(c)
}
