package rodinia

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// SRAD is Rodinia 3.1's SRAD v2 (speckle-reducing anisotropic diffusion,
// srad_cuda_1 and srad_cuda_2) in UVMSmart's port, which Early-Adaptor does
// not run: niter iterations of two stencil kernels over an image.
//
// Shape: a square float32 image of side n (rows = cols), a multiple of
// 16. Scale 1 is UVMSmart's run script, n = 1024 (six arrays, 24 MB);
// --scale s runs side 1024*sqrt(s) (Rodinia's own script, 2048, is scale
// 4; scale 11 is about 264 MB, the EA workloads' scale-1 size).
//
// Objects, in allocation (ID) order, each n*n float32 (UVMSmart allocates
// the five coefficient arrays with cudaMalloc and J with cudaMallocManaged;
// here all six are managed, as Early-Adaptor's method makes them):
//
//	0 "C_cuda"   the diffusion coefficient, written by srad_cuda_1
//	1 "E_C"      the east derivative, written by srad_cuda_1
//	2 "W_C"      west
//	3 "S_C"      south
//	4 "N_C"      north
//	5 "J_shared" the image, read by both kernels, written by srad_cuda_2
//
// Each iteration launches srad_cuda_1 then srad_cuda_2 over (n/16)^2
// blocks of 16x16 threads, workgroup wg = by*(n/16) + bx; thread (tx, ty)
// is pixel (16*by+ty, 16*bx+tx), wavefront wf holding block rows 4wf ..
// 4wf+3 (lane 16*(ty-4wf) + tx). Per wavefront, in the kernel's order,
// each instruction only where its condition holds for some thread:
//
//   - srad_cuda_1: J at the north neighbour row (by > 0) and the south
//     one (below the last block row: by < last), the image's first row (by
//     = 0) or last row (by = last), the west and east neighbour columns
//     (Rodinia's flat indices, which wrap to the adjacent row), the first
//     or last column (bx = 0 or last), the block's own pixels; then, after
//     the coefficient arithmetic, the stores of C, E, W, S, N at its pixels:
//     10 to 12 instructions;
//   - srad_cuda_2: J at its pixels, C at the south neighbour row, C's last
//     row (by = last), C at the east neighbour, C's last column (bx =
//     last), C, N, S, W, E at its pixels, and the store of J: 10 to 11.
//     srad_cuda_2 reads C one row past the image in the last block row
//     and one element past it in the last block (no bounds check in
//     Rodinia); those lanes, outside every object, are dropped.
//
// niter is 4, UVMSmart's run script (Rodinia's is 2); Params.Iterations
// sets it. That is 4096 x 4 x about 19 = 0.31M instructions per
// iteration, 1.25M at scale 1. The host's ROI statistics between iterations (it
// reads J's top-left 128x128 pixels) are not modelled.
//
// Class: regular, assigned here (Early-Adaptor does not class srad): both
// kernels sweep the arrays in block order, each block touching dense
// 16-row bands.
type SRAD struct{}

const (
	// sradPaperSide is UVMSmart's image side.
	sradPaperSide = 1024
	// sradIterations is UVMSmart's niter.
	sradIterations = 4
	// sradBlock is Rodinia's BLOCK_SIZE.
	sradBlock = 16
	// sradRows is the block rows one wavefront holds.
	sradRows = benchmarks.WavefrontSize / sradBlock
	// sradCoefCycles is srad_cuda_1's arithmetic between its loads and
	// its stores: gradients, two divisions, the coefficient, saturation.
	sradCoefCycles = 128 + benchmarks.SyncCycles
	// sradSumCycles is srad_cuda_2's divergence and update.
	sradSumCycles = 32 + benchmarks.SyncCycles
)

// SRADSize is UVMSmart's run script input, a 1024 x 1024 image.
var SRADSize = benchmarks.FlatSize(sradBytes(sradPaperSide))

func init() {
	benchmarks.Register("srad", func() benchmarks.Workload { return SRAD{} })
}

// Info implements Workload.
func (SRAD) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "srad",
		Description: "Rodinia SRAD v2: two 16x16-block stencil kernels per iteration over six image arrays (4 iterations)",
		Suite:       benchmarks.SuiteRodinia,
		Class:       benchmarks.ClassRegular,
		PaperSize:   SRADSize,
	}
}

// sradBytes is srad's footprint for side n.
func sradBytes(n int) uint64 { return 6 * benchmarks.FloatBytes * uint64(n) * uint64(n) }

// SRADShape returns the image side and the iteration count srad uses for p.
func SRADShape(p benchmarks.Params) (n, iters int, err error) {
	fp, err := SRADSize.Footprint(p)
	if err != nil {
		return 0, 0, err
	}
	iters = sradIterations
	if p.Iterations > 0 {
		iters = p.Iterations
	}
	return benchmarks.FitSide(fp, sradBlock, sradBytes), iters, nil
}

// Where a srad access lands, relative to the wavefront's block.
const (
	sradNorth  = iota // the row above the block
	sradSouth         // the row below the block
	sradTop           // the image's first row
	sradBottom        // the image's last row
	sradWest          // the element before each row of the block
	sradEast          // the element after each row of the block
	sradLeft          // the image's first column
	sradRight         // the image's last column
	sradOwn           // the block's own pixels
)

// sradOp is one instruction: where, in which array, load or store.
type sradOp struct {
	base  uint64
	where int
	write bool
}

// Setup implements Workload.
func (SRAD) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, iters, err := SRADShape(p)
	if err != nil {
		return nil, err
	}
	bytes := uint64(n) * uint64(n) * benchmarks.FloatBytes
	var a [6]uint64 // C, E, W, S, N, J
	for i, name := range []string{"C_cuda", "E_C", "W_C", "S_C", "N_C", "J_shared"} {
		if a[i], err = alloc.MallocManaged(bytes, name); err != nil {
			return nil, err
		}
	}
	id := benchmarks.LastObjects(alloc, 6)
	args := []int{id[1], id[2], id[4], id[3], id[5], id[0]} // E_C, W_C, N_C, S_C, J, C
	g := n / sradBlock
	kernel := func(name string, ops func(bx, by int) []sradOp, compute int) benchmarks.Kernel {
		return benchmarks.Kernel{Name: name, Args: args, Workgroups: g * g, WavefrontsPerWorkgroup: sradBlock * sradBlock / benchmarks.WavefrontSize,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				bx, by := wg%g, wg/g
				list := ops(bx, by)
				return &benchmarks.Loop{N: len(list), Gen: func(k int, in *benchmarks.Instruction) {
					in.Compute = benchmarks.LoadCycles
					switch {
					case k == 0:
						in.Compute = benchmarks.IndexCycles
					case list[k].write && !list[k-1].write:
						in.Compute = compute
					}
					in.Write = list[k].write
					sradFill(in, list[k], n, bx, by, wf)
				}}
			}}
	}
	ks := make([]benchmarks.Kernel, 0, 2*iters)
	for range iters {
		ks = append(ks,
			kernel("srad_cuda_1", func(bx, by int) []sradOp { return srad1Ops(a, g, bx, by) }, sradCoefCycles),
			kernel("srad_cuda_2", func(bx, by int) []sradOp { return srad2Ops(a, g, bx, by) }, sradSumCycles))
	}
	return ks, nil
}

// srad1Ops lists srad_cuda_1's instructions for block (bx, by) of a g x g
// grid; a holds C, E, W, S, N, J.
func srad1Ops(a [6]uint64, g, bx, by int) []sradOp {
	j := a[5]
	ops := make([]sradOp, 0, 12)
	if by > 0 {
		ops = append(ops, sradOp{j, sradNorth, false})
	}
	if by < g-1 {
		ops = append(ops, sradOp{j, sradSouth, false})
	}
	switch {
	case by == 0:
		ops = append(ops, sradOp{j, sradTop, false})
	case by == g-1:
		ops = append(ops, sradOp{j, sradBottom, false})
	}
	ops = append(ops, sradOp{j, sradWest, false}, sradOp{j, sradEast, false})
	switch {
	case bx == 0:
		ops = append(ops, sradOp{j, sradLeft, false})
	case bx == g-1:
		ops = append(ops, sradOp{j, sradRight, false})
	}
	ops = append(ops, sradOp{j, sradOwn, false})
	for _, i := range []int{0, 1, 2, 3, 4} { // C, E, W, S, N
		ops = append(ops, sradOp{a[i], sradOwn, true})
	}
	return ops
}

// srad2Ops lists srad_cuda_2's instructions for block (bx, by).
func srad2Ops(a [6]uint64, g, bx, by int) []sradOp {
	c, j := a[0], a[5]
	ops := make([]sradOp, 0, 11)
	ops = append(ops, sradOp{j, sradOwn, false})
	if by < g-1 { // the last block row's south row lies past C
		ops = append(ops, sradOp{c, sradSouth, false})
	} else {
		ops = append(ops, sradOp{c, sradBottom, false})
	}
	ops = append(ops, sradOp{c, sradEast, false})
	if bx == g-1 {
		ops = append(ops, sradOp{c, sradRight, false})
	}
	for _, i := range []int{0, 4, 3, 2, 1} { // C, N, S, W, E
		ops = append(ops, sradOp{a[i], sradOwn, false})
	}
	return append(ops, sradOp{j, sradOwn, true})
}

// sradFill adds the lanes of op for wavefront wf of block (bx, by) of an
// n x n image, dropping indices outside the image.
func sradFill(in *benchmarks.Instruction, op sradOp, n, bx, by, wf int) {
	col0 := sradBlock * bx
	for r := 0; r < sradRows; r++ {
		row := sradBlock*by + sradRows*wf + r
		for tx := 0; tx < sradBlock; tx++ {
			var i int
			switch op.where {
			case sradNorth:
				i = (sradBlock*by-1)*n + col0 + tx
			case sradSouth:
				i = (sradBlock*by+sradBlock)*n + col0 + tx
			case sradTop:
				i = col0 + tx
			case sradBottom:
				i = (n-1)*n + col0 + tx
			case sradWest:
				i = row*n + col0 - 1
			case sradEast:
				i = row*n + col0 + sradBlock
			case sradLeft:
				i = row * n
			case sradRight:
				i = row*n + n - 1
			default:
				i = row*n + col0 + tx
			}
			if i >= 0 && i < n*n {
				benchmarks.AddLane(in, benchmarks.Elem(op.base, i, benchmarks.FloatBytes))
			}
		}
	}
}
