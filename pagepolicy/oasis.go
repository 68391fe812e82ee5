package pagepolicy

import (
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/mgpu-sim/mgpu/cache"
	"github.com/mgpu-sim/mgpu/objtable"
)

// oasis is OASIS's OP-Controller (OASIS §V-D), in the hardware form
// (`oasis`: Obj_ID in the pointer's upper bits, on-chip O-Table) or the
// software form (`oasis-inmem`, §V-F: untagged pointers, a two-level shadow
// map and an unbounded O-Table in host memory, both read through the host
// LLC).
//
// Mechanism, as the paper gives it:
//   - A fault on a page that lives on the host with policy bits 00 is a
//     first touch: the host page table resolves it with on-touch, and the
//     O-Table is not consulted.
//   - A fault on a page held by another GPU is shared and goes to the
//     O-Table. So does a protection fault (a write to a replica), and,
//     under oversubscription, a fault on a host page whose bits are not
//     on-touch (§VI-D: the page was evicted, it is not a first touch).
//   - With PF Count 0 the fault itself sets the object's policy: a read
//     picks duplication, a write access-counter. The count then goes up by
//     one per shared fault; later faults apply the recorded policy.
//   - At the reset threshold the count returns to 0, so the next shared
//     fault relearns (implicit phase). A kernel launch resets the count of
//     every object in its argument list (explicit phase).
//   - The page's PTE bits take the policy as the fault is resolved. An
//     object never returns to on-touch.
//
// Choices where the paper is silent, all parameters or documented here:
//   - The learning fault counts as the first of the threshold's faults.
//   - "Uses" for the explicit reset is the kernel's argument list.
//   - A write under duplication collapses onto the writer; a read under
//     access-counter maps the page remotely; host pages under
//     access-counter migrate (the baselines' own rules).
//   - The hardware O-Table lookup costs otable_ns after the host walk.
type oasis struct {
	Base      // evicted pages stay unmapped (MGPUSim)
	cfg       Config
	inmem     bool
	table     *objtable.OTable
	tag       objtable.Tagging
	shadow    *objtable.ShadowMap
	llc       *cache.Cache
	llcHits   uint64
	llcMisses uint64

	last     map[int]objtable.Policy // object -> policy last recorded
	implicit map[int]bool            // object whose next learning follows an implicit reset
	history  []PolicyChange
	launches int
	st       oasisStats
	// log hears, once (warned), of a fault with an untagged pointer on a
	// page of a known object.
	log    zerolog.Logger
	warned bool
}

type oasisStats struct {
	privateFaults, sharedFaults    uint64
	explicitResets, explicitPhases uint64
	implicitResets, implicitPhases uint64
	learned, changes               uint64
}

func init() {
	// OASIS reads the Obj_ID from the pointer's tag; OASIS-InMem keeps
	// pointers untagged and finds the object in its shadow map.
	Register("oasis", Traits{ObjectIDs: true}, func(c Config, env Env) (Policy, error) {
		o, err := newOASIS(c, false)
		if o != nil {
			o.log = env.Log
		}
		return o, err
	})
	Register("oasis-inmem", Traits{Untagged: true}, func(c Config, _ Env) (Policy, error) { return newOASIS(c, true) })
	learning := append(slices.Clone(counterKeys), "dup_write_first", "reset_threshold")
	ReadsKeys("oasis", append(slices.Clone(learning), "otable_entries", "otable_ns", "id_bits")...)
	// OASIS-InMem keeps one entry per object in host memory, read through
	// the host LLC: no O-Table size or lookup time, no pointer tag.
	ReadsKeys("oasis-inmem", append(learning, "shadow_id_bits", "host_llc_size", "host_llc_ways", "host_llc_hit_ns", "host_mem_ns")...)
}

func newOASIS(c Config, inmem bool) (*oasis, error) {
	if c.ResetThreshold < 1 {
		return nil, fmt.Errorf("policy.reset_threshold = %d: must be >= 1", c.ResetThreshold)
	}
	size := c.OTableEntries
	if inmem {
		size = 0 // O-Table-InMem: one entry per object, in host memory
	}
	t, err := objtable.NewOTable(size)
	if err != nil {
		return nil, err
	}
	o := &oasis{cfg: c, inmem: inmem, table: t, last: map[int]objtable.Policy{}, implicit: map[int]bool{}}
	if inmem {
		if o.shadow, err = objtable.NewShadowMap(c.ShadowIDBits); err != nil {
			return nil, err
		}
		lines := int(uint64(c.HostLLCSize) / llcLine)
		if o.llc, err = cache.New(lines, c.HostLLCWays); err != nil {
			return nil, fmt.Errorf("policy.host_llc_size/ways: %w", err)
		}
	}
	return o, nil
}

// llcLine is the host LLC line size.
const llcLine = 64

// oTableInMemBase is a made-up host address for the O-Table-InMem, apart
// from the shadow map's.
const oTableInMemBase = 1 << 44

func (o *oasis) Name() string {
	if o.inmem {
		return "oasis-inmem"
	}
	return "oasis"
}

// Observe resets argument objects at a launch, and creates or removes an
// object's entries at its allocation or free.
func (o *oasis) Observe(e Event) error {
	switch e.Kind {
	case Launch:
		o.kernelLaunch(e.Args)
	case Alloc:
		return o.allocated(e.Object, e.Tagging)
	case Free:
		o.freed(e.Object)
	}
	return nil
}

// allocated creates the object's O-Table entry (and, for OASIS-InMem, its
// shadow-map entries).
func (o *oasis) allocated(obj *objtable.Object, t objtable.Tagging) error {
	o.tag = t
	if o.inmem {
		o.table.Allocate(obj.ID)
		return o.shadow.Set(obj.Base, obj.Size, obj.ID)
	}
	_, id, _ := t.Decode(obj.Ptr)
	o.table.Allocate(id)
	return nil
}

// freed removes the object's entries and forgets its policy and phase, so
// an object allocated later under the same Obj_ID learns afresh.
func (o *oasis) freed(obj *objtable.Object) {
	id := obj.ID
	if o.inmem {
		o.shadow.Clear(obj.Base, obj.Size)
	} else {
		_, id, _ = o.tag.Decode(obj.Ptr)
	}
	o.table.Free(id)
	delete(o.last, id)
	delete(o.implicit, id)
}

// hostRead prices one host-memory read through the LLC.
func (o *oasis) hostRead(addr uint64) float64 {
	line := addr / llcLine
	if o.llc.Lookup(line, 0) {
		o.llcHits++
		return o.cfg.HostLLCHitNs
	}
	o.llcMisses++
	o.llc.Insert(line, 0)
	return o.cfg.HostLLCHitNs + o.cfg.HostMemNs
}

// object finds the faulting object's O-Table key and what finding it cost.
func (o *oasis) object(f Fault) (id int, ns float64, ok bool) {
	if !o.inmem {
		_, id, ok = o.tag.Decode(f.Ptr)
		return id, o.cfg.OTableNs, ok
	}
	id, ok, l1, l2 := o.shadow.Lookup(f.Ptr)
	ns = o.hostRead(l1)
	if l2 != 0 {
		ns += o.hostRead(l2)
	}
	if ok {
		entryBits := uint64(4 + o.cfg.ShadowIDBits) // policy, PF Count and ID (§V-F)
		ns += o.hostRead(oTableInMemBase + uint64(id)*entryBits/8)
	}
	return id, ns, ok
}

func (o *oasis) Decide(f Fault, p Page) Decision {
	shared := p.Shared(f.GPU) || f.Protection || (p.Owner == Host && p.Bits != OnTouch)
	if !shared {
		o.st.privateFaults++
		return Decision{Action: Migrate, Bits: OnTouch}
	}
	o.st.sharedFaults++
	id, ns, ok := o.object(f)
	if !ok {
		// Not a managed object: nothing to learn from.
		o.warnUntagged(f)
		return withCost(onTouch{}.Decide(f, p), ns)
	}
	e, _ := o.table.Lookup(id)
	if e.PFCount == 0 {
		o.learn(e, f)
	}
	e.PFCount++
	if e.PFCount >= o.cfg.ResetThreshold {
		e.PFCount = 0
		o.st.implicitResets++
		o.implicit[e.ID] = true
	}
	var d Decision
	if e.Policy == objtable.PolicyDuplication {
		d = duplication{readOnlyFirst: o.cfg.DupWriteFirst == DupReadOnlyCopy}.Decide(f, p)
	} else {
		d = accessCounter{}.Decide(f, p)
	}
	return withCost(d, ns)
}

func withCost(d Decision, ns float64) Decision {
	d.LookupNs = ns
	return d
}

// learn sets the entry's policy from one shared fault: read → duplication,
// write → access-counter.
func (o *oasis) learn(e *objtable.Entry, f Fault) {
	pol := objtable.PolicyDuplication
	if f.Write {
		pol = objtable.PolicyAccessCounter
	}
	e.Policy = pol
	o.st.learned++
	cause := "learned"
	if o.implicit[e.ID] {
		cause = "relearned"
		delete(o.implicit, e.ID)
	}
	prev, seen := o.last[e.ID]
	if seen && prev == pol {
		return
	}
	if seen {
		o.st.changes++
		if cause == "relearned" {
			o.st.implicitPhases++
		}
	}
	o.last[e.ID] = pol
	obj := f.Object
	if obj < 0 {
		obj = e.ID
	}
	o.history = append(o.history, PolicyChange{TimeNs: f.TimeNs, Object: obj, Policy: pol.String(), Cause: cause})
}

// kernelLaunch resets the PF Count of every argument object's entry: the
// explicit phase change of §V-D. A launch counts as a phase change when it
// resets an object that had learned a policy.
func (o *oasis) kernelLaunch(args []int) {
	o.launches++
	reset := false
	for _, a := range args {
		id := a
		if !o.inmem {
			id = a & (1<<o.tag.IDBits - 1)
		}
		e := o.table.Peek(id)
		if e == nil {
			continue
		}
		e.PFCount = 0
		delete(o.implicit, id)
		if _, learned := o.last[id]; learned {
			o.st.explicitResets++
			reset = true
		}
	}
	if reset {
		o.st.explicitPhases++
	}
}

// Report gives the O-Table, phase and shadow-map counters and the
// per-object policy history.
func (o *oasis) Report() Report { return Report{Stats: o.stats(), History: o.history} }

func (o *oasis) stats() map[string]float64 {
	s := map[string]float64{
		"private_faults":   float64(o.st.privateFaults),
		"shared_faults":    float64(o.st.sharedFaults),
		"explicit_resets":  float64(o.st.explicitResets),
		"explicit_phases":  float64(o.st.explicitPhases),
		"implicit_resets":  float64(o.st.implicitResets),
		"implicit_phases":  float64(o.st.implicitPhases),
		"policies_learned": float64(o.st.learned),
		"policy_changes":   float64(o.st.changes),
		"otable_hits":      float64(o.table.Hits),
		"otable_misses":    float64(o.table.Misses),
		"otable_evictions": float64(o.table.Evictions),
	}
	if o.inmem {
		l1, l2 := o.shadow.Bytes()
		s["shadow_map_l1_bytes"] = float64(l1)
		s["shadow_map_l2_bytes"] = float64(l2)
		s["shadow_map_l2_tables"] = float64(o.shadow.Tables())
		s["otable_inmem_bytes"] = float64((uint64(o.table.Len())*uint64(4+o.cfg.ShadowIDBits) + 7) / 8)
		s["host_llc_hits"] = float64(o.llcHits)
		s["host_llc_misses"] = float64(o.llcMisses)
	}
	return s
}

// warnUntagged logs, once a run, a fault whose pointer carries no tag on
// a page the driver's object lookup places in an object: OASIS reads the
// Obj_ID from the tag only, so such pages stay on-touch without a word.
func (o *oasis) warnUntagged(f Fault) {
	if o.warned || o.inmem || f.Object < 0 {
		return
	}
	o.warned = true
	o.log.Warn().Int("gpu", f.GPU).Uint64("page", f.Page).Int("object", f.Object).Str("ptr", fmt.Sprintf("%#x", f.Ptr)).
		Msg("OASIS: a fault with an untagged pointer on a page of a known object; OASIS reads the Obj_ID from the pointer's tag, so the page is handled on-touch: fault with the object's tagged pointer (objtable.Tagging.Encode, as the allocation's Ptr), or use oasis-inmem, which needs no tag")
}
