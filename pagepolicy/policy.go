// Package pagepolicy decides how the UVM driver resolves a page fault: the
// pure, engine-free core of every page-management scheme (on-touch,
// access-counter, duplication, ideal, GRIT, OASIS).
//
// A policy sees one fault and a read-only view of the centralized page
// table, and answers with an Action and the PTE policy bits to record, for
// the page and for any other page it predicts. It also observes kernel
// launches, allocations and frees. The driver (package uvm) turns the
// answer into invalidations, transfers and PTE updates: only the driver
// writes the table. A policy never imports the engine.
package pagepolicy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pte"
)

// Bits are the two PTE policy bits of OASIS Fig. 12 (package pte, which
// the wire to the driver shares).
type Bits = pte.Bits

// The PTE policy-bit encodings (OASIS Fig. 12).
const (
	OnTouch       = pte.OnTouch
	AccessCounter = pte.AccessCounter
	Duplication   = pte.Duplication
)

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
const Host = pte.Host

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
	// ReadOnlyFirst answers a write fault with a read-only copy (Action
	// Duplicate): the replayed write then takes a protection fault
	// (OASIS §IV-B). Without it a Duplicate cannot serve a write and the
	// driver collapses instead.
	ReadOnlyFirst bool
	// HostRemote lets a MapRemote of a page still on the host map it
	// remotely (zero-copy over PCIe); without it the driver migrates a
	// host page on first touch.
	HostRemote bool
	// Updates are policy bits the policy wants recorded in the PTEs of
	// other pages (GRIT's neighbour prediction). The driver applies them
	// to the centralized table, in order, before it resolves the fault:
	// a policy never writes the table itself, so within one Decide the
	// table does not show them yet and a policy that reads back what it
	// asked for must overlay its own pending updates. The slice belongs
	// to the policy and is valid only until its next Decide, so the
	// per-fault path does not allocate.
	Updates []BitsUpdate
	// LookupNs is the time the policy's own lookups took (O-Table,
	// shadow map, PA-Cache/PA-Table). Overlapped lookups run beside the
	// driver's host page walk and cost only what exceeds it (GRIT §V-B);
	// others follow it (OASIS's O-Table is consulted after the walk).
	LookupNs   float64
	Overlapped bool
}

// BitsUpdate sets the policy bits of one page.
type BitsUpdate struct {
	Page uint64
	Bits Bits
}

// Policy decides how a fault is resolved. It is the whole contract between
// a page-management scheme and the driver: no type assertions, no optional
// interfaces. A policy reads its surroundings only through the Env it was
// built with and the Page handed to Decide, and changes them only through
// its Decisions.
type Policy interface {
	Name() string
	// Decide answers one far fault on a page whose centralized entry is p.
	Decide(f Fault, p Page) Decision
	// Observe sees a kernel launch, an allocation or a free. An error
	// (an object the policy cannot track) fails the run.
	Observe(e Event) error
	// Evicted answers a page a GPU just evicted to the host: true with a
	// decision to apply there (the NVIDIA driver's remote mapping on
	// eviction under access-counter migration), false to leave it
	// unmapped.
	Evicted(p Page) (Decision, bool)
	// Report is what the policy adds to a run's result.
	Report() Report
}

// PageView is a read-only view of the centralized page table.
// uvm.PageTable satisfies it.
type PageView interface {
	Page(p uint64) Page
	Len() uint64
}

// Env is what a policy may read from its surroundings. It offers no way
// to change them: whatever a policy wants changed goes in its Decision.
type Env struct {
	// Table is the driver's page table, read-only. GRIT reads the bits
	// of a fault's neighbours from it and sizes its PA-Table by it.
	Table PageView
	// Log is where a policy warns of what it cannot use (OASIS: faults
	// with untagged pointers on the pages of known objects).
	Log zerolog.Logger
}

// EventKind says what an Event reports.
type EventKind uint8

// The events a policy observes besides faults.
const (
	// Launch is a kernel launch; Event.Args are its argument objects.
	Launch EventKind = iota
	// Alloc is an allocation (cudaMallocManaged) of Event.Object, whose
	// pointer is tagged with Event.Tagging.
	Alloc
	// Free is a cudaFree of Event.Object.
	Free
)

func (k EventKind) String() string { return [...]string{"launch", "alloc", "free"}[k] }

// Event is a kernel launch, an allocation or a free, as a policy sees it.
type Event struct {
	Kind EventKind
	// Args lists the IDs of a launched kernel's argument objects.
	Args []int
	// Object is the allocated or freed object.
	Object *objtable.Object
	// Tagging is the pointer tagging the allocator used (Alloc).
	Tagging objtable.Tagging
}

// Launched is the launch of a kernel with argument objects args.
func Launched(args []int) Event { return Event{Kind: Launch, Args: args} }

// Allocated is the allocation of o, its pointer tagged with t.
func Allocated(o *objtable.Object, t objtable.Tagging) Event {
	return Event{Kind: Alloc, Object: o, Tagging: t}
}

// Freed is the free of o.
func Freed(o *objtable.Object) Event { return Event{Kind: Free, Object: o} }

// Report is what a policy adds to a run's result.
type Report struct {
	// Stats are the policy's own counters (O-Table, PA-Cache, phase
	// changes, shadow-map size); nil for a policy without any.
	Stats map[string]float64
	// History lists every change of an object's policy, in time order.
	History []PolicyChange
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

// Base is the contract's default for what a policy does not care about:
// it ignores every event and reports nothing. Policies embed it.
type Base struct{}

// Observe ignores e.
func (Base) Observe(Event) error { return nil }

// Report is empty.
func (Base) Report() Report { return Report{} }

// Evicted leaves an evicted page unmapped, as MGPUSim's driver does.
func (Base) Evicted(Page) (Decision, bool) { return Decision{}, false }

// Traits are a policy's static facts. They belong to the name, not to a
// built policy, because the platform needs them before it can build one:
// how pointers are tagged decides the allocation, and the allocation
// decides the size of the page table the policy is built over.
type Traits struct {
	// Incoherent marks a bound rather than a mechanism (ideal): the
	// checker lets its copies diverge.
	Incoherent bool
	// Unserviced marks a bound whose faults cost the host nothing (ideal):
	// no fixed service time, no per-fault host work; a batch waits only
	// for its copies and mappings.
	Unserviced bool
	// Untagged asks for pointers whose upper bits stay clear
	// (OASIS-InMem: configuration bit 0).
	Untagged bool
	// ObjectIDs marks a policy that names objects by the Obj_ID in the
	// pointer tag (OASIS), so every object must fit the tag's ID bits.
	ObjectIDs bool
}

type entry struct {
	traits Traits
	mk     func(Config, Env) (Policy, error)
	// keys are the Config keys that change the policy's runs, once
	// declared (keysKnown); see ReadsKeys.
	keys      []string
	keysKnown bool
}

var registry = map[string]entry{}

// Register makes a policy available by name, with its static traits.
func Register(name string, t Traits, mk func(Config, Env) (Policy, error)) {
	if _, dup := registry[name]; dup {
		panic("pagepolicy: registered twice: " + name)
	}
	registry[name] = entry{traits: t, mk: mk}
}

// ReadsKeys declares the Config keys (their yaml names: "reset_threshold")
// that change a run under the registered policy name, none for a policy
// that reads none. The counter keys (ac_threshold, ac_group, ac_migrate)
// belong to every policy that gives pages the access-counter bits: the
// GPU counts and the driver migrates by them. The platform rejects any
// other policy key given to a run of the policy, which would otherwise
// label identical runs with different values. A policy that declares
// nothing is not checked.
func ReadsKeys(name string, keys ...string) {
	e, ok := registry[name]
	if !ok {
		panic("pagepolicy: keys declared for an unregistered policy: " + name)
	}
	e.keys, e.keysKnown = keys, true
	registry[name] = e
}

// KeysOf returns the Config keys the named policy declared it reads, and
// whether it declared them.
func KeysOf(name string) (keys []string, declared bool, err error) {
	e, err := lookup(name)
	return e.keys, e.keysKnown, err
}

// ReadersOf lists the registered policies that declared they read key.
func ReadersOf(key string) []string {
	var out []string
	for _, n := range Names() {
		if slices.Contains(registry[n].keys, key) {
			out = append(out, n)
		}
	}
	return out
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

func lookup(name string) (entry, error) {
	e, ok := registry[name]
	if !ok {
		return entry{}, fmt.Errorf("unknown policy %q: valid policies are %s", name, strings.Join(Names(), ", "))
	}
	return e, nil
}

// TraitsOf returns the named policy's static traits, or an error naming
// the valid policies.
func TraitsOf(name string) (Traits, error) {
	e, err := lookup(name)
	return e.traits, err
}

// New builds the named policy over env, or returns an error naming the
// valid ones.
func New(name string, c Config, env Env) (Policy, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return e.mk(c, env)
}
