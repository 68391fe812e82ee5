package benchmarks

// Building blocks of the suites' instruction streams: lanes, blocks of a
// row-major matrix, the idle wavefront, and the compute-cycle estimates
// several suites' kernels share.

// FloatBytes is the element size (float32).
const FloatBytes = 4

// Compute cycles between memory instructions. Estimates: the papers give
// no instruction mix or timing.
const (
	// IndexCycles is the address arithmetic before the first global
	// access (about 8 VALU instructions at 4 cycles each on GCN).
	IndexCycles = 32
	// LoadCycles is the address arithmetic between two back-to-back
	// global loads of one thread: two VALU instructions.
	LoadCycles = 8
	// SyncCycles is one __syncthreads with the LDS traffic around it.
	SyncCycles = 32
	// FMACycles is one multiply-add of a dot product, after its loads.
	FMACycles = 4
)

// VecBlock is the 1-D block of the vector kernels (PolyBench's
// DIM_THREAD_BLOCK_X for 1-D launches).
const VecBlock = 256

// AddLane appends one active lane.
func AddLane(in *Instruction, addr uint64) {
	in.Addr[in.Lanes] = addr
	in.Lanes++
}

// Elem is the address of element i of an array of size-byte elements.
func Elem(base uint64, i, size int) uint64 { return base + uint64(i)*uint64(size) }

// AddBlock adds one lane for each element [i][j] of the row-major float32
// matrix at base (row pitch pitch) with i in i0 .. i0+rows-1, i < ni, and
// j in j0 .. j0+cols-1, j < nj; rows outer, so a 2 x 32 block is lanes
// 32*r + c. A row (rows 1) is one coalesced access; a column (cols 1) puts
// each lane on its own row.
func AddBlock(in *Instruction, base uint64, pitch, i0, rows, ni, j0, cols, nj int) {
	for i := i0; i < i0+rows && i < ni; i++ {
		a := base + (uint64(i)*uint64(pitch)+uint64(j0))*FloatBytes
		for j := j0; j < j0+cols && j < nj; j++ {
			AddLane(in, a)
			a += FloatBytes
		}
	}
}

// IdleStream is the stream of a wavefront none of whose threads passes the
// kernel's bounds check: one compute-only instruction.
func IdleStream() Stream {
	return &Loop{N: 1, Gen: func(_ int, in *Instruction) { in.Compute = IndexCycles }}
}

// CeilDiv is a / b rounded up.
func CeilDiv(a, b int) int { return (a + b - 1) / b }
