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
