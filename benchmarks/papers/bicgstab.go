package papers

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// BiCGStab is SUV's BCG (a "BiCGStab kernel" from PolyBench): a dense
// BiCGStab solver of A x = b. PolyBench's own bicg (the BiCG sub-kernel,
// s = A^T r and q = A p) is `bicg`; SUV's program is not at hand, so this
// is a model written here: unpreconditioned BiCGStab with one CUDA
// kernel per step, the matrix-vector products PolyBench's row-per-thread
// kernel (bicg_kernel2's pattern), the dot products block reductions with
// one atomic add a block.
//
// Shape: a square float32 matrix of side n, a multiple of 64, plus eight
// vectors of n floats and four dot-product scalars, coming closest to the
// footprint (BiCGStabSize times Params.Scale): n = 8192 at scale 1 (256.3
// MiB of 256), scale 16 is SUV's 4096 MB (n = 32768).
//
// Objects, in allocation (ID) order:
//
//	0 "A"     n*n float32, read only
//	1 "b"     n float32, read only
//	2 "x"     n float32, the solution
//	3 "r"     n float32, the residual
//	4 "r_hat" n float32, the shadow residual, read only after set-up
//	5 "p"     n float32
//	6 "v"     n float32, A p
//	7 "s"     n float32
//	8 "t"     n float32, A s
//	9 "dots"  4 float32: (r_hat, r), (r_hat, v), (t, s), (t, t)
//
// All kernels are 1-D launches of ceil(n/256) blocks of 256 threads,
// thread i on element i (a wavefront with no thread below n issues one
// compute-only instruction). Set-up launches bicgstab_residual once:
// thread i loads b[i], then for each j A[i][j] (64 addresses a row apart)
// and x[j] (one address), then stores r[i] and r_hat[i]: 2n + 3
// instructions. Each iteration then launches eight kernels:
//
//  1. bicgstab_dot (r_hat, r, dots): loads r_hat[i], r[i]; wavefront 0 of
//     each block, after the block's tree reduction, adds the block's sum
//     to dots[0] (an atomic, modelled as a one-lane write);
//  2. bicgstab_update_p (r, p, v): p = r + beta (p - omega v): loads r, p,
//     v, stores p;
//  3. bicgstab_matvec (A, p, v): v[i] = 0 stored, for each j A[i][j] and
//     p[j], v[i] stored: 2n + 2 instructions;
//  4. bicgstab_dot (r_hat, v, dots): into dots[1];
//  5. bicgstab_update_s (r, v, s): s = r - alpha v;
//  6. bicgstab_matvec (A, s, t): t = A s;
//  7. bicgstab_dot2 (t, s, dots): loads t, s; adds into dots[2] and dots[3];
//  8. bicgstab_update_xr (x, p, s, t, r): x += alpha p + omega s, then
//     r = s - omega t: loads x, p, s, stores x, loads t, stores r.
//
// The host reads the dot products between launches to form alpha, beta
// and omega and passes them as kernel arguments; that host access, and
// the zeroing of dots, p and v, are not modelled. BiCGStab iterates until
// the residual is small, a count that depends on the matrix (SUV does not
// give it); the model runs 2 iterations by default, Params.Iterations sets
// the count. That is 17 launches and 10.5M instructions at scale 1, nearly
// all in the matrix-vector products. Every iteration repeats the same
// accesses, so the figures' ratios do not depend on the count: on the RTX
// 3090 preset, UVM at 50% over UVM at 0% is 1.421 at 2 iterations and
// 1.422 at 4, SUV over UVM at 50% 0.702 and 0.701; 4 iterations made
// bicgstab half of suv-fig5's wall time. The sums stay in registers, as in
// atax.
//
// Class: irregular, assigned here from the access pattern (the
// matrix-vector products walk 64 rows an instruction, as bicg_kernel2,
// which Early-Adaptor classes irregular); Early-Adaptor does not run it.
//
// Access facts: every object is Analysable in every launch (SUV's Table I
// types BCG density). The host loop passes alpha, beta and omega as
// values, and the dots slots are constants, so no address depends on the
// iteration. Accesses count threads: the n that pass i < n (n is a
// multiple of 64, so a wavefront's threads are all in range or all out).
// Each vector operand of an elementwise or dot kernel is n accesses, its
// range a block's 256 floats. In a matrix-vector product, A is n^2
// accesses over 256 rows (256n floats), and the vector read at j is n^2
// over all n: every thread loads vec[j], though the stream has one lane
// per wavefront and j, so 64 threads a lane. A dot's slot is one access
// per block, by its thread 0.
type BiCGStab struct{}

const (
	// bcgIterations is the default iteration count.
	bcgIterations = 2
	// bcgDots is the number of dot-product scalars.
	bcgDots = 4
	// bcgReduceCycles is a 256-thread tree reduction in shared memory:
	// eight steps, each behind a __syncthreads.
	bcgReduceCycles = 8 * benchmarks.SyncCycles
)

// BiCGStabSize is bicgstab's scale-1 footprint: its reference footprint over
// LinalgScales.
var BiCGStabSize = benchmarks.LinalgSize("bicgstab")

func init() {
	benchmarks.Register("bicgstab", func() benchmarks.Workload { return BiCGStab{} })
}

// Info implements Workload.
func (BiCGStab) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "bicgstab",
		Description: "dense BiCGStab (SUV BCG): 2 row-per-thread matrix-vector products, 3 dot products, 3 updates an iteration",
		// SUV attributes BCG to PolyBench, whose GPU suite has no
		// BiCGStab: the program is SUV's.
		Suite:          "SUV",
		Aliases:        []string{"BCG"},
		Class:          benchmarks.ClassIrregular,
		PaperSize:      BiCGStabSize,
		DeclaresAccess: true,
	}
}

// BiCGStabShape returns the matrix side and the iteration count bicgstab
// uses for p.
func BiCGStabShape(p benchmarks.Params) (n, iters int, err error) {
	iters = bcgIterations
	if p.Iterations > 0 {
		iters = p.Iterations
	}
	n, err = benchmarks.LinalgSide(BiCGStabSize, p, benchmarks.WavefrontSize, func(n int) uint64 {
		return benchmarks.FloatBytes * (uint64(n)*uint64(n) + 8*uint64(n) + bcgDots)
	})
	return n, iters, err
}

// Setup implements Workload.
func (BiCGStab) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, iters, err := BiCGStabShape(p)
	if err != nil {
		return nil, err
	}
	vec := uint64(n) * benchmarks.FloatBytes
	a, err := alloc.MallocManaged(vec*uint64(n), "A")
	if err != nil {
		return nil, err
	}
	var v [8]uint64 // b, x, r, r_hat, p, v, s, t
	for i, name := range []string{"b", "x", "r", "r_hat", "p", "v", "s", "t"} {
		v[i] = alloc.MustMalloc(vec, name)
	}
	dots := alloc.MustMalloc(bcgDots*benchmarks.FloatBytes, "dots")
	id := benchmarks.LastObjects(alloc, 10)
	const (
		iA = iota
		ib
		ix
		ir
		irh
		ip
		iv
		is
		it
		idots
	)
	addr := func(i int) uint64 { return v[i-1] }
	load := func(i int) vecOp { return vecOp{base: addr(i)} }
	store := func(i int) vecOp { return vecOp{base: addr(i), write: true} }
	args := func(objs ...int) []int {
		out := make([]int, len(objs))
		for k, o := range objs {
			out[k] = id[o]
		}
		return out
	}
	ks := []benchmarks.Kernel{rowMatvec{a: a, vec: addr(ix), n: n,
		pre: []vecOp{load(ib)}, post: []vecOp{store(ir), store(irh)}}.kernel("bicgstab_residual", args(iA, ib, ix, ir, irh))}
	for range iters {
		ks = append(ks,
			dotKernel("bicgstab_dot", args(irh, ir, idots), n, addr(irh), addr(ir), dots, 0),
			vecKernel("bicgstab_update_p", args(ir, ip, iv), n, []vecOp{load(ir), load(ip), load(iv), store(ip)}),
			rowMatvec{a: a, vec: addr(ip), n: n, pre: []vecOp{store(iv)}, post: []vecOp{store(iv)}}.kernel("bicgstab_matvec", args(iA, ip, iv)),
			dotKernel("bicgstab_dot", args(irh, iv, idots), n, addr(irh), addr(iv), dots, 1),
			vecKernel("bicgstab_update_s", args(ir, iv, is), n, []vecOp{load(ir), load(iv), store(is)}),
			rowMatvec{a: a, vec: addr(is), n: n, pre: []vecOp{store(it)}, post: []vecOp{store(it)}}.kernel("bicgstab_matvec", args(iA, is, it)),
			dotKernel("bicgstab_dot2", args(it, is, idots), n, addr(it), addr(is), dots, 2, 3),
			vecKernel("bicgstab_update_xr", args(ix, ip, is, it, ir), n,
				[]vecOp{load(ix), load(ip), load(is), store(ix), load(it), store(ir)}),
		)
	}
	bcgAccess(ks, n, id)
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}

// bcgAccess declares the accesses of bicgstab's launches ks, from each
// kernel's name and arguments (in Setup's order); id are the objects A,
// b, x, r, r_hat, p, v, s, t, dots.
func bcgAccess(ks []benchmarks.Kernel, n int, id []int) {
	nn := int64(n)
	blocks := int64(benchmarks.CeilDiv(n, benchmarks.VecBlock))
	for i := range ks {
		k := &ks[i]
		acc := map[int]int64{}
		rng := map[int]int64{}
		for _, o := range k.Args {
			acc[o], rng[o] = nn, benchmarks.FloatSpan(0, benchmarks.VecBlock-1) // one access by each thread
		}
		switch k.Name {
		case "bicgstab_residual", "bicgstab_matvec":
			// Args: A, the vector multiplied (x in the residual, whose
			// Args are A, b, x, r, r_hat), then the vectors of element i.
			mul := k.Args[1]
			if k.Name == "bicgstab_residual" {
				mul = k.Args[2]
			} else {
				acc[k.Args[2]] = 2 * nn // v or t: stored before and after the loop
			}
			acc[id[0]], rng[id[0]] = nn*nn, benchmarks.FloatSpan(0, benchmarks.VecBlock*nn-1)
			acc[mul], rng[mul] = nn*nn, benchmarks.FloatSpan(0, nn-1) // all n threads, n each: a broadcast
		case "bicgstab_dot", "bicgstab_dot2":
			slots := int64(1)
			if k.Name == "bicgstab_dot2" {
				slots = 2 // dots[2] and dots[3]
			}
			acc[id[9]], rng[id[9]] = slots*blocks, benchmarks.FloatSpan(0, slots-1)
		case "bicgstab_update_p":
			acc[id[5]] = 2 * nn // p: load and store
		case "bicgstab_update_xr":
			acc[id[2]] = 2 * nn // x: load and store
		}
		for _, o := range k.Args {
			k.Access = append(k.Access, benchmarks.AnalysableAccess(o, acc[o], rng[o]))
		}
	}
}

// rowMatvec is a row-per-thread matrix-vector kernel over the n x n
// matrix a: thread i issues pre on element i, then for each j the load of
// a[i][j] (64 addresses a row apart) and of vec[j] (one address), then
// post on element i.
type rowMatvec struct {
	a, vec    uint64
	n         int
	pre, post []vecOp
}

func (m rowMatvec) kernel(name string, args []int) benchmarks.Kernel {
	n, loop := m.n, len(m.pre)
	tail := loop + 2*m.n
	return benchmarks.Kernel{
		Name: name, Args: args,
		Workgroups: benchmarks.CeilDiv(n, benchmarks.VecBlock), WavefrontsPerWorkgroup: benchmarks.VecBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			t0 := wg*benchmarks.VecBlock + wf*benchmarks.WavefrontSize
			if t0 >= n {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: tail + len(m.post), Gen: func(x int, in *benchmarks.Instruction) {
				switch {
				case x < loop || x >= tail:
					op := vecOp{}
					if x < loop {
						op = m.pre[x]
						in.Compute = benchmarks.LoadCycles
						if x == 0 {
							in.Compute = benchmarks.IndexCycles
						}
					} else {
						op = m.post[x-tail]
						in.Compute = benchmarks.FMACycles
					}
					in.Write = op.write
					benchmarks.AddBlock(in, op.base, 0, 0, 1, 1, t0, benchmarks.WavefrontSize, n)
				case (x-loop)%2 == 0: // a[i][j]
					in.Compute = benchmarks.FMACycles
					benchmarks.AddBlock(in, m.a, n, t0, benchmarks.WavefrontSize, n, (x-loop)/2, 1, n)
				default: // vec[j]
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddLane(in, benchmarks.Elem(m.vec, (x-loop)/2, benchmarks.FloatBytes))
				}
			}}
		},
	}
}

// dotKernel is a dot-product launch: thread i loads x[i] and y[i]; after
// the block's reduction, wavefront 0 adds the block's sums into the
// scalars slots of dots.
func dotKernel(name string, args []int, n int, x, y, dots uint64, slots ...int) benchmarks.Kernel {
	return benchmarks.Kernel{
		Name: name, Args: args,
		Workgroups: benchmarks.CeilDiv(n, benchmarks.VecBlock), WavefrontsPerWorkgroup: benchmarks.VecBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			t0 := wg*benchmarks.VecBlock + wf*benchmarks.WavefrontSize
			if t0 >= n {
				return benchmarks.IdleStream()
			}
			k := 2
			if wf == 0 {
				k += len(slots)
			}
			return &benchmarks.Loop{N: k, Gen: func(i int, in *benchmarks.Instruction) {
				switch i {
				case 0:
					in.Compute = benchmarks.IndexCycles
					benchmarks.AddBlock(in, x, 0, 0, 1, 1, t0, benchmarks.WavefrontSize, n)
				case 1:
					in.Compute = benchmarks.LoadCycles
					benchmarks.AddBlock(in, y, 0, 0, 1, 1, t0, benchmarks.WavefrontSize, n)
				default:
					in.Compute = benchmarks.FMACycles
					if i == 2 {
						in.Compute = bcgReduceCycles
					}
					in.Write = true
					benchmarks.AddLane(in, benchmarks.Elem(dots, slots[i-2], benchmarks.FloatBytes))
				}
			}}
		},
	}
}

// vecOp is one access of a 1-D elementwise kernel: thread t reads or
// writes element t of the float32 array at base.
type vecOp struct {
	base  uint64
	write bool
}

// vecKernel is a 1-D launch of ceil(n/256) blocks of 256 threads in which
// thread t < n issues ops in order, each on element t; a wavefront with
// no thread below n issues one compute-only instruction.
func vecKernel(name string, args []int, n int, ops []vecOp) benchmarks.Kernel {
	return benchmarks.Kernel{
		Name: name, Args: args,
		Workgroups: benchmarks.CeilDiv(n, benchmarks.VecBlock), WavefrontsPerWorkgroup: benchmarks.VecBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			t0 := wg*benchmarks.VecBlock + wf*benchmarks.WavefrontSize
			if t0 >= n {
				return benchmarks.IdleStream()
			}
			return &benchmarks.Loop{N: len(ops), Gen: func(k int, in *benchmarks.Instruction) {
				op := ops[k]
				switch {
				case k == 0:
					in.Compute = benchmarks.IndexCycles
				case op.write:
					in.Compute = benchmarks.FMACycles
				default:
					in.Compute = benchmarks.LoadCycles
				}
				in.Write = op.write
				benchmarks.AddBlock(in, op.base, 0, 0, 1, 1, t0, benchmarks.WavefrontSize, n)
			}}
		},
	}
}
