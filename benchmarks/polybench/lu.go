package polybench

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

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

// LUSize is lu's scale-1 footprint: its reference footprint over
// LinalgScales.
var LUSize = benchmarks.LinalgSize("lu")

func init() {
	benchmarks.Register("lu", func() benchmarks.Workload { return LU{} })
}

// Info implements Workload.
func (LU) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:              "lu",
		Description:       "PolyBench/GPU lu (ObservUVM LU): in-place LU, a row kernel and a trailing-update kernel per step, 16 of the n steps by default",
		Suite:             benchmarks.SuitePolyBench,
		Aliases:           []string{"LU"},
		Class:             benchmarks.ClassRegular,
		PaperSize:         LUSize,
		PreferredEviction: benchmarks.ObservUVMLFU,
	}
}

// LUShape returns the matrix side and the pivot steps lu runs for p.
func LUShape(p benchmarks.Params) (n int, steps []int, err error) {
	n, err = benchmarks.LinalgSide(LUSize, p, convBlockX, squareBytes(1))
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
func (LU) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, steps, err := LUShape(p)
	if err != nil {
		return nil, err
	}
	a, err := alloc.MallocManaged(uint64(n)*uint64(n)*benchmarks.FloatBytes, "A")
	if err != nil {
		return nil, err
	}
	args := benchmarks.LastObjects(alloc, 1)
	var ks []benchmarks.Kernel
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
func luKernel1(args []int, a uint64, n, k int) benchmarks.Kernel {
	return benchmarks.Kernel{
		Name: "lu_kernel1", Args: args,
		Workgroups: benchmarks.CeilDiv(n-k-1, luBlock1), WavefrontsPerWorkgroup: luBlock1 / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			j0 := k + 1 + wg*luBlock1 + wf*benchmarks.WavefrontSize
			if j0 >= n {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: 3, Gen: func(i int, in *benchmarks.Instruction) {
				switch i {
				case 0:
					in.Compute = benchmarks.IndexCycles
					benchmarks.AddBlock(in, a, n, k, 1, n, j0, benchmarks.WavefrontSize, n)
				case 1:
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddLane(in, benchmarks.Elem(a, k*n+k, benchmarks.FloatBytes))
				default:
					in.Compute = benchmarks.FMACycles
					in.Write = true
					benchmarks.AddBlock(in, a, n, k, 1, n, j0, benchmarks.WavefrontSize, n)
				}
			}}
		},
	}
}

// luKernel2 updates the trailing matrix, A[i][j] -= A[i][k] A[k][j].
func luKernel2(args []int, a uint64, n, k int) benchmarks.Kernel {
	m := n - k - 1
	gx := benchmarks.CeilDiv(m, convBlockX)
	return benchmarks.Kernel{
		Name: "lu_kernel2", Args: args,
		Workgroups: gx * benchmarks.CeilDiv(m, convBlockY), WavefrontsPerWorkgroup: convBlockX * convBlockY / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			i0, j0 := polyWave(wg, wf, gx)
			i0, j0 = i0+k+1, j0+k+1
			if i0 >= n || j0 >= n {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: 4, Gen: func(x int, in *benchmarks.Instruction) {
				switch x {
				case 0: // A[i][j]
					in.Compute = benchmarks.IndexCycles
					benchmarks.AddBlock(in, a, n, i0, convRows, n, j0, convBlockX, n)
				case 1: // A[i][k]
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddBlock(in, a, n, i0, convRows, n, k, 1, n)
				case 2: // A[k][j]
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddBlock(in, a, n, k, 1, n, j0, convBlockX, n)
				default:
					in.Compute = benchmarks.FMACycles
					in.Write = true
					benchmarks.AddBlock(in, a, n, i0, convRows, n, j0, convBlockX, n)
				}
			}}
		},
	}
}
