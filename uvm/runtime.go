package uvm

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rs/zerolog"
	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// A Runtime adapts the driver's batch pipeline, as the oversubscription
// papers' runtimes do: UVMSmart's adaptive runtime, ObservUVM, SUV-Mgmt
// (and SC) and Early-Adaptor. Each method is one stage of a batch, in the
// order the Service reaches them; a runtime embeds Stages and overrides
// the stages it acts in. The Service calls every runtime the config turns
// on at every stage, so the pipeline asks no question about which are on.
// A runtime registers its constructor by name (RegisterRuntime), as a page
// policy does; a runtime may also decorate the page policy or the
// eviction policy (PolicyDecorator, EvictionDecorator).
type Runtime interface {
	// CounterBatch serves an access-counter batch's pages and reports
	// whether it did; if no runtime did, the driver migrates each page.
	CounterBatch(g int, pages []uint64, invals [][]uvmproto.Inval) (served bool)
	// CounterPage comes before the driver migrates page p of a counter
	// batch.
	CounterPage(p uint64)
	// Migrated: a fault (cause fault), a counter notification or a
	// prefetch moved page p of object to g, from the host or not.
	Migrated(g int, p uint64, object int, fromHost bool, cause MoveCause)
	// Prefetchable reports whether g's prefetcher may bring page p.
	Prefetchable(g int, p uint64) bool
	// Decided: every fault and prefetch of the batch is decided.
	Decided(g int, counter bool, prefetched []uint64, invals [][]uvmproto.Inval)
	// MakeRoom runs before the eviction policy picks victims (SUV's
	// pools); n is the batch's placements. Evicts reports whether the
	// runtime evicts at all, so that the stage runs without an evictor.
	MakeRoom(pinned func(uint64) bool, launch bool, n int, invals [][]uvmproto.Inval) error
	Evicts() bool
	// BeforeVictims and AfterVictims surround GPU h's victims.
	BeforeVictims(h int, at sim.VTimeInSec)
	AfterVictims(h int, at sim.VTimeInSec, n int) error
	// Evicted: every GPU is within its capacity again.
	Evicted(invals [][]uvmproto.Inval)
	// FaultBatchDone ends a fault batch (not a counter or launch batch).
	FaultBatchDone(g int, faults []uvmproto.FaultEntry, now sim.VTimeInSec) error
	// Freed: the application freed an object.
	Freed(object int)
	// Report adds the runtime's counts to m; the result carries them.
	Report(m map[string]float64)
}

// PolicyDecorator is a runtime that wraps the page policy (UVMSmart's
// zero-copy of read-only allocations).
type PolicyDecorator interface {
	DecoratePolicy(p pagepolicy.Policy) pagepolicy.Policy
}

// A Placer is a runtime with a host-side half that places pages before
// each kernel launch, as SUV-Mgmt's injected host code does: Driver.Place
// hands it the launch, and the launch waits for the driver batch that
// carries the placement out.
type Placer interface {
	Place(l Launch, invals [][]uvmproto.Inval) error
}

// A Launch is a kernel about to start: the Index-th launch of the run, its
// arguments and the accesses its workload declares of them
// (benchmarks.Access), which a Placer plans from.
type Launch struct {
	Index  int
	Kernel *benchmarks.Kernel
}

// Workload is what the runtimes may know of the run's program before it
// starts: its allocations and kernels (empty when only the driver's
// making is checked), and the GPUs' CUs and wavefront slots per CU, which
// bound the workgroups resident at once.
type Workload struct {
	Alloc      *objtable.Allocator
	Kernels    []benchmarks.Kernel
	CUs        int
	SlotsPerCU int
}

// A HostTimer is a runtime whose work costs the driver time in the batch
// (ObservUVM's messages to and from its userspace engine): BatchNs is the
// time since it was last asked, which delays the batch's resolution.
type HostTimer interface {
	BatchNs() float64
}

// EvictionDecorator is a runtime that wraps the eviction policy when GPU
// memory is limited (UVMSmart's switch to tree eviction); o is what the
// driver built ev from.
type EvictionDecorator interface {
	DecorateEviction(ev eviction.Policy, o eviction.Options) (eviction.Policy, error)
}

// RuntimeEnv is what a runtime is built from.
type RuntimeEnv struct {
	// Config is the driver's config; a runtime reads its own section.
	Config Config
	// Policy names the page policy; Hardware is set when faults are
	// handled per fault in the GPUs' MMUs (UVMMU), not in batches.
	Policy   string
	Hardware bool
	GPUs     int
	// Pages in the managed space, of PageSize bytes; Capacity is the pages
	// each GPU may hold (0: unlimited).
	Pages    uint64
	PageSize uint64
	Capacity int
	// Prefetch is the prefetcher's config at this page size, and Trees
	// each GPU's prefetcher (nil when prefetching is off).
	Prefetch prefetch.Config
	Trees    []*prefetch.Tree
	// ObjectOf maps a pointer to its object (-1: none); PageObject maps a
	// page. Objects reports whether it knows the allocations (else every
	// page is allocated).
	ObjectOf func(ptr uint64) int
	Objects  bool
	// AddressBase is the virtual address of page 0 (WithAddressBase).
	AddressBase uint64
	// Seed is the run's seed, for a runtime's random choices.
	Seed uint64
	// Ops acts on the driver within the batch in service.
	Ops Ops
	// Log is the driver's logger (zerolog.Nop unless WithLogger): a runtime
	// logs its decisions at debug, as the driver logs the policy's.
	Log zerolog.Logger
	// Workload is the run's program (WithWorkload).
	Workload Workload
}

// The config keys that name a runtime: uvm.adaptive (oversubscription
// runtimes) and uvm.prefetch_control (who steers the prefetcher).
const (
	KeyAdaptive        = "uvm.adaptive"
	KeyPrefetchControl = "uvm.prefetch_control"
)

// A RuntimeSpec is a runtime as registered: how to build it, what it
// needs of the rest of the config, and the rules of the keys it owns or
// changes, which config's validation applies while it is selected. The
// rules live here, with the runtime, so that no other package names it.
type RuntimeSpec struct {
	New func(RuntimeEnv) (Runtime, error)
	// Requires are checked before New by the driver's builder, and by
	// config's validation before a run starts.
	Requires []Requirement
	// Validate, if set, checks the runtime's own settings while it is
	// selected, at the run's page size.
	Validate func(c Config, page units.Bytes) error
	// Counters, if set, are the GPUs' access-counter settings the runtime
	// counts with in place of the page policy's (policy.ac_*).
	Counters func(c Config) Counters
	// Uses are driver keys the runtime reads that would otherwise have no
	// effect (UVMSmart's basic block without a prefetcher).
	Uses []string
	// CheckWorkload, if set, refuses before a run a workload the runtime
	// cannot plan; access is benchmarks.CheckAccess of its kernels.
	CheckWorkload func(name string, w benchmarks.Workload, access func() error) error
	// Warn, if set, is what the runtime has to say of a finished run from
	// its counts (Report) and its simulated time: "" when nothing.
	Warn func(c Config, counts map[string]float64, simTimeNs float64) string
	// Dependencies are keys that take effect only under a condition
	// (the runtime's own section while it is selected, a driver key the
	// runtime replaces).
	Dependencies []Dependency
}

// Counters are the GPUs' access-counter settings: a notification after
// Threshold accesses to a Group-byte region, naming only the page if
// PerPage; Latched counters keep counting after they notify (ObservUVM's
// samples).
type Counters struct {
	Threshold int
	Group     uint64
	PerPage   bool
	Latched   bool
}

// A Dependency is a group of config keys that take effect only while On
// holds: given a value other than its default while On does not hold, a
// key would change nothing, and config's validation reports it. Keys
// ending in ".*" stand for every key below the prefix. While names the
// key whose value turns them off, Use what to set to give them effect,
// and Note, if set, what decides instead.
type Dependency struct {
	Keys       []string
	On         func(c Config) bool
	While, Use string
	Note       string
}

// A RegisteredRuntime is one runtime as Runtimes lists it.
type RegisteredRuntime struct {
	Key, Name string
	Spec      RuntimeSpec
}

// RuntimeKeys are the config keys that select runtimes, in the order
// their runtimes act and are listed.
func RuntimeKeys() []string { return []string{KeyPrefetchControl, KeyAdaptive} }

// Runtimes lists every registered runtime, by key (RuntimeKeys) and name.
func Runtimes() []RegisteredRuntime {
	var out []RegisteredRuntime
	for _, key := range RuntimeKeys() {
		for _, name := range RuntimeNames(key)[1:] {
			out = append(out, RegisteredRuntime{Key: key, Name: name, Spec: runtimes[key][name]})
		}
	}
	return out
}

// RuntimeName is the runtime c selects with key (AdaptiveNone: none).
func (c Config) RuntimeName(key string) string {
	if key == KeyPrefetchControl {
		return c.PrefetchControl
	}
	return c.Adaptive
}

// Selected lists the registered runtimes c selects.
func (c Config) Selected() []RegisteredRuntime {
	var out []RegisteredRuntime
	for _, key := range RuntimeKeys() {
		if spec, ok := runtimes[key][c.RuntimeName(key)]; ok {
			out = append(out, RegisteredRuntime{Key: key, Name: c.RuntimeName(key), Spec: spec})
		}
	}
	return out
}

// OwnCounters are the access-counter settings of the first runtime c
// selects that counts with its own (RuntimeSpec.Counters); ok is false
// when none does and the page policy's settings apply.
func (c Config) OwnCounters() (counters Counters, ok bool) {
	for _, r := range c.Selected() {
		if r.Spec.Counters != nil {
			return r.Spec.Counters(c), true
		}
	}
	return Counters{}, false
}

// SelectedIs returns a condition that holds while key selects one of
// names: a Dependency's On for keys a runtime owns.
func SelectedIs(key string, names ...string) func(Config) bool {
	return func(c Config) bool { return slices.Contains(names, c.RuntimeName(key)) }
}

// A Requirement is a value a runtime cannot run without.
type Requirement struct {
	// Key is a config key (uvm.fault_handling, uvm.prefetch.policy) or
	// policy, the page policy's name; Value the value the runtime needs.
	Key, Value string
	// Why says what the runtime does that needs it, for the error
	// "uvm.adaptive=NAME WHY: set KEY=VALUE".
	Why string
}

// NeedsSoftware and NeedsOnTouch are the two requirements most runtimes
// share: the driver's batches, and the baseline migration they adapt.
func NeedsSoftware(why string) Requirement {
	return Requirement{Key: "uvm.fault_handling", Value: HandlingSoftware, Why: why}
}

// NeedsOnTouch: see NeedsSoftware.
func NeedsOnTouch(why string) Requirement {
	return Requirement{Key: "policy", Value: "on-touch", Why: why}
}

// runtimes are the registered runtimes, by config key and name.
var runtimes = map[string]map[string]RuntimeSpec{KeyAdaptive: {}, KeyPrefetchControl: {}}

// RegisterRuntime makes the runtime name selectable by config key
// (KeyAdaptive or KeyPrefetchControl). Call it from an init function; it
// panics on a duplicate or reserved name, an unknown key or no
// constructor, as pagepolicy.Register does.
func RegisterRuntime(key, name string, spec RuntimeSpec) {
	byName, ok := runtimes[key]
	if !ok {
		panic(fmt.Sprintf("uvm.RegisterRuntime: key %q: want %s or %s", key, KeyAdaptive, KeyPrefetchControl))
	}
	if _, dup := byName[name]; dup || name == AdaptiveNone || spec.New == nil {
		panic(fmt.Sprintf("uvm.RegisterRuntime: %s %q registered twice, reserved or without a constructor", key, name))
	}
	byName[name] = spec
}

// RuntimeNames lists the values config key accepts: none and every runtime
// registered under it, sorted.
func RuntimeNames(key string) []string {
	var names []string
	for n := range runtimes[key] {
		names = append(names, n)
	}
	sort.Strings(names)
	return append([]string{AdaptiveNone}, names...)
}

// RuntimeRequires is what the runtime config key names needs (nil for
// none or an unknown name).
func RuntimeRequires(key, name string) []Requirement { return runtimes[key][name].Requires }

// unmet is the first of rs that the builder's config and policy do not
// meet, as an error naming the runtime.
func (b Builder) unmet(key, name string, rs []Requirement) error {
	for _, r := range rs {
		var have string
		switch r.Key {
		case "policy":
			have = b.policy
		case "uvm.fault_handling":
			have = b.cfg.FaultHandling
		case "uvm.prefetch.policy":
			have = b.cfg.Prefetch.Policy
		default:
			return fmt.Errorf("%s=%s requires %s, which the driver cannot check (policy, uvm.fault_handling, uvm.prefetch.policy)", key, name, r.Key)
		}
		if have == "" && r.Key == "uvm.fault_handling" {
			have = HandlingSoftware
		}
		switch {
		case have == r.Value:
		case r.Key == "policy":
			return fmt.Errorf("%s=%s %s: use --policy %s, not %s", key, name, r.Why, r.Value, have)
		default:
			return fmt.Errorf("%s=%s %s: set %s=%s", key, name, r.Why, r.Key, r.Value)
		}
	}
	return nil
}

// buildRuntime adds the runtime config key names to the Service, if its
// requirements are met.
func (s *Service) buildRuntime(b Builder, key, name string, env RuntimeEnv) error {
	if name == AdaptiveNone || name == "" {
		return nil
	}
	spec, ok := runtimes[key][name]
	if !ok {
		return fmt.Errorf("%s %q: valid values are %v (a runtime outside mgpu must be registered with uvm.RegisterRuntime)", key, name, RuntimeNames(key))
	}
	if err := b.unmet(key, name, spec.Requires); err != nil {
		return err
	}
	r, err := spec.New(env)
	if err != nil {
		return err
	}
	s.rts = append(s.rts, r)
	return nil
}

// MoveCause is why a page moved to a GPU.
type MoveCause uint8

const (
	MoveFault MoveCause = iota
	MoveCounter
	MovePrefetch
)

// Stages is the runtime that acts in no stage.
type Stages struct{}

func (Stages) CounterBatch(int, []uint64, [][]uvmproto.Inval) bool             { return false }
func (Stages) CounterPage(uint64)                                              {}
func (Stages) Migrated(int, uint64, int, bool, MoveCause)                      {}
func (Stages) Prefetchable(int, uint64) bool                                   { return true }
func (Stages) Decided(int, bool, []uint64, [][]uvmproto.Inval)                 {}
func (Stages) MakeRoom(func(uint64) bool, bool, int, [][]uvmproto.Inval) error { return nil }
func (Stages) Evicts() bool                                                    { return false }
func (Stages) BeforeVictims(int, sim.VTimeInSec)                               {}
func (Stages) AfterVictims(int, sim.VTimeInSec, int) error                     { return nil }
func (Stages) Evicted([][]uvmproto.Inval)                                      {}
func (Stages) FaultBatchDone(int, []uvmproto.FaultEntry, sim.VTimeInSec) error { return nil }
func (Stages) Freed(int)                                                       {}
func (Stages) Report(map[string]float64)                                       {}

// PageObject is the object page p belongs to (-1: none).
func (e RuntimeEnv) PageObject(p uint64) int { return e.ObjectOf(e.AddressBase + p*e.PageSize) }
