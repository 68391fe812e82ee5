package dnn

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// The DNN workloads share one small tensor framework: every tensor is one
// managed allocation (one object) and every operator one kernel launch
// over the whole batch. With several GPUs a launch's workgroups are spread
// over them (the unified multi-GPU model OASIS evaluates: one network on
// one virtual device), and since activations are laid out batch
// outermost, the GPUs split most kernels by images.
//
// The kernels are modelled at the level that decides page behaviour: which
// elements each wavefront reads and writes, in 64-lane instructions. There
// are two kernel families. The DNN-Mark workloads OASIS trains (i2c, c2d,
// lenet, vgg16, resnet18; layers.go, models.go) are built from MGPUSim's
// gputensor operators (operator.go): per-call scratch buffers, copy
// kernels, gemm_old, im2col_2d, workgroups of 64, frees. Tango's batched
// inference networks (alexnet, squeezenet; inference.go) run on the two
// shapes below (and the per-element im2col option of the training
// networks on the first):
//
//   - elementwise: one work-item per output element, 256 per workgroup (4
//     wavefronts); each operand is one instruction whose lanes are 64
//     consecutive work-items, each lane addressing the element its
//     index map gives (identity, a per-channel broadcast, an im2col
//     gather, a pooling window). Lanes whose map returns -1 (padding) are
//     inactive.
//   - gemm: C = A x B in 64x64 output tiles, one workgroup of 4 wavefronts
//     per tile, the K loop in chunks of 16: per chunk each wavefront loads
//     a quarter of the 64x16 tile of A and of the 16x64 tile of B with
//     float4 (dwordx4) loads, one instruction each, and at the end the
//     workgroup stores its C tile (4 float4 instructions per wavefront).
//     Operands may be read transposed and batched; a batched GEMM whose C
//     has batch stride 0 sums over the batch (split-K, each workgroup
//     adding its image's contribution to C).
//
// Known simplifications, common to every DNN workload:
//
//   - Values are not computed; only addresses are. Compute cycles between
//     memory instructions are estimates (the papers give no instruction
//     mix).
//   - The inference GEMM tile is fixed at 64x64 with K chunks of 16 (AMD's
//     MIOpen/rocBLAS use tiles of this order); a real GEMM re-reads the
//     same lines from L1/L2 across K, which is modelled by the simulated
//     caches, not elided.
//   - Atomic adds (split-K GEMM) are modelled as writes.

// dnnWorkgroup is the work-items per workgroup of the inference
// networks' elementwise kernels (256, 4 wavefronts), and dnnTile their
// GEMM output tile.
const (
	dnnWorkgroup  = 256
	dnnWavefronts = dnnWorkgroup / benchmarks.WavefrontSize
	dnnTile       = 64
	dnnKChunk     = 16
	// dnnElemCycles is the arithmetic per elementwise operand (about 4
	// VALU instructions); dnnMACCycles the FMAs per GEMM K chunk (16 FMAs
	// on 16 outputs per work-item, 4 cycles each). Estimates.
	dnnElemCycles = 16
	dnnMACCycles  = 64
)

// tensor is one allocation of float32 elements (labels, pooling masks and
// index buffers are int32, the same size), or a slice of one (view).
type tensor struct {
	name string
	ptr  uint64
	id   int
	n    int
	// size is the gputensor size (operator.go); the inference networks
	// leave it nil.
	size []int
	// view marks a slice of another tensor's allocation (gputensor
	// Slice): it has that object's ID and cannot be freed.
	view bool
}

// dnet collects the objects and kernel launches of a DNN workload. The
// first error sticks, so model code can build a whole network and check
// once.
type dnet struct {
	alloc   *objtable.Allocator
	karg    *tensor
	kernels []benchmarks.Kernel
	err     error
	// access makes the elementwise and GEMM launches declare their
	// accesses (elementwiseAccess, gemmAccess); the inference networks
	// set it.
	access bool
	// im2colKernel is Params.Im2col: which kernel the gputensor Im2Col
	// launches.
	im2colKernel string
	// pending is the objects freed since the last launch: the next
	// launch's Frees. freed is every object freed so far, and host the
	// objects the host wrote (operator.go).
	pending []int
	freed   map[int]bool
	host    map[int]bool
}

// dnnKernargBytes is the kernel-argument buffer, sized for the largest
// argument list (the GEMM: three pointers, eight integers, three hidden
// offsets).
const dnnKernargBytes = 80

func newDNet(alloc *objtable.Allocator) *dnet {
	return &dnet{alloc: alloc}
}

// tensor allocates n elements.
func (d *dnet) tensor(name string, n int) *tensor {
	if d.err != nil {
		return &tensor{name: name, n: 1}
	}
	if n < 1 {
		d.err = fmt.Errorf("%s: tensor %q has %d elements", d.where(), name, n)
		return &tensor{name: name, n: 1}
	}
	ptr, err := d.alloc.MallocManaged(uint64(n)*benchmarks.FloatBytes, name)
	if err != nil {
		d.err = err
		return &tensor{name: name, n: 1}
	}
	objs := d.alloc.Objects()
	return &tensor{name: name, ptr: ptr, id: objs[len(objs)-1].ID, n: n}
}

func (d *dnet) where() string {
	return fmt.Sprintf("after %d kernels", len(d.kernels))
}

// kernarg allocates the one kernel-argument object all launches share
// (see benchmarks.AllocKernarg); models call it where their program would first
// launch.
func (d *dnet) kernarg() {
	if d.karg == nil {
		d.karg = d.tensor("kernarg", dnnKernargBytes/benchmarks.FloatBytes)
	}
}

// launch appends a kernel of dnnWavefronts per workgroup using the given
// tensors (and the kernarg).
func (d *dnet) launch(name string, workgroups int, wf func(wg, wf int) benchmarks.Stream, uses ...*tensor) {
	d.launchWG(name, workgroups, dnnWavefronts, wf, uses...)
}

// launchWG is launch with wavefronts wavefronts per workgroup. The
// objects freed since the previous launch are its Frees; a freed object
// among its tensors is an error (a use after free).
func (d *dnet) launchWG(name string, workgroups, wavefronts int, wf func(wg, wf int) benchmarks.Stream, uses ...*tensor) {
	d.kernarg()
	seen := map[int]bool{d.karg.id: true}
	args := []int{}
	for _, t := range uses {
		if d.freed[t.id] && d.err == nil {
			d.err = fmt.Errorf("%s: %s uses %q after its free", d.where(), name, t.name)
		}
		if !seen[t.id] {
			seen[t.id] = true
			args = append(args, t.id)
		}
	}
	args = append(args, d.karg.id)
	d.kernels = append(d.kernels, benchmarks.Kernel{
		Name:                   name,
		Args:                   args,
		Frees:                  d.pending,
		Workgroups:             workgroups,
		WavefrontsPerWorkgroup: wavefronts,
		Wavefront:              func(wg, w, _ int) benchmarks.Stream { return wf(wg, w) },
	})
	d.pending = nil
}

// operand is one tensor an elementwise kernel touches: lane i (a work-item
// index) addresses element idx(i) of t, or nothing if idx returns -1. A nil
// idx is the identity.
type operand struct {
	t     *tensor
	idx   func(i int) int
	write bool
	// partial marks a map that returns -1 for some work-items (padding,
	// channels past an edge); active is then how many it maps, counted in
	// closed form by the layer for the access facts.
	partial bool
	active  int
}

func rd(t *tensor, idx func(int) int) operand { return operand{t: t, idx: idx} }
func wr(t *tensor, idx func(int) int) operand { return operand{t: t, idx: idx, write: true} }

// rdPartial is rd for a map that gives an element to only active
// work-items.
func rdPartial(t *tensor, idx func(int) int, active int) operand {
	return operand{t: t, idx: idx, partial: true, active: active}
}

// elementwise launches a kernel of n work-items: each wavefront loads its
// kernel arguments, then issues one instruction per operand, in order.
func (d *dnet) elementwise(name string, n int, ops ...operand) {
	d.elementwiseVec(name, n, 1, ops...)
}

// vector is elementwise with float4 work-items: work-item i handles
// elements 4i..4i+3 with dwordx4 accesses, for kernels whose operands are
// contiguous or per-channel broadcasts (a channel plane's size is a
// multiple of 4 except in the fully connected layers, where a float4 may
// straddle two biases: the lane addresses the first).
func (d *dnet) vector(name string, n int, ops ...operand) {
	d.elementwiseVec(name, n, gemmVec, ops...)
}

func (d *dnet) elementwiseVec(name string, n, vec int, ops ...operand) {
	uses := make([]*tensor, len(ops))
	for i, o := range ops {
		uses[i] = o.t
	}
	d.kernarg()
	karg := d.karg
	items := benchmarks.CeilDiv(n, vec)
	wgs := benchmarks.CeilDiv(items, dnnWorkgroup)
	d.launch(name, wgs, func(wg, wf int) benchmarks.Stream {
		base := (wg*dnnWavefronts + wf) * benchmarks.WavefrontSize
		lanes := min(benchmarks.WavefrontSize, items-base)
		if lanes <= 0 { // past the end: the bounds check after the kernarg load
			return &benchmarks.Loop{N: 1, Gen: func(_ int, in *benchmarks.Instruction) { benchmarks.GenKernarg(in, karg.ptr) }}
		}
		return &benchmarks.Loop{N: 1 + len(ops), Gen: func(k int, in *benchmarks.Instruction) {
			if k == 0 {
				benchmarks.GenKernarg(in, karg.ptr)
				return
			}
			o := ops[k-1]
			in.Compute = dnnElemCycles
			in.Write = o.write
			active := 0
			for l := 0; l < lanes; l++ {
				j := (base + l) * vec
				if o.idx != nil {
					j = o.idx(j)
				}
				if j < 0 {
					continue
				}
				in.Addr[active] = o.t.ptr + uint64(j)*benchmarks.FloatBytes
				active++
			}
			in.Lanes = active
		}}
	}, uses...)
	if d.access {
		d.kernels[len(d.kernels)-1].Access = d.elementwiseAccess(items, vec, wgs, ops)
	}
}

// mat is a GEMM operand: a row-major matrix of ld elements per row at
// element offset off of t, read transposed if trans, one per batch item
// batchStride elements apart (0: shared by the batch).
type mat struct {
	t           *tensor
	ld          int
	trans       bool
	batchStride int
}

// gemmVec is the float4 (dwordx4) width of the GEMM's global loads and
// stores, as GCN GEMM kernels issue them: one lane moves 16 bytes.
const gemmVec = 4

// gemmBlocks is the instructions per wavefront for one K chunk's A tile
// (64 x 16 floats = 256 float4 = 4 instructions, one per wavefront), the
// same for B, and the C tile's 64 x 64 floats (16 instructions, 4 per
// wavefront).
const (
	gemmChunkInstr = 2
	gemmCInstr     = dnnTile * dnnTile / gemmVec / benchmarks.WavefrontSize / dnnWavefronts
)

// gemm launches C[MxN] = A[MxK] x B[KxN] for batch items (batched when
// batch > 1; C.batchStride 0 sums over the batch). accumulate reads C
// before writing it.
func (d *dnet) gemm(name string, m, n, k, batch int, a, b, c mat, accumulate bool) {
	d.kernarg()
	karg := d.karg
	tm, tn := benchmarks.CeilDiv(m, dnnTile), benchmarks.CeilDiv(n, dnnTile)
	chunks := benchmarks.CeilDiv(k, dnnKChunk)
	readC := accumulate || c.batchStride == 0 && batch > 1
	perWF := 1 + chunks*gemmChunkInstr + gemmCInstr
	if readC {
		perWF += gemmCInstr
	}
	d.launch(name, batch*tm*tn, func(wg, wf int) benchmarks.Stream {
		bi, t := wg/(tm*tn), wg%(tm*tn)
		m0, n0 := t/tn*dnnTile, t%tn*dnnTile
		return &benchmarks.Loop{N: perWF, Gen: func(i int, in *benchmarks.Instruction) {
			switch {
			case i == 0:
				benchmarks.GenKernarg(in, karg.ptr)
			case i <= chunks*gemmChunkInstr:
				k0 := (i - 1) / gemmChunkInstr * dnnKChunk
				if (i-1)%gemmChunkInstr == 0 {
					in.Compute = dnnMACCycles
					fillMat(in, a, bi, m0, k0, m, k, dnnTile, dnnKChunk, wf)
				} else {
					fillMat(in, b, bi, k0, n0, k, n, dnnKChunk, dnnTile, wf)
				}
			default:
				j := i - 1 - chunks*gemmChunkInstr
				in.Write = !readC || j >= gemmCInstr
				fillMat(in, c, bi, m0, n0, m, n, dnnTile, dnnTile, wf*gemmCInstr+j%gemmCInstr)
			}
		}}
	}, a.t, b.t, c.t)
	if d.access {
		d.kernels[len(d.kernels)-1].Access = d.gemmAccess(m, n, k, batch, a, b, c, readC)
	}
}

// fillMat fills block blk of the tr x tc logical tile at (r0, c0) of
// operand x, a rows x cols logical matrix. A block is 64 float4 lanes
// along the stored rows: 16 rows of 4 float4 for a 16-float-wide stored
// tile, 4 rows of 16 float4 for a 64-float-wide one. A lane's address is
// its float4's first element; lanes outside the matrix are inactive.
func fillMat(in *benchmarks.Instruction, x mat, batch, r0, c0, rows, cols, tr, tc, blk int) {
	if x.trans {
		r0, c0, rows, cols, tr, tc = c0, r0, cols, rows, tc, tr
	}
	perRow := tc / gemmVec
	rowsPer := benchmarks.WavefrontSize / perRow
	base := x.t.ptr + uint64(batch*x.batchStride)*benchmarks.FloatBytes
	active := 0
	for r := blk * rowsPer; r < (blk+1)*rowsPer && r < tr && r0+r < rows; r++ {
		for c := 0; c < tc && c0+c < cols; c += gemmVec {
			in.Addr[active] = base + uint64((r0+r)*x.ld+c0+c)*benchmarks.FloatBytes
			active++
		}
	}
	in.Lanes = active
}

// Access facts of the framework's launches (dnet.access), for the
// inference networks: every tensor is Analysable. The index maps use only
// the work-item index and the shapes, with no loaded index and no loop of
// the host's. A layer whose launches sit in a host loop over groups marks
// its moving tensors HostLoop afterwards (iterate). Accesses count threads
// (work-items), as a compiler's count does, each one lane in the stream
// except at the kernarg: an elementwise operand has one per work-item it
// maps, the layer's closed count for a partial map. A GEMM operand has its
// stored rows times ceil(stored columns / 4) float4 accesses, one per
// work-item and instruction, once per output tile of the other dimension
// (an edge tile's work-items outside the matrix fail the bounds check).
// The kernarg is read by every work-item of the launch, before any bounds
// check: 256 a workgroup, though the stream has one broadcast lane per
// wavefront.

// elementwiseAccess is the accesses of an elementwise launch of items
// work-items of vec elements in wgs workgroups. A tensor's range is the
// hull of its operands' lanes in one workgroup: the middle one, an
// interior block (border blocks lose lanes to padding), or, for a tensor
// with no lane there (one half of a concat), the next block that has one.
// The maps divide and take remainders, so the block's range is evaluated
// lane by lane, which is what interval arithmetic gives where no remainder
// wraps.
func (d *dnet) elementwiseAccess(items, vec, wgs int, ops []operand) []benchmarks.Access {
	var ids []int
	byID := map[int][]operand{}
	acc := map[int]int64{}
	for _, o := range ops {
		id := o.t.id
		if byID[id] == nil {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], o)
		n := items
		if o.partial {
			n = o.active
		}
		acc[id] += int64(n)
	}
	var hs []benchmarks.Access
	for _, id := range ids {
		var rng int64
		for i := 0; i < wgs; i++ {
			if lo, hi, ok := blockLanes(byID[id], items, vec, (wgs/2+i)%wgs); ok {
				rng = benchmarks.FloatSpan(int64(lo), int64(hi))
				break
			}
		}
		hs = append(hs, benchmarks.AnalysableAccess(id, acc[id], rng))
	}
	return append(hs, d.kernargAccess(wgs))
}

// blockLanes is the lowest and highest element ops address in workgroup
// wg of an elementwise launch, and false if they address none there.
func blockLanes(ops []operand, items, vec, wg int) (lo, hi int, ok bool) {
	for l := 0; l < dnnWorkgroup && wg*dnnWorkgroup+l < items; l++ {
		j := (wg*dnnWorkgroup + l) * vec
		for _, o := range ops {
			e := j
			if o.idx != nil {
				e = o.idx(j)
			}
			if e < 0 {
				continue
			}
			if !ok {
				lo, hi, ok = e, e, true
			}
			lo, hi = min(lo, e), max(hi, e)
		}
	}
	return lo, hi, ok
}

// gemmAccess is the accesses of a gemm launch. Ranges are the first output
// tile's: A's 64 rows across all of K, B's 64 columns down all of K, C's
// tile.
func (d *dnet) gemmAccess(m, n, k, batch int, a, b, c mat, readC bool) []benchmarks.Access {
	tm, tn := int64(benchmarks.CeilDiv(m, dnnTile)), int64(benchmarks.CeilDiv(n, dnnTile))
	// lanes is the float4 lanes of one pass over a logical rows x cols
	// operand: every stored row, ceil(stored columns / 4) lanes each.
	lanes := func(x mat, rows, cols int) int64 {
		if x.trans {
			rows, cols = cols, rows
		}
		return int64(rows) * int64(benchmarks.CeilDiv(cols, gemmVec))
	}
	// span is the range of a logical rows x cols block at the origin.
	span := func(x mat, rows, cols int) int64 {
		if x.trans {
			rows, cols = cols, rows
		}
		return benchmarks.FloatSpan(0, int64(rows-1)*int64(x.ld)+int64((cols-1)/gemmVec*gemmVec))
	}
	bt, cPasses := int64(batch), int64(1)
	if readC {
		cPasses = 2
	}
	hs := []benchmarks.Access{
		benchmarks.AnalysableAccess(a.t.id, bt*tn*lanes(a, m, k), span(a, min(dnnTile, m), k)),
		benchmarks.AnalysableAccess(b.t.id, bt*tm*lanes(b, k, n), span(b, k, min(dnnTile, n))),
		benchmarks.AnalysableAccess(c.t.id, bt*cPasses*lanes(c, m, n), span(c, min(dnnTile, m), min(dnnTile, n))),
	}
	// One object may be two operands: one declaration, accesses summed.
	var out []benchmarks.Access
	at := map[int]int{}
	for _, h := range hs {
		if i, ok := at[h.Object]; ok {
			out[i].Accesses += h.Accesses
			out[i].WorkgroupBytes = max(out[i].WorkgroupBytes, h.WorkgroupBytes)
			continue
		}
		at[h.Object] = len(out)
		out = append(out, h)
	}
	return append(out, d.kernargAccess(int(bt*tm*tn)))
}

// kernargAccess is the kernarg's access in a launch of wgs workgroups: a load
// by each of their threads (one broadcast lane a wavefront in the stream).
func (d *dnet) kernargAccess(wgs int) benchmarks.Access {
	return benchmarks.AnalysableAccess(d.karg.id, int64(wgs)*dnnWorkgroup, benchmarks.FloatBytes)
}

// iterate makes t's access in the last launch HostLoop with it: the launch
// sits in a host loop that moves its pointer into t.
func (d *dnet) iterate(t *tensor, it benchmarks.LoopSpan) {
	if !d.access || d.err != nil {
		return
	}
	hs := d.kernels[len(d.kernels)-1].Access
	for i := range hs {
		if hs[i].Object == t.id {
			hs[i].Pattern, hs[i].Loop = benchmarks.HostLoop, it
		}
	}
}

// ReadsIm2col reports whether w runs the gputensor Im2Col, and so reads
// Params.Im2col: the DNN-Mark workloads (i2c, c2d, lenet, vgg16,
// resnet18). Any other workload ignores it.
func ReadsIm2col(w benchmarks.Workload) bool {
	_, ok := w.(network)
	return ok
}
