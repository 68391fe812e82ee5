package synthetic

import (
	"fmt"
	"math"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Synthetic workloads: small, exact sharing patterns for tests and users.
//
// They key on the gpu argument of Kernel.Wavefront, the way a per-device
// CUDA program uses its device ID, so which GPU touches which page does not
// depend on the distribution scheme. Their kernels are PerDevice: every GPU
// runs an equal share of the workgroups whatever the scheme.
// gpu is taken modulo Params.GPUs.
//
// Common rules, with N = Params.GPUs:
//
//   - Objects are sized in 4 KB blocks (Block). A "region" is a
//     block-aligned slice of an object; region g of an object holding N
//     regions of R bytes is [g*R, (g+1)*R). R = max(16 KB, 4 MB*Scale/N
//     rounded up to whole blocks) for private, pingpong and prodcons, and
//     max(16 KB, 2 MB*Scale/N rounded up) for the output of shared-read; the
//     input of shared-read is max(16 KB, 2 MB*Scale rounded up). So the
//     region size is the object size divided by N.
//   - Each kernel has 8*N workgroups (WorkgroupsPerGPU) of 4
//     wavefronts.
//   - A workgroup wg "sweeps" a region: wavefront wf takes blocks wf, wf+4,
//     wf+8, ... of it in order and, in each block, accesses the 256 bytes at
//     offset (wg mod 16)*256 (64 lanes of 4 consecutive bytes, 4 lines).
//     With read-modify-write each block gets a read then a write. So every
//     workgroup touches every block, hence every page, of the regions it
//     sweeps, whatever the page size, and nothing else.
//   - Iterations (Params.Iterations, 0 means 4) counts kernels as each
//     workload says.
//
// Hence: GPU g touches a page in a kernel if and only if it runs at least
// one workgroup of that kernel and the page lies in a region the workload
// gives g in that kernel.
const (
	Block            = 4096
	WorkgroupsPerGPU = 8
	Iterations       = 4

	syntheticSlice  = benchmarks.WavefrontSize * benchmarks.FloatBytes
	syntheticSlices = Block / syntheticSlice
	syntheticWaves  = 4
	syntheticCycles = 8 // a little arithmetic before each access
	minBlocks       = syntheticWaves
)

func init() {
	benchmarks.Register("private", func() benchmarks.Workload {
		return synthetic{"private", "each GPU reads and writes only its own region of one object", setupPrivate}
	})
	benchmarks.Register("shared-read", func() benchmarks.Workload {
		return synthetic{"shared-read", "every GPU reads all of one input; each writes its own region of the output", setupSharedRead}
	})
	benchmarks.Register("pingpong", func() benchmarks.Workload {
		return synthetic{"pingpong", "in kernel k GPU g read-modify-writes region (g+k) mod N: every region changes GPU every kernel", setupPingpong}
	})
	benchmarks.Register("prodcons", func() benchmarks.Workload {
		return synthetic{"prodcons", "GPU g writes buffer g, then in the next kernel GPU g+1 reads it", setupProdcons}
	})
}

type synthetic struct {
	name, desc string
	setup      func(alloc *objtable.Allocator, s synthSize) ([]benchmarks.Kernel, error)
}

// Info implements Workload. The synthetic patterns declare no paper
// size: the rules above size them, not a paper table.
func (w synthetic) Info() benchmarks.Info {
	return benchmarks.Info{Name: w.name, Description: w.desc, Suite: benchmarks.SuiteSynthetic}
}

func (w synthetic) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	s, err := newSynthSize(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.name, err)
	}
	return w.setup(alloc, s)
}

// synthSize is the validated sizing of a synthetic workload.
type synthSize struct {
	gpus, iters int
	scale       float64
}

func newSynthSize(p benchmarks.Params) (synthSize, error) {
	if p.GPUs < 1 {
		return synthSize{}, fmt.Errorf("%d GPUs: must be at least 1", p.GPUs)
	}
	if err := benchmarks.CheckScale(p.Scale); err != nil {
		return synthSize{}, err
	}
	// The paper columns do not apply, but a misspelt Size still errors.
	if _, err := benchmarks.Column(p); err != nil {
		return synthSize{}, err
	}
	if p.Iterations < 0 {
		return synthSize{}, fmt.Errorf("%d iterations: must not be negative", p.Iterations)
	}
	it := p.Iterations
	if it == 0 {
		it = Iterations
	}
	return synthSize{gpus: p.GPUs, iters: it, scale: p.Scale}, nil
}

// blocks is the block count of bytes*scale/parts, at least minBlocks.
func (s synthSize) blocks(bytes float64, parts int) int {
	b := math.Ceil(bytes * s.scale / float64(parts) / Block)
	if b > 1<<35 {
		b = 1 << 35 // MallocManaged reports the exhausted address space
	}
	return max(int(b), minBlocks)
}

// alloc allocates n regions of blocks blocks each and returns the pointer
// and object ID.
func allocRegions(alloc *objtable.Allocator, name string, n, blocks int) (uint64, int, error) {
	ptr, err := alloc.MallocManaged(uint64(n)*uint64(blocks)*Block, name)
	if err != nil {
		return 0, 0, err
	}
	objs := alloc.Objects()
	return ptr, objs[len(objs)-1].ID, nil
}

// pass is one region a wavefront sweeps.
type pass struct {
	base        uint64 // tagged pointer of the region's first block
	blocks      int
	read, write bool
}

// region returns the pass over region r of blocks blocks at ptr.
func region(ptr uint64, r, blocks int, read, write bool) pass {
	return pass{base: ptr + uint64(r)*uint64(blocks)*Block, blocks: blocks, read: read, write: write}
}

// synthKernel is a kernel of 8*N workgroups whose wavefronts sweep the
// passes plan gives for their GPU.
func synthKernel(name string, s synthSize, args []int, plan func(gpu int) (pass, pass, int)) benchmarks.Kernel {
	return benchmarks.Kernel{
		Name:                   name,
		Args:                   args,
		Workgroups:             WorkgroupsPerGPU * s.gpus,
		WavefrontsPerWorkgroup: syntheticWaves,
		PerDevice:              true,
		Wavefront: func(wg, wf, gpu int) benchmarks.Stream {
			a, b, n := plan(gpu % s.gpus)
			return &sweep{passes: [2]pass{a, b}, np: n, wf: wf, b: wf,
				slice: uint64(wg%syntheticSlices) * syntheticSlice}
		},
	}
}

// sweep is the Stream of one synthetic wavefront.
type sweep struct {
	passes [2]pass
	np     int    // passes in use
	wf     int    // first block, and the block offset in every pass
	slice  uint64 // byte offset inside each block
	p, b   int    // current pass and block
	second bool   // the write half of a read-modify-write is next
}

// Next implements Stream.
func (s *sweep) Next(in *benchmarks.Instruction) bool {
	for s.p < s.np && s.b >= s.passes[s.p].blocks {
		s.p++
		s.b = s.wf
	}
	if s.p >= s.np {
		return false
	}
	ps := &s.passes[s.p]
	write := ps.write && (!ps.read || s.second)
	a := ps.base + uint64(s.b)*Block + s.slice
	if ps.read && ps.write && !s.second {
		s.second = true
	} else {
		s.second = false
		s.b += syntheticWaves
	}
	in.Compute = syntheticCycles
	in.Write = write
	in.Lanes = benchmarks.WavefrontSize
	for l := range in.Addr {
		in.Addr[l] = a + uint64(l)*benchmarks.FloatBytes
	}
	return true
}

// setupPrivate: object 0 "data" of N regions. Iterations kernels
// "private"; in each, GPU g reads then writes (per block) region g only.
func setupPrivate(alloc *objtable.Allocator, s synthSize) ([]benchmarks.Kernel, error) {
	blocks := s.blocks(4*benchmarks.MiB, s.gpus)
	ptr, id, err := allocRegions(alloc, "data", s.gpus, blocks)
	if err != nil {
		return nil, err
	}
	ks := make([]benchmarks.Kernel, s.iters)
	for k := range ks {
		ks[k] = synthKernel("private", s, []int{id}, func(g int) (pass, pass, int) {
			return region(ptr, g, blocks, true, true), pass{}, 1
		})
	}
	return ks, nil
}

// setupSharedRead: object 0 "input" (one region), object 1 "output" of N
// regions. Iterations kernels "shared-read"; in each, GPU g reads every
// block of the input, then writes region g of the output.
func setupSharedRead(alloc *objtable.Allocator, s synthSize) ([]benchmarks.Kernel, error) {
	inBlocks := s.blocks(2*benchmarks.MiB, 1)
	outBlocks := s.blocks(2*benchmarks.MiB, s.gpus)
	in, inID, err := allocRegions(alloc, "input", 1, inBlocks)
	if err != nil {
		return nil, err
	}
	out, outID, err := allocRegions(alloc, "output", s.gpus, outBlocks)
	if err != nil {
		return nil, err
	}
	ks := make([]benchmarks.Kernel, s.iters)
	for k := range ks {
		ks[k] = synthKernel("shared-read", s, []int{inID, outID}, func(g int) (pass, pass, int) {
			return region(in, 0, inBlocks, true, false), region(out, g, outBlocks, false, true), 2
		})
	}
	return ks, nil
}

// setupPingpong: object 0 "data" of N regions. Iterations kernels
// "pingpong"; in kernel k GPU g reads then writes (per block) region
// (g+k) mod N. With N > 1 every region is written by a different GPU in
// each kernel.
func setupPingpong(alloc *objtable.Allocator, s synthSize) ([]benchmarks.Kernel, error) {
	blocks := s.blocks(4*benchmarks.MiB, s.gpus)
	ptr, id, err := allocRegions(alloc, "data", s.gpus, blocks)
	if err != nil {
		return nil, err
	}
	ks := make([]benchmarks.Kernel, s.iters)
	for k := range ks {
		ks[k] = synthKernel("pingpong", s, []int{id}, func(g int) (pass, pass, int) {
			return region(ptr, (g+k)%s.gpus, blocks, true, true), pass{}, 1
		})
	}
	return ks, nil
}

// setupProdcons: objects 0..N-1 "buf0".."buf<N-1>", one region each.
// 2*Iterations kernels: in kernel 2k ("produce") GPU g writes all of
// buffer g; in kernel 2k+1 ("consume") GPU g reads all of buffer
// (g+N-1) mod N, the one GPU g-1 produced.
func setupProdcons(alloc *objtable.Allocator, s synthSize) ([]benchmarks.Kernel, error) {
	blocks := s.blocks(4*benchmarks.MiB, s.gpus)
	ptrs := make([]uint64, s.gpus)
	ids := make([]int, s.gpus)
	for g := range ptrs {
		var err error
		if ptrs[g], ids[g], err = allocRegions(alloc, fmt.Sprintf("buf%d", g), 1, blocks); err != nil {
			return nil, err
		}
	}
	ks := make([]benchmarks.Kernel, 0, 2*s.iters)
	for k := 0; k < s.iters; k++ {
		ks = append(ks,
			synthKernel("produce", s, ids, func(g int) (pass, pass, int) {
				return region(ptrs[g], 0, blocks, false, true), pass{}, 1
			}),
			synthKernel("consume", s, ids, func(g int) (pass, pass, int) {
				return region(ptrs[(g+s.gpus-1)%s.gpus], 0, blocks, true, false), pass{}, 1
			}))
	}
	return ks, nil
}
