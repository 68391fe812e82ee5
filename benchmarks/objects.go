package benchmarks

import "github.com/mgpu-sim/mgpu/objtable"

// kernargCycles is the work before a wavefront's first instruction, the
// scalar load of its kernel arguments: none, it is the first thing a GCN
// kernel does.
const kernargCycles = 0

// AllocKernarg allocates the kernel-argument buffer of one launch.
//
// MGPUSim's AMDAPPSDK ports allocate only their data buffers (mt: input and
// output; mm: A, B and C), yet OASIS Table II lists one object more for each
// (mt 3, mm 4). We take the extra object to be the kernel-argument buffer
// the MGPUSim driver allocates in GPU memory for every launch: it is the one
// allocation both programs have in common, and every wavefront reads it with
// a scalar load when it starts. This is an inference from the object counts,
// not something the paper states. The buffer is tiny, so it does not change
// the footprint; it is one page that every GPU reads.
func AllocKernarg(alloc *objtable.Allocator, size uint64) (uint64, error) {
	return alloc.MallocManaged(size, "kernarg")
}

// LastObjects is the IDs of the k objects allocated last: a kernel's
// argument list when its set-up allocates exactly its buffers.
func LastObjects(alloc *objtable.Allocator, k int) []int {
	objs := alloc.Objects()
	ids := make([]int, k)
	for i := range ids {
		ids[i] = objs[len(objs)-k+i].ID
	}
	return ids
}

// GenKernarg fills in the scalar kernel-argument load: one lane.
func GenKernarg(in *Instruction, ptr uint64) {
	in.Compute = kernargCycles
	in.Lanes = 1
	in.Addr[0] = ptr
}
