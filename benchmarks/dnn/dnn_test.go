package dnn

import (
	"math"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

var dnnSizes = []struct {
	name string
	size benchmarks.PaperSize
}{
	{"i2c", I2CSize}, {"c2d", C2DSize}, {"lenet", LeNetSize}, {"vgg16", VGG16Size}, {"resnet18", ResNet18Size},
}

// loopLen is the instruction count of a wavefront without generating it.
func loopLen(t *testing.T, s benchmarks.Stream) int {
	l, ok := s.(*benchmarks.Loop)
	if !ok {
		t.Fatalf("stream %T is not a Loop", s)
	}
	return l.N
}

// program builds a training workload and returns its framework (launches,
// pending frees, host writes) and allocator.
func program(t *testing.T, name string, p benchmarks.Params) (*dnet, *objtable.Allocator) {
	t.Helper()
	w, err := benchmarks.New(name)
	if err != nil {
		t.Fatal(err)
	}
	a := benchtest.NewAlloc(t)
	d, err := w.(network).program(a, p)
	if err != nil {
		t.Fatal(err)
	}
	return d, a
}

func names(ks []benchmarks.Kernel) string {
	var s []string
	for _, k := range ks {
		s = append(s, k.Name)
	}
	return strings.Join(s, " ")
}

// TestDNNSizing checks the footprint rule at every paper column: the
// batch is at least the column's GPU count, and no batch at or above that
// comes closer to the paper's footprint. It logs the shapes, object
// counts (reported, not fitted: Table II's are not MGPUSim's),
// launches and instructions.
func TestDNNSizing(t *testing.T) {
	for _, c := range dnnSizes {
		for _, q := range benchtest.PaperColumns(c.size) {
			p := benchmarks.Params{GPUs: q.GPUs, Size: q.Size, Scale: 1}
			a, ks := benchtest.Setup(t, c.name, p)
			fp := a.Footprint()
			w, _ := benchmarks.New(c.name)
			n := w.(network)
			batch, div, _ := n.shape(p)
			col, _ := benchmarks.Column(p)
			if batch < col {
				t.Errorf("%s %d GPUs %s: batch %d is below the column's %d GPUs", c.name, q.GPUs, q.Size, batch, col)
			}
			if got := n.footprint(batch, div, 1); got != fp {
				t.Errorf("%s: footprint %d built, %d sized", c.name, fp, got)
			}
			off := func(f uint64) float64 { return math.Abs(float64(f) - float64(q.Want)) }
			for _, b := range []int{batch - 1, batch + 1} {
				if b >= col && off(n.footprint(b, div, 1)) < off(fp) {
					t.Errorf("%s %d GPUs %s: batch %d is closer to %d MB than batch %d", c.name, q.GPUs, q.Size, b,
						q.Want/benchmarks.MiB, batch)
				}
			}
			instr := 0
			for _, k := range ks {
				for wg := 0; wg < k.Workgroups; wg++ {
					for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
						instr += loopLen(t, k.Wavefront(wg, wf, 0))
					}
				}
			}
			t.Logf("%-8s %2d GPUs %-5s: batch %4d, width/%d, %.1f MB (table %d MB), %d objects, %d launches, %d instructions",
				c.name, q.GPUs, q.Size, batch, div, float64(fp)/benchmarks.MiB, q.Want/benchmarks.MiB, len(a.Objects()),
				len(ks), instr)
		}
	}
}

// The launch sequences of MGPUSim's layers (layers/*.go over
// gputensor/operator.go), derived from its sources independently of
// layers.go: conv2d.go:160-299, fullconnectedlayer.go:71-157,
// relulayer.go, avgpooling.go, softmaxcrossentropy.go with
// operator.go:1220-1393, adam.go:32-57.
const (
	seqConvF   = "copy im2col copy repeat transpose gemm transpose"
	seqConvB0  = "transpose transpose im2col gemm copy sum sum sum copy"
	seqConvB   = seqConvB0 + " dilate im2col rotate transpose gemm transpose"
	seqFCF     = "copy copy copy repeat copy gemm"
	seqFCB     = "copy copy transpose gemm copy sum copy copy copy transpose gemm"
	seqReluF   = "copy relu"
	seqPoolF   = "copy avgpool"
	seqLoss    = "softmax_exp sum softmax_div softmax_ce_grad"
	seqAdamNew = "copy copy mul adam"
)

// TestDNNLaunches checks each workload's launch sequence against
// MGPUSim's: i2c one im2col; c2d a layer-0 Conv2D forward and backward
// (16 launches); LeNet one batch (131 launches, the count the fidelity
// report's census of MGPUSim's LeNet gives, /tmp/fid/lenet/main.go) with
// 266 allocations plus mgpu's kernarg, and a second batch that reuses
// Adam's histories.
func TestDNNLaunches(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.02}
	_, ks := benchtest.Setup(t, "i2c", p)
	if got := names(ks); got != "im2col" {
		t.Errorf("i2c launches %q", got)
	}
	_, ks = benchtest.Setup(t, "c2d", p)
	if got, want := names(ks), seqConvF+" "+seqConvB0; got != want {
		t.Errorf("c2d launches\n%s\nwant\n%s", got, want)
	}
	fwd := strings.Join([]string{seqConvF, seqReluF, seqPoolF, seqConvF, seqReluF, seqPoolF,
		seqFCF, seqReluF, seqFCF, seqReluF, seqFCF}, " ")
	bwd := strings.Join([]string{seqFCB, "relu_grad", seqFCB, "relu_grad", seqFCB, "avgpool_grad", "relu_grad",
		seqConvB, "avgpool_grad", "relu_grad", seqConvB0}, " ")
	first := strings.Join([]string{fwd, seqLoss, bwd, strings.TrimSpace(strings.Repeat(seqAdamNew+" ", 5))}, " ")
	p = benchmarks.Params{GPUs: 4, Scale: 1}
	a, ks := benchtest.Setup(t, "lenet", p)
	if got := names(ks); got != first {
		t.Errorf("lenet launches\n%s\nwant\n%s", got, first)
	}
	if len(ks) != 131 || len(a.Objects()) != 266+1 {
		t.Errorf("lenet: %d launches and %d objects, want MGPUSim's 131 and 266 plus the kernarg", len(ks), len(a.Objects()))
	}
	p.Iterations = 2
	_, ks = benchtest.Setup(t, "lenet", p)
	second := strings.Join([]string{fwd, seqLoss, bwd, "adam adam adam adam adam"}, " ")
	if got := names(ks); got != first+" "+second {
		t.Errorf("lenet, 2 batches: the second batch is\n%s\nwant\n%s", names(ks[131:]), second)
	}
	for _, name := range []string{"vgg16", "resnet18"} {
		_, ks := benchtest.Setup(t, name, benchmarks.Params{GPUs: 4, Scale: 0.01})
		for _, k := range ks {
			if k.Barrier || k.Name == "" || len(k.Args) < 2 {
				t.Fatalf("%s launch %+v", name, k)
			}
		}
		// One layer-0 conv, every other conv with its input gradient.
		if c := strings.Count(names(ks), "rotate"); c != map[string]int{"vgg16": 12, "resnet18": 19}[name] {
			t.Errorf("%s: %d input-gradient convolutions", name, c)
		}
	}
}

// scratchSuffixes name the per-call buffers of Transpose, Rotate180,
// Dilate and Sum.
var scratchSuffixes = []string{".inIndexBuf", ".outIndexBuf", ".inSize", ".outSize", ".order", ".dilate"}

func isScratch(name string) bool {
	for _, s := range scratchSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// TestScratchFreedAfterItsLaunch checks MGPUSim's per-call scratch: every
// transpose, rotate, dilate and sum launch takes its own size/order
// arrays and two index buffers (5, 4, 5 and 4 objects), none used by any
// other launch, and all of them freed by the very next launch (operator.go
// frees them on return), or pending when the program ends there. No
// object is freed twice or used after its free.
func TestScratchFreedAfterItsLaunch(t *testing.T) {
	want := map[string]int{"transpose": 5, "rotate": 4, "dilate": 5, "sum": 4}
	for _, name := range []string{"c2d", "lenet", "vgg16", "resnet18"} {
		d, a := program(t, name, benchmarks.Params{GPUs: 4, Scale: 0.01})
		ks := d.kernels
		usedBy := map[int]int{}
		freedAt := map[int]int{}
		for i, k := range ks {
			for _, id := range k.Frees {
				if _, dup := freedAt[id]; dup {
					t.Fatalf("%s: %q freed twice", name, a.Object(id).Name)
				}
				freedAt[id] = i
			}
			n := 0
			for _, id := range k.Args {
				if at, ok := freedAt[id]; ok {
					t.Fatalf("%s launch %d (%s) uses %q, freed at launch %d", name, i, k.Name, a.Object(id).Name, at)
				}
				if !isScratch(a.Object(id).Name) {
					continue
				}
				n++
				if j, ok := usedBy[id]; ok {
					t.Fatalf("%s: scratch %q used by launches %d and %d", name, a.Object(id).Name, j, i)
				}
				usedBy[id] = i
			}
			if n != want[k.Name] {
				t.Fatalf("%s launch %d (%s) has %d scratch buffers, want %d", name, i, k.Name, n, want[k.Name])
			}
		}
		pending := map[int]bool{}
		for _, id := range d.pending {
			pending[id] = true
		}
		for id, i := range usedBy {
			if at, ok := freedAt[id]; ok && at != i+1 || !ok && (i != len(ks)-1 || !pending[id]) {
				t.Fatalf("%s: scratch %q of launch %d freed at launch %d", name, a.Object(id).Name, i, at)
			}
		}
	}
}

// TestConvFrees checks where c2d frees the layer's temporaries: the
// forward pass's column matrix, weight and bias matrices and product
// before the first backward launch, the weight-gradient temporaries
// before the bias sums, and the sums' intermediates before the next sum.
func TestConvFrees(t *testing.T) {
	d, a := program(t, "c2d", benchmarks.Params{GPUs: 4, Scale: 0.02})
	freed := func(i int) []string {
		var s []string
		for _, id := range d.kernels[i].Frees {
			if n := a.Object(id).Name; !isScratch(n) {
				s = append(s, n)
			}
		}
		return s
	}
	for i, want := range map[int]string{
		7:  "conv.col conv.weightMatrix conv.biasMatrix conv.biasMatrixT conv.gemm",
		12: "conv.dW conv.xT conv.dyT conv.xCols conv.zeros",
		14: "conv.dbias.sum0",
		15: "conv.dbias.sum1",
	} {
		if got := strings.Join(freed(i), " "); got != want {
			t.Errorf("c2d launch %d (%s) frees %q, want %q", i, d.kernels[i].Name, got, want)
		}
	}
	var pend []string
	for _, id := range d.pending {
		pend = append(pend, a.Object(id).Name)
	}
	if got := strings.Join(pend, " "); got != "conv.dbias.sum2 conv.forwardInput" {
		t.Errorf("c2d frees after its last launch: %q", got)
	}
}

// TestIndexBuffersPerWorkItem checks the index-buffer pattern of every
// transpose, rotate, dilate and sum launch of c2d and lenet (whose
// dilations are 1, so every work-item is on the grid): lane l of
// workgroup wg is work-item tid = 64*wg + l, and it touches only its own
// dim slots of each index buffer (dim = the buffer's ints per work-item),
// writes every slot it reads before reading it, and writes all its slots
// of the out index buffer.
func TestIndexBuffersPerWorkItem(t *testing.T) {
	for _, name := range []string{"c2d", "lenet"} {
		d, a := program(t, name, benchmarks.Params{GPUs: 4, Scale: 0.01})
		checked := 0
		for i, k := range d.kernels {
			if !map[string]bool{"transpose": true, "rotate": true, "dilate": true, "sum": true}[k.Name] {
				continue
			}
			checked++
			// The work-items: the last wavefront's final store has one
			// lane each.
			last := benchtest.InstructionAccesses(t, a, k.Wavefront(k.Workgroups-1, 0, 0))
			work := (k.Workgroups-1)*gtLocal + len(last[len(last)-1])
			for wg := 0; wg < k.Workgroups; wg++ {
				ins := benchtest.InstructionAccesses(t, a, k.Wavefront(wg, 0, 0))
				lanes := len(ins[len(ins)-1])
				written := map[uint64]bool{}
				outSlots := 0
				for _, x := range ins {
					for l, acc := range x {
						if !strings.HasSuffix(acc.Obj.Name, "IndexBuf") {
							continue
						}
						if len(x) != lanes {
							t.Fatalf("%s launch %d (%s): an index instruction of %d lanes, want %d", name, i, k.Name, len(x), lanes)
						}
						dim := int(acc.Obj.Size/4) / work
						tid, slot := wg*gtLocal+l, int(acc.Addr-acc.Obj.Base)/4
						if slot/dim != tid {
							t.Fatalf("%s launch %d (%s): work-item %d touches %s slot %d (%d per work-item)", name, i, k.Name,
								tid, acc.Obj.Name, slot, dim)
						}
						switch {
						case acc.Write:
							if !written[acc.Addr] && strings.HasSuffix(acc.Obj.Name, ".outIndexBuf") {
								outSlots++
							}
							written[acc.Addr] = true
						case !written[acc.Addr]:
							t.Fatalf("%s launch %d (%s): work-item %d reads %s slot %d before writing it", name, i, k.Name,
								tid, acc.Obj.Name, slot)
						}
					}
				}
				for _, id := range k.Args {
					if o := a.Object(id); strings.HasSuffix(o.Name, ".outIndexBuf") && outSlots != lanes*int(o.Size/4)/work {
						t.Fatalf("%s launch %d (%s) workgroup %d writes %d out-index slots, want %d", name, i, k.Name, wg,
							outSlots, lanes*int(o.Size/4)/work)
					}
				}
			}
		}
		if checked == 0 {
			t.Fatalf("%s: no scratch launch", name)
		}
	}
}

// TestGemmOld checks c2d's forward GEMM against gemm_old: 16x16
// workgroups of 4 wavefronts over [k x N*32*32], each wavefront the
// kernarg, a load of A's row and of B's column per K step, C's element
// and D's store; work-item (x, y) reads row y of the weight matrix and
// column x of the column matrix; every element of D is written once.
func TestGemmOld(t *testing.T) {
	d, a := program(t, "c2d", benchmarks.Params{GPUs: 4, Scale: 0.1})
	k := d.kernels[5]
	if k.Name != "gemm" || k.WavefrontsPerWorkgroup != 4 {
		t.Fatalf("launch 5 is %s with %d wavefronts", k.Name, k.WavefrontsPerWorkgroup)
	}
	wm, col, out := benchtest.ObjectNamed(a, "conv.weightMatrix"), benchtest.ObjectNamed(a, "conv.col"),
		benchtest.ObjectNamed(a, "conv.gemm")
	c := int(math.Round(math.Sqrt(float64(wm.Size / 4 / 9)))) // channels = filters
	m, kk := c, c*9
	n := int(col.Size/4) / kk
	if k.Workgroups != benchmarks.CeilDiv(n, 16)*benchmarks.CeilDiv(m, 16) {
		t.Fatalf("%d workgroups for a %dx%d product", k.Workgroups, m, n)
	}
	writes := map[uint64]int{}
	nx := benchmarks.CeilDiv(n, 16)
	for wg := 0; wg < k.Workgroups; wg++ {
		for wf := 0; wf < 4; wf++ {
			ins := benchtest.InstructionAccesses(t, a, k.Wavefront(wg, wf, 0))
			if wg/nx*16+wf*4 >= m { // past D's last row: the bounds check returns
				if len(ins) != 1 {
					t.Fatalf("workgroup %d wavefront %d: %d instructions past the last row", wg, wf, len(ins))
				}
				continue
			}
			if len(ins) != 1+2*kk+2 {
				t.Fatalf("workgroup %d wavefront %d: %d instructions, want %d", wg, wf, len(ins), 1+2*kk+2)
			}
			for z := 0; z < kk; z += 97 {
				ra, rb := ins[1+2*z], ins[2+2*z]
				for l := range ra {
					x, y := wg%nx*16+l%16, wg/nx*16+wf*4+l/16
					if ra[l].Obj != wm || ra[l].Addr-wm.Base != uint64(y*kk+z)*4 ||
						rb[l].Obj != col || rb[l].Addr-col.Base != uint64(z*n+x)*4 {
						t.Fatalf("work-item (%d, %d) step %d reads %s %d and %s %d", x, y, z, ra[l].Obj.Name,
							(ra[l].Addr-ra[l].Obj.Base)/4, rb[l].Obj.Name, (rb[l].Addr-rb[l].Obj.Base)/4)
					}
				}
			}
			for _, x := range ins[len(ins)-1] {
				if !x.Write || x.Obj != out {
					t.Fatalf("the last instruction writes %s", x.Obj.Name)
				}
				writes[x.Addr-out.Base]++
			}
		}
	}
	benchtest.CheckEach(t, "conv.gemm", writes, out.Size/4, 1)
}

// TestIm2col checks i2c's kernels: im2col_2d's 8x8 workgroups of one
// wavefront (kernarg, a gather, a store), and under every Params.Im2col
// kernel each column element written once and each input element read
// once per 3x3 window over it (1 to 9 times: padding 0).
func TestIm2col(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.01}
	a, ks := benchtest.Setup(t, "i2c", p)
	in, out := benchtest.ObjectNamed(a, "input"), benchtest.ObjectNamed(a, "output")
	n := int(in.Size / 4 / (28 * 28))
	rows, cols := 9, n*26*26
	k := ks[0]
	if k.WavefrontsPerWorkgroup != 1 || k.Workgroups != benchmarks.CeilDiv(cols, 8)*benchmarks.CeilDiv(rows, 8) {
		t.Fatalf("im2col: %d workgroups of %d wavefronts for a %dx%d matrix", k.Workgroups, k.WavefrontsPerWorkgroup, rows, cols)
	}
	for wg := 0; wg < k.Workgroups; wg += 37 {
		if got := benchtest.InstructionAccesses(t, a, k.Wavefront(wg, 0, 0)); len(got) != 3 {
			t.Fatalf("workgroup %d: %d instructions", wg, len(got))
		}
	}
	var first map[int]int
	for _, kernel := range benchmarks.Im2colKernels() {
		p.Im2col = kernel
		reads, writes, _ := benchtest.CountAccesses(t, "i2c", p, 0)
		benchtest.CheckEach(t, kernel+" output", writes["output"], out.Size/4, 1)
		hist := map[int]int{}
		for _, c := range reads["input"] {
			hist[c]++
		}
		if uint64(len(reads["input"])) != in.Size/4 {
			t.Fatalf("%s: %d of %d input elements read", kernel, len(reads["input"]), in.Size/4)
		}
		for c := range hist {
			if c != 1 && c != 2 && c != 3 && c != 4 && c != 6 && c != 9 {
				t.Fatalf("%s: an input element read %d times: %v", kernel, c, hist)
			}
		}
		if first == nil {
			first = hist
		} else if len(hist) != len(first) || hist[9] != first[9] {
			t.Errorf("%s reads %v, mgpusim %v", kernel, hist, first)
		}
	}
}

// TestI2CSharing checks the page pattern im2col_2d gives i2c under the
// static mgpusim distribution (the fidelity report's B1): output pages
// written by one GPU (but where a GPU's block of columns ends inside a
// page, at most one such page per row and GPU boundary), the input pages
// read by two (the nine rows form two workgroup bands, and each band is
// split over two GPUs by columns).
func TestI2CSharing(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.05}
	a, ks := benchtest.Setup(t, "i2c", p)
	k := ks[0]
	disp, err := benchmarks.NewDispatcherOn(benchmarks.SchemeMGPUSim, k.Workgroups, 4, 64)
	if err != nil {
		t.Fatal(err)
	}
	gpus := map[uint64]uint8{}
	for g := 0; g < 4; g++ {
		for {
			wg, ok := disp.Next(g)
			if !ok {
				break
			}
			benchtest.Drain(t, a, k.Wavefront(wg, 0, g), func(x benchtest.Access) {
				if x.Obj.Name != "kernarg" {
					gpus[x.Addr/benchtest.Page] |= 1 << g
				}
			})
		}
	}
	in, out := benchtest.ObjectNamed(a, "input"), benchtest.ObjectNamed(a, "output")
	shared, outShared := 0, 0
	for pg, m := range gpus {
		private := m&(m-1) == 0
		switch {
		case pg >= out.Base/benchtest.Page && !private:
			outShared++
		case pg < in.Base/benchtest.Page+in.Pages(benchtest.Page) && !private:
			shared++
		}
	}
	if outShared > 9*3 {
		t.Errorf("%d of %d output pages shared", outShared, out.Pages(benchtest.Page))
	}
	if inPages := int(in.Pages(benchtest.Page)); shared < inPages*9/10 {
		t.Errorf("%d of %d input pages shared", shared, inPages)
	}
}

// TestDNNDataFlow runs every launch of each workload in order and checks
// that nothing is read before it is written: by the host (inputs,
// parameters, zeros, labels, size arrays), by an earlier launch, or, for
// an index-buffer slot, earlier in the same wavefront.
func TestDNNDataFlow(t *testing.T) {
	for _, c := range dnnSizes {
		d, a := program(t, c.name, benchmarks.Params{GPUs: 2, Scale: 0.01, Iterations: 2})
		written := map[int]bool{d.karg.id: true}
		for id := range d.host {
			written[id] = true
		}
		for i, k := range d.kernels {
			wrote := map[int]bool{}
			for wg := 0; wg < k.Workgroups; wg++ {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					slots := map[uint64]bool{}
					benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), func(x benchtest.Access) {
						if x.Write {
							wrote[x.Obj.ID] = true
							slots[x.Addr] = true
							return
						}
						if !written[x.Obj.ID] && !slots[x.Addr] {
							t.Fatalf("%s launch %d (%s) reads %q before anything wrote it", c.name, i, k.Name, x.Obj.Name)
						}
					})
				}
			}
			for id := range wrote {
				written[id] = true
			}
		}
	}
}

func TestDNNDeterministic(t *testing.T) {
	for _, name := range []string{"c2d", "lenet", "resnet18"} {
		p := benchmarks.Params{GPUs: 4, Scale: 0.01}
		_, a := benchtest.Setup(t, name, p)
		_, b := benchtest.Setup(t, name, p)
		ha, na := benchtest.StreamHash(a, 4)
		hb, nb := benchtest.StreamHash(b, 4)
		if ha != hb || na != nb {
			t.Errorf("%s: two set-ups differ", name)
		}
	}
}
