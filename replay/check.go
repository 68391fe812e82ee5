package replay

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/trace"
)

// The checks of a recording's metadata and blocks, made before a run:
// a replay trusts every count, object and address it reads, so a file
// that lies about one must be refused here, with where, not fail halfway
// through a run (an index out of range, a stalled simulation).

// check checks the metadata against itself and against the file's blocks
// of workgroups.
func (m *meta) check(blocks int) error {
	if m.Info.Name == "" {
		return errors.New("the workload has no name (Info.Name is empty): a recording names its workload")
	}
	if err := m.Tagging.Validate(); err != nil {
		return fmt.Errorf("the pointer tagging: %w", err)
	}
	if err := m.checkObjects(); err != nil {
		return err
	}
	return m.checkKernels(blocks)
}

// checkObjects checks that the objects are where an allocator puts them:
// in allocation order, disjoint, inside the address space, each pointer
// tagged with its own ID.
func (m *meta) checkObjects() error {
	end := uint64(0)
	for i, o := range m.Objects {
		base := objtable.Strip(o.Ptr)
		switch {
		case o.Size == 0:
			return fmt.Errorf("object %d (%s): size 0: an object has at least one byte", i, o.Name)
		case o.Size > 1<<objtable.AddrBits-base:
			return fmt.Errorf("object %d (%s): %d bytes at %#x pass the %d-bit address space", i, o.Name, o.Size, base, objtable.AddrBits)
		case base < end:
			return fmt.Errorf("object %d (%s) at %#x starts before the end of object %d (%#x): objects are recorded in address order, disjoint", i, o.Name, base, i-1, end)
		case o.Ptr != m.Tagging.Encode(base, i):
			return fmt.Errorf("object %d (%s): pointer %#x, but the recorded tagging (%d ID bits, config bit %d) makes %#x", i, o.Name, o.Ptr, m.Tagging.IDBits, m.Tagging.ConfigBit, m.Tagging.Encode(base, i))
		}
		end = base + o.Size
	}
	return nil
}

// checkKernels checks that the kernels name the file's blocks in order,
// each workgroup's wavefront count in range, and their objects.
func (m *meta) checkKernels(blocks int) error {
	next := 0
	freed := make([]bool, len(m.Objects))
	ks := make([]benchmarks.Kernel, len(m.Kernels))
	for i, k := range m.Kernels {
		at := fmt.Sprintf("kernel %d (%s)", i, k.Name)
		switch {
		case k.First != next:
			return fmt.Errorf("%s: First = %d: its workgroups are blocks %d on (the kernels' blocks follow each other in order)", at, k.First, next)
		case k.Workgroups < 0 || k.Workgroups > blocks-next:
			return fmt.Errorf("%s: %d workgroups, and the file holds %d more blocks", at, k.Workgroups, blocks-next)
		case k.WavefrontsPerWorkgroup < 1 || k.WavefrontsPerWorkgroup > trace.MaxWavefronts:
			return fmt.Errorf("%s: %d wavefronts a workgroup: must be 1 to %d", at, k.WavefrontsPerWorkgroup, trace.MaxWavefronts)
		case k.Barrier && len(k.Frees) > 0:
			return fmt.Errorf("%s: a grid barrier frees objects %v: only a launch frees", at, k.Frees)
		}
		if err := m.checkIDs(k.Args, "argument", nil); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if err := m.checkIDs(k.Frees, "freed", freed); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if err := checkAccesses(k.Access); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		ks[i] = benchmarks.Kernel{Name: k.Name, Args: k.Args, Barrier: k.Barrier, Access: k.Access}
		next += k.Workgroups
	}
	if next != blocks {
		return fmt.Errorf("the kernels name %d workgroups, the file holds %d", next, blocks)
	}
	return benchmarks.CheckAccess(ks, len(m.Objects))
}

// checkIDs checks object IDs; with freed set, that none is freed twice.
func (m *meta) checkIDs(ids []int, what string, freed []bool) error {
	for _, id := range ids {
		if id < 0 || id >= len(m.Objects) {
			return fmt.Errorf("%s object %d: no such object (the recording has %d, IDs 0 to %d)", what, id, len(m.Objects), len(m.Objects)-1)
		}
		if freed == nil {
			continue
		}
		if freed[id] {
			return fmt.Errorf("frees object %d (%s) again", id, m.Objects[id].Name)
		}
		freed[id] = true
	}
	return nil
}

// checkAccesses checks the declared values that benchmarks.CheckAccess
// leaves to the workloads' own tests.
func checkAccesses(as []benchmarks.Access) error {
	for _, a := range as {
		l := a.Loop
		switch {
		case a.Pattern > benchmarks.DataDependent:
			return fmt.Errorf("access of object %d: pattern %d: must be 0 (analysable), 1 (host-loop) or 2 (data-dependent)", a.Object, a.Pattern)
		case !(a.Accesses >= 0):
			return fmt.Errorf("access of object %d: %v accesses: must be >= 0", a.Object, a.Accesses)
		case a.WorkgroupBytes < 0 || l.SpanBytes < 0:
			return fmt.Errorf("access of object %d: negative byte span (WorkgroupBytes %d, Loop.SpanBytes %d)", a.Object, a.WorkgroupBytes, l.SpanBytes)
		case l.Count < 0 || l.Index < 0 || (l.Count > 0 && l.Index >= l.Count):
			return fmt.Errorf("access of object %d: loop iteration %d of %d: must be 0 to count-1", a.Object, l.Index, l.Count)
		}
	}
	return nil
}

// blockCheck is what trace.File.Check asks of each block, in order: the
// wavefront count its kernel names, and every lane's address inside a
// recorded object and tagged as that object's pointers are.
func (m *meta) blockCheck() func(i int, w *trace.Workgroup) error {
	ki, last := 0, 0
	var in trace.Instruction
	return func(i int, w *trace.Workgroup) error {
		for i >= m.Kernels[ki].First+m.Kernels[ki].Workgroups {
			ki++
		}
		k := &m.Kernels[ki]
		if w.Wavefronts() != k.WavefrontsPerWorkgroup {
			return fmt.Errorf("kernel %d (%s), its workgroup %d, has %d wavefronts; the metadata says %d", ki, k.Name, i-k.First, w.Wavefronts(), k.WavefrontsPerWorkgroup)
		}
		for j := range w.Wavefronts() {
			r := w.Wavefront(j)
			for n := 0; ; n++ {
				pos := r.Pos()
				if !r.Next(&in) {
					break
				}
				if l := m.strayLane(&in, &last); l >= 0 {
					return fmt.Errorf("kernel %d (%s), its workgroup %d, wavefront %d, instruction %d (decompressed byte %d), lane %d: address %#x in no recorded object",
						ki, k.Name, i-k.First, j, n, w.Offset(j)+pos, l, in.Addr[l])
				}
			}
		}
		return nil
	}
}

// strayLane is the first lane of in whose address is in no object, or
// carries another tag than the object's pointer; -1 when there is none.
// Lanes mostly fall in the object of the lane before (*last), which is
// tried before a search.
func (m *meta) strayLane(in *trace.Instruction, last *int) int {
	for l := range in.Lanes {
		a := in.Addr[l]
		if m.holds(*last, a) {
			continue
		}
		base := objtable.Strip(a)
		i, _ := slices.BinarySearchFunc(m.Objects, base, func(o object, b uint64) int {
			return cmp.Compare(objtable.Strip(o.Ptr), b)
		})
		// i is the first object starting after base, or at it.
		if i < len(m.Objects) && m.holds(i, a) {
			*last = i
		} else if i > 0 && m.holds(i-1, a) {
			*last = i - 1
		} else {
			return l
		}
	}
	return -1
}

// holds reports whether object i holds the tagged address a.
func (m *meta) holds(i int, a uint64) bool {
	if i < 0 || i >= len(m.Objects) {
		return false
	}
	o := &m.Objects[i]
	base := objtable.Strip(o.Ptr)
	return a>>objtable.AddrBits == o.Ptr>>objtable.AddrBits && objtable.Strip(a)-base < o.Size && objtable.Strip(a) >= base
}
