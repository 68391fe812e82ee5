package papers

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// UVMSmartRA is the RA of UVMSmart ("Adaptive Page Migration for Irregular
// Data-intensive Applications under GPU Memory Oversubscription", IPDPS
// 2020; github.com/DebashisGanguly/gpgpu-sim_UVMSmart,
// benchmarks/Managed/ra/main.cu), the program UVMMU ("UVMMU:
// Hardware-Offloaded Page Migration for Heterogeneous Computing", DATE
// 2023) runs on UVMSmart's simulator and names RA. It is not HPCC's
// RandomAccess (workload ra): one thread in 100 reads a random float of a
// table and writes it, scaled, to the same index of an output array.
//
// Shape: N floats per array, N = 2^20 at scale 1 (UVMSmart's #define N,
// three 4 MiB arrays, 12 MiB), N x Params.Scale otherwise, in whole
// 256-thread blocks.
//
// Objects, in allocation (ID) order (main.cu's cudaMallocManaged calls):
//
//	0 "input"  N random floats in [0, 1), initialised on the host; thread
//	           t reads input[t]
//	1 "output" N floats, written at random
//	2 "table"  N floats (table[i] = i), initialised on the host, read at
//	           random
//
// One kernel, N/256 blocks of 256 threads. Thread t returns unless t is a
// multiple of 100; the others compute index = frac(input[t]) x N, read
// table[index] and write output[index]. A 64-lane wavefront holds at most
// one such thread: it issues the load of input[t], the load of the table
// word and the store of the output word, in that one lane; a wavefront
// without one issues only its guard (an instruction without memory
// access). That is N/100 random reads and N/100 random writes, about ten
// per 4 KB page of table and of output at any N.
//
// The indices: main.cu fills input with rand() / RAND_MAX, so index is
// uniform over [0, N); glibc's rand() sequence is not reproduced, each
// thread's index is a draw of Params.Seed and t instead.
//
// Class: irregular (UVMMU names RA with NW and BFS as its irregular
// workloads): the table and output accesses fall on uniformly random
// pages.
type UVMSmartRA struct{}

const (
	// uraPaperN is main.cu's N.
	uraPaperN = 1 << 20
	// uraBlock is main.cu's blockSize.
	uraBlock = 256
	// uraStride is main.cu's x_id % 100: one thread in 100 works.
	uraStride = 100
	// uraGuardCycles is the id computation and the branch every thread
	// runs; uraIndexCycles the floor, subtraction, multiply and
	// conversion that form the index; uraScaleCycles the multiply before
	// the store.
	uraGuardCycles, uraIndexCycles, uraScaleCycles = 6, 12, 4
)

// UVMSmartRASize is UVMSmart's input: three arrays of 2^20 floats.
var UVMSmartRASize = benchmarks.FlatSize(3 * 4 * uraPaperN)

func init() {
	benchmarks.Register("uvmsmart-ra", func() benchmarks.Workload { return UVMSmartRA{} })
}

// Info implements Workload.
func (UVMSmartRA) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "uvmsmart-ra",
		Description: "UVMSmart's RA: one thread in 100 reads a random table float and writes it to the same index of output",
		Suite:       "UVMSmart",
		Class:       benchmarks.ClassIrregular,
		PaperSize:   UVMSmartRASize,
	}
}

// UVMSmartRAFloats returns N, the floats per array, for p.
func UVMSmartRAFloats(p benchmarks.Params) (int, error) {
	fp, err := UVMSmartRASize.Footprint(p)
	if err != nil {
		return 0, err
	}
	blocks := max(1, (fp/12+uraBlock/2)/uraBlock)
	return int(blocks) * uraBlock, nil
}

// Setup implements Workload.
func (UVMSmartRA) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := UVMSmartRAFloats(p)
	if err != nil {
		return nil, err
	}
	var base [3]uint64
	for i, name := range []string{"input", "output", "table"} {
		if base[i], err = alloc.MallocManaged(uint64(n)*4, name); err != nil {
			return nil, err
		}
	}
	return []benchmarks.Kernel{{
		Name: "kernel", Args: benchmarks.LastObjects(alloc, 3),
		Workgroups: n / uraBlock, WavefrontsPerWorkgroup: uraBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			t0 := wg*uraBlock + wf*benchmarks.WavefrontSize
			t := (t0 + uraStride - 1) / uraStride * uraStride
			s := &uraStream{}
			if t < t0+benchmarks.WavefrontSize && t < n {
				idx := draw(p.Seed, uint64(t)) % uint64(n)
				s.addr = [3]uint64{base[0] + uint64(t)*4, base[2] + idx*4, base[1] + idx*4}
				s.active = true
			}
			return s
		},
	}}, nil
}

// uraStream is one wavefront: its guard, then, if one of its threads
// works, that thread's three accesses (input, table, output).
type uraStream struct {
	addr   [3]uint64
	active bool
	i      int
}

// Next implements Stream.
func (s *uraStream) Next(in *benchmarks.Instruction) bool {
	if s.i == 0 {
		s.i++
		in.Compute, in.Write, in.Lanes = uraGuardCycles, false, 0
		return true
	}
	if !s.active || s.i > len(s.addr) {
		return false
	}
	k := s.i - 1
	s.i++
	in.Compute, in.Write, in.Lanes = [3]int{0, uraIndexCycles, uraScaleCycles}[k], k == 2, 1
	in.Addr[0] = s.addr[k]
	return true
}
