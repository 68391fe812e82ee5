package cuda

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// BlackScholes is the CUDA samples' BlackScholes (BlackScholesGPU, the
// float2 version: two options a thread) as ObservUVM's iterative BLK: the
// same kernel launched again and again over the option arrays.
//
// Shape: optN options (OPT_N), a multiple of 256, five float32 arrays of
// optN, coming closest to the footprint (BlackScholesSize times
// Params.Scale): optN = 16777216 at scale 1 (320 MiB; the sample's own is
// 4000000), scale 32 is ObservUVM's 10.0 GB.
//
// Objects, in allocation (ID) order (the sample's cudaMalloc order):
//
//	0 "CallResult"   optN float32, written
//	1 "PutResult"    optN float32, written
//	2 "StockPrice"   optN float32, read only
//	3 "OptionStrike" optN float32, read only
//	4 "OptionYears"  optN float32, read only
//
// Each launch, BlackScholesGPU, has optN/256 blocks of 128 threads;
// thread opt < optN/2 prices options 2opt and 2opt+1 (float2 element
// opt). A wavefront issues 5 instructions, each on 64 float2 (512
// consecutive bytes): the loads of StockPrice, OptionStrike and
// OptionYears, then, after both Black-Scholes bodies, the stores of
// CallResult and PutResult.
//
// The sample launches it NUM_ITERATIONS = 512 times; the model launches
// it 10 times by default, Params.Iterations sets the count. That is
// optN/128 x 5 = 655360 instructions a launch, 6.6M at scale 1. Every
// launch sweeps the same 320 MiB in the same order, the cyclic pattern
// for which ObservUVM prefers CP.
//
// Class: regular, assigned here from the access pattern (streaming);
// Early-Adaptor does not run it.
type BlackScholes struct{}

const (
	// bsBlock is the sample's 128-thread block.
	bsBlock = 128
	// bsIterations is the default launch count.
	bsIterations = 10
	// bsBodyCycles is two BlackScholesBodyGPU calls: about 50 FP
	// instructions each (two cndGPU, __logf, three __expf, divisions).
	bsBodyCycles = 2 * 50 * 4
	// bsOptionBytes is one option's five floats.
	bsOptionBytes = 5 * benchmarks.FloatBytes
)

// BlackScholesSize is blackscholes's scale-1 footprint: its reference footprint over
// LinalgScales.
var BlackScholesSize = benchmarks.LinalgSize("blackscholes")

func init() {
	benchmarks.Register("blackscholes", func() benchmarks.Workload { return BlackScholes{} })
}

// Info implements Workload.
func (BlackScholes) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:              "blackscholes",
		Description:       "CUDA samples BlackScholes (ObservUVM BLK): 5 option arrays swept by the same kernel 10 times",
		Suite:             benchmarks.SuiteCUDASamples,
		Aliases:           []string{"BLK"},
		Class:             benchmarks.ClassRegular,
		PaperSize:         BlackScholesSize,
		PreferredEviction: benchmarks.ObservUVMCP,
	}
}

// BlackScholesShape returns the option count and the launch count
// blackscholes uses for p.
func BlackScholesShape(p benchmarks.Params) (optN, launches int, err error) {
	launches = bsIterations
	if p.Iterations > 0 {
		launches = p.Iterations
	}
	optN, err = benchmarks.LinalgSide(BlackScholesSize, p, 2*bsBlock, func(n int) uint64 { return bsOptionBytes * uint64(n) })
	return optN, launches, err
}

// Setup implements Workload.
func (BlackScholes) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	optN, launches, err := BlackScholesShape(p)
	if err != nil {
		return nil, err
	}
	size := uint64(optN) * benchmarks.FloatBytes
	call, err := alloc.MallocManaged(size, "CallResult")
	if err != nil {
		return nil, err
	}
	put := alloc.MustMalloc(size, "PutResult")
	stock := alloc.MustMalloc(size, "StockPrice")
	strike := alloc.MustMalloc(size, "OptionStrike")
	years := alloc.MustMalloc(size, "OptionYears")
	ops := []struct {
		base  uint64
		write bool
	}{{stock, false}, {strike, false}, {years, false}, {call, true}, {put, true}}
	const pair = 2 * benchmarks.FloatBytes // a float2
	k := benchmarks.Kernel{
		Name: "BlackScholesGPU", Args: benchmarks.LastObjects(alloc, 5),
		Workgroups: optN / 2 / bsBlock, WavefrontsPerWorkgroup: bsBlock / benchmarks.WavefrontSize,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			t0 := wg*bsBlock + wf*benchmarks.WavefrontSize
			return &benchmarks.Loop{N: len(ops), Gen: func(i int, in *benchmarks.Instruction) {
				switch i {
				case 0:
					in.Compute = benchmarks.IndexCycles
				case 3:
					in.Compute = bsBodyCycles
				default:
					in.Compute = benchmarks.LoadCycles
				}
				in.Write = ops[i].write
				for l := 0; l < benchmarks.WavefrontSize; l++ {
					benchmarks.AddLane(in, benchmarks.Elem(ops[i].base, t0+l, pair))
				}
			}}
		},
	}
	ks := make([]benchmarks.Kernel, launches)
	for i := range ks {
		ks[i] = k
	}
	return ks, nil
}
