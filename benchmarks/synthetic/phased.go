package synthetic

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Synthetic workloads whose objects change pattern over time, to exercise
// OASIS's self-correction (OASIS §V-D). Sizing follows synthetic.go.

func init() {
	benchmarks.Register("phases", func() benchmarks.Workload {
		return synthetic{"phases", "one object read by every GPU in even kernels, each GPU writing another's region in odd kernels (explicit phases)", setupPhases}
	})
	benchmarks.Register("swap", func() benchmarks.Workload {
		return synthetic{"swap", "ST-style: every GPU reads all of curr and writes its region of next, buffers swap after a grid barrier (implicit phases)", setupSwap}
	})
}

// setupPhases: object 0 "data" of N regions. Iterations kernels: kernel
// 2k ("read") has every GPU read all of data, shared read-only; kernel
// 2k+1 ("write") has GPU g read-modify-write region (g+1) mod N, shared
// written. The object's pattern changes at every kernel launch.
func setupPhases(alloc *objtable.Allocator, s synthSize) ([]benchmarks.Kernel, error) {
	blocks := s.blocks(4*benchmarks.MiB, s.gpus)
	ptr, id, err := allocRegions(alloc, "data", s.gpus, blocks)
	if err != nil {
		return nil, err
	}
	all := region(ptr, 0, blocks*s.gpus, true, false)
	ks := make([]benchmarks.Kernel, s.iters)
	for k := range ks {
		if k%2 == 0 {
			ks[k] = synthKernel("read", s, []int{id}, func(int) (pass, pass, int) { return all, pass{}, 1 })
			continue
		}
		ks[k] = synthKernel("write", s, []int{id}, func(g int) (pass, pass, int) {
			return region(ptr, (g+1)%s.gpus, blocks, true, true), pass{}, 1
		})
	}
	return ks, nil
}

// setupSwap: objects 0 "bufA" and 1 "bufB" of N regions each. One kernel
// "swap" of Iterations steps separated by grid barriers: in step k every
// GPU reads all of the current buffer (A for even k) and writes its own
// region g of the other, as SHOC Stencil2D reads currData and writes
// newData before swapping them. Only the first step is a kernel launch.
func setupSwap(alloc *objtable.Allocator, s synthSize) ([]benchmarks.Kernel, error) {
	blocks := s.blocks(4*benchmarks.MiB, s.gpus)
	var ptr [2]uint64
	var ids [2]int
	for i, name := range []string{"bufA", "bufB"} {
		var err error
		if ptr[i], ids[i], err = allocRegions(alloc, name, s.gpus, blocks); err != nil {
			return nil, err
		}
	}
	ks := make([]benchmarks.Kernel, s.iters)
	for k := range ks {
		cur, next := ptr[k%2], ptr[(k+1)%2]
		ks[k] = synthKernel("swap", s, ids[:], func(g int) (pass, pass, int) {
			return region(cur, 0, blocks*s.gpus, true, false), region(next, g, blocks, false, true), 2
		})
		ks[k].Barrier = k > 0
	}
	return ks, nil
}
