package dnn

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
)

// SqueezeNet is ObservUVM's and SUV's SN: Tango's SqueezeNet as batched
// inference, the forward pass only, on the DNN framework's inference
// layers (inference.go).
//
// Network: SqueezeNet v1.0 as its paper (Iandola et al. 2016, which Tango
// cites) and Caffe define it; which version Tango's port follows is not
// stated, so this is an assumption. 227x227x3 images; conv1 96 7x7 stride
// 2 (111x111), ReLU, max pool 3/2 (55x55); fire2 (squeeze 16, expand
// 64 + 64), fire3 (16, 64 + 64), fire4 (32, 128 + 128), max pool 3/2
// (27x27); fire5 (32, 128 + 128), fire6 (48, 192 + 192), fire7 (48, 192 +
// 192), fire8 (64, 256 + 256), max pool 3/2 (13x13); fire9 (64, 256 +
// 256); conv10 1000 1x1, ReLU; global average pooling to 1000 classes
// (dropout is the identity). A fire module is a 1x1 squeeze convolution
// and ReLU, then two expand convolutions of the squeezed tensor, 1x1 and
// 3x3 pad 1, each ReLU'd, and the concatenation of their outputs. The
// batch is the free parameter: the one whose footprint comes closest to
// SqueezeNetSize times Params.Scale (1.2M parameters, 5 MB, and about 48
// MB per image, its im2col buffers included).
//
// Shape: scale 1 is SUV's 4976 MB / 16 = 311 MiB, a batch of 6 at full
// width (299 MB: an image is a coarse step); --scale 16 runs SUV's 4976
// MB (batch 102) and --scale 65.19 ObservUVM's 19.8 GB (Table II; batch
// 414). `go test ./benchmarks -run Irregular16 -v` logs the batches,
// footprints and instruction counts.
//
// Objects, in program (ID) order: "input"; conv1's ".bias", ".weight",
// output and ".col"; per pooling its output; per fire module the squeeze
// and expand1x1 convolutions' ".bias", ".weight" and output (1x1: no
// column buffer), expand3x3's four, and the concatenation; conv10's
// three; the average pool; and the framework's "kernarg", allocated at
// the first launch. 101 objects.
//
// Launches, in order: conv1 (im2col, gemm, bias_relu), maxpool; per fire
// module gemm, bias_relu (squeeze), gemm, bias_relu (expand1x1), im2col,
// gemm, bias_relu (expand3x3), concat; the pools; conv10 (gemm,
// bias_relu); avgpool: 73 launches, 4.3M instructions at scale 1. The
// kernels and their instructions per wavefront are the framework's
// (dnn.go).
//
// Preferred eviction: LRU (ObservUVM Table II; no gain over LRM for SN).
// Class: regular, assigned here (see inferNet.Class).
//
// Access facts (the framework's, dnn.go): every tensor is Analysable in
// every launch. There are no grouped layers, so no host loop moves a
// pointer, and the index maps use only the work-item index and the shapes.
// The accesses count threads in closed form (3x3 padding taps, each concat
// half): one a lane, except the kernarg, which all 256 threads of a block
// read and the stream issues as one lane a wavefront. Each elementwise
// range is a few KB a block, small against the activations and column
// buffers; this is where Table I's T for SN comes from, as the simulator
// applies the WSS cutoff.
var squeezenet = inferNet{
	name: "squeezenet", size: SqueezeNetSize, aliases: []string{"SN"},
	desc: "Tango SqueezeNet (v1.0) batched inference (forward only): fire modules (squeeze, expand 1x1 and 3x3, concat)",
	def: func(m *imodel, div int) {
		ch := func(c int) int { return max(1, c/div) }
		fire := func(i int, x *act, s, e int) *act {
			name := fmt.Sprintf("fire%d", i)
			sq := m.conv(name+".squeeze", x, ch(s), 1, 1, 0, 1)
			e1 := m.conv(name+".expand1x1", sq, ch(e), 1, 1, 0, 1)
			e3 := m.conv(name+".expand3x3", sq, ch(e), 3, 1, 1, 1)
			return m.concat(name+".concat", e1, e3)
		}
		x := m.input(3, 227, 227)
		h := m.maxpool("pool1", m.conv("conv1", x, ch(96), 7, 2, 0, 1), 3, 2)
		h = fire(2, h, 16, 64)
		h = fire(3, h, 16, 64)
		h = fire(4, h, 32, 128)
		h = m.maxpool("pool4", h, 3, 2)
		h = fire(5, h, 32, 128)
		h = fire(6, h, 48, 192)
		h = fire(7, h, 48, 192)
		h = fire(8, h, 64, 256)
		h = m.maxpool("pool8", h, 3, 2)
		h = fire(9, h, 64, 256)
		m.avgpool("pool10", m.conv("conv10", h, 1000, 1, 1, 0, 1))
	},
}

// squeezenetPaperScale is the --scale of SUV's 4976 MB.
const squeezenetPaperScale = 16

// SqueezeNetSize is SqueezeNet's scale-1 footprint: SUV's 4976 MB / 16.
var SqueezeNetSize = benchmarks.FlatSize(4976 * benchmarks.MiB / squeezenetPaperScale)

func init() {
	benchmarks.Register("squeezenet", func() benchmarks.Workload { return squeezenet })
}
