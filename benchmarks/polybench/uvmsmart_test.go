package polybench

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
	"github.com/mgpu-sim/mgpu/objtable"
)

func TestConv2DAccesses(t *testing.T) {
	p := benchmarks.Params{GPUs: 2, Scale: 0.005, Size: benchmarks.SizeAuto}
	n, _ := Conv2DSide(p)
	a, ks := benchtest.Setup(t, "2dconv", p)
	c := benchtest.CountKernel(t, a, ks[0], benchmarks.FloatBytes)
	c.OnlyObjects(t, "2dconv", []string{"A"}, []string{"B"})
	side := uint64(n)
	interior := func(i uint64) bool { r, col := i/side, i%side; return r > 0 && r < side-1 && col > 0 && col < side-1 }
	benchtest.ExactlyOnce(t, "B", c.Writes["B"], side*side, interior)
	if len(c.Reads["A"]) != n*n { // the corners too, as diagonal neighbours
		t.Errorf("A: %d of %d elements read", len(c.Reads["A"]), n*n)
	}
	if want := 10 * n * n / benchmarks.WavefrontSize; c.Instructions != want {
		t.Errorf("%d instructions, want %d", c.Instructions, want)
	}
}

func TestMatrixVectorStride(t *testing.T) {
	for _, w := range []struct {
		name    string
		strided [2]bool // per kernel: lanes walk rows (64 rows per load)
	}{{"atax", [2]bool{true, false}}, {"bicg", [2]bool{false, true}}} {
		p := benchmarks.Params{GPUs: 4, Scale: 0.001, Size: benchmarks.SizeAuto}
		a, ks := benchtest.Setup(t, w.name, p)
		A := a.Object(0)
		n := uint64(mustSide(t, w.name, p))
		for ki, k := range ks {
			c := benchtest.CountKernel(t, a, k, benchmarks.FloatBytes)
			benchtest.ExactlyOnce(t, w.name+" A", c.Reads["A"], n*n, func(uint64) bool { return true })
			var in benchmarks.Instruction
			s := k.Wavefront(0, 1, 0)
			for s.Next(&in) {
				if in.Lanes != benchmarks.WavefrontSize || objtable.Strip(in.Addr[0]) < A.Base || objtable.Strip(in.Addr[0]) >= A.Base+A.Size {
					continue
				}
				step := objtable.Strip(in.Addr[1]) - objtable.Strip(in.Addr[0])
				if want := map[bool]uint64{true: n * benchmarks.FloatBytes, false: benchmarks.FloatBytes}[w.strided[ki]]; step != want {
					t.Fatalf("%s kernel %d: lanes %d bytes apart, want %d", w.name, ki, step, want)
				}
			}
		}
	}
}

func mustSide(t *testing.T, name string, p benchmarks.Params) int {
	n, err := mvSide(map[string]benchmarks.PaperSize{"atax": ATAXSize, "bicg": BICGSize}[name], map[string]int{"atax": 3, "bicg": 4}[name], p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFDTD2DSteps(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Scale: 0.003, Size: benchmarks.SizeAuto, Iterations: 2}
	n, tmax, _ := FDTD2DShape(p)
	a, ks := benchtest.Setup(t, "fdtd2d", p)
	if tmax != 2 || len(ks) != 6 || a.Object(0).Size != 2*benchmarks.FloatBytes {
		t.Fatalf("tmax %d, %d kernels, _fict_ %d bytes", tmax, len(ks), a.Object(0).Size)
	}
	side := uint64(n)
	for ki, k := range ks {
		c := benchtest.CountKernel(t, a, k, benchmarks.FloatBytes)
		switch ki % 3 {
		case 0:
			c.OnlyObjects(t, "step1", []string{"_fict_", "ey", "hz"}, []string{"ey"})
			if f := c.Reads["_fict_"]; len(f) != 1 || f[uint64(ki/3)] != n/convBlockX { // once per top wavefront
				t.Errorf("step1 of step %d: _fict_ reads %v", ki/3, f)
			}
			benchtest.ExactlyOnce(t, "step1 ey", c.Writes["ey"], (side+1)*side, func(i uint64) bool { return i < side*side })
		case 1:
			c.OnlyObjects(t, "step2", []string{"ex", "hz"}, []string{"ex"})
			benchtest.ExactlyOnce(t, "step2 ex", c.Writes["ex"], side*(side+1), func(i uint64) bool { return i%(side+1) > 0 && i%(side+1) < side })
		default:
			c.OnlyObjects(t, "step3", []string{"ex", "ey", "hz"}, []string{"hz"})
			benchtest.ExactlyOnce(t, "step3 hz", c.Writes["hz"], side*side, func(uint64) bool { return true })
		}
	}
}
