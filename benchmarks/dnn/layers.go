package dnn

import "fmt"

// The training layers, as MGPUSim's benchmarks/dnn/layers (v3.0.3) runs
// them on the gputensor operators (operator.go), and its trainer
// (training/trainer.go, gputraining/dataparallelism.go with one network
// on the unified device), loss (training/softmaxcrossentropy.go) and
// optimiser (training/optimization/adam.go). "conv2d.go:N" and the like
// below are lines of those files. Batch norm, dropout and the residual
// block are not in MGPUSim; they are built the same way (operators of one
// work-item per element in workgroups of 64, fresh outputs, gputensor's
// own Sum, ElementWiseMul and ScaleAdd where they serve) and say so.

// layer is MGPUSim's layers.Layer: forward returns a fresh output,
// backward the input gradient (nil for a layer of index 0, which has
// none to give).
type layer interface {
	forward(x *tensor) *tensor
	backward(dy *tensor) *tensor
}

// trainable is a layer with parameters: one parameters tensor and one
// gradients tensor, which the optimiser updates.
type trainable interface {
	layer
	parameters() (params, grads *tensor)
}

// composite is a layer made of others (the residual block); the
// optimiser visits them in forward order.
type composite interface {
	sublayers() []layer
}

// paramTensors allocates a layer's parameters and gradients tensors
// (conv2d.go:52-62, fullconnectedlayer.go:36-48): the host initialises
// the parameters (Randomize, an Init host copy). The parameters tensor
// is named name.weight: it is MGPUSim's parameters, the weights then the
// bias (Slice views), which the figures call C2D's Parameters
// (figures.paperObjectNames).
func (d *dnet) paramTensors(name string, n int) (params, grads *tensor) {
	params = d.create(name+".weight", n)
	grads = d.create(name+".weight.grad", n)
	d.hostInit(params)
	return params, grads
}

// paramHalves is paramTensors of n+m values, with each tensor's views of
// its first n (weights, gamma) and last m (bias, beta), as every layer
// with parameters slices them.
type paramHalves struct{ params, grads, first, second, gradFirst, gradSecond *tensor }

func (d *dnet) paramHalves(name string, n, m int) paramHalves {
	h := paramHalves{}
	h.params, h.grads = d.paramTensors(name, n+m)
	h.first, h.second = slice(h.params, 0, n), slice(h.params, n, n+m)
	h.gradFirst, h.gradSecond = slice(h.grads, 0, n), slice(h.grads, n, n+m)
	return h
}

// conv2d is layers.Conv2D: weights [k, c, kh, kw] and bias [k] in one
// parameters tensor, stride and padding equal in both dimensions.
type conv2d struct {
	d                           *dnet
	name                        string
	index                       int
	c, h, w                     int // input
	k, kh, kw                   int
	stride, pad                 int
	oh, ow                      int
	params, grads               *tensor
	weights, bias, wgrad, bgrad *tensor
	fwdIn                       *tensor
}

func newConv2D(d *dnet, name string, index int, in [3]int, k, kernel, stride, pad int) *conv2d {
	l := &conv2d{d: d, name: name, index: index, c: in[0], h: in[1], w: in[2], k: k, kh: kernel, kw: kernel,
		stride: stride, pad: pad}
	l.oh = (l.h-l.kh+2*pad)/stride + 1
	l.ow = (l.w-l.kw+2*pad)/stride + 1
	nw := k * l.c * l.kh * l.kw
	h := d.paramHalves(name, nw, k)
	l.params, l.grads = h.params, h.grads
	l.weights, l.bias, l.wgrad, l.bgrad = h.first, h.second, h.gradFirst, h.gradSecond
	return l
}

func (l *conv2d) parameters() (params, grads *tensor) { return l.params, l.grads }

// forward is conv2d.go:160-195: Clone(x) kept for backward; Im2Col of x;
// Reshape (a copy) of the weights; Repeat of the bias over the columns
// and its 2-D Transpose; Gemm(weights, columns, bias^T); the 4-D
// Transpose of the [k, N, oh, ow] product to NCHW; then the column
// matrix, the weight and bias matrices and the product are freed. Seven
// launches.
func (l *conv2d) forward(x *tensor) *tensor {
	d, n := l.d, x.size[0]
	l.fwdIn = d.clone(x, l.name+".forwardInput")
	col := d.im2col(x, [2]int{l.kh, l.kw}, [2]int{l.pad, l.pad}, [2]int{l.stride, l.stride}, [2]int{1, 1}, [2]int{},
		l.name+".col")
	rows, cols := l.c*l.kh*l.kw, n*l.oh*l.ow
	wm := d.reshape(l.weights, l.name+".weightMatrix", l.k, rows)
	bm := sized(d.repeat(l.bias, cols, l.name+".biasMatrix"), cols, l.k)
	bt := d.transpose(bm, []int{1, 0}, l.name+".biasMatrixT")
	om := d.gemmT(false, false, wm, col, bt, l.name+".gemm")
	out := d.transpose(sized(om, l.k, n, l.oh, l.ow), []int{1, 0, 2, 3}, l.name)
	d.free(col, wm, bm, bt, om)
	return out
}

// backward is conv2d.go:199-299. The weight gradient: 4-D Transposes of
// the forward input and of dy, Im2Col of the transposed input with dy's
// height and width as the kernel and the stride as the dilation, a Gemm
// with zeros as C, and a Copy into the gradients; the five temporaries
// freed. The bias gradient: Sum over axes 0, 2, 3 (three sum_one_axis
// launches) and a Copy. The input gradient, only when the layer's index
// is above 0: Dilate of dy by the stride, Im2Col of it with padding
// k-1-pad, Rotate180 of the weights, its Transpose, a Gemm, and the 4-D
// Transpose back to NCHW; six temporaries freed. Last the forward input's
// clone is freed. 9 launches at index 0, 15 above.
//
// Where (H+2*pad-kh) is not a multiple of the stride (ResNet-18's
// stride-2 layers; never in MGPUSim's LeNet and VGG16, whose
// convolutions have stride 1), the field MGPUSim's Im2Col derives from
// the sizes is one too many for the weight gradient and one too few for
// the input gradient, and MGPUSim's Copy would panic on the size
// mismatch. mgpu passes the field the layer needs (the kernel's, and the
// input's): the same kernel, one column of windows fewer or one row of
// padding more, an extrapolation. Elsewhere the override equals
// MGPUSim's field.
func (l *conv2d) backward(dy *tensor) *tensor {
	d, n := l.d, dy.size[0]
	xT := d.transpose(l.fwdIn, []int{1, 0, 2, 3}, l.name+".xT")
	dyT := d.transpose(dy, []int{1, 0, 2, 3}, l.name+".dyT")
	xCols := d.im2col(xT, [2]int{l.oh, l.ow}, [2]int{l.pad, l.pad}, [2]int{1, 1}, [2]int{l.stride, l.stride},
		[2]int{l.kh, l.kw}, l.name+".xCols")
	zeros := d.zeros(l.name+".zeros", l.k, l.c*l.kh*l.kw)
	dW := d.gemmT(false, false, sized(dyT, l.k, n*l.oh*l.ow), sized(xCols, n*l.oh*l.ow, l.c*l.kh*l.kw), zeros,
		l.name+".dW")
	d.copyT(l.wgrad, dW)
	d.free(dW, xT, dyT, xCols, zeros)

	db := d.sum(dy, []int{0, 2, 3}, l.name+".dbias")
	d.copyT(l.bgrad, db)
	d.free(db)

	var out *tensor
	if l.index > 0 {
		dd := d.dilate(dy, [2]int{l.stride, l.stride}, l.name+".dyDilate")
		col := d.im2col(dd, [2]int{l.kh, l.kw}, [2]int{l.kh - 1 - l.pad, l.kw - 1 - l.pad}, [2]int{1, 1}, [2]int{1, 1},
			[2]int{l.h, l.w}, l.name+".dyCols")
		rot := d.rotate180(sized(l.weights, l.k, l.c, l.kh, l.kw), l.name+".kernelRot")
		km := d.transpose(rot, []int{1, 0, 2, 3}, l.name+".kernelMatrix")
		z := d.zeros(l.name+".dxZeros", l.c, n*l.h*l.w)
		om := d.gemmT(false, false, sized(km, l.c, l.k*l.kh*l.kw), col, z, l.name+".dxGemm")
		out = d.transpose(sized(om, l.c, n, l.h, l.w), []int{1, 0, 2, 3}, l.name+".dx")
		d.free(dd, col, rot, km, z, om)
	}
	d.free(l.fwdIn)
	return out
}

// fc is layers.FullyConnectedLayer: weights [in, out] then bias [out] in
// one parameters tensor.
type fc struct {
	d                           *dnet
	name                        string
	index                       int
	in, out                     int
	params, grads               *tensor
	weights, bias, wgrad, bgrad *tensor
	fwdIn                       *tensor
}

func newFC(d *dnet, name string, index, in, out int) *fc {
	l := &fc{d: d, name: name, index: index, in: in, out: out}
	nw := in * out
	h := d.paramHalves(name, nw, out)
	l.params, l.grads = h.params, h.grads
	l.weights, l.bias, l.wgrad, l.bgrad = h.first, h.second, h.gradFirst, h.gradSecond
	return l
}

func (l *fc) parameters() (params, grads *tensor) { return l.params, l.grads }

// forward is fullconnectedlayer.go:71-90: Clone(x) kept for backward;
// Reshapes (copies) of x and of the weights; Repeat of the bias over the
// batch and its Reshape; Gemm; the four temporaries freed. Six launches.
func (l *fc) forward(x *tensor) *tensor {
	d, n := l.d, x.size[0]
	l.fwdIn = d.clone(x, l.name+".forwardInput")
	in := d.reshape(x, l.name+".in", n, l.in)
	wm := d.reshape(l.weights, l.name+".weightMatrix", l.in, l.out)
	bm := d.repeat(l.bias, n, l.name+".biasMatrix")
	br := d.reshape(bm, l.name+".biasMatrixReshape", n, l.out)
	out := d.gemmT(false, false, in, wm, br, l.name)
	d.free(in, wm, bm, br)
	return out
}

// backward is fullconnectedlayer.go:93-157: the gradients cleared on the
// host; the weight gradient from Reshapes of the forward input and dy and
// a Gemm with A transposed (a 2-D Transpose first) and zeros as C, Copied
// into the gradients; the bias gradient by Sum over the batch and a Copy;
// and, when the index is above 0, the input gradient from Reshapes of the
// weights and dy and a Gemm with B transposed. Last the forward input's
// clone is freed. 7 launches at index 0, 11 above.
func (l *fc) backward(dy *tensor) *tensor {
	d, n := l.d, dy.size[0]
	d.hostInit(l.grads) // Clear
	fIn := d.reshape(l.fwdIn, l.name+".fIn", n, l.in)
	bIn := d.reshape(dy, l.name+".bIn", n, l.out)
	z := d.zeros(l.name+".zeros", l.in, l.out)
	g := d.gemmT(true, false, fIn, bIn, z, l.name+".dW")
	d.copyT(l.wgrad, g)
	d.free(fIn, bIn, z, g)

	db := d.sum(sized(dy, n, l.out), []int{0}, l.name+".dbias")
	d.copyT(l.bgrad, db)
	d.free(db)

	var out *tensor
	if l.index > 0 {
		wm := d.reshape(l.weights, l.name+".wM", l.in, l.out)
		iM := d.reshape(dy, l.name+".iM", n, l.out)
		z2 := d.zeros(l.name+".dxZeros", n, l.in)
		out = d.gemmT(false, true, iM, wm, z2, l.name+".dx")
		d.free(wm, iM, z2)
	}
	d.free(l.fwdIn)
	return out
}

// relu is layers.ReluLayer (relulayer.go:24-36): forward Clones its input
// (kept for backward) and runs reluForward; backward runs reluBackward
// and frees the clone.
type relu struct {
	d     *dnet
	name  string
	fwdIn *tensor
}

func (l *relu) forward(x *tensor) *tensor {
	l.fwdIn = l.d.clone(x, l.name+".forwardInput")
	return l.d.reluForward(x, l.name)
}

func (l *relu) backward(dy *tensor) *tensor {
	out := l.d.reluBackward(l.fwdIn, dy, l.name+".dx")
	l.d.free(l.fwdIn)
	return out
}

// pool is layers.AvgPoolingLayer (avgpooling.go:32-52) or
// layers.MaxPoolingLayer (maxpooling.go:33-55): forward Clones its input
// (MGPUSim keeps it for backward, which uses only its size) and pools;
// backward pools back, then frees the clone (and the max mask).
type pool struct {
	d                   *dnet
	name                string
	max                 bool
	kernel, pad, stride [2]int
	fwdIn, mask         *tensor
	outSize             []int
}

func (l *pool) forward(x *tensor) *tensor {
	d := l.d
	l.fwdIn = d.clone(x, l.name+".forwardInput")
	var out *tensor
	if l.max {
		out, l.mask = d.maxPoolForward(x, l.kernel, l.pad, l.stride, l.name)
	} else {
		out = d.avgPoolForward(x, l.kernel, l.pad, l.stride, l.name)
	}
	l.outSize = out.size
	return out
}

func (l *pool) backward(dy *tensor) *tensor {
	d := l.d
	dy = sized(dy, l.outSize...) // SetSize(forwardOutputSize)
	var out *tensor
	if l.max {
		out = d.maxPoolBackward(l.fwdIn, dy, l.mask, l.kernel, l.pad, l.stride, l.name+".dx")
		d.free(l.fwdIn, l.mask)
	} else {
		out = d.avgPoolBackward(l.fwdIn, dy, l.kernel, l.pad, l.stride, l.name+".dx")
		d.free(l.fwdIn)
	}
	return out
}

// batchNorm is mgpu's batch normalisation for ResNet-18, which MGPUSim
// does not have: an extrapolation in gputensor's style. The parameters
// tensor holds gamma then beta. Forward: Clone(x) kept for backward; the
// per-channel sums of x and of x*x by gputensor Sum over axes 0, 2, 3
// (with ElementWiseMul for the squares, freed after), both kept for
// backward; then the bn kernel, one work-item per element reading x and
// its channel's sums, gamma and beta. Nine launches. Backward: gradients
// cleared on the host; the beta gradient by Sum of dy and a Copy; dy
// times the normalised input by a bn_xhat kernel, its Sum and a Copy
// into the gamma gradient; the input gradient by a bn_grad kernel reading
// dy, x, the sums and the parameters and their gradients per channel;
// then the clone and the sums freed. Ten launches.
type batchNorm struct {
	d                          *dnet
	name                       string
	c                          int
	params, grads              *tensor
	gamma, beta, dgamma, dbeta *tensor
	fwdIn, sum, sumSq          *tensor
}

func newBatchNorm(d *dnet, name string, c int) *batchNorm {
	l := &batchNorm{d: d, name: name, c: c}
	h := d.paramHalves(name, c, c)
	l.params, l.grads = h.params, h.grads
	l.gamma, l.beta, l.dgamma, l.dbeta = h.first, h.second, h.gradFirst, h.gradSecond
	return l
}

func (l *batchNorm) parameters() (params, grads *tensor) { return l.params, l.grads }

// channel maps element tid of an [n, c, h, w] tensor to its channel.
func channel(size []int) func(int) int {
	hw, c := size[2]*size[3], size[1]
	return func(tid int) int { return tid / hw % c }
}

func (l *batchNorm) forward(x *tensor) *tensor {
	d := l.d
	ch := channel(x.size)
	l.fwdIn = d.clone(x, l.name+".forwardInput")
	l.sum = d.sum(x, []int{0, 2, 3}, l.name+".mean")
	sq := d.elementWiseMul(x, x, l.name+".square")
	l.sumSq = d.sum(sq, []int{0, 2, 3}, l.name+".meanSquare")
	d.free(sq)
	out := d.create(l.name, x.size...)
	d.gtKernel("bn", x.n, []step{ld(x, self), ld(l.sum, ch), ld(l.sumSq, ch), ld(l.gamma, ch), ld(l.beta, ch),
		st(out, self)})
	return out
}

func (l *batchNorm) backward(dy *tensor) *tensor {
	d := l.d
	ch := channel(dy.size)
	d.hostInit(l.grads) // Clear
	db := d.sum(dy, []int{0, 2, 3}, l.name+".dbeta")
	d.copyT(l.dbeta, db)
	d.free(db)
	xh := d.create(l.name+".dyXhat", dy.size...)
	d.gtKernel("bn_xhat", dy.n, []step{ld(dy, self), ld(l.fwdIn, self), ld(l.sum, ch), ld(l.sumSq, ch), st(xh, self)})
	dg := d.sum(xh, []int{0, 2, 3}, l.name+".dgamma")
	d.copyT(l.dgamma, dg)
	d.free(xh, dg)
	out := d.create(l.name+".dx", dy.size...)
	d.gtKernel("bn_grad", dy.n, []step{ld(dy, self), ld(l.fwdIn, self), ld(l.sum, ch), ld(l.sumSq, ch),
		ld(l.gamma, ch), ld(l.dgamma, ch), ld(l.dbeta, ch), st(out, self)})
	d.free(l.fwdIn, l.sum, l.sumSq)
	return out
}

// dropout is mgpu's VGG16 dropout, which MGPUSim's VGG16 does not have:
// an extrapolation in gputensor's style. Forward writes a fresh keep mask
// and a fresh output, one work-item per element; backward a fresh input
// gradient from the mask and dy, then frees the mask. Which elements are
// dropped is a value, not an address.
type dropout struct {
	d    *dnet
	name string
	mask *tensor
}

func (l *dropout) forward(x *tensor) *tensor {
	l.mask = l.d.create(l.name+".mask", x.size...)
	out := l.d.create(l.name, x.size...)
	l.d.gtKernel("dropout", x.n, []step{ld(x, self), st(l.mask, self), st(out, self)})
	return out
}

func (l *dropout) backward(dy *tensor) *tensor {
	out := l.d.create(l.name+".dx", l.mask.size...)
	l.d.gtKernel("dropout_grad", dy.n, []step{ld(l.mask, self), ld(dy, self), st(out, self)})
	l.d.free(l.mask)
	return out
}

// basicBlock is ResNet-18's basic block, an extrapolation (MGPUSim has
// no ResNet): conv, batch norm, ReLU, conv, batch norm on the main path;
// the input, or a 1x1 strided conv with batch norm, on the shortcut; the
// sum by gputensor ScaleAdd into a fresh tensor, then ReLU. Backward runs
// the ReLU, hands its gradient unchanged to both paths (the sum's
// gradient, no kernel), runs each path back and sums the two input
// gradients with ScaleAdd.
type basicBlock struct {
	d            *dnet
	name         string
	conv1, conv2 *conv2d
	bn1, bn2     *batchNorm
	relu1, relu2 *relu
	downConv     *conv2d
	downBN       *batchNorm
}

func newBasicBlock(d *dnet, name string, index int, in [3]int, c, stride int) *basicBlock {
	b := &basicBlock{d: d, name: name}
	b.conv1 = newConv2D(d, name+".conv1", index, in, c, 3, stride, 1)
	b.bn1 = newBatchNorm(d, name+".bn1", c)
	b.relu1 = &relu{d: d, name: name + ".relu1"}
	b.conv2 = newConv2D(d, name+".conv2", index+1, [3]int{c, b.conv1.oh, b.conv1.ow}, c, 3, 1, 1)
	b.bn2 = newBatchNorm(d, name+".bn2", c)
	if stride != 1 || in[0] != c {
		b.downConv = newConv2D(d, name+".downsample", index+2, in, c, 1, stride, 0)
		b.downBN = newBatchNorm(d, name+".downsample.bn", c)
	}
	b.relu2 = &relu{d: d, name: name + ".relu2"}
	return b
}

func (b *basicBlock) sublayers() []layer {
	ls := []layer{b.conv1, b.bn1, b.relu1, b.conv2, b.bn2}
	if b.downConv != nil {
		ls = append(ls, b.downConv, b.downBN)
	}
	return append(ls, b.relu2)
}

func (b *basicBlock) forward(x *tensor) *tensor {
	y := b.relu1.forward(b.bn1.forward(b.conv1.forward(x)))
	y = b.bn2.forward(b.conv2.forward(y))
	short := x
	if b.downConv != nil {
		short = b.downBN.forward(b.downConv.forward(x))
	}
	return b.relu2.forward(b.d.scaleAdd(y, short, b.name+".add"))
}

func (b *basicBlock) backward(dy *tensor) *tensor {
	dy = b.relu2.backward(dy)
	main := b.conv1.backward(b.relu1.backward(b.bn1.backward(b.conv2.backward(b.bn2.backward(dy)))))
	short := dy
	if b.downConv != nil {
		short = b.downConv.backward(b.downBN.backward(dy))
	}
	return b.d.scaleAdd(main, short, b.name+".dx")
}

// adamOpt is optimization.Adam (adam.go:32-57): on a layer's first update
// its v history is a Clone of the gradients and its s history the
// ElementWiseMul of another Clone with itself (that clone freed); every
// update is one adam launch over the parameters.
type adamOpt struct {
	d    *dnet
	hist map[int][2]*tensor
}

func (a *adamOpt) update(l trainable) {
	d := a.d
	p, g := l.parameters()
	h, ok := a.hist[p.id]
	if !ok {
		v := d.clone(g, p.name+".adamV")
		s := d.clone(g, p.name+".adamS0")
		sq := d.elementWiseMul(s, s, p.name+".adamS")
		d.free(s)
		h = [2]*tensor{v, sq}
		a.hist[p.id] = h
	}
	d.adam(p, g, h[0], h[1])
}

// softmaxCrossEntropy is training.SoftmaxCrossEntropy.Loss
// (softmaxcrossentropy.go:18-32): Softmax of the logits, the loss on the
// CPU (operator.go:1277-1305, no kernel), the derivative from the logits
// and the labels, then the softmax freed. Four launches.
func (d *dnet) softmaxCrossEntropy(logits *tensor) *tensor {
	if len(logits.size) != 2 {
		d.err = fmt.Errorf("%s: loss of %q of size %v", d.where(), logits.name, logits.size)
		return logits
	}
	sm := d.softmax(logits, "softmax")
	der := d.softmaxCEDerivative(logits, "softmax.grad")
	d.free(sm)
	return der
}

// flatten lists layers and the sublayers of composite ones in forward
// order.
func flatten(ls []layer) []layer {
	var out []layer
	for _, l := range ls {
		if c, ok := l.(composite); ok {
			out = append(out, flatten(c.sublayers())...)
			continue
		}
		out = append(out, l)
	}
	return out
}

// train runs batches training steps of a network on n images of size
// in (gputraining's DataParallelismMultiGPUTrainer with one network, which
// is what a unified device gives it): per batch the data source's
// CreateWithData of the input, forward through the layers, the loss,
// backward in reverse, then Adam over the layers in order.
func (d *dnet) train(batches, n int, in [3]int, layers []layer) {
	opt := &adamOpt{d: d, hist: map[int][2]*tensor{}}
	for b := 0; b < batches; b++ {
		x := d.create("input", n, in[0], in[1], in[2])
		d.hostInit(x)
		for _, l := range layers {
			x = l.forward(x)
		}
		dy := d.softmaxCrossEntropy(x)
		for i := len(layers) - 1; i >= 0 && dy != nil; i-- {
			dy = layers[i].backward(dy)
		}
		for _, l := range flatten(layers) {
			if t, ok := l.(trainable); ok {
				opt.update(t)
			}
		}
	}
}
