package benchmarks

import "github.com/mgpu-sim/mgpu/objtable"

// Shared shape of the AMDAPPSDK tiled kernels (mm, mt).
const (
	// Tile is the side of the square workgroup tile: 16x16 = 256
	// work-items, 4 wavefronts of 64.
	Tile = 16
	// tileWavefronts is the wavefront count of a 16x16 workgroup.
	tileWavefronts = Tile * Tile / WavefrontSize
	// tileRows is the number of tile rows one wavefront covers: lane
	// r*16+c of wavefront wf is work-item (x = c, y = 4*wf + r).
	tileRows = WavefrontSize / Tile
	// floatBytes is the element size (float32).
	floatBytes = 4

	// kernargCycles is the work before a wavefront's first instruction,
	// the scalar load of its kernel arguments: none, it is the first thing
	// a GCN kernel does.
	kernargCycles = 0
	// indexCycles is the address arithmetic before the first global access
	// (about 8 VALU instructions at 4 cycles each on GCN). An estimate; the
	// papers give no instruction mix.
	indexCycles = 32
)

// allocKernarg allocates the kernel-argument buffer of one launch.
//
// MGPUSim's AMDAPPSDK ports allocate only their data buffers (mt: input and
// output; mm: A, B and C), yet OASIS Table II lists one object more for each
// (mt 3, mm 4). We take the extra object to be the kernel-argument buffer
// the MGPUSim driver allocates in GPU memory for every launch: it is the one
// allocation both programs have in common, and every wavefront reads it with
// a scalar load when it starts. This is an inference from the object counts,
// not something the paper states. The buffer is tiny, so it does not change
// the footprint; it is one page that every GPU reads.
func allocKernarg(alloc *objtable.Allocator, size uint64) (uint64, error) {
	return alloc.MallocManaged(size, "kernarg")
}

// lastObjects is the IDs of the k objects allocated last: a kernel's
// argument list when its set-up allocates exactly its buffers.
func lastObjects(alloc *objtable.Allocator, k int) []int {
	objs := alloc.Objects()
	ids := make([]int, k)
	for i := range ids {
		ids[i] = objs[len(objs)-k+i].ID
	}
	return ids
}

// genKernarg fills in the scalar kernel-argument load: one lane.
func genKernarg(in *Instruction, ptr uint64) {
	in.Compute = kernargCycles
	in.Lanes = 1
	in.Addr[0] = ptr
}

// fillRows fills the 64 lanes with a 4-row by 16-column block of a
// row-major float32 matrix: lane r*16+c gets element [row0+r][col0+c].
// Lanes along a row are consecutive floats, so each row is one 64-byte line.
func fillRows(in *Instruction, base uint64, pitch, row0, col0 int) {
	in.Lanes = WavefrontSize
	for r := 0; r < tileRows; r++ {
		a := base + uint64((row0+r)*pitch+col0)*floatBytes
		for c := 0; c < Tile; c++ {
			in.Addr[r*Tile+c] = a + uint64(c)*floatBytes
		}
	}
}

// fillColumns fills the 64 lanes with the transposed block: lane r*16+c
// gets element [col0+c][row0+r]. Lanes along c stride by the row pitch, so
// one instruction spans 16 rows (16 lines, and 16 pages once a row is a
// page or more).
func fillColumns(in *Instruction, base uint64, pitch, row0, col0 int) {
	in.Lanes = WavefrontSize
	for c := 0; c < Tile; c++ {
		a := base + uint64((col0+c)*pitch+row0)*floatBytes
		for r := 0; r < tileRows; r++ {
			in.Addr[r*Tile+c] = a + uint64(r)*floatBytes
		}
	}
}
