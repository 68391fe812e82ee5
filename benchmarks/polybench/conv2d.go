package polybench

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Convolution2D is PolyBench/GPU's 2DCONV (Convolution2D_kernel) as
// UVMSmart ports it and Early-Adaptor runs it: B = a 3x3 convolution of A.
//
// Shape: square float32 matrices of side n (NI = NJ), a multiple of 32,
// whose two arrays come closest to the footprint (Conv2DSize times
// Params.Scale): n = 5888 at scale 1 (264.5 MB), 33280 at scale 32 (EA's
// 8445 MB). UVMSmart's own input, n = 1024, is scale 0.03.
//
// Objects, in allocation (ID) order:
//
//	0 "A" n*n float32, read only
//	1 "B" n*n float32, write only (its border is never written)
//
// One kernel, Convolution2D_kernel: a grid of (n/32) x (n/8) blocks of
// 32x8 threads (DIM_THREAD_BLOCK_X, _Y), workgroup wg = by*(n/32) + bx
// (x fastest). Thread (tx, ty) computes B[i][j], i = 8*by + ty, j = 32*bx
// + tx, when 0 < i < n-1 and 0 < j < n-1. Wavefront wf holds block rows
// 2wf and 2wf+1 (lane 32*(ty-2wf) + tx) and issues 10 instructions:
//
//  1. nine loads of A[i+di][j+dj], in the kernel's order (di, then dj,
//     from -1 to 1): each two rows of 32 consecutive floats;
//  2. the store of B[i][j].
//
// That is n*n/64 wavefronts x 10 = 5.4M instructions at scale 1.
//
// Class: regular (Early-Adaptor Table II).
//
// Access facts: A and B Analysable (SUV's Table I: D for 2DC). Their
// addresses are affine in the thread and block indices, with no host loop.
// Accesses follow the border check, which depends on the indices only:
// (n-2)^2 threads pass it, so A has 9(n-2)^2 and B (n-2)^2. One block's
// range: A rows 8by-1 .. 8by+8 and columns 32bx-1 .. 32bx+32, which is
// 9n+34 floats. B covers 7n+32.
type Convolution2D struct{}

const (
	// convBlockX and convBlockY are PolyBench's DIM_THREAD_BLOCK_X, _Y.
	convBlockX = 32
	convBlockY = 8
	// convRows is the block rows one wavefront holds.
	convRows = benchmarks.WavefrontSize / convBlockX
	// convFMACycles is the nine multiply-adds before the store.
	convFMACycles = 9 * 4
)

// Conv2DSize is 2dconv's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var Conv2DSize = benchmarks.EASize("2dconv")

func init() {
	benchmarks.Register("2dconv", func() benchmarks.Workload { return Convolution2D{} })
}

// Info implements Workload.
func (Convolution2D) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:              "2dconv",
		Description:       "PolyBench/GPU 2DCONV: 3x3 convolution of an n x n matrix, 32x8 blocks, one kernel",
		Suite:             benchmarks.SuitePolyBench,
		Aliases:           []string{"2DC"},
		Class:             benchmarks.ClassRegular,
		PaperSize:         Conv2DSize,
		PreferredEviction: benchmarks.ObservUVMCP,
		DeclaresAccess:    true,
	}
}

// Conv2DSide returns the matrix side 2dconv uses for p.
func Conv2DSide(p benchmarks.Params) (int, error) {
	fp, err := Conv2DSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	return benchmarks.FitSide(fp, convBlockX, func(n int) uint64 { return 2 * benchmarks.FloatBytes * uint64(n) * uint64(n) }), nil
}

// Setup implements Workload.
func (Convolution2D) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := Conv2DSide(p)
	if err != nil {
		return nil, err
	}
	bytes := uint64(n) * uint64(n) * benchmarks.FloatBytes
	a, err := alloc.MallocManaged(bytes, "A")
	if err != nil {
		return nil, err
	}
	b := alloc.MustMalloc(bytes, "B")
	gx := n / convBlockX
	ids := benchmarks.LastObjects(alloc, 2)
	nn, inner := int64(n), int64(n-2)*int64(n-2)
	ks := []benchmarks.Kernel{{
		Name: "Convolution2D_kernel", Args: ids,
		Access: []benchmarks.Access{
			benchmarks.AnalysableAccess(ids[0], 9*inner, benchmarks.FloatSpan(-nn-1, 8*nn+convBlockX)),
			benchmarks.AnalysableAccess(ids[1], inner, benchmarks.FloatSpan(0, 7*nn+convBlockX-1)),
		},
		Workgroups: gx * (n / convBlockY), WavefrontsPerWorkgroup: convBlockX * convBlockY / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			i0 := wg/gx*convBlockY + wf*convRows
			j0 := wg % gx * convBlockX
			return &benchmarks.Loop{N: 10, Gen: func(k int, in *benchmarks.Instruction) {
				base, di, dj := a, k/3-1, k%3-1
				switch {
				case k == 0:
					in.Compute = benchmarks.IndexCycles
				case k < 9:
					in.Compute = benchmarks.LoadCycles
				default:
					base, di, dj = b, 0, 0
					in.Compute = convFMACycles
					in.Write = true
				}
				for r := 0; r < convRows; r++ {
					i := i0 + r
					for c := 0; c < convBlockX; c++ {
						if j := j0 + c; i > 0 && i < n-1 && j > 0 && j < n-1 {
							benchmarks.AddLane(in, benchmarks.Elem(base, (i+di)*n+j+dj, benchmarks.FloatBytes))
						}
					}
				}
			}}
		},
	}}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}
