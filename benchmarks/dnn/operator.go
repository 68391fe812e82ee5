package dnn

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
)

// MGPUSim's gputensor operators, the ones its DNN benchmarks run (MGPUSim
// v3.0.3, benchmarks/dnn/gputensor/operator.go; kernels in
// gputensor/native/*.cl and driver/memcopy.cl; "operator.go:N" below is a
// line of that file). The training workloads (i2c, c2d, lenet, vgg16,
// resnet18) are built from these alone, so their objects, launches and
// frees are MGPUSim's:
//
//   - Every Create is a fresh allocation: its own pages, never handed out
//     again after the free (MGPUSim's driver bump-allocates virtual pages,
//     driver/internal/memoryallocator.go; objtable.Allocator does the same).
//     Operators that MGPUSim runs on the host (Zeros, Clear, Init,
//     CreateWithData, the size/order arrays they copy up, CrossEntropy)
//     allocate without a kernel; hostInit records that the host wrote them.
//   - Every Clone, Reshape and Copy is a copyKernel launch into a fresh
//     tensor (operator.go:237-261, 381-387; driver/api.go:253-271).
//   - Transpose, Rotate180, Dilate and every axis of Sum allocate per call
//     their tiny size/order arrays and two index buffers of dim ints per
//     work-item, which each work-item writes and reads back at its own
//     slots (operator.cl unflatIndex/flatIndex), and free them on return.
//   - Gemm is gemm_old: one work-item per output element in 16x16
//     workgroups, each reading a row of A and a column of B, no tiling;
//     a transposed operand is first Transposed into a fresh tensor.
//   - Im2Col is im2col_2d: one work-item per column-matrix element in 8x8
//     workgroups (or Params.Im2col's alternatives, im2col).
//   - Every other kernel is one work-item per element in workgroups of 64
//     (LaunchKernel's local size {64, 1, 1}), so with the static mgpusim
//     distribution a kernel of at most 64 workgroups runs on GPU 0 alone.
//
// A free is the Kernel.Frees of the next launch: MGPUSim frees after the
// (synchronous) launch returns, so the platform sees it before the next
// one. Frees after a program's last launch have no launch to ride and are
// dropped (dnet.pending holds them).
//
// Instruction model, the same for every kernel: a wavefront loads its
// kernel arguments (the one shared kernarg object, benchmarks.AllocKernarg),
// then issues one instruction per global load or store of the kernel's
// source in program order, each lane the work-item's own address. Stores
// followed by loads of the same slot are kept (the kernels' pointers are
// not restrict, so the compiler must reload them). Loads of the tiny
// size/order/dilate arrays, which every work-item makes at the same
// index, are one broadcast lane per array per wavefront (a choice: the
// source loads them in loops of dim; they are one page each, read by
// every GPU that runs a workgroup). A load the source makes only for some
// values (reluBackward's backin, MaxPoolBackward's top_diff) is modelled
// as taken by every lane: values are not computed. Compute between
// instructions is dnnElemCycles (gemm_old: gemmOldCycles per K step).

// gtLocal is the work-items per workgroup of every 1-D gputensor launch.
const gtLocal = 64

// gemmOldBlock is gemm_old's workgroup side (operator.go:781, blockSize).
const gemmOldBlock = 16

// im2colBlock is im2col_2d's workgroup side (operator.go:890).
const im2colBlock = 8

// gemmOldCycles is the arithmetic per K step of gemm_old (a multiply and
// a fused multiply-add, 4 cycles each). An estimate.
const gemmOldCycles = 8

// step is one instruction of a 1-D gputensor kernel: lane l of the
// wavefront whose first work-item is base addresses element at(base+l)
// of t, or nothing if at returns -1. A uniform step is one broadcast lane
// at element at(base).
type step struct {
	t       *tensor
	at      func(tid int) int
	write   bool
	uniform bool
}

func ld(t *tensor, at func(int) int) step { return step{t: t, at: at} }
func st(t *tensor, at func(int) int) step { return step{t: t, at: at, write: true} }

// ldArr is the broadcast load of a small argument array.
func ldArr(t *tensor) step { return step{t: t, at: func(int) int { return 0 }, uniform: true} }

func self(tid int) int { return tid }

// slot is element i of work-item tid's dim ints in an index buffer.
func slot(dim, i int) func(int) int { return func(tid int) int { return tid*dim + i } }

// create allocates a tensor of the given size (gputensor Create,
// operator.go:190-200).
func (d *dnet) create(name string, size ...int) *tensor {
	n := 1
	for _, s := range size {
		n *= s
	}
	t := d.tensor(name, n)
	t.size = append([]int(nil), size...)
	return t
}

// hostInit records that the host wrote t (Zeros, Init, CreateWithData,
// MemCopyH2D): no kernel writes it before kernels read it.
func (d *dnet) hostInit(ts ...*tensor) {
	if d.host == nil {
		d.host = map[int]bool{}
	}
	for _, t := range ts {
		d.host[t.id] = true
	}
}

// hostArray allocates a small int array the host copies up (the size,
// order and dilation arguments).
func (d *dnet) hostArray(name string, n int) *tensor {
	t := d.create(name, n)
	d.hostInit(t)
	return t
}

// zeros is gputensor Zeros: a host-filled tensor (operator.go:372-378).
func (d *dnet) zeros(name string, size ...int) *tensor {
	t := d.create(name, size...)
	d.hostInit(t)
	return t
}

// free frees whole tensors (gputensor Free, driver FreeMemory): they ride
// the next launch's Frees.
func (d *dnet) free(ts ...*tensor) {
	if d.freed == nil {
		d.freed = map[int]bool{}
	}
	for _, t := range ts {
		if d.err != nil {
			return
		}
		if t.view {
			d.err = fmt.Errorf("%s: freeing %q, a slice of another tensor", d.where(), t.name)
			return
		}
		if d.freed[t.id] {
			d.err = fmt.Errorf("%s: %q freed twice", d.where(), t.name)
			return
		}
		d.freed[t.id] = true
		d.pending = append(d.pending, t.id)
	}
}

// slice is gputensor Slice (operator.go:315-326): elements [start, end)
// of t, the same object.
func slice(t *tensor, start, end int) *tensor {
	return &tensor{name: t.name, ptr: t.ptr + uint64(start)*benchmarks.FloatBytes, id: t.id, n: end - start,
		size: []int{end - start}, view: true}
}

// sized is t with another size and the same elements (gputensor
// SetSize, which copies nothing).
func sized(t *tensor, size ...int) *tensor {
	u := *t
	u.size = append([]int(nil), size...)
	return &u
}

// gtKernel launches a 1-D gputensor kernel of n work-items, gtLocal per
// workgroup (one wavefront; the last workgroup partial, as MGPUSim's grid
// builder makes it), each wavefront loading the kernarg and then issuing
// steps in order. A step whose lanes are all inactive issues nothing.
func (d *dnet) gtKernel(name string, n int, steps []step) {
	if d.err != nil {
		return
	}
	var uses []*tensor
	for _, s := range steps {
		uses = append(uses, s.t)
	}
	d.kernarg()
	karg := d.karg
	d.launchWG(name, benchmarks.CeilDiv(n, gtLocal), 1, func(wg, _ int) benchmarks.Stream {
		base := wg * gtLocal
		lanes := min(gtLocal, n-base)
		return &benchmarks.Loop{N: 1 + len(steps), Gen: func(i int, in *benchmarks.Instruction) {
			if i == 0 {
				benchmarks.GenKernarg(in, karg.ptr)
				return
			}
			s := steps[i-1]
			in.Compute = dnnElemCycles
			in.Write = s.write
			if s.uniform {
				in.Lanes = 1
				in.Addr[0] = s.t.ptr + uint64(s.at(base))*benchmarks.FloatBytes
				return
			}
			active := 0
			for l := 0; l < lanes; l++ {
				if e := s.at(base + l); e >= 0 {
					in.Addr[active] = s.t.ptr + uint64(e)*benchmarks.FloatBytes
					active++
				}
			}
			in.Lanes = active
		}}
	}, uses...)
}

// strides is the row-major element strides of a tensor of that size.
func strides(size []int) []int {
	s := make([]int, len(size))
	p := 1
	for i := len(size) - 1; i >= 0; i-- {
		s[i] = p
		p *= size[i]
	}
	return s
}

// copyT is gputensor Copy (operator.go:237-247): driver MemCopyD2D, the
// copyKernel of driver/memcopy.cl over ceil(bytes/4) work-items in
// workgroups of 64 (driver/api.go:253-271), d_out[i] = d_in[i].
func (d *dnet) copyT(dst, src *tensor) {
	if dst.n != src.n {
		d.err = fmt.Errorf("%s: copying %d elements of %q into %d of %q", d.where(), src.n, src.name, dst.n, dst.name)
		return
	}
	d.gtKernel("copy", src.n, []step{ld(src, self), st(dst, self)})
}

// clone is gputensor Clone (operator.go:250-260): a fresh tensor and a
// copy into it.
func (d *dnet) clone(t *tensor, name string) *tensor {
	out := d.create(name, t.size...)
	d.copyT(out, t)
	return out
}

// reshape is gputensor Reshape (operator.go:381-387): a Clone with
// another size.
func (d *dnet) reshape(t *tensor, name string, size ...int) *tensor {
	return sized(d.clone(t, name), size...)
}

// repeat is gputensor Repeat (operator.go:336-362, native/repeat.cl):
// out[tid] = in[tid % n] over n*times work-items.
func (d *dnet) repeat(t *tensor, times int, name string) *tensor {
	n := t.n
	out := d.create(name, n*times)
	d.gtKernel("repeat", n*times, []step{ld(t, func(tid int) int { return tid % n }), st(out, self)})
	return out
}

// transpose is gputensor Transpose (operator.go:397-457, kernel
// transpose_tensor, native/operator.cl:37-55). It allocates the output,
// then order, inSize and outSize (dim ints, host-copied) and the in and
// out index buffers (N*dim ints each), and frees the five on return.
// Work-item tid writes its output multi-index to out_index_buf[tid*dim+i]
// (unflatIndex), reads it back to scatter it through order into
// in_index_buf[tid*dim+order[i]], reads that back (flatIndex), and copies
// in[flat] to out[tid].
func (d *dnet) transpose(t *tensor, order []int, name string) *tensor {
	dim := len(order)
	if len(t.size) != dim {
		d.err = fmt.Errorf("%s: transposing %q of size %v by order %v", d.where(), t.name, t.size, order)
		return t
	}
	outSize := make([]int, dim)
	for i, o := range order {
		outSize[i] = t.size[o]
	}
	out := d.create(name, outSize...)
	dOrder := d.hostArray(name+".order", dim)
	dIn := d.hostArray(name+".inSize", dim)
	dOut := d.hostArray(name+".outSize", dim)
	inIdx := d.create(name+".inIndexBuf", t.n*dim)
	outIdx := d.create(name+".outIndexBuf", t.n*dim)
	inStr, outStr := strides(t.size), strides(outSize)
	// src is the input element of output element tid: its index along
	// output dimension i is its index along input dimension order[i].
	src := func(tid int) int {
		e := 0
		for i := range outSize {
			e += tid / outStr[i] % outSize[i] * inStr[order[i]]
		}
		return e
	}
	steps := []step{ldArr(dOut)}
	for i := 0; i < dim; i++ {
		steps = append(steps, st(outIdx, slot(dim, i)))
	}
	steps = append(steps, ldArr(dOrder))
	for i := 0; i < dim; i++ {
		steps = append(steps, ld(outIdx, slot(dim, i)), st(inIdx, slot(dim, order[i])))
	}
	steps = append(steps, ldArr(dIn))
	for i := dim - 1; i >= 0; i-- {
		steps = append(steps, ld(inIdx, slot(dim, i)))
	}
	steps = append(steps, ld(t, src), st(out, self))
	d.gtKernel("transpose", t.n, steps)
	// The deferred frees run last-registered first (operator.go:417-431).
	d.free(outIdx, inIdx, dOut, dIn, dOrder)
	return out
}

// rotate180 is gputensor Rotate180 (operator.go:489-542, kernel
// rotate_tensor, operator.cl:57-78): the last two dimensions mirrored,
// with transpose's scratch (no order array).
func (d *dnet) rotate180(t *tensor, name string) *tensor {
	size := t.size
	dim := len(size)
	if dim < 2 {
		d.err = fmt.Errorf("%s: rotating %q of size %v", d.where(), t.name, size)
		return t
	}
	out := d.create(name, size...)
	dIn := d.hostArray(name+".inSize", dim)
	dOut := d.hostArray(name+".outSize", dim)
	inIdx := d.create(name+".inIndexBuf", t.n*dim)
	outIdx := d.create(name+".outIndexBuf", t.n*dim)
	h, w := size[dim-2], size[dim-1]
	src := func(tid int) int {
		plane, r := tid/(h*w), tid%(h*w)
		return plane*h*w + (h-1-r/w)*w + (w - 1 - r%w)
	}
	steps := []step{ldArr(dOut)}
	for i := 0; i < dim; i++ {
		steps = append(steps, st(outIdx, slot(dim, i)))
	}
	for i := 0; i < dim; i++ {
		steps = append(steps, ld(outIdx, slot(dim, i)), st(inIdx, slot(dim, i)))
	}
	steps = append(steps, ldArr(dIn))
	for _, i := range []int{dim - 1, dim - 2} {
		steps = append(steps, ld(outIdx, slot(dim, i)), st(inIdx, slot(dim, i)))
	}
	for i := dim - 1; i >= 0; i-- {
		steps = append(steps, ld(inIdx, slot(dim, i)))
	}
	steps = append(steps, ld(t, src), st(out, self))
	d.gtKernel("rotate", t.n, steps)
	d.free(outIdx, inIdx, dOut, dIn)
	return out
}

// dilate is gputensor Dilate (operator.go:553-610, kernel dilate_tensor,
// operator.cl:80-107): zeros between the rows and columns of the last two
// dimensions, one work-item per output element. The index buffers are
// sized by the output. Work-items on the dilation grid copy their input
// index through the buffers and read the input; the others only write a
// zero.
func (d *dnet) dilate(t *tensor, dil [2]int, name string) *tensor {
	size := t.size
	dim := len(size)
	if dim < 2 {
		d.err = fmt.Errorf("%s: dilating %q of size %v", d.where(), t.name, size)
		return t
	}
	outSize := append([]int(nil), size...)
	outSize[dim-1] = (size[dim-1]-1)*dil[1] + 1
	outSize[dim-2] = (size[dim-2]-1)*dil[0] + 1
	out := d.create(name, outSize...)
	dIn := d.hostArray(name+".inSize", dim)
	dOut := d.hostArray(name+".outSize", dim)
	dDil := d.hostArray(name+".dilate", 2)
	inIdx := d.create(name+".inIndexBuf", out.n*dim)
	outIdx := d.create(name+".outIndexBuf", out.n*dim)
	oh, ow := outSize[dim-2], outSize[dim-1]
	h, w := size[dim-2], size[dim-1]
	onGrid := func(tid int) bool {
		r := tid % (oh * ow)
		return r/ow%dil[0] == 0 && r%ow%dil[1] == 0
	}
	// grid restricts a map to the work-items on the dilation grid.
	grid := func(f func(int) int) func(int) int {
		return func(tid int) int {
			if !onGrid(tid) {
				return -1
			}
			return f(tid)
		}
	}
	src := func(tid int) int {
		plane, r := tid/(oh*ow), tid%(oh*ow)
		return plane*h*w + r/ow/dil[0]*w + r%ow/dil[1]
	}
	steps := []step{ldArr(dOut)}
	for i := 0; i < dim; i++ {
		steps = append(steps, st(outIdx, slot(dim, i)))
	}
	steps = append(steps, ldArr(dDil), ld(outIdx, slot(dim, dim-1)), ld(outIdx, slot(dim, dim-2)))
	for i := 0; i < dim; i++ {
		steps = append(steps, ld(outIdx, grid(slot(dim, i))), st(inIdx, grid(slot(dim, i))))
	}
	for _, i := range []int{dim - 1, dim - 2} {
		steps = append(steps, ld(inIdx, grid(slot(dim, i))), st(inIdx, grid(slot(dim, i))))
	}
	steps = append(steps, ldArr(dIn))
	for i := dim - 1; i >= 0; i-- {
		steps = append(steps, ld(inIdx, grid(slot(dim, i))))
	}
	steps = append(steps, ld(t, grid(src)), st(out, self))
	d.gtKernel("dilate", out.n, steps)
	d.free(outIdx, inIdx, dDil, dOut, dIn)
	return out
}

// sum is gputensor Sum (operator.go:622-646): one sumOneAxis per axis,
// each intermediate freed after the next axis has read it.
func (d *dnet) sum(t *tensor, axes []int, name string) *tensor {
	in := t
	for i, a := range axes {
		if i > 0 && a <= axes[i-1] {
			d.err = fmt.Errorf("%s: sum axes %v not increasing", d.where(), axes)
			return t
		}
		out := d.sumOneAxis(in, a-i, fmt.Sprintf("%s.sum%d", name, i))
		if i > 0 {
			d.free(in)
		}
		in = out
	}
	return in
}

// sumOneAxis is operator.go:663-722 (kernel sum_one_axis,
// operator.cl:134-169): one work-item per output element, 64 per
// workgroup. It allocates the output, inSize (D ints) and outSize (D-1),
// the in index buffer (outN*D ints) and the out index buffer
// (outN*(D-1)), freed on return. Work-item gid writes its output index
// (D-1 ints), then for each position along the axis rebuilds its input
// index from it (reading the out slots, writing the in slots), reads it
// back (flatIndex) and reads that input element.
func (d *dnet) sumOneAxis(t *tensor, axis int, name string) *tensor {
	inSize := t.size
	dim := len(inSize)
	if axis < 0 || axis >= dim || dim < 2 {
		d.err = fmt.Errorf("%s: summing axis %d of %q of size %v", d.where(), axis, t.name, inSize)
		return t
	}
	var outSize []int
	for i, s := range inSize {
		if i != axis {
			outSize = append(outSize, s)
		}
	}
	out := d.create(name, outSize...)
	dIn := d.hostArray(name+".inSize", dim)
	dOut := d.hostArray(name+".outSize", dim-1)
	inIdx := d.create(name+".inIndexBuf", out.n*dim)
	outIdx := d.create(name+".outIndexBuf", out.n*(dim-1))
	inStr, outStr := strides(inSize), strides(outSize)
	// base is the input element of output gid at position 0 on the axis:
	// its output index j is its input index along dimension j, or j+1
	// past the axis.
	base := func(gid int) int {
		e := 0
		for j := range outSize {
			i := j
			if j >= axis {
				i++
			}
			e += gid / outStr[j] % outSize[j] * inStr[i]
		}
		return e
	}
	steps := []step{ldArr(dOut)}
	for i := 0; i < dim-1; i++ {
		steps = append(steps, st(outIdx, slot(dim-1, i)))
	}
	steps = append(steps, ldArr(dIn))
	for a := 0; a < inSize[axis]; a++ {
		for i, j := 0, 0; i < dim; i++ {
			if i == axis {
				steps = append(steps, st(inIdx, slot(dim, i)))
				continue
			}
			steps = append(steps, ld(outIdx, slot(dim-1, j)), st(inIdx, slot(dim, i)))
			j++
		}
		for i := dim - 1; i >= 0; i-- {
			steps = append(steps, ld(inIdx, slot(dim, i)))
		}
		off := a * inStr[axis]
		steps = append(steps, ld(t, func(gid int) int { return base(gid) + off }))
	}
	steps = append(steps, st(out, self))
	d.gtKernel("sum", out.n, steps)
	d.free(outIdx, inIdx, dOut, dIn)
	return out
}

// gemm is gputensor Gemm (operator.go:733-769): D = A x B + C with A
// [m x k] and B [k x n] as their 2-D sizes say (transposed first into
// fresh tensors, freed after, when transA or transB), then gemm_old.
func (d *dnet) gemmT(transA, transB bool, a, b, c *tensor, name string) *tensor {
	ta, tb := a, b
	if transA {
		ta = d.transpose(a, []int{1, 0}, name+".tempA")
	}
	if transB {
		tb = d.transpose(b, []int{1, 0}, name+".tempB")
	}
	out := d.gemmOld(ta, tb, c, name)
	if transA {
		d.free(ta)
	}
	if transB {
		d.free(tb)
	}
	return out
}

// gemmOld is operator.go:771-810 (kernel gemm_old, native/gemm.cl:49-65):
// D [m x n] fresh, a grid of ceil16(n) x ceil16(m) work-items in 16x16
// workgroups (x = column fastest), one work-item per element of D.
// Work-item (x, y) reads a[y*k+z] and b[z*n+x] for every z, then c[y*n+x],
// and writes d[y*n+x]; work-items outside D return after the bounds check.
// A workgroup is 4 wavefronts of 4 rows of 16 columns.
func (d *dnet) gemmOld(a, b, c *tensor, name string) *tensor {
	if len(a.size) != 2 || len(b.size) != 2 || len(c.size) != 2 || a.size[1] != b.size[0] ||
		c.size[0] != a.size[0] || c.size[1] != b.size[1] {
		d.err = fmt.Errorf("%s: gemm of %q %v, %q %v, %q %v", d.where(), a.name, a.size, b.name, b.size, c.name, c.size)
		return c
	}
	m, n, k := a.size[0], b.size[1], a.size[1]
	out := d.create(name, m, n)
	if d.err != nil {
		return out
	}
	d.kernarg()
	karg := d.karg
	nx, ny := benchmarks.CeilDiv(n, gemmOldBlock), benchmarks.CeilDiv(m, gemmOldBlock)
	const rows = benchmarks.WavefrontSize / gemmOldBlock // rows of the workgroup per wavefront
	wfs := gemmOldBlock / rows
	d.launchWG("gemm", nx*ny, wfs, func(wg, wf int) benchmarks.Stream {
		x0, y0 := wg%nx*gemmOldBlock, wg/nx*gemmOldBlock+wf*rows
		cols, rs := min(gemmOldBlock, n-x0), min(rows, m-y0)
		if rs <= 0 { // every work-item fails the bounds check
			return &benchmarks.Loop{N: 1, Gen: func(_ int, in *benchmarks.Instruction) { benchmarks.GenKernarg(in, karg.ptr) }}
		}
		// fill sets the active lanes (row-major, 16 columns a row) to
		// element base + row*dy + column*dx of t, for the work-item at
		// (x0 + column, y0 + row): every operand of gemm_old is affine in
		// the work-item's coordinates.
		fill := func(in *benchmarks.Instruction, t *tensor, base, dx, dy int) {
			l := 0
			for r := 0; r < rs; r++ {
				a := t.ptr + uint64(base+(y0+r)*dy+x0*dx)*benchmarks.FloatBytes
				step := uint64(dx) * benchmarks.FloatBytes
				for cx := 0; cx < cols; cx++ {
					in.Addr[l] = a
					a += step
					l++
				}
			}
			in.Lanes = l
		}
		return &benchmarks.Loop{N: 1 + 2*k + 2, Gen: func(i int, in *benchmarks.Instruction) {
			switch {
			case i == 0:
				benchmarks.GenKernarg(in, karg.ptr)
			case i <= 2*k:
				z := (i - 1) / 2
				if (i-1)%2 == 0 {
					in.Compute = gemmOldCycles
					fill(in, a, z, 0, k) // a[y*k + z]
				} else {
					fill(in, b, z*n, 1, 0) // b[z*n + x]
				}
			case i == 2*k+1:
				fill(in, c, 0, 1, n) // c[y*n + x]
			default:
				in.Write = true
				fill(in, out, 0, 1, n)
			}
		}}
	}, a, b, c, out)
	return out
}

// conv2dGeom is an Im2Col's geometry: the input [batch, channel, h, w],
// the kernel, padding, stride and dilation, and the output field.
type conv2dGeom struct {
	batch, channel, h, w int
	kh, kw               int
	padH, padW           int
	strideH, strideW     int
	dilH, dilW           int
	fieldH, fieldW       int
}

// rows and cols are the column matrix's size: [channel*kh*kw,
// batch*fieldH*fieldW].
func (g conv2dGeom) rows() int { return g.channel * g.kh * g.kw }
func (g conv2dGeom) cols() int { return g.batch * g.fieldH * g.fieldW }

// at is the input element column-matrix element (row, col) copies, -1 in
// the zero padding (native/im2col.cl:81-101).
func (g conv2dGeom) at(row, col int) int {
	b, blk := col/(g.fieldH*g.fieldW), col%(g.fieldH*g.fieldW)
	bx, by := blk%g.fieldW, blk/g.fieldW
	ch, y, x := row/(g.kh*g.kw), row%(g.kh*g.kw)/g.kw, row%g.kw
	rx := bx*g.strideW - g.padW + g.dilW*x
	ry := by*g.strideH - g.padH + g.dilH*y
	if rx < 0 || ry < 0 || rx >= g.w || ry >= g.h {
		return -1
	}
	return ((b*g.channel+ch)*g.h+ry)*g.w + rx
}

// im2col is gputensor Im2Col (operator.go:844-905): the column matrix
// [C*kh*kw x N*fieldH*fieldW], fresh, from t [N, C, H, W]. field, when
// not zero, overrides the output field MGPUSim computes from the sizes
// (see conv2d.backward, the only caller that sets it).
func (d *dnet) im2col(t *tensor, kernel, pad, stride, dil, field [2]int, name string) *tensor {
	if len(t.size) != 4 {
		d.err = fmt.Errorf("%s: im2col of %q of size %v", d.where(), t.name, t.size)
		return t
	}
	g := conv2dGeom{batch: t.size[0], channel: t.size[1], h: t.size[2], w: t.size[3],
		kh: kernel[0], kw: kernel[1], padH: pad[0], padW: pad[1], strideH: stride[0], strideW: stride[1],
		dilH: dil[0], dilW: dil[1]}
	g.fieldH = (g.h+2*g.padH-((g.kh-1)*g.dilH+1))/g.strideH + 1
	g.fieldW = (g.w+2*g.padW-((g.kw-1)*g.dilW+1))/g.strideW + 1
	if field[0] > 0 {
		g.fieldH, g.fieldW = field[0], field[1]
	}
	if g.fieldH < 1 || g.fieldW < 1 {
		d.err = fmt.Errorf("%s: im2col of %q: empty field", d.where(), t.name)
		return t
	}
	out := d.create(name, g.rows(), g.cols())
	switch d.im2colKernel {
	case benchmarks.Im2colPerElement:
		cols := g.cols()
		d.elementwise("im2col", g.rows()*cols, rd(t, func(e int) int { return g.at(e/cols, e%cols) }), wr(out, nil))
	case benchmarks.Im2colColumn:
		d.im2colColumn(t, out, g)
	default:
		d.im2col2D(t, out, g)
	}
	return out
}

// im2col2D is im2col_2d (native/im2col.cl:54-105) as Im2Col launches it:
// global (cols, rows), local 8x8, x fastest, edge workgroups partial (as
// MGPUSim's grid builder cuts them, one wavefront whose work-items are
// the workgroup's in x-fastest order). Work-item (x, y) reads the input
// element under column x's window at row y (nothing in the padding) and
// writes output[y*cols+x].
func (d *dnet) im2col2D(src, dst *tensor, g conv2dGeom) {
	rows, cols := g.rows(), g.cols()
	nx, ny := benchmarks.CeilDiv(cols, im2colBlock), benchmarks.CeilDiv(rows, im2colBlock)
	d.kernarg()
	karg := d.karg
	d.launchWG("im2col", nx*ny, 1, func(wg, _ int) benchmarks.Stream {
		x0, y0 := wg%nx*im2colBlock, wg/nx*im2colBlock
		wx, wy := min(im2colBlock, cols-x0), min(im2colBlock, rows-y0)
		return &benchmarks.Loop{N: 3, Gen: func(i int, in *benchmarks.Instruction) {
			if i == 0 {
				benchmarks.GenKernarg(in, karg.ptr)
				return
			}
			in.Compute = dnnElemCycles
			in.Write = i == 2
			l := 0
			for y := y0; y < y0+wy; y++ {
				for x := x0; x < x0+wx; x++ {
					if i == 2 {
						in.Addr[l] = dst.ptr + uint64(y*cols+x)*benchmarks.FloatBytes
						l++
					} else if e := g.at(y, x); e >= 0 {
						in.Addr[l] = src.ptr + uint64(e)*benchmarks.FloatBytes
						l++
					}
				}
			}
			in.Lanes = l
		}}
	}, src, dst)
}

// im2colColumn is Params.Im2col's column kernel: the 1-D im2col of
// native/im2col.cl:2-52, which MGPUSim's operator never loads, and mgpu's
// im2col before 2026-11-29: one work-item per column, 64 per workgroup,
// each walking the rows. A wavefront loads its kernel arguments once,
// then alternates the gather read and the write, one row at a time.
func (d *dnet) im2colColumn(src, dst *tensor, g conv2dGeom) {
	rows, cols := g.rows(), g.cols()
	d.kernarg()
	karg := d.karg
	d.launchWG("im2col", benchmarks.CeilDiv(cols, benchmarks.WavefrontSize), 1, func(wg, _ int) benchmarks.Stream {
		base := wg * benchmarks.WavefrontSize
		lanes := min(benchmarks.WavefrontSize, cols-base)
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
					in.Addr[l] = dst.ptr + uint64(row*cols+base+l)*benchmarks.FloatBytes
				}
				in.Lanes = lanes
				return
			}
			active := 0
			for l := 0; l < lanes; l++ {
				if e := g.at(row, base+l); e >= 0 {
					in.Addr[active] = src.ptr + uint64(e)*benchmarks.FloatBytes
					active++
				}
			}
			in.Lanes = active
		}}
	}, src, dst)
}

// poolGeom is a pooling layer's geometry over [n, c, h, w] input.
type poolGeom struct {
	n, c, h, w       int
	kh, kw           int
	padH, padW       int
	strideH, strideW int
	ph, pw           int
}

func newPoolGeom(size []int, kernel, pad, stride [2]int) poolGeom {
	g := poolGeom{n: size[0], c: size[1], h: size[2], w: size[3], kh: kernel[0], kw: kernel[1],
		padH: pad[0], padW: pad[1], strideH: stride[0], strideW: stride[1]}
	g.ph = (g.h+2*g.padH-g.kh)/g.strideH + 1
	g.pw = (g.w+2*g.padW-g.kw)/g.strideW + 1
	return g
}

// window is the input element of tap (dy, dx) of output element index's
// window (MaxPoolForward/AvgPoolForward, native/*pooling.cl), -1 outside
// the clipped window.
func (g poolGeom) window(index, dy, dx int) int {
	pw, ph := index%g.pw, index/g.pw%g.ph
	nc := index / g.pw / g.ph
	hs, ws := ph*g.strideH-g.padH, pw*g.strideW-g.padW
	he, we := min(hs+g.kh, g.h), min(ws+g.kw, g.w)
	hs, ws = max(hs, 0), max(ws, 0)
	y, x := hs+dy, ws+dx
	if y >= he || x >= we {
		return -1
	}
	return nc*g.h*g.w + y*g.w + x
}

// pooled is the output element of window slot (sy, sx) covering input
// element index (MaxPoolBackward/AvgPoolBackward), -1 if none.
func (g poolGeom) pooled(index, sy, sx int) int {
	w, h := index%g.w, index/g.w%g.h
	nc := index / g.w / g.h
	phs := 0
	if h+g.padH >= g.kh {
		phs = (h+g.padH-g.kh)/g.strideH + 1
	}
	phe := min((h+g.padH)/g.strideH+1, g.ph)
	pws := 0
	if w+g.padW >= g.kw {
		pws = (w+g.padW-g.kw)/g.strideW + 1
	}
	pwe := min((w+g.padW)/g.strideW+1, g.pw)
	py, px := phs+sy, pws+sx
	if py >= phe || px >= pwe {
		return -1
	}
	return nc*g.ph*g.pw + py*g.pw + px
}

// slots is how many pooled windows can cover one input element along a
// dimension.
func slots(k, stride int) int { return benchmarks.CeilDiv(k, stride) }

// maxPoolForward is gputensor MaxPoolingForward (operator.go:942-988,
// MaxPoolForward in native/maxpooling.cl): a fresh output and mask, one
// work-item per output element reading its window.
func (d *dnet) maxPoolForward(t *tensor, kernel, pad, stride [2]int, name string) (out, mask *tensor) {
	g := newPoolGeom(t.size, kernel, pad, stride)
	out = d.create(name, g.n, g.c, g.ph, g.pw)
	mask = d.create(name+".mask", g.n, g.c, g.ph, g.pw)
	var steps []step
	for dy := 0; dy < g.kh; dy++ {
		for dx := 0; dx < g.kw; dx++ {
			steps = append(steps, ld(t, func(i int) int { return g.window(i, dy, dx) }))
		}
	}
	d.gtKernel("maxpool", out.n, append(steps, st(out, self), st(mask, self)))
	return out, mask
}

// maxPoolBackward is operator.go:1004-1046 (MaxPoolBackward): a fresh
// input gradient, one work-item per input element reading the mask and
// output gradient of each window that covers it.
func (d *dnet) maxPoolBackward(fwdIn, dy, mask *tensor, kernel, pad, stride [2]int, name string) *tensor {
	g := newPoolGeom(fwdIn.size, kernel, pad, stride)
	out := d.create(name, fwdIn.size...)
	var steps []step
	for sy := 0; sy < slots(g.kh, g.strideH); sy++ {
		for sx := 0; sx < slots(g.kw, g.strideW); sx++ {
			at := func(i int) int { return g.pooled(i, sy, sx) }
			steps = append(steps, ld(mask, at), ld(dy, at))
		}
	}
	d.gtKernel("maxpool_grad", out.n, append(steps, st(out, self)))
	return out
}

// avgPoolForward is operator.go:1073-1118 (AvgPoolForward,
// native/avgpooling.cl:1-27).
func (d *dnet) avgPoolForward(t *tensor, kernel, pad, stride [2]int, name string) *tensor {
	g := newPoolGeom(t.size, kernel, pad, stride)
	out := d.create(name, g.n, g.c, g.ph, g.pw)
	var steps []step
	for dy := 0; dy < g.kh; dy++ {
		for dx := 0; dx < g.kw; dx++ {
			steps = append(steps, ld(t, func(i int) int { return g.window(i, dy, dx) }))
		}
	}
	d.gtKernel("avgpool", out.n, append(steps, st(out, self)))
	return out
}

// avgPoolBackward is operator.go:1145-1193 (AvgPoolBackward,
// avgpooling.cl:29-62): one work-item per input element reading the
// output gradient of each window that covers it.
func (d *dnet) avgPoolBackward(fwdIn, dy *tensor, kernel, pad, stride [2]int, name string) *tensor {
	g := newPoolGeom(fwdIn.size, kernel, pad, stride)
	out := d.create(name, fwdIn.size...)
	var steps []step
	for sy := 0; sy < slots(g.kh, g.strideH); sy++ {
		for sx := 0; sx < slots(g.kw, g.strideW); sx++ {
			steps = append(steps, ld(dy, func(i int) int { return g.pooled(i, sy, sx) }))
		}
	}
	d.gtKernel("avgpool_grad", out.n, append(steps, st(out, self)))
	return out
}

// softmax is gputensor Softmax (operator.go:1220-1268) of t [N x C]: the
// output and the exponentials (freed on return) fresh, softmax_exp, the
// row sums by Sum(exp, [1]) (their tensor is never freed, as in MGPUSim),
// and softmax_div.
func (d *dnet) softmax(t *tensor, name string) *tensor {
	if len(t.size) != 2 {
		d.err = fmt.Errorf("%s: softmax of %q of size %v", d.where(), t.name, t.size)
		return t
	}
	classes := t.size[1]
	out := d.create(name, t.size...)
	exp := d.create(name+".exp", t.size...)
	d.gtKernel("softmax_exp", t.n, []step{ld(t, self), st(exp, self)})
	den := d.sum(exp, []int{1}, name+".denominator")
	d.gtKernel("softmax_div", t.n, []step{ld(exp, self), ld(den, func(tid int) int { return tid / classes }), st(out, self)})
	d.free(exp)
	return out
}

// softmaxCEDerivative is operator.go:1355-1393: the labels copied up into
// a fresh buffer (freed on return), a fresh output, and
// softmax_cross_entropy_derivative (native/cross_entropy.cl:145-160), one
// work-item per logit reading its image's label and the logit.
func (d *dnet) softmaxCEDerivative(t *tensor, name string) *tensor {
	classes := t.size[1]
	label := d.hostArray(name+".label", t.size[0])
	out := d.create(name, t.size...)
	d.gtKernel("softmax_ce_grad", t.n, []step{ld(label, func(tid int) int { return tid / classes }), ld(t, self), st(out, self)})
	d.free(label)
	return out
}

// elementWiseMul is operator.go:1402-1434 (kernel mul): a fresh a*b.
func (d *dnet) elementWiseMul(a, b *tensor, name string) *tensor {
	out := d.create(name, a.size...)
	d.gtKernel("mul", a.n, []step{ld(a, self), ld(b, self), st(out, self)})
	return out
}

// scaleAdd is operator.go:1444-1479 (kernel scaleAdd): a fresh
// alpha*a + beta*b.
func (d *dnet) scaleAdd(a, b *tensor, name string) *tensor {
	out := d.create(name, a.size...)
	d.gtKernel("scale_add", a.n, []step{ld(a, self), ld(b, self), st(out, self)})
	return out
}

// adam is operator.go:1523-1566 (kernel adam, operator.cl:206-224): per
// parameter, in the source's order, v read and written, s read and
// written, then both read again and the parameter updated.
func (d *dnet) adam(params, grads, v, s *tensor) {
	d.gtKernel("adam", params.n, []step{
		ld(v, self), ld(grads, self), st(v, self),
		ld(s, self), ld(grads, self), st(s, self),
		ld(s, self), ld(v, self), ld(params, self), st(params, self),
	})
}

// reluForward is operator.go:1575-1602 (kernel reluForward): a fresh
// output.
func (d *dnet) reluForward(t *tensor, name string) *tensor {
	out := d.create(name, t.size...)
	d.gtKernel("relu", t.n, []step{ld(t, self), st(out, self)})
	return out
}

// reluBackward is operator.go:1611-1638 (kernel reluBackward): a fresh
// input gradient from the forward input and the output gradient.
func (d *dnet) reluBackward(fwdIn, dy *tensor, name string) *tensor {
	out := d.create(name, fwdIn.size...)
	d.gtKernel("relu_grad", fwdIn.n, []step{ld(fwdIn, self), ld(dy, self), st(out, self)})
	return out
}
