// Package uvmsmart is UVMSmart's adaptive framework for oversubscription
// (Ganguly, Melhem and Yang, "An Adaptive Framework for Oversubscription
// Management in CPU-GPU Unified Memory", DATE'21), the middle bar of UVMMU
// Fig. 4 ("UVMMU: Hardware-Offloaded Page Migration for Heterogeneous
// Computing", DATE 2023), as a pure state machine. UVMMU (§II-B) says only
// that it "utilize[s] a pattern-detection scheme to select the best
// policy"; the mechanism here is the released simulator's
// (DebashisGanguly/gpgpu-sim_UVMSmart, src/gpgpu-sim/gpu-sim.cc:
// gmmu_t::update_memory_management_policy and should_cause_page_migration),
// which the UVMMU paper does not describe. In short:
//
//   - Every 64 KB basic block scheduled for migration (demand or prefetch)
//     is recorded with its allocation and the kernel it ran in.
//   - Per kernel and allocation the recorded blocks are LINEAR when their
//     time order is sorted, RANDOM otherwise, with REUSE when a block
//     repeats within the kernel or was seen in an earlier one. Across
//     kernels LINEAR and RANDOM combine into MIXED.
//   - At each eviction (the first is the oversubscription event) the
//     allocations are classified again. Any RANDOM or MIXED allocation
//     turns on zero-copy (reads of a host page stay remote until its
//     block's access counter reaches migrate_threshold; writes migrate)
//     and TBN eviction, for the whole GPU; otherwise any LINEAR_REUSE
//     allocation turns on TBN eviction. Nothing is ever turned off.
//
// The package decides; the driver (package uvm) records, evicts and maps.
package uvmsmart

// Pattern is an allocation's access pattern (gpu-sim.h ds_pattern).
type Pattern uint8

// Patterns.
const (
	Undecided Pattern = iota
	Random
	Linear
	Mixed
	RandomReuse
	LinearReuse
	MixedReuse
)

func (p Pattern) String() string {
	return [...]string{"undecided", "random", "linear", "mixed", "random-reuse", "linear-reuse", "mixed-reuse"}[p]
}

// reuse reports whether p carries REUSE.
func (p Pattern) reuse() bool { return p >= RandomReuse }

// base drops REUSE.
func (p Pattern) base() Pattern {
	if p.reuse() {
		return p - RandomReuse + Random
	}
	return p
}

// combine folds one kernel's pattern cur into an allocation's pattern so
// far, as update_memory_management_policy does: a kernel that did not
// touch the allocation changes nothing, a kernel without reuse leaves the
// REUSE of earlier kernels, LINEAR with RANDOM is MIXED, and MIXED and
// MIXED_REUSE stay as they are (the released code has no branch for them).
func combine(so, cur Pattern) Pattern {
	switch {
	case so == Undecided:
		return cur
	case cur == Undecided, so.base() == Mixed:
		return so
	}
	b := so.base()
	if b != cur.base() {
		b = Mixed
	}
	if so.reuse() || cur.reuse() {
		return b - Random + RandomReuse
	}
	return b
}

// kernelState is one allocation's record in the running kernel.
type kernelState struct {
	seen, unsorted, reuse bool
	last                  uint64
}

func (k kernelState) pattern() Pattern {
	if !k.seen {
		return Undecided
	}
	p := Linear
	if k.unsorted {
		p = Random
	}
	if k.reuse {
		p = p - Random + RandomReuse
	}
	return p
}

// Classifier records migrated blocks and classifies allocations. Blocks
// and allocations are dense indices; the driver maps pages to both.
type Classifier struct {
	kernel uint32
	// lastKernel[b] is the kernel that last recorded block b (0: never).
	lastKernel []uint32
	past       []Pattern     // per allocation, over finished kernels
	cur        []kernelState // per allocation, in the running kernel
}

// NewClassifier returns a classifier over blocks 0..blocks-1. Kernel 1
// runs until the first Launch.
func NewClassifier(blocks uint64) *Classifier {
	return &Classifier{kernel: 1, lastKernel: make([]uint32, blocks)}
}

// Launch starts a new kernel: the running kernel's patterns join each
// allocation's.
func (c *Classifier) Launch() {
	for a := range c.cur {
		c.past[a] = combine(c.past[a], c.cur[a].pattern())
		c.cur[a] = kernelState{}
	}
	c.kernel++
}

// Record notes that block b of allocation a was scheduled for migration.
// Record blocks of one batch in address order, each once: the released
// code lists a batch's blocks from ordered sets.
func (c *Classifier) Record(a int, b uint64) {
	for a >= len(c.cur) {
		c.cur = append(c.cur, kernelState{})
		c.past = append(c.past, Undecided)
	}
	k := &c.cur[a]
	if k.seen && b < k.last {
		k.unsorted = true
	}
	if c.lastKernel[b] != 0 {
		k.reuse = true // repeated in this kernel, or seen in an earlier one
	}
	k.seen, k.last = true, b
	c.lastKernel[b] = c.kernel
}

// Pattern is allocation a's pattern including the running kernel.
func (c *Classifier) Pattern(a int) Pattern {
	if a < 0 || a >= len(c.cur) {
		return Undecided
	}
	return combine(c.past[a], c.cur[a].pattern())
}

// Allocations is one more than the highest allocation recorded.
func (c *Classifier) Allocations() int { return len(c.cur) }

// Decision is what the classification turns on.
type Decision struct {
	ZeroCopy, TBNEviction bool
}

// Decide classifies every allocation and returns what UVMSmart turns on.
func (c *Classifier) Decide() Decision {
	var d Decision
	for a := range c.cur {
		switch c.Pattern(a) {
		case Random, RandomReuse, Mixed, MixedReuse:
			return Decision{ZeroCopy: true, TBNEviction: true}
		case LinearReuse:
			d.TBNEviction = true
		}
	}
	return d
}
