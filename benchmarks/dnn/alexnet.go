package dnn

import "github.com/mgpu-sim/mgpu/benchmarks"

// AlexNet is ObservUVM's and SUV's AN: Tango's AlexNet (Karki et al.,
// "Tango: A Deep Neural Network Benchmark Suite for Various
// Accelerators") as batched inference, the forward pass only, on the DNN
// framework's inference layers (inference.go).
//
// Network (Tango's, Caffe's original two-tower AlexNet): 227x227x3 images;
// conv1 96 11x11 stride 4 (55x55), ReLU, LRN 5, max pool 3/2 (27x27);
// conv2 256 5x5 pad 2 in 2 groups, ReLU, LRN 5, max pool 3/2 (13x13);
// conv3 384 3x3 pad 1; conv4 384 3x3 pad 1 in 2 groups; conv5 256 3x3
// pad 1 in 2 groups, each ReLU'd; max pool 3/2 (6x6); fully connected
// 4096 and 4096 with ReLU, then 1000. Tango runs one image; ObservUVM and
// SUV batch it, and the batch is the free parameter here: the one whose
// footprint comes closest to AlexNetSize times Params.Scale (61M
// parameters, 244 MB, and about 17 MB per image at full width, its im2col
// buffers included).
//
// Shape: scale 1 is SUV's 3504 MB / 16 = 219 MiB. A full-width AlexNet
// with four images (the paper column's minimum batch) does not fit that,
// so scale 1 runs it at half width (channels and fully connected widths
// halved, grouped layers kept even) with a batch of 15 (223 MB); --scale
// 16 runs SUV's 3504 MB at full width (batch 197) and --scale 48.16
// ObservUVM's 10.3 GB (Table II; batch 620). `go test ./benchmarks -run
// Irregular16 -v` logs the batches, footprints and instruction counts.
//
// Objects, in program (ID) order: "input"; then per convolution its
// ".bias", ".weight", output and ".col" buffer; per LRN and pooling its
// output; per fully connected layer its ".bias", ".weight" and output;
// and the framework's "kernarg", allocated at the first launch. 36
// objects.
//
// Launches, in order: conv1 (im2col, gemm, bias_relu), lrn, maxpool;
// conv2 (im2col, gemm per group, then bias_relu), lrn, maxpool; conv3,
// conv4, conv5 (grouped as conv2), maxpool; fc6, fc7, fc8 (gemm, then
// bias_relu, bias_relu, bias): 32 launches, 3.2M instructions at scale
// 1. The kernels and their instructions per wavefront are the
// framework's (dnn.go).
//
// Preferred eviction: LRU (ObservUVM Table II; no gain over LRM for AN).
// Class: regular, assigned here (see inferNet.Class).
//
// Access facts (the framework's, dnn.go): every tensor is Analysable. The
// index maps use only the work-item index and the shapes, and the accesses
// count threads in closed form (padding taps, LRN's edge channels): one a
// lane, except the kernarg, which all 256 threads of a block read and the
// stream issues as one lane a wavefront. Each elementwise range is a few
// KB a block, small against the activations and column buffers; this is
// where Table I's T for AN comes from, as the simulator applies the WSS
// cutoff. One departure from Table I: conv2, conv4 and conv5 launch im2col
// and the GEMM once per group, in a host loop that moves the pointers into
// the input's channels, the weights and the output. In those launches the
// three are HostLoop over 2 groups, each span a group's slice of every
// image. Those spans cover about half of the weights and nearly all of
// each activation, so SUV's plan mostly falls back to Density/Temporal for
// them.
var alexnet = inferNet{
	name: "alexnet", size: AlexNetSize, aliases: []string{"AN"},
	desc: "Tango AlexNet batched inference (forward only): grouped convolutions, LRN, overlapping pooling, FC",
	def: func(m *imodel, div int) {
		ch := func(c int) int { return max(2, c/div/2*2) } // even, for the two groups
		x := m.input(3, 227, 227)
		h := m.conv("conv1", x, ch(96), 11, 4, 0, 1)
		h = m.maxpool("pool1", m.lrn("norm1", h, 5), 3, 2)
		h = m.conv("conv2", h, ch(256), 5, 1, 2, 2)
		h = m.maxpool("pool2", m.lrn("norm2", h, 5), 3, 2)
		h = m.conv("conv3", h, ch(384), 3, 1, 1, 1)
		h = m.conv("conv4", h, ch(384), 3, 1, 1, 2)
		h = m.conv("conv5", h, ch(256), 3, 1, 1, 2)
		h = m.maxpool("pool5", h, 3, 2)
		h = m.fc("fc6", h, ch(4096), true)
		h = m.fc("fc7", h, ch(4096), true)
		m.fc("fc8", h, 1000, false)
	},
}

// alexnetPaperScale is the --scale of SUV's 3504 MB.
const alexnetPaperScale = 16

// AlexNetSize is AlexNet's scale-1 footprint: SUV's 3504 MB / 16.
var AlexNetSize = benchmarks.FlatSize(3504 * benchmarks.MiB / alexnetPaperScale)

func init() {
	benchmarks.Register("alexnet", func() benchmarks.Workload { return alexnet })
}
