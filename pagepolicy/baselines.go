package pagepolicy

import "math/bits"

// The uniform baselines of OASIS §II-B and GRIT §II-B.

func init() {
	Register("access-counter", Traits{}, func(c Config, _ Env) (Policy, error) {
		return accessCounter{hostRemote: c.ACHost == ACHostRemote, evictRemote: c.ACEvict == ACEvictRemote}, nil
	})
	Register("duplication", Traits{}, func(c Config, _ Env) (Policy, error) {
		return duplication{readOnlyFirst: c.DupWriteFirst == DupReadOnlyCopy}, nil
	})
	// ideal is a bound, not a mechanism: the checker lets it diverge.
	Register("ideal", Traits{Incoherent: true, Unserviced: true}, func(Config, Env) (Policy, error) { return ideal{}, nil })
	ReadsKeys("access-counter", append(counterKeys, "ac_host", "ac_evict")...)
	ReadsKeys("duplication", "dup_write_first")
	ReadsKeys("ideal")
}

// counterKeys are read wherever pages carry the access-counter bits: the
// GPUs count remote accesses by them and the driver migrates.
var counterKeys = []string{"ac_threshold", "ac_group", "ac_migrate"}

// accessCounter maps a page that lives on another GPU remotely; the GPU
// then reads and writes it line by line, counting remote accesses per
// group, and the driver migrates the group once a counter reaches the
// threshold (that part is in the GPU and the driver). A page still on the
// host is mapped remotely too (policy.ac_host=remote, OASIS §IV-B), or
// migrates on first touch (migrate). A page a GPU evicts is unmapped, or
// mapped remotely there (policy.ac_evict=remote, as the NVIDIA driver).
type accessCounter struct {
	Base
	hostRemote, evictRemote bool
}

func (accessCounter) Name() string { return "access-counter" }

func (a accessCounter) Decide(f Fault, p Page) Decision {
	if p.Owner == Host && !a.hostRemote {
		return Decision{Action: Migrate, Bits: AccessCounter}
	}
	if p.Owner == Host {
		return Decision{Action: MapRemote, Bits: AccessCounter, HostRemote: true}
	}
	return Decision{Action: MapRemote, Bits: AccessCounter}
}

func (a accessCounter) Evicted(Page) (Decision, bool) {
	return Decision{Action: MapRemote, Bits: AccessCounter, HostRemote: true}, a.evictRemote
}

// duplication replicates a page read-only on every reader. A write to a
// replica (a protection fault) or a write fault on a replicated page
// collapses: every other replica is invalidated and the writer keeps the
// only, writable copy.
//
// A write fault on a page with a single copy (or on the host) is where
// sources differ. OASIS §IV-B: "a read-only copy of the page is made on the
// requesting GPU. Even if a page is private, any attempt to write to the
// read-only copy will still trigger a page protection fault" — so with
// readOnlyFirst the fault makes a read-only copy and the replayed write
// faults again and collapses. Without it the write migrates the page, as
// on-touch would (mgpu's model before the fidelity work).
type duplication struct {
	Base
	readOnlyFirst bool
}

// The values of policy.dup_write_first.
const (
	DupReadOnlyCopy = "read-only-copy"
	DupMigrate      = "migrate"
)

func (duplication) Name() string { return "duplication" }

func (d duplication) Decide(f Fault, p Page) Decision {
	switch {
	case !f.Write:
		return Decision{Action: Duplicate, Bits: Duplication}
	case f.Protection || bits.OnesCount64(p.Copies) > 1 || p.Copies&(1<<uint(f.GPU)) != 0:
		// A write by a GPU that already holds the read-only copy is a
		// protection fault that raced with the copy's install.
		return Decision{Action: Collapse, Bits: Duplication}
	case d.readOnlyFirst:
		return Decision{Action: Duplicate, Bits: Duplication, ReadOnlyFirst: true}
	}
	return Decision{Action: Migrate, Bits: Duplication}
}

// ideal is OASIS §IV-A's Ideal: every GPU's first access to a page "incur[s]
// a duplication latency" and leaves a local copy; every later access from
// that GPU is local, read or write, and nothing is ever collapsed. It is an
// upper bound, not a mechanism: its copies are not kept coherent, and its
// faults cost the host no service time (Traits.Unserviced): the paper
// charges the duplication, GRIT's latency class apart from the host's fault
// handling, and with the host's handling every policy that reads a page in
// place (access-counter's zero-copy) could beat the bound on data touched
// once.
type ideal struct{ Base }

func (ideal) Name() string { return "ideal" }

func (ideal) Decide(Fault, Page) Decision { return Decision{Action: LocalCopy, Bits: Duplication} }
