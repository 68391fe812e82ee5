package papers

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestUVMSmartRA checks main.cu's kernel: at scale 1 three arrays of 2^20
// floats; thread t works only when t is a multiple of 100, and then reads
// input[t], reads table[i] and writes output[i] for one index i; every
// other wavefront issues its guard alone. The indices spread over the
// arrays: about ten per page, so almost every page of table and output is
// touched.
func TestUVMSmartRA(t *testing.T) {
	for _, c := range []struct {
		scale float64
		n     int
	}{{1, 1 << 20}, {0.01, 10496}, {0.0001, 256}} {
		p := benchmarks.Params{GPUs: 1, Scale: c.scale, Seed: 3}
		a, ks := benchtest.Setup(t, "uvmsmart-ra", p)
		n, _ := UVMSmartRAFloats(p)
		if n != c.n || a.Footprint() != uint64(12*n) {
			t.Fatalf("scale %g: N %d, footprint %d; want N %d", c.scale, n, a.Footprint(), c.n)
		}
		k := ks[0]
		working, pages := 0, map[[2]uint64]bool{}
		for wg := 0; wg < k.Workgroups; wg++ {
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				ins := benchtest.InstructionAccesses(t, a, k.Wavefront(wg, wf, 0))
				if len(ins[0]) != 0 {
					t.Fatalf("wavefront %d/%d: the guard accesses memory", wg, wf)
				}
				t0 := wg*uraBlock + wf*benchmarks.WavefrontSize
				if len(ins) == 1 {
					if (t0+uraStride-1)/uraStride*uraStride < t0+benchmarks.WavefrontSize {
						t.Fatalf("wavefront %d/%d holds a working thread but issues only its guard", wg, wf)
					}
					continue
				}
				working++
				if len(ins) != 4 || len(ins[1]) != 1 || len(ins[2]) != 1 || len(ins[3]) != 1 {
					t.Fatalf("wavefront %d/%d: %+v, want the guard and three one-lane accesses", wg, wf, ins)
				}
				in, tb, out := ins[1][0], ins[2][0], ins[3][0]
				if in.Obj.Name != "input" || tb.Obj.Name != "table" || out.Obj.Name != "output" ||
					in.Write || tb.Write || !out.Write {
					t.Fatalf("wavefront %d/%d: %+v", wg, wf, ins)
				}
				tid := int(benchtest.LaneElems(ins[1], 4)[0])
				if tid%uraStride != 0 || tid < t0 || tid >= t0+benchmarks.WavefrontSize {
					t.Fatalf("wavefront %d/%d: thread %d works", wg, wf, tid)
				}
				i, o := benchtest.LaneElems(ins[2], 4)[0], benchtest.LaneElems(ins[3], 4)[0]
				if i != o {
					t.Fatalf("thread %d reads table[%d] but writes output[%d]", tid, i, o)
				}
				pages[[2]uint64{0, i * 4 / benchtest.Page}] = true
				pages[[2]uint64{1, o * 4 / benchtest.Page}] = true
			}
		}
		if want := (c.n + uraStride - 1) / uraStride; working != want {
			t.Errorf("scale %g: %d working threads, want %d", c.scale, working, want)
		}
		if c.scale == 1 {
			if all := 2 * c.n * 4 / benchtest.Page; len(pages) < all*99/100 {
				t.Errorf("%d of %d table and output pages touched", len(pages), all)
			}
		}
	}
}
