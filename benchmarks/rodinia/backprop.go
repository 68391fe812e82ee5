package rodinia

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Backprop is Rodinia 3.1's back-propagation (bpnn_layerforward_CUDA and
// bpnn_adjust_weights_cuda) in UVMSmart's managed port, which Early-Adaptor
// does not run: one training step of a fully connected in x 16 x 1
// network, the two GPU kernels around host code.
//
// Shape: in input units, a multiple of 16 (layer_size), hidden 16 and
// output 1 (fixed by Rodinia). Scale 1 is UVMSmart's run script, in =
// 131056 (26.5 MB); the footprint is linear in in, so --scale s runs
// about s*131056 inputs (Rodinia's own script, 65536, is scale 0.5).
//
// Objects, in allocation (ID) order (bpnn_internal_create, then
// bpnn_train_cuda), each float32:
//
//	 0 "input_units"          in+1
//	 1 "hidden_units"         17
//	 2 "output_units"         2
//	 3 "hidden_delta"         17
//	 4 "output_delta"         2
//	 5 "target"               2
//	 6 "input_weights"        (in+1)*17, read and overwritten by kernel 1
//	 7 "input_weights2"       (in+1)*17, UVMSmart's copy that kernel 2 adjusts
//	 8 "hidden_weights"       17*2 (host only)
//	 9 "input_prev_weights"   (in+1)*17
//	10 "hidden_prev_weights"  17*2 (host only)
//	11 "output_hidden_cuda"   17 (allocated, passed, never touched)
//	12 "hidden_partial_sum"   in/16 * 16
//
// Two launches, each in/16 blocks of 16x16 threads (grid (1, in/16));
// block by covers input rows 16*by+1 .. 16*by+16 of the weight matrix
// (pitch 17), thread (tx, ty) element [16*by+ty+1][tx+1]; wavefront wf
// holds block rows 4wf .. 4wf+3 (lane 16*(ty-4wf) + tx). Per wavefront:
//
//   - bpnn_layerforward_CUDA: the load of input_units[16*by+ty+1] by the
//     tx = 0 threads (4 lanes), the load of its 4x16 weights, after the
//     LDS multiply and the log2(16)-step reduction the store of the same
//     weights (Rodinia writes the partial products back), and the store of
//     hidden_partial_sum[by*16+ty] by the tx = 0 threads: 4 instructions;
//   - bpnn_adjust_weights_cuda: loads of hidden_delta[tx+1] and
//     input_units[16*by+ty+1], of input_prev_weights and input_weights2
//     at its elements, and the stores of both: 6 instructions; wavefront 0
//     of block 0 (the ty = 0 threads) then updates the bias row: loads of
//     hidden_delta, input_prev_weights and input_weights2 at [0][tx+1] and
//     the two stores, 5 more.
//
// That is in/16 x 4 x 10 + 5 = 327645 instructions at scale 1. Rodinia
// trains one step, so there are no iterations.
//
// Class: regular, assigned here (Early-Adaptor does not class backprop):
// both kernels stream through the weight matrices in block order, each
// block touching one dense 1 KB band.
type Backprop struct{}

const (
	// bpPaperInputs is UVMSmart's run script argument.
	bpPaperInputs = 131056
	// bpHidden and bpOutput are Rodinia's fixed layer widths.
	bpHidden = 16
	bpOutput = 1
	// bpBlock is Rodinia's WIDTH and HEIGHT.
	bpBlock = 16
	// bpRows is the block rows one wavefront holds.
	bpRows = benchmarks.WavefrontSize / bpBlock
	// bpReduceCycles is the LDS multiply and the 4-step tree reduction,
	// each step with a __syncthreads.
	bpReduceCycles = 4 * (8 + benchmarks.SyncCycles)
)

// BackpropSize is UVMSmart's run script input, 131056 input units.
var BackpropSize = benchmarks.FlatSize(backpropBytes(bpPaperInputs))

func init() {
	benchmarks.Register("backprop", func() benchmarks.Workload { return Backprop{} })
}

// Info implements Workload.
func (Backprop) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "backprop",
		Description: "Rodinia backprop: layerforward then adjust_weights over an in x 16 weight matrix (one training step)",
		Suite:       benchmarks.SuiteRodinia,
		Class:       benchmarks.ClassRegular,
		PaperSize:   BackpropSize,
	}
}

// bpObjects lists backprop's allocations for in input units, in order.
func bpObjects(in int) []struct {
	name  string
	elems int
} {
	w := (in + 1) * (bpHidden + 1)
	hw := (bpHidden + 1) * (bpOutput + 1)
	return []struct {
		name  string
		elems int
	}{
		{"input_units", in + 1}, {"hidden_units", bpHidden + 1}, {"output_units", bpOutput + 1},
		{"hidden_delta", bpHidden + 1}, {"output_delta", bpOutput + 1}, {"target", bpOutput + 1},
		{"input_weights", w}, {"input_weights2", w}, {"hidden_weights", hw},
		{"input_prev_weights", w}, {"hidden_prev_weights", hw},
		{"output_hidden_cuda", bpHidden + 1}, {"hidden_partial_sum", in / bpBlock * bpBlock},
	}
}

// backpropBytes is backprop's footprint for in input units.
func backpropBytes(in int) uint64 {
	var b uint64
	for _, o := range bpObjects(in) {
		b += uint64(o.elems) * benchmarks.FloatBytes
	}
	return b
}

// BackpropInputs returns the input layer width backprop uses for p.
func BackpropInputs(p benchmarks.Params) (int, error) {
	fp, err := BackpropSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	return benchmarks.FitSide(fp, bpBlock, backpropBytes), nil
}

// Setup implements Workload.
func (Backprop) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	inputs, err := BackpropInputs(p)
	if err != nil {
		return nil, err
	}
	objs := bpObjects(inputs)
	ptr := make([]uint64, len(objs))
	for i, o := range objs {
		if ptr[i], err = alloc.MallocManaged(uint64(o.elems)*benchmarks.FloatBytes, o.name); err != nil {
			return nil, err
		}
	}
	id := benchmarks.LastObjects(alloc, len(objs))
	units, delta, w1, w2, oldw, psum := ptr[0], ptr[3], ptr[6], ptr[7], ptr[9], ptr[12]
	blocks := inputs / bpBlock
	shape := func(name string, args []int, n func(by, wf int) int, gen func(by, wf, i int, in *benchmarks.Instruction)) benchmarks.Kernel {
		return benchmarks.Kernel{Name: name, Args: args, Workgroups: blocks, WavefrontsPerWorkgroup: bpBlock * bpBlock / benchmarks.WavefrontSize,
			Wavefront: func(by, wf, _ int) benchmarks.Stream {
				return &benchmarks.Loop{N: n(by, wf), Gen: func(i int, in *benchmarks.Instruction) { gen(by, wf, i, in) }}
			}}
	}
	forward := shape("bpnn_layerforward_CUDA", []int{id[0], id[11], id[6], id[12]},
		func(int, int) int { return 4 },
		func(by, wf, i int, in *benchmarks.Instruction) {
			row0 := bpBlock*by + bpRows*wf // ty of lane 0, as a weight row - 1
			switch i {
			case 0:
				in.Compute = benchmarks.IndexCycles
				bpColumn(in, units, row0+1, 1)
			case 1:
				in.Compute = benchmarks.SyncCycles
				bpTile(in, w1, row0)
			case 2:
				in.Compute, in.Write = bpReduceCycles, true
				bpTile(in, w1, row0)
			default:
				in.Compute, in.Write = benchmarks.SyncCycles, true
				bpColumn(in, psum, row0, 1)
			}
		})
	adjust := shape("bpnn_adjust_weights_cuda", []int{id[3], id[0], id[7], id[9]},
		func(by, wf int) int {
			if by == 0 && wf == 0 {
				return 11
			}
			return 6
		},
		func(by, wf, i int, in *benchmarks.Instruction) {
			bpAdjust(in, i, bpBlock*by+bpRows*wf, delta, units, w2, oldw)
		})
	return []benchmarks.Kernel{forward, adjust}, nil
}

// bpAdjust fills instruction i of a bpnn_adjust_weights_cuda wavefront
// whose first thread is weight row row0+1.
func bpAdjust(in *benchmarks.Instruction, i, row0 int, delta, units, w, oldw uint64) {
	in.Compute = benchmarks.LoadCycles
	switch i {
	case 0: // delta[tx+1]
		in.Compute = benchmarks.IndexCycles
		for r := 0; r < bpRows; r++ {
			for tx := 0; tx < bpBlock; tx++ {
				benchmarks.AddLane(in, benchmarks.Elem(delta, tx+1, benchmarks.FloatBytes))
			}
		}
	case 1: // ly[16*by+ty+1]
		bpColumn(in, units, row0+1, bpBlock)
	case 2, 3: // oldw[index], w[index]
		bpTile(in, [2]uint64{oldw, w}[i-2], row0)
	case 4, 5:
		in.Write = true
		bpTile(in, [2]uint64{w, oldw}[i-4], row0)
	case 6: // the bias row, by the ty = 0 threads
		in.Compute = benchmarks.SyncCycles
		bpBias(in, delta)
	default:
		base := [4]uint64{oldw, w, w, oldw}[i-7]
		in.Write = i >= 9
		bpBias(in, base)
	}
}

// bpTile adds the 4x16 weights [row0+r+1][tx+1] of a wavefront.
func bpTile(in *benchmarks.Instruction, w uint64, row0 int) {
	for r := 0; r < bpRows; r++ {
		for tx := 0; tx < bpBlock; tx++ {
			benchmarks.AddLane(in, benchmarks.Elem(w, (row0+r+1)*(bpHidden+1)+tx+1, benchmarks.FloatBytes))
		}
	}
}

// bpColumn adds element row0+r of v for each of the wavefront's 4 rows,
// each repeated by times (the lanes of that row that load it).
func bpColumn(in *benchmarks.Instruction, v uint64, row0, by int) {
	for r := 0; r < bpRows; r++ {
		for k := 0; k < by; k++ {
			benchmarks.AddLane(in, benchmarks.Elem(v, row0+r, benchmarks.FloatBytes))
		}
	}
}

// bpBias adds element tx+1 of base for the 16 ty = 0 threads: delta[tx+1]
// or row 0 (the bias) of a weight matrix.
func bpBias(in *benchmarks.Instruction, base uint64) {
	for tx := 0; tx < bpBlock; tx++ {
		benchmarks.AddLane(in, benchmarks.Elem(base, tx+1, benchmarks.FloatBytes))
	}
}
