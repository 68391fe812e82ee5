package dnn

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

var dnnTables = []struct {
	name    string
	objects int
	size    benchmarks.PaperSize
}{
	{"i2c", 3, I2CSize}, {"c2d", 10, C2DSize}, {"lenet", 115, LeNetSize},
	{"vgg16", 240, VGG16Size}, {"resnet18", 263, ResNet18Size},
}

// loopLen is the instruction count of a wavefront without generating it.
func loopLen(t *testing.T, s benchmarks.Stream) int {
	l, ok := s.(*benchmarks.Loop)
	if !ok {
		t.Fatalf("stream %T is not a Loop", s)
	}
	return l.N
}

func TestDNNTables(t *testing.T) {
	for _, c := range dnnTables {
		for _, q := range benchtest.PaperColumns(c.size) {
			p := benchmarks.Params{GPUs: q.GPUs, Size: q.Size, Scale: 1}
			a, ks := benchtest.Setup(t, c.name, p)
			if got := len(a.Objects()); got != c.objects {
				t.Errorf("%s: %d objects, want %d (Table II)", c.name, got, c.objects)
			}
			fp := a.Footprint()
			benchtest.CheckFootprint(t, c.name, q, fp)
			w, _ := benchmarks.New(c.name)
			batch, div, _ := w.(network).shape(p)
			col, _ := benchmarks.Column(p)
			if batch < col {
				t.Errorf("%s %d GPUs %s: batch %d is below the column's %d GPUs", c.name, q.GPUs, q.Size, batch, col)
			}
			instr := 0
			for _, k := range ks {
				for wg := 0; wg < k.Workgroups; wg++ {
					for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
						instr += loopLen(t, k.Wavefront(wg, wf, 0))
					}
				}
			}
			t.Logf("%-8s %2d GPUs %-5s: batch %3d, width/%d, %.1f MB (table %d MB), %d launches, %d instructions",
				c.name, q.GPUs, q.Size, batch, div, float64(fp)/benchmarks.MiB, q.Want/benchmarks.MiB, len(ks), instr)
		}
	}
}

// TestDNNLaunches checks the phase structure the paper describes: i2c is
// one kernel, c2d nine launches starting im2col -> GEMM -> transpose, and
// every network launch names its kernel function.
func TestDNNLaunches(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.02}
	_, ks := benchtest.Setup(t, "i2c", p)
	if len(ks) != 1 || ks[0].Name != "im2col" {
		t.Fatalf("i2c: %d kernels", len(ks))
	}
	_, ks = benchtest.Setup(t, "c2d", p)
	var names []string
	for _, k := range ks {
		names = append(names, k.Name)
	}
	want := "im2col gemm transpose transpose fill gemm gemm col2im sgd"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("c2d launches %q, want %q", got, want)
	}
	_, ks = benchtest.Setup(t, "lenet", benchmarks.Params{GPUs: 4, Scale: 0.02, Iterations: 2})
	_, ks4 := benchtest.Setup(t, "lenet", benchmarks.Params{GPUs: 4, Scale: 0.02})
	if len(ks4) != 2*len(ks) {
		t.Errorf("lenet: %d launches for 2 iterations, %d for the default 4", len(ks), len(ks4))
	}
	for _, k := range ks4 {
		if k.Barrier || k.Name == "" || len(k.Args) < 2 {
			t.Fatalf("lenet launch %+v", k)
		}
	}
}

// given reports objects a training step may read before any kernel writes
// them: the inputs, parameters and optimiser state (initialised by the
// host), the kernel arguments, and c2d's output gradient (its input).
func given(workload, name string) bool {
	for _, s := range []string{".weight", ".bias", ".gamma", ".beta", ".velocity"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	switch name {
	case "input", "labels", "kernarg":
		return true
	case "conv.grad":
		return workload == "c2d"
	}
	return false
}

// TestDNNDataFlow runs every launch of each network in order and checks
// that no kernel reads an activation or gradient that no earlier kernel
// wrote: the backward pass runs after the forward pass, layer by layer in
// reverse, and updates come last.
func TestDNNDataFlow(t *testing.T) {
	for _, c := range dnnTables {
		a, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: 2, Scale: 0.01, Iterations: 2})
		written := map[string]bool{}
		for i, k := range ks {
			wrote := map[string]bool{}
			for wg := 0; wg < k.Workgroups; wg++ {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), func(x benchtest.Access) {
						n := x.Obj.Name
						if x.Write {
							wrote[n] = true
							return
						}
						if !written[n] && !given(c.name, n) {
							t.Fatalf("%s launch %d (%s) reads %q before any kernel wrote it", c.name, i, k.Name, n)
						}
					})
				}
			}
			for n := range wrote {
				written[n] = true
			}
		}
	}
}

// TestIm2colCoverage checks the unrolling: every column element is written
// once, and each input element is read once per 3x3 window that covers
// it: 9 times inside, fewer on the border (padding is never read).
func TestIm2colCoverage(t *testing.T) {
	reads, writes, _ := benchtest.CountAccesses(t, "i2c", benchmarks.Params{GPUs: 1, Scale: 0.01}, 0)
	a, _ := benchtest.Setup(t, "i2c", benchmarks.Params{GPUs: 1, Scale: 0.01})
	in, out := a.Objects()[0], a.Objects()[1]
	benchtest.CheckEach(t, "output", writes["output"], out.Size/4, 1)
	hist := map[int]int{}
	for _, k := range reads["input"] {
		hist[k]++
	}
	if uint64(len(reads["input"])) != in.Size/4 || hist[9] == 0 || hist[4] == 0 {
		t.Fatalf("input read counts %v over %d of %d elements", hist, len(reads["input"]), in.Size/4)
	}
	for k := range hist {
		if k != 4 && k != 6 && k != 9 {
			t.Fatalf("an input element read %d times (want 9 inside, 6 on edges, 4 in corners): %v", k, hist)
		}
	}
}

// TestGEMMCoverage checks c2d's forward GEMM: every float4 of the output
// is written exactly once, and every GPU reads all the weights (they are
// shared: data parallelism) while the output columns split by image.
func TestGEMMCoverage(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.1}
	a, ks := benchtest.Setup(t, "c2d", p)
	k := ks[1]
	if k.Name != "gemm" {
		t.Fatalf("launch 1 is %s", k.Name)
	}
	gemmOut := a.Objects()[4]
	if gemmOut.Name != "conv.gemm" {
		t.Fatalf("object 4 is %s", gemmOut.Name)
	}
	writes := map[uint64]int{}
	weightPagesByGPU := make([]map[uint64]bool, p.GPUs)
	per := benchmarks.CeilDiv(k.Workgroups, p.GPUs)
	for wg := 0; wg < k.Workgroups; wg++ {
		gpu := wg / per
		if weightPagesByGPU[gpu] == nil {
			weightPagesByGPU[gpu] = map[uint64]bool{}
		}
		for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
			benchtest.Drain(t, a, k.Wavefront(wg, wf, gpu), func(x benchtest.Access) {
				switch {
				case x.Write:
					writes[x.Addr-x.Obj.Base]++
				case x.Obj.Name == "conv.weight":
					weightPagesByGPU[gpu][x.Addr/benchtest.Page] = true
				}
			})
		}
	}
	if uint64(len(writes)) != gemmOut.Size/16 {
		t.Fatalf("%d float4 written, want %d", len(writes), gemmOut.Size/16)
	}
	for off, n := range writes {
		if n != 1 || off%16 != 0 {
			t.Fatalf("offset %d written %d times", off, n)
		}
	}
	w := a.Objects()[2]
	for g, pages := range weightPagesByGPU {
		if uint64(len(pages)) != w.Pages(benchtest.Page) {
			t.Errorf("GPU %d read %d of %d weight pages", g, len(pages), w.Pages(benchtest.Page))
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

// TestIm2colIsMGPUSimShaped checks i2c's kernel against MGPUSim's gputensor
// im2col (one work-item per output column, 64 per workgroup, looping over
// the C*k*k rows): one wavefront per workgroup, the kernarg loaded once,
// then per row a read of the input and a write of that row's 64 column
// elements; every column element is written exactly once, and every lane
// that reads reads the input.
func TestIm2colIsMGPUSimShaped(t *testing.T) {
	a, ks := benchtest.Setup(t, "i2c", benchmarks.Params{GPUs: 4, Scale: 0.02})
	if len(ks) != 1 {
		t.Fatalf("%d kernels", len(ks))
	}
	k := ks[0]
	if k.WavefrontsPerWorkgroup != 1 {
		t.Fatalf("%d wavefronts per workgroup, want 1 (MGPUSim launches 64 work-items per group)", k.WavefrontsPerWorkgroup)
	}
	var in, out *objtable.Object
	for _, o := range a.Objects() {
		switch o.Name {
		case "input":
			in = o
		case "output":
			out = o
		}
	}
	if in == nil || out == nil {
		t.Fatal("i2c has no input or output object")
	}
	written := make([]int, out.Size/benchmarks.FloatBytes)
	for wg := 0; wg < k.Workgroups; wg++ {
		var got []benchtest.Access
		n := benchtest.Drain(t, a, k.Wavefront(wg, 0, 0), func(x benchtest.Access) { got = append(got, x) })
		rows := (n - 1) / 2
		if n != 1+2*rows || rows < 9 {
			t.Fatalf("workgroup %d: %d instructions, want the kernarg and a read and a write per row", wg, n)
		}
		if got[0].Obj.Name != "kernarg" {
			t.Fatalf("workgroup %d starts with %q, want the kernarg", wg, got[0].Obj.Name)
		}
		for _, x := range got[1:] {
			switch {
			case x.Write && x.Obj == out:
				written[(x.Addr-out.Base)/benchmarks.FloatBytes]++
			case !x.Write && x.Obj == in:
			default:
				t.Fatalf("workgroup %d: write=%v to %q", wg, x.Write, x.Obj.Name)
			}
		}
	}
	for i, c := range written {
		if c != 1 {
			t.Fatalf("column element %d written %d times, want 1", i, c)
		}
	}
}
