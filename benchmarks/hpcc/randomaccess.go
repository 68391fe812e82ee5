package hpcc

import (
	"math"
	"math/bits"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// RandomAccess is HPCC RandomAccess (GUPS), RA as the name is usually
// read: 4 x TableSize read-modify-write updates Table[ran & (TableSize - 1)]
// ^= ran, ran walking HPCC's 64-bit LFSR (x^64 + x^2 + x + 1, POLY 7).
// UVMMU's figures run UVMSmart's own RA instead (papers.UVMSmartRA,
// uvmsmart-ra), the program UVMMU's simulator ran.
//
// Shape: a table of 2^k uint64 words, HPCC's power of two, k the nearest
// (in log) to the footprint (RASize times Params.Scale): 2^21 words (16
// MB) at scale 1, 2^30 (8 GB, the order of EA's footprints) at scale 512.
// Between powers of two the footprint is off by up to a factor 1.41.
// Neither paper gives RA's size; UVMSmart's benchmarks/Managed/ra takes 12
// MB, and 16 MB is the power of two nearest it. That program is not
// HPCC's kernel but a table lookup, modelled as uvmsmart-ra. Every update
// is a 64-page instruction, which the simulator runs tens of times slower
// than a coalesced one: hence the small default.
//
// Objects, in allocation (ID) order:
//
//	0 "Table" 2^k uint64, read and written at random; HPCC initialises it
//	          on the host (Table[i] = i), so its pages start there
//
// One kernel, RandomAccessUpdate: 2^k * 4 / 128 threads in blocks of 256,
// each owning 128 consecutive updates of the LFSR sequence, as HPCC's
// reference update splits the sequence into 128 streams (here one per
// thread); thread t starts at HPCC_starts(base + 128*t), base = (Seed-1)
// * 4 * 2^k, so seed 1 is HPCC's own sequence and other seeds other
// segments of it. Thread t is lane t mod 64 of wavefront (t mod 256)/64.
// Per update a wavefront issues a load of Table[ran & (2^k-1)] for its 64
// lanes (64 random words: almost always 64 lines and 64 pages) and the
// store of the same words: 256 instructions per wavefront, 262144 at
// scale 1. The update is modelled as load then store (HPCC's Table[i] ^= ran;
// GPU ports that use atomicXor do the read-modify-write at the memory
// side, which reaches the same pages). RA has no iterations.
//
// Class: irregular, assigned here (Early-Adaptor does not run RA; UVMMU
// names it, with NW and BFS, among its irregular workloads): every update
// touches a uniformly random page.
type RandomAccess struct{}

const (
	// raPaperLog is log2 of the scale-1 table in words.
	raPaperLog = 21
	// raMinLog is the smallest table: 2^13 words, one workgroup.
	raMinLog = 13
	// raPoly and raPeriod are HPCC's LFSR polynomial and period.
	raPoly   = 7
	raPeriod = 1317624576693539401
	// raPerThread is the updates one thread makes.
	raPerThread = 128
	// raBlock is the threads per workgroup.
	raBlock = 256
	// raWordBytes is a table word.
	raWordBytes = 8
	// raStepCycles is one LFSR step and the index mask before a load.
	raStepCycles = 16
	// raXorCycles is the xor between the load and the store.
	raXorCycles = 4
)

// RASize is a 2^21-word HPCC table (neither paper gives one).
var RASize = benchmarks.FlatSize(8 << raPaperLog)

func init() {
	benchmarks.Register("ra", func() benchmarks.Workload { return RandomAccess{} })
}

// Info implements Workload.
func (RandomAccess) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "ra",
		Description: "HPCC RandomAccess: 4 x table-size random read-modify-write updates of a 2^k-word table",
		Suite:       "HPCC",
		Aliases:     []string{"RA"},
		Class:       benchmarks.ClassIrregular,
		PaperSize:   RASize,
	}
}

// RALogTable returns log2 of the table size in words ra uses for p.
func RALogTable(p benchmarks.Params) (int, error) {
	fp, err := RASize.Footprint(p)
	if err != nil {
		return 0, err
	}
	k := int(math.Round(math.Log2(float64(fp) / raWordBytes)))
	return max(k, raMinLog), nil
}

// Setup implements Workload.
func (RandomAccess) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	k, err := RALogTable(p)
	if err != nil {
		return nil, err
	}
	size := uint64(1) << k
	table, err := alloc.MallocManaged(size*raWordBytes, "Table")
	if err != nil {
		return nil, err
	}
	updates := 4 * size
	hi, lo := bits.Mul64(p.Seed-1, updates)
	base := bits.Rem64(hi, lo, raPeriod)
	step := raPow(raPerThread) // x^128: from one thread's start to the next
	threads := int(updates / raPerThread)
	return []benchmarks.Kernel{{
		Name: "RandomAccessUpdate", Args: benchmarks.LastObjects(alloc, 1),
		Workgroups: threads / raBlock, WavefrontsPerWorkgroup: raBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			t0 := uint64(wg*raBlock + wf*benchmarks.WavefrontSize)
			s := &raStream{table: table, mask: size - 1}
			s.ran[0] = raPow(base + raPerThread*t0)
			for l := 1; l < benchmarks.WavefrontSize; l++ {
				s.ran[l] = raMul(s.ran[l-1], step)
			}
			return s
		},
	}}, nil
}

// raStream is one wavefront's updates: instruction 2u loads and 2u+1
// stores the words of update u.
type raStream struct {
	ran         [benchmarks.WavefrontSize]uint64
	table, mask uint64
	i           int
}

// Next implements Stream.
func (s *raStream) Next(in *benchmarks.Instruction) bool {
	if s.i >= 2*raPerThread {
		return false
	}
	write := s.i%2 == 1
	in.Compute, in.Write, in.Lanes = raXorCycles, write, benchmarks.WavefrontSize
	if !write {
		in.Compute = raStepCycles
		for l := range s.ran {
			s.ran[l] = raNext(s.ran[l])
		}
	}
	for l, r := range s.ran {
		in.Addr[l] = s.table + (r&s.mask)*raWordBytes
	}
	s.i++
	return true
}

// raNext is one step of HPCC's LFSR: multiply by x modulo x^64 + x^2 + x + 1.
func raNext(r uint64) uint64 { return r<<1 ^ uint64(int64(r)>>63)&raPoly }

// raMul multiplies two elements of GF(2)[x] / (x^64 + x^2 + x + 1).
func raMul(a, b uint64) uint64 {
	var r uint64
	for ; b != 0; b >>= 1 {
		if b&1 != 0 {
			r ^= a
		}
		a = raNext(a)
	}
	return r
}

// raPow is x^n, the n-th element of the LFSR sequence from 1: HPCC_starts(n).
func raPow(n uint64) uint64 {
	r, x := uint64(1), uint64(2)
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			r = raMul(r, x)
		}
		x = raMul(x, x)
	}
	return r
}
