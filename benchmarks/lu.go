package benchmarks

import "github.com/mgpu-sim/mgpu/objtable"

// LU is PolyBench/GPU's LU decomposition (lu.cu: lu_kernel1 and
// lu_kernel2, one launch pair per pivot step k) as ObservUVM's LU, in
// place on one matrix.
//
// Shape: a square float32 matrix of side n, a multiple of 32, coming
// closest to the footprint (LUSize times Params.Scale): n = 7104 at scale
// 1 (192.5 MiB of 192), scale 64 is ObservUVM's 12.0 GB (n = 56768).
//
// Objects: 0 "A" n*n float32, read and written.
//
// Step k launches, over the trailing matrix rows and columns k+1 .. n-1:
//
//   - lu_kernel1: ceil((n-k-1)/256) blocks of 256 threads, thread t for
//     column j = k+1+t: the load of A[k][j] (64 consecutive floats), of
//     the pivot A[k][k] (one address), the store of A[k][j]: 3
//     instructions a wavefront;
//   - lu_kernel2: ceil((n-k-1)/32) x ceil((n-k-1)/8) blocks of 32x8
//     threads, thread (tx, ty) for i = k+1+8by+ty, j = k+1+32bx+tx, mapped
//     as gemm's (see GEMM): the load of A[i][j] (two rows of 32), A[i][k]
//     (two addresses, one per row) and A[k][j] (32 consecutive), the store
//     of A[i][j]: 4 instructions a wavefront.
//
// Lanes past n drop out; a wavefront with none left issues one
// compute-only instruction. The indices are offset by k+1 as in the
// corrected lu.cu of later PolyBench/GPU copies; the 1.0 release sizes the
// grid to the trailing matrix but does not offset the indices, so it
// updates only rows and columns k+1 to about n-k-1, and its launches past
// k = n/2 do nothing.
//
// Launch cap: the n steps of a full decomposition (2n launches, n^3/48
// instructions, 7.5G at scale 1) are too many to simulate, so the model
// runs K steps spread evenly over the decomposition, k = floor(s*n/K) for
// s = 0 .. K-1, each step's two kernels exact. K is 16 by default,
// Params.Iterations sets it, and K >= n runs every step (skipping the
// final step's empty launches, which CUDA rejects). The trailing matrix
// shrinks from n to about n/K across the run. At scale 1 that is 32
// launches and 18.5M instructions. ObservUVM prefers LFU.
//
// Class: regular, assigned here from the access pattern (dense trailing
// tiles); Early-Adaptor does not run it.
type LU struct{}

const (
	// luSteps is the default number of pivot steps run.
	luSteps = 16
	// luBlock1 is DIM_THREAD_BLOCK_KERNEL_1_X.
	luBlock1 = 256
)

func init() {
	Register("lu", func() Workload { return LU{} })
}

// Info implements Workload.
func (LU) Info() Info {
	return Info{
		Name:              "lu",
		Description:       "PolyBench/GPU lu (ObservUVM LU): in-place LU, a row kernel and a trailing-update kernel per step, 16 of the n steps by default",
		Suite:             SuitePolyBench,
		Aliases:           []string{"LU"},
		Class:             ClassRegular,
		PaperSize:         LUSize,
		PreferredEviction: observUVMLFU,
	}
}

// LUShape returns the matrix side and the pivot steps lu runs for p.
func LUShape(p Params) (n int, steps []int, err error) {
	n, err = linalgSide(LUSize, p, convBlockX, squareBytes(1))
	if err != nil {
		return 0, nil, err
	}
	k := luSteps
	if p.Iterations > 0 {
		k = p.Iterations
	}
	k = min(k, n)
	for s := 0; s < k; s++ {
		steps = append(steps, s*n/k)
	}
	return n, steps, nil
}

// Setup implements Workload.
func (LU) Setup(alloc *objtable.Allocator, p Params) ([]Kernel, error) {
	n, steps, err := LUShape(p)
	if err != nil {
		return nil, err
	}
	a, err := alloc.MallocManaged(uint64(n)*uint64(n)*floatBytes, "A")
	if err != nil {
		return nil, err
	}
	args := lastObjects(alloc, 1)
	var ks []Kernel
	for _, k := range steps {
		m := n - k - 1 // the trailing rows and columns
		if m == 0 {
			continue
		}
		ks = append(ks, luKernel1(args, a, n, k), luKernel2(args, a, n, k))
	}
	return ks, nil
}

// luKernel1 divides row k right of the pivot by the pivot.
func luKernel1(args []int, a uint64, n, k int) Kernel {
	return Kernel{
		Name: "lu_kernel1", Args: args,
		Workgroups: ceilDiv(n-k-1, luBlock1), WavefrontsPerWorkgroup: luBlock1 / WavefrontSize,
		Wavefront: func(wg, wf, _ int) Stream {
			j0 := k + 1 + wg*luBlock1 + wf*WavefrontSize
			if j0 >= n {
				return idleStream()
			}
			return &Loop{N: 3, Gen: func(i int, in *Instruction) {
				switch i {
				case 0:
					in.Compute = indexCycles
					addBlock(in, a, n, k, 1, n, j0, WavefrontSize, n)
				case 1:
					in.Compute = loadCycles
					addLane(in, elem(a, k*n+k, floatBytes))
				default:
					in.Compute = mvFMACycles
					in.Write = true
					addBlock(in, a, n, k, 1, n, j0, WavefrontSize, n)
				}
			}}
		},
	}
}

// luKernel2 updates the trailing matrix, A[i][j] -= A[i][k] A[k][j].
func luKernel2(args []int, a uint64, n, k int) Kernel {
	m := n - k - 1
	gx := ceilDiv(m, convBlockX)
	return Kernel{
		Name: "lu_kernel2", Args: args,
		Workgroups: gx * ceilDiv(m, convBlockY), WavefrontsPerWorkgroup: convBlockX * convBlockY / WavefrontSize,
		Wavefront: func(wg, wf, _ int) Stream {
			i0, j0 := polyWave(wg, wf, gx)
			i0, j0 = i0+k+1, j0+k+1
			if i0 >= n || j0 >= n {
				return idleStream()
			}
			return &Loop{N: 4, Gen: func(x int, in *Instruction) {
				switch x {
				case 0: // A[i][j]
					in.Compute = indexCycles
					addBlock(in, a, n, i0, convRows, n, j0, convBlockX, n)
				case 1: // A[i][k]
					in.Compute = loadCycles
					addBlock(in, a, n, i0, convRows, n, k, 1, n)
				case 2: // A[k][j]
					in.Compute = loadCycles
					addBlock(in, a, n, k, 1, n, j0, convBlockX, n)
				default:
					in.Compute = mvFMACycles
					in.Write = true
					addBlock(in, a, n, i0, convRows, n, j0, convBlockX, n)
				}
			}}
		},
	}
}
