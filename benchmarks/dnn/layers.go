package dnn

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
)

// act is an activation: a tensor of n images of c x h x w elements, its
// gradient, and whether the backward pass has written the gradient yet (a
// second producer, the identity branch of a residual block, accumulates).
type act struct {
	y, dy   *tensor
	c, h, w int
	written bool
}

func (a *act) hw() int { return a.h * a.w }

// dnnVariant is how a DNN program allocates its tensors. Table II gives
// only each network's object count; frameworks differ in exactly these
// choices, and each model states which it uses (see the model docs).
type dnnVariant struct {
	// freshPerIteration: activations and gradients are new allocations in
	// every training iteration, as MGPUSim's gputensor operators allocate
	// their outputs (parameters persist). Otherwise they are allocated once.
	freshPerIteration bool
	// inplaceReLU: ReLU overwrites its input and its gradient (no tensors).
	inplaceReLU bool
	// convBias: convolutions have a bias (not when batch norm follows).
	convBias bool
	// bnStats: batch norm keeps the batch mean and inverse deviation for
	// the backward pass as tensors.
	bnStats bool
	// momentum: SGD with momentum, one velocity tensor per parameter.
	momentum bool
	// lossTensor: the loss layer writes the per-image loss to a tensor.
	lossTensor bool
	// reuseCol: the backward data GEMM writes the column gradient over the
	// column buffer (the weight gradient has consumed it) instead of into
	// a tensor of its own.
	reuseCol bool
	// inplaceAdd: the residual add accumulates into its first operand.
	inplaceAdd bool
	// aliasAddGrad: the residual add's output gradient is stored in its
	// first operand's gradient (they are equal), so the add allocates only
	// its output.
	aliasAddGrad bool
	// persistentGrads: parameter gradients are allocated once, like the
	// parameters, even when activations are fresh per iteration.
	persistentGrads bool
	// persistentLabels: the labels are uploaded once, not with every batch.
	persistentLabels bool
}

// dmodel builds a training program: layers record their forward, backward
// and update kernels; run emits iterations of them.
type dmodel struct {
	*dnet
	v      dnnVariant
	n      int // batch
	params map[string]*tensor
	fresh  bool // allocate activations in this build
	acts   map[string]*tensor
	fwd    []func()
	bwd    []func()
	upd    []func()
}

func newDModel(d *dnet, v dnnVariant, batch int) *dmodel {
	return &dmodel{dnet: d, v: v, n: batch, params: map[string]*tensor{}, acts: map[string]*tensor{}}
}

// train emits iterations of the network def builds: forward in layer
// order, backward in reverse, then the parameter updates.
func (m *dmodel) train(iterations int, def func(m *dmodel)) {
	for it := 0; it < iterations; it++ {
		m.fwd, m.bwd, m.upd = nil, nil, nil
		m.fresh = it == 0 || m.v.freshPerIteration
		def(m)
		for _, f := range m.fwd {
			f()
		}
		for i := len(m.bwd) - 1; i >= 0; i-- {
			m.bwd[i]()
		}
		for _, f := range m.upd {
			f()
		}
	}
}

// param returns the persistent tensor of that name, allocating it once.
func (m *dmodel) param(name string, n int) *tensor {
	if t, ok := m.params[name]; ok {
		return t
	}
	t := m.tensor(name, n)
	m.params[name] = t
	return t
}

// activation returns the tensor for this iteration: a new allocation when
// the build is fresh, the earlier one otherwise.
func (m *dmodel) activation(name string, n int) *tensor {
	if t, ok := m.acts[name]; ok && !m.fresh {
		return t
	}
	t := m.tensor(name, n)
	m.acts[name] = t
	return t
}

// newAct allocates an activation and its gradient (the gradient only if
// grad is set: the network input has none).
func (m *dmodel) newAct(name string, c, h, w int, grad bool) *act {
	a := &act{c: c, h: h, w: w}
	a.y = m.activation(name, m.n*c*h*w)
	if grad {
		a.dy = m.activation(name+".grad", m.n*c*h*w)
	}
	return a
}

// input is the batch of images and its labels.
func (m *dmodel) input(c, h, w int) (*act, *tensor) {
	x := m.newAct("input", c, h, w, false)
	if m.v.persistentLabels {
		return x, m.param("labels", m.n)
	}
	labels := m.activation("labels", m.n)
	return x, labels
}

// sgd updates a parameter from its gradient (and velocity).
func (m *dmodel) sgd(p, g *tensor) {
	ops := []operand{rd(p, nil), rd(g, nil)}
	if m.v.momentum {
		v := m.param(p.name+".velocity", p.n)
		ops = append(ops, rd(v, nil), wr(v, nil))
	}
	ops = append(ops, wr(p, nil))
	m.upd = append(m.upd, func() { m.vector("sgd", p.n, ops...) })
}

// grad returns a parameter gradient: persistent like the parameter unless
// gradients are fresh per iteration.
func (m *dmodel) grad(name string, n int) *tensor {
	if m.v.persistentGrads {
		return m.param(name+".grad", n)
	}
	return m.activation(name+".grad", n)
}

// writeGrad is the operand list that stores a layer's input gradient:
// a plain write the first time, read-add-write when a second consumer
// (a residual branch) already wrote it.
func writeGrad(a *act, idx func(int) int) []operand {
	if a.written {
		return []operand{rd(a.dy, idx), wr(a.dy, idx)}
	}
	a.written = true
	return []operand{wr(a.dy, idx)}
}

// conv is a 2D convolution as MGPUSim's gputensor runs it: im2col of the
// whole batch into col [C*k*k x N*OH*OW], one GEMM with the weights
// [Cout x C*k*k] into g [Cout x N*OH*OW], a transpose of g into the NCHW
// output, and the bias. Backward transposes the output gradient back into
// g (the buffer is reused), computes the weight gradient as a GEMM summed
// over images (split-K), the bias gradient by a reduction, and, unless x
// is the network input, the column gradient dcol = W^T g and col2im into
// x's gradient.
func (m *dmodel) conv(name string, x *act, cout, k, stride, pad int) *act {
	oh, ow := (x.h+2*pad-k)/stride+1, (x.w+2*pad-k)/stride+1
	ckk, np := x.c*k*k, m.n*oh*ow
	w := m.param(name+".weight", cout*ckk)
	var b, db *tensor
	if m.v.convBias {
		b = m.param(name+".bias", cout)
	}
	col := m.activation(name+".col", ckk*np)
	g := m.activation(name+".gemm", cout*np)
	y := m.newAct(name, cout, oh, ow, true)
	dw := m.grad(name+".weight", cout*ckk)
	if b != nil {
		db = m.grad(name+".bias", cout)
	}
	var dcol *tensor
	if x.dy != nil {
		dcol = col
		if !m.v.reuseCol {
			dcol = m.activation(name+".col.grad", ckk*np)
		}
	}
	c, h, wd := x.c, x.h, x.w
	// gIdx maps NCHW output element e to g [Cout x N*OH*OW].
	gIdx := func(e int) int {
		n, r := e/(cout*oh*ow), e%(cout*oh*ow)
		co, p := r/(oh*ow), r%(oh*ow)
		return co*np + n*oh*ow + p
	}
	chIdx := func(e int) int { return e / (oh * ow) % cout }
	m.fwd = append(m.fwd, func() {
		m.im2col(x, col, k, stride, pad)
		m.gemm("gemm", cout, np, ckk, 1, mat{t: w, ld: ckk}, mat{t: col, ld: np}, mat{t: g, ld: np}, false)
		m.elementwise("transpose", y.y.n, rd(g, gIdx), wr(y.y, nil))
		if b != nil {
			m.elementwise("bias", y.y.n, rd(y.y, nil), rd(b, chIdx), wr(y.y, nil))
		}
	})
	m.bwd = append(m.bwd, func() {
		m.elementwise("transpose", y.y.n, rd(y.dy, nil), wr(g, gIdx))
		// The split-K weight-gradient GEMM accumulates: zero dW first.
		m.vector("fill", dw.n, wr(dw, nil))
		// dW = sum over images of g_n [Cout x OH*OW] x col_n^T.
		m.gemm("gemm", cout, ckk, oh*ow, m.n,
			mat{t: g, ld: np, batchStride: oh * ow}, mat{t: col, ld: np, trans: true, batchStride: oh * ow},
			mat{t: dw, ld: ckk}, false)
		if db != nil {
			m.reduce("bias_grad", y.dy, m.n, cout, oh*ow, db)
		}
		if dcol == nil {
			return
		}
		m.gemm("gemm", ckk, np, cout, 1, mat{t: w, ld: ckk, trans: true}, mat{t: g, ld: np}, mat{t: dcol, ld: np}, false)
		// col2im: each input element sums the column entries that copied it.
		ops := []operand{}
		for kk := 0; kk < k*k; kk++ {
			ky, kx := kk/k, kk%k
			ops = append(ops, rd(dcol, func(e int) int {
				n, r := e/(c*h*wd), e%(c*h*wd)
				ci, iy, ix := r/(h*wd), r/wd%h, r%wd
				py, px := iy+pad-ky, ix+pad-kx
				if py < 0 || px < 0 || py%stride != 0 || px%stride != 0 || py/stride >= oh || px/stride >= ow {
					return -1
				}
				return (ci*k*k+kk)*np + n*oh*ow + py/stride*ow + px/stride
			}))
		}
		ops = append(ops, writeGrad(x, nil)...)
		m.elementwise("col2im", x.dy.n, ops...)
	})
	m.sgd(w, dw)
	if b != nil {
		m.sgd(b, db)
	}
	return y
}

// im2col copies x into col [C*k*k x N*OH*OW] the way MGPUSim's gputensor
// runs it (its im2col.cl, launched with one work-item per column and 64
// per workgroup): each work-item owns one output position of one image
// and walks the C*k*k rows, reading per row the input element under its
// window (nothing in the zero padding) and writing that row's column
// element. A wavefront loads its kernel arguments once, then alternates
// the gather read and the write, one row at a time. (Params.Im2col's
// per-element kernel issues the same reads and writes from C*k*k times as
// many wavefronts, each with its own kernarg load and far more
// parallelism to hide remote latency behind.)
func (m *dmodel) im2col(x *act, col *tensor, k, stride, pad int) {
	c, h, w := x.c, x.h, x.w
	oh, ow := (h+2*pad-k)/stride+1, (w+2*pad-k)/stride+1
	np, rows := m.n*oh*ow, c*k*k
	// at is the input element that column j of row copies, -1 in the
	// zero padding.
	at := func(row, j int) int {
		ci, kk := row/(k*k), row%(k*k)
		n, p := j/(oh*ow), j%(oh*ow)
		iy := p/ow*stride - pad + kk/k
		ix := p%ow*stride - pad + kk%k
		if iy < 0 || iy >= h || ix < 0 || ix >= w {
			return -1
		}
		return ((n*c+ci)*h+iy)*w + ix
	}
	if m.perElementIm2col {
		m.elementwise("im2col", rows*np, rd(x.y, func(e int) int { return at(e/np, e%np) }), wr(col, nil))
		return
	}
	m.kernarg()
	karg, src, dst := m.karg, x.y, col
	m.launchWG("im2col", benchmarks.CeilDiv(np, benchmarks.WavefrontSize), 1, func(wg, _ int) benchmarks.Stream {
		base := wg * benchmarks.WavefrontSize
		lanes := min(benchmarks.WavefrontSize, np-base)
		return &benchmarks.Loop{N: 1 + 2*rows, Gen: func(s int, in *benchmarks.Instruction) {
			if s == 0 {
				benchmarks.GenKernarg(in, karg.ptr)
				return
			}
			row := (s - 1) / 2
			in.Compute = dnnElemCycles
			if (s-1)%2 == 1 {
				in.Write = true
				for l := 0; l < lanes; l++ {
					in.Addr[l] = dst.ptr + uint64(row*np+base+l)*benchmarks.FloatBytes
				}
				in.Lanes = lanes
				return
			}
			active := 0
			for l := 0; l < lanes; l++ {
				if e := at(row, base+l); e >= 0 {
					in.Addr[active] = src.ptr + uint64(e)*benchmarks.FloatBytes
					active++
				}
			}
			in.Lanes = active
		}}
	}, src, dst)
}

// relu is the rectifier, out of place unless the variant says in place.
func (m *dmodel) relu(name string, x *act) *act {
	if m.v.inplaceReLU {
		m.fwd = append(m.fwd, func() { m.vector("relu", x.y.n, rd(x.y, nil), wr(x.y, nil)) })
		m.bwd = append(m.bwd, func() {
			m.vector("relu_grad", x.y.n, rd(x.y, nil), rd(x.dy, nil), wr(x.dy, nil))
		})
		return x
	}
	y := m.newAct(name, x.c, x.h, x.w, true)
	m.fwd = append(m.fwd, func() { m.vector("relu", x.y.n, rd(x.y, nil), wr(y.y, nil)) })
	m.bwd = append(m.bwd, func() {
		m.vector("relu_grad", x.y.n, append([]operand{rd(y.y, nil), rd(y.dy, nil)}, writeGrad(x, nil)...)...)
	})
	return y
}

// maxpool is a non-overlapping k x k max pooling with its argmax mask.
func (m *dmodel) maxpool(name string, x *act, k int) *act {
	oh, ow := x.h/k, x.w/k
	y := m.newAct(name, x.c, oh, ow, true)
	mask := m.activation(name+".mask", y.y.n)
	h, w := x.h, x.w
	win := func(dy, dx int) func(int) int {
		return func(e int) int {
			nc, p := e/(oh*ow), e%(oh*ow)
			return (nc*h+p/ow*k+dy)*w + p%ow*k + dx
		}
	}
	// outOf maps an input element to the output element of its window.
	outOf := func(e int) int {
		nc, r := e/(h*w), e%(h*w)
		iy, ix := r/w, r%w
		if iy/k >= oh || ix/k >= ow {
			return -1
		}
		return (nc*oh+iy/k)*ow + ix/k
	}
	m.fwd = append(m.fwd, func() {
		ops := []operand{}
		for i := 0; i < k*k; i++ {
			ops = append(ops, rd(x.y, win(i/k, i%k)))
		}
		m.elementwise("maxpool", y.y.n, append(ops, wr(y.y, nil), wr(mask, nil))...)
	})
	m.bwd = append(m.bwd, func() {
		m.elementwise("maxpool_grad", x.y.n, append([]operand{rd(mask, outOf), rd(y.dy, outOf)}, writeGrad(x, nil)...)...)
	})
	return y
}

// avgpool is a global average pooling to c x 1 x 1.
func (m *dmodel) avgpool(name string, x *act) *act {
	y := m.newAct(name, x.c, 1, 1, true)
	hw := x.hw()
	m.fwd = append(m.fwd, func() {
		ops := []operand{}
		for j := 0; j < hw; j++ {
			j := j
			ops = append(ops, rd(x.y, func(e int) int { return e*hw + j }))
		}
		m.elementwise("avgpool", y.y.n, append(ops, wr(y.y, nil))...)
	})
	m.bwd = append(m.bwd, func() {
		m.elementwise("avgpool_grad", x.y.n, append([]operand{rd(y.dy, func(e int) int { return e / hw })}, writeGrad(x, nil)...)...)
	})
	return y
}

// fc is a fully connected layer: y [N x out] = x [N x in] W [in x out] + b.
func (m *dmodel) fc(name string, x *act, out int) *act {
	in := x.c * x.hw()
	w := m.param(name+".weight", in*out)
	b := m.param(name+".bias", out)
	y := m.newAct(name, out, 1, 1, true)
	dw, db := m.grad(name+".weight", in*out), m.grad(name+".bias", out)
	n := m.n
	m.fwd = append(m.fwd, func() {
		m.gemm("gemm", n, out, in, 1, mat{t: x.y, ld: in}, mat{t: w, ld: out}, mat{t: y.y, ld: out}, false)
		m.elementwise("bias", y.y.n, rd(y.y, nil), rd(b, func(e int) int { return e % out }), wr(y.y, nil))
	})
	m.bwd = append(m.bwd, func() {
		m.gemm("gemm", in, out, n, 1, mat{t: x.y, ld: in, trans: true}, mat{t: y.dy, ld: out}, mat{t: dw, ld: out}, false)
		m.reduce("bias_grad", y.dy, n, out, 1, db)
		if x.dy != nil {
			acc := x.written
			x.written = true
			m.gemm("gemm", n, in, out, 1, mat{t: y.dy, ld: out}, mat{t: w, ld: out, trans: true}, mat{t: x.dy, ld: in}, acc)
		}
	})
	m.sgd(w, dw)
	m.sgd(b, db)
	return y
}

// batchnorm normalises per channel over batch and space: a reduction for
// the statistics, then an elementwise scale and shift; backward reduces
// the gamma and beta gradients and computes the input gradient.
func (m *dmodel) batchnorm(name string, x *act) *act {
	gamma, beta := m.param(name+".gamma", x.c), m.param(name+".beta", x.c)
	y := m.newAct(name, x.c, x.h, x.w, true)
	dgamma, dbeta := m.grad(name+".gamma", x.c), m.grad(name+".beta", x.c)
	var mean, inv *tensor
	stats := []*tensor{}
	if m.v.bnStats {
		mean, inv = m.activation(name+".mean", x.c), m.activation(name+".invstd", x.c)
		stats = []*tensor{mean, inv}
	}
	hw, c := x.hw(), x.c
	ch := func(e int) int { return e / hw % c }
	perCh := func(ts ...*tensor) []operand {
		ops := []operand{}
		for _, t := range ts {
			ops = append(ops, rd(t, ch))
		}
		return ops
	}
	m.fwd = append(m.fwd, func() {
		if len(stats) > 0 {
			m.reduce("bn_stats", x.y, m.n, c, hw, stats...)
		}
		ops := append([]operand{rd(x.y, nil)}, perCh(append(stats, gamma, beta)...)...)
		m.vector("bn", y.y.n, append(ops, wr(y.y, nil))...)
	})
	m.bwd = append(m.bwd, func() {
		m.reduce("bn_param_grad", y.dy, m.n, c, hw, dgamma, dbeta)
		ops := append([]operand{rd(y.dy, nil), rd(x.y, nil)}, perCh(append(stats, gamma, dgamma, dbeta)...)...)
		m.vector("bn_grad", x.y.n, append(ops, writeGrad(x, nil)...)...)
	})
	m.sgd(gamma, dgamma)
	m.sgd(beta, dbeta)
	return y
}

// add is the residual sum of two activations of the same shape.
func (m *dmodel) add(name string, a, b *act) *act {
	if a.y.n != b.y.n {
		m.err = fmt.Errorf("%s: residual add of %d and %d elements", name, a.y.n, b.y.n)
		return a
	}
	if m.v.inplaceAdd {
		m.fwd = append(m.fwd, func() { m.vector("add", a.y.n, rd(a.y, nil), rd(b.y, nil), wr(a.y, nil)) })
		m.bwd = append(m.bwd, func() { m.vector("add_grad", a.y.n, append([]operand{rd(a.dy, nil)}, writeGrad(b, nil)...)...) })
		return a
	}
	if m.v.aliasAddGrad {
		y := &act{y: m.activation(name, a.y.n), dy: a.dy, c: a.c, h: a.h, w: a.w}
		m.fwd = append(m.fwd, func() { m.vector("add", y.y.n, rd(a.y, nil), rd(b.y, nil), wr(y.y, nil)) })
		m.bwd = append(m.bwd, func() {
			a.written = true
			m.vector("add_grad", y.y.n, append([]operand{rd(y.dy, nil)}, writeGrad(b, nil)...)...)
		})
		return y
	}
	y := m.newAct(name, a.c, a.h, a.w, true)
	m.fwd = append(m.fwd, func() { m.vector("add", y.y.n, rd(a.y, nil), rd(b.y, nil), wr(y.y, nil)) })
	m.bwd = append(m.bwd, func() {
		ops := append([]operand{rd(y.dy, nil)}, writeGrad(a, nil)...)
		m.vector("add_grad", y.y.n, append(ops, writeGrad(b, nil)...)...)
	})
	return y
}

// softmaxLoss is the softmax with the cross-entropy loss: forward writes
// the probabilities, backward the logits' gradient (probabilities minus
// the one-hot labels).
func (m *dmodel) softmaxLoss(x *act, labels *tensor) {
	prob := m.activation("softmax", x.y.n)
	classes := x.c
	fwd := []operand{rd(x.y, nil), wr(prob, nil)}
	if m.v.lossTensor {
		loss := m.activation("loss", m.n)
		fwd = append(fwd, rd(labels, func(e int) int { return e / classes }), wr(loss, func(e int) int { return e / classes }))
	}
	m.fwd = append(m.fwd, func() { m.elementwise("softmax", x.y.n, fwd...) })
	m.bwd = append(m.bwd, func() {
		m.elementwise("softmax_grad", x.y.n, append([]operand{rd(prob, nil), rd(labels, func(e int) int { return e / classes })},
			writeGrad(x, nil)...)...)
	})
}

// dropout zeroes a random subset of activations: forward writes the output
// and the keep mask, backward masks the gradient. Which elements are
// dropped is a value, not an address, so it does not matter here.
func (m *dmodel) dropout(name string, x *act) *act {
	y := m.newAct(name, x.c, x.h, x.w, true)
	mask := m.activation(name+".mask", x.y.n)
	m.fwd = append(m.fwd, func() { m.vector("dropout", x.y.n, rd(x.y, nil), wr(mask, nil), wr(y.y, nil)) })
	m.bwd = append(m.bwd, func() {
		m.vector("dropout_grad", x.y.n, append([]operand{rd(mask, nil), rd(y.dy, nil)}, writeGrad(x, nil)...)...)
	})
	return y
}
