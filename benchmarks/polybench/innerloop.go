package polybench

import "github.com/mgpu-sim/mgpu/benchmarks"

// squareBytes is the footprint of k float32 n x n matrices.
func squareBytes(k int) func(n int) uint64 {
	return func(n int) uint64 { return uint64(k) * benchmarks.FloatBytes * uint64(n) * uint64(n) }
}

// polyWave is the first thread row and column of wavefront wf of
// workgroup wg in a PolyBench 2-D launch of 32x8 blocks (convBlockX x
// convBlockY) over a grid gx blocks wide, x fastest: the wavefront holds
// rows i0 and i0+1, columns j0 .. j0+31.
func polyWave(wg, wf, gx int) (i0, j0 int) {
	return wg/gx*convBlockY + wf*convRows, wg % gx * convBlockX
}

// Operand shapes of the inner loop of a PolyBench 2-D kernel, for the
// thread computing [i][j] at step k.
const (
	atIK = iota // element [i][k]: one lane per thread row (2 per wavefront)
	atJK        // element [j][k]: one lane per column, each on its own row
	atKJ        // element [k][j]: a row of consecutive floats
)

// kAccess is one load of the inner loop: element [·][·] (see atIK) of the
// row-major float32 matrix at base with row pitch pitch.
type kAccess struct {
	base  uint64
	pitch int
	at    int
}

// innerLoop is a PolyBench 2-D kernel over an ni x nj output c (row pitch
// nj) whose thread (i, j) first loads c[i][j] (or stores 0 to it when
// zero), then for k in 0 .. nk-1 issues loads, then stores c[i][j]: gemm,
// syrk, syr2k, doitgen_kernel1.
type innerLoop struct {
	c          uint64
	ni, nj, nk int
	zero       bool
	loads      []kAccess
}

// innerInstructions is the length of a wavefront of l.
func (l innerLoop) innerInstructions() int { return 2 + l.nk*len(l.loads) }

// kernel is the launch of l: a grid of ceil(nj/32) x ceil(ni/8) blocks of
// 32x8 threads (polyWave).
//
// Without __restrict__ the compiled kernels reload and re-store c[i][j]
// in every iteration, since a store might alias the operands; those
// accesses hit one line per wavefront and touch no new page, so, as atax
// does, the model keeps the sum in a register (load or zero before the
// loop, store after).
func (l innerLoop) kernel(name string, args []int) benchmarks.Kernel {
	gx := benchmarks.CeilDiv(l.nj, convBlockX)
	last := l.innerInstructions() - 1
	per := len(l.loads)
	return benchmarks.Kernel{
		Name: name, Args: args,
		Workgroups: gx * benchmarks.CeilDiv(l.ni, convBlockY), WavefrontsPerWorkgroup: convBlockX * convBlockY / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			i0, j0 := polyWave(wg, wf, gx)
			if i0 >= l.ni || j0 >= l.nj {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: last + 1, Gen: func(x int, in *benchmarks.Instruction) {
				switch {
				case x == 0 || x == last:
					in.Compute = benchmarks.IndexCycles
					if x == last {
						in.Compute = benchmarks.FMACycles
					}
					in.Write = x == last || l.zero
					benchmarks.AddBlock(in, l.c, l.nj, i0, convRows, l.ni, j0, convBlockX, l.nj)
				default:
					k, op := (x-1)/per, (x-1)%per
					in.Compute = benchmarks.LoadCycles
					if op == 0 && k > 0 {
						in.Compute = benchmarks.FMACycles
					}
					acc := l.loads[op]
					switch acc.at {
					case atIK:
						benchmarks.AddBlock(in, acc.base, acc.pitch, i0, convRows, l.ni, k, 1, l.nk)
					case atJK:
						benchmarks.AddBlock(in, acc.base, acc.pitch, j0, convBlockX, l.nj, k, 1, l.nk)
					default:
						benchmarks.AddBlock(in, acc.base, acc.pitch, k, 1, l.nk, j0, convBlockX, l.nj)
					}
				}
			}}
		},
	}
}
