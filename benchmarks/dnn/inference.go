package dnn

import (
	"fmt"
	"math"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// Batched inference on the DNN framework (alexnet, squeezenet): the
// forward pass only, over the framework's tensors and kernel shapes
// (dnn.go), without touching the training models (layers.go,
// models.go). No gradient, optimiser state or label is allocated and
// nothing runs backward; every layer allocates its tensors and launches
// its kernels as it is declared, so objects come in program order, as
// Tango's programs cudaMalloc each layer's buffers just before its
// kernels.
//
// Layers, on batch-outermost NCHW activations:
//
//   - conv: k x k convolution with bias and ReLU, in groups (AlexNet's
//     two-tower layers; one im2col and GEMM per group, as Tango launches
//     its grouped layers once per group). im2col copies the group's input
//     channels of the whole batch into the column buffer (which later
//     groups reuse), then a batched GEMM per image writes the output
//     directly in NCHW (weights shared by the batch); 1 x 1 convolutions
//     with stride 1 skip the im2col and multiply the input itself, as
//     Caffe does. Bias and ReLU, which Tango fuses into its convolution
//     kernel, are one float4 pass over the output.
//   - lrn: cross-channel local response normalisation over 5 channels.
//   - maxpool: k x k windows at a stride (overlapping, 3/2, in both nets).
//   - fc: a GEMM of the batch with the transposed [out x in] weights
//     (Tango's layout), then bias and optional ReLU.
//   - concat: the two expand outputs of a fire module copied into one
//     tensor, channels of the first then the second.
//   - avgpool: global average pooling.
//
// Known simplifications, besides the framework's (dnn.go): Tango's
// kernels are direct convolutions, one thread per output element looping
// over its window; here they are im2col and GEMM, which read the same
// data in another order and add the column buffers to the footprint.
// Dropout is the identity at inference and has no kernel, and the final
// softmax/argmax is left to the host, as in Tango. The framework's one
// kernel-argument object stays (on NVIDIA GPUs arguments sit in constant
// memory).

// inferNet is a DNN workload that runs one batched forward pass.
type inferNet struct {
	name, desc string
	size       benchmarks.PaperSize
	aliases    []string
	def        func(m *imodel, div int)
}

// Info implements Workload. Both networks declare the same facts
// besides their names, sizes and labels.
func (w inferNet) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        w.name,
		Description: w.desc,
		Suite:       benchmarks.SuiteTango,
		Aliases:     w.aliases,
		// Assigned here from the access pattern (Early-Adaptor runs no
		// DNN): every kernel sweeps its tensors densely.
		Class:     benchmarks.ClassRegular,
		PaperSize: w.size,
		// ObservUVM's LRU for both networks (which behaves as the default
		// LRM for them).
		PreferredEviction: benchmarks.ObservUVMLRU,
		// See dnn.go's elementwiseAccess and gemmAccess, and conv for the group
		// loop.
		DeclaresAccess: true,
	}
}

// Setup implements Workload.
func (w inferNet) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	batch, div, err := w.shape(p)
	if err != nil {
		return nil, err
	}
	d := newDNet(alloc)
	d.access = true
	w.def(&imodel{dnet: d, n: batch}, div)
	if d.err != nil {
		return nil, fmt.Errorf("%s: %w", w.name, d.err)
	}
	benchmarks.FinishAccess(alloc, d.kernels)
	return d.kernels, nil
}

// shape picks the batch and channel-width divisor for p as the training
// models do (network.shape): the batch whose footprint comes closest to
// the target, at least the paper column's GPU count at scale 1 and
// above; only when that batch does not fit are the channel widths
// halved, until it does.
func (w inferNet) shape(p benchmarks.Params) (batch, div int, err error) {
	target, err := w.size.Footprint(p)
	if err != nil {
		return 0, 0, err
	}
	col, err := benchmarks.Column(p)
	if err != nil {
		return 0, 0, err
	}
	minBatch := col
	if p.Scale < 1 {
		minBatch = 1
	}
	for div = 1; ; div *= 2 {
		f1, f2 := w.footprint(1, div), w.footprint(2, div)
		batch = int(math.Round((float64(target)-float64(f1))/float64(f2-f1))) + 1
		if batch >= minBatch || div >= dnnMaxDivisor {
			return max(batch, minBatch), div, nil
		}
	}
}

// footprint builds the network on a scratch allocator and returns its size.
func (w inferNet) footprint(batch, div int) uint64 {
	a, err := objtable.NewAllocator(objtable.Tagging{IDBits: 15, ConfigBit: 1}, 4096)
	if err != nil {
		panic(err)
	}
	w.def(&imodel{dnet: newDNet(a), n: batch}, div)
	return a.Footprint()
}

// act is an activation: a tensor of n images of c x h x w elements.
type act struct {
	y       *tensor
	c, h, w int
}

func (a *act) hw() int { return a.h * a.w }

// imodel emits a forward pass over a batch of n images.
type imodel struct {
	*dnet
	n int
}

// input allocates the batch of c x h x w images.
func (m *imodel) input(c, h, w int) *act {
	return &act{y: m.tensor("input", m.n*c*h*w), c: c, h: h, w: w}
}

// newAct allocates an activation of the batch.
func (m *imodel) newAct(name string, c, h, w int) *act {
	return &act{y: m.tensor(name, m.n*c*h*w), c: c, h: h, w: w}
}

// tensorView is t from element off on: the same object, addressed from there
// (a GEMM operand inside a larger tensor).
func tensorView(t *tensor, off int) *tensor {
	return &tensor{name: t.name, ptr: t.ptr + uint64(off)*benchmarks.FloatBytes, id: t.id, n: t.n - off}
}

// conv is a k x k convolution of x to cout channels in groups, with bias
// and ReLU. It allocates the bias, the weights, the output and (unless
// 1 x 1) the column buffer, in that order.
func (m *imodel) conv(name string, x *act, cout, k, stride, pad, groups int) *act {
	if x.c%groups != 0 || cout%groups != 0 {
		m.err = fmt.Errorf("%s: %d and %d channels in %d groups", name, x.c, cout, groups)
		return x
	}
	oh, ow := (x.h+2*pad-k)/stride+1, (x.w+2*pad-k)/stride+1
	cin, cog := x.c/groups, cout/groups
	ckk, ohw, np := cin*k*k, oh*ow, m.n*oh*ow
	b := m.tensor(name+".bias", cout)
	w := m.tensor(name+".weight", cout*ckk)
	y := m.newAct(name, cout, oh, ow)
	direct := k == 1 && stride == 1 && pad == 0
	var col *tensor
	if !direct {
		col = m.tensor(name+".col", ckk*np)
	}
	// The group loop moves the pointers into x (its channels), w and y
	// with g, so with two groups or more those are HostLoop in its
	// launches: each span is the group's slice of every image.
	images, hw := int64(m.n-1), int64(x.hw())
	xIt := func(g int) benchmarks.LoopSpan {
		return benchmarks.AffineLoop(g, groups, 0, int64(cin)*hw*benchmarks.FloatBytes, (images*int64(x.c)+int64(cin))*hw*benchmarks.FloatBytes)
	}
	for g := 0; g < groups; g++ {
		src := mat{t: tensorView(x.y, g*cin*x.hw()), ld: x.hw(), batchStride: x.c * x.hw()}
		if !direct {
			m.im2colGroup(x, col, g*cin, cin, k, stride, pad)
			if groups > 1 {
				m.iterate(x.y, xIt(g))
			}
			src = mat{t: col, ld: np, batchStride: ohw}
		}
		m.gemm("gemm", cog, ohw, ckk, m.n, mat{t: tensorView(w, g*cog*ckk), ld: ckk}, src,
			mat{t: tensorView(y.y, g*cog*ohw), ld: ohw, batchStride: cout * ohw}, false)
		if groups > 1 {
			wb, yb := int64(cog*ckk)*benchmarks.FloatBytes, int64(cog*ohw)*benchmarks.FloatBytes
			m.iterate(w, benchmarks.AffineLoop(g, groups, 0, wb, wb))
			m.iterate(y.y, benchmarks.AffineLoop(g, groups, 0, yb, (images*int64(cout)+int64(cog))*int64(ohw)*benchmarks.FloatBytes))
			if direct {
				m.iterate(x.y, xIt(g))
			}
		}
	}
	m.vector("bias_relu", y.y.n, rd(y.y, nil), rd(b, func(e int) int { return e / ohw % cout }), wr(y.y, nil))
	return y
}

// im2colGroup copies channels c0 .. c0+cin-1 of x into col [cin*k*k x
// N*OH*OW], one work-item per column element (the per-element im2col
// of the training networks, operator.go, over one group of channels).
func (m *imodel) im2colGroup(x *act, col *tensor, c0, cin, k, stride, pad int) {
	c, h, w := x.c, x.h, x.w
	oh, ow := (h+2*pad-k)/stride+1, (w+2*pad-k)/stride+1
	np := m.n * oh * ow
	idx := func(e int) int {
		row, j := e/np, e%np
		ci, kk := row/(k*k), row%(k*k)
		n, p := j/(oh*ow), j%(oh*ow)
		iy := p/ow*stride - pad + kk/k
		ix := p%ow*stride - pad + kk%k
		if iy < 0 || iy >= h || ix < 0 || ix >= w {
			return -1
		}
		return ((n*c+c0+ci)*h+iy)*w + ix
	}
	active := m.n * cin * convTaps(oh, h, k, stride, pad) * convTaps(ow, w, k, stride, pad)
	m.elementwise("im2col", cin*k*k*np, rdPartial(x.y, idx, active), wr(col, nil))
}

// convTaps counts the pairs (o, t) of an output position o in 0 .. out-1 and
// a filter tap t in 0 .. k-1 that read inside an input of length in:
// 0 <= o*stride - pad + t < in.
func convTaps(out, in, k, stride, pad int) int {
	n := 0
	for t := 0; t < k; t++ {
		lo := 0 // the first o with o*stride >= pad - t
		if d := pad - t; d > 0 {
			lo = benchmarks.CeilDiv(d, stride)
		}
		hi := out - 1 // the last o with o*stride <= in - 1 + pad - t
		if d := in - 1 + pad - t; d < 0 {
			hi = -1
		} else {
			hi = min(hi, d/stride)
		}
		n += max(0, hi-lo+1)
	}
	return n
}

// lrn is Tango's norm: each element divided by a power of the sum of
// squares over size neighbouring channels.
func (m *imodel) lrn(name string, x *act, size int) *act {
	y := m.newAct(name, x.c, x.h, x.w)
	hw, c := x.hw(), x.c
	ops := []operand{}
	for dc := -size / 2; dc <= size/2; dc++ {
		ops = append(ops, rdPartial(x.y, func(e int) int {
			if ch := e/hw%c + dc; ch < 0 || ch >= c {
				return -1
			}
			return e + dc*hw
		}, m.n*hw*max(0, c-max(dc, -dc))))
	}
	m.elementwise("lrn", y.y.n, append(ops, wr(y.y, nil))...)
	return y
}

// maxpool is a k x k max pooling at a stride.
func (m *imodel) maxpool(name string, x *act, k, stride int) *act {
	oh, ow := (x.h-k)/stride+1, (x.w-k)/stride+1
	y := m.newAct(name, x.c, oh, ow)
	h, w := x.h, x.w
	ops := []operand{}
	for i := 0; i < k*k; i++ {
		dy, dx := i/k, i%k
		ops = append(ops, rd(x.y, func(e int) int {
			nc, p := e/(oh*ow), e%(oh*ow)
			return (nc*h+p/ow*stride+dy)*w + p%ow*stride + dx
		}))
	}
	m.elementwise("maxpool", y.y.n, append(ops, wr(y.y, nil))...)
	return y
}

// fc is a fully connected layer with Tango's [out x in] weights: y [N x
// out] = x [N x in] W^T + b, ReLU'd if relu. It allocates the bias, the
// weights and the output.
func (m *imodel) fc(name string, x *act, out int, relu bool) *act {
	in := x.c * x.hw()
	b := m.tensor(name+".bias", out)
	w := m.tensor(name+".weight", out*in)
	y := m.newAct(name, out, 1, 1)
	m.gemm("gemm", m.n, out, in, 1, mat{t: x.y, ld: in}, mat{t: w, ld: in, trans: true}, mat{t: y.y, ld: out}, false)
	kernel := "bias"
	if relu {
		kernel = "bias_relu"
	}
	m.elementwise(kernel, y.y.n, rd(y.y, nil), rd(b, func(e int) int { return e % out }), wr(y.y, nil))
	return y
}

// concat stacks a's and b's channels into one tensor.
func (m *imodel) concat(name string, a, b *act) *act {
	if a.h != b.h || a.w != b.w {
		m.err = fmt.Errorf("%s: concatenating %dx%d and %dx%d", name, a.h, a.w, b.h, b.w)
		return a
	}
	y := m.newAct(name, a.c+b.c, a.h, a.w)
	hw, c := a.hw(), a.c+b.c
	part := func(src *act, c0 int) operand {
		return rdPartial(src.y, func(e int) int {
			n, ch, p := e/(c*hw), e/hw%c-c0, e%hw
			if ch < 0 || ch >= src.c {
				return -1
			}
			return (n*src.c+ch)*hw + p
		}, src.y.n)
	}
	m.elementwise("concat", y.y.n, part(a, 0), part(b, a.c), wr(y.y, nil))
	return y
}

// avgpool is a global average pooling to c x 1 x 1.
func (m *imodel) avgpool(name string, x *act) *act {
	y := m.newAct(name, x.c, 1, 1)
	hw := x.hw()
	ops := []operand{}
	for j := 0; j < hw; j++ {
		ops = append(ops, rd(x.y, func(e int) int { return e*hw + j }))
	}
	m.elementwise("avgpool", y.y.n, append(ops, wr(y.y, nil))...)
	return y
}
