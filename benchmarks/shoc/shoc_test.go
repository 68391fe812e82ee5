package shoc

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

func TestSHOCFootprints(t *testing.T) {
	for _, c := range []struct {
		name    string
		objects int
		kernels int
		barrier bool // launches after the first wait at a grid barrier
		size    benchmarks.PaperSize
	}{{"fft", 2, fftPasses, false, FFTSize}, {"st", 3, stIterations, true, STSize}} {
		for _, q := range append(benchtest.PaperColumns(c.size), benchtest.PaperColumn{GPUs: 2, Size: "auto", Want: c.size.TableII}) {
			a, ks := benchtest.Setup(t, c.name, benchmarks.Params{GPUs: q.GPUs, Size: q.Size, Scale: 1})
			if got := len(a.Objects()); got != c.objects {
				t.Errorf("%s: %d objects, want %d", c.name, got, c.objects)
			}
			if len(ks) != c.kernels {
				t.Fatalf("%s: %d kernels, want %d", c.name, len(ks), c.kernels)
			}
			for i, k := range ks {
				if len(k.Args) != c.objects || k.Name != ks[0].Name || k.Barrier != (c.barrier && i > 0) {
					t.Errorf("%s kernel %d: name %q, args %v, barrier %v", c.name, i, k.Name, k.Args, k.Barrier)
				}
			}
			fp := a.Footprint()
			benchtest.CheckFootprint(t, c.name, q, fp)
			t.Logf("%s %2d GPUs %-5s: %.2f MB (table %d MB), %d workgroups x %d kernels",
				c.name, q.GPUs, q.Size, float64(fp)/benchmarks.MiB, q.Want/benchmarks.MiB, ks[0].Workgroups, len(ks))
		}
	}
}

// TestFFTAccesses checks that every element of work is read once and written
// once, that the kernel arguments are only read, and the strided layout of
// one wavefront.
func TestFFTAccesses(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Size: "auto", Scale: 0.02}
	reads, writes, _ := benchtest.CountAccesses(t, "fft", p, 0)
	n, err := FFTCount(p)
	if err != nil {
		t.Fatal(err)
	}
	elems := uint64(n * fftPoints)
	for _, m := range []map[uint64]int{reads["work"], writes["work"]} {
		if uint64(len(m)) != elems {
			t.Fatalf("work: %d of %d elements accessed", len(m), elems)
		}
		for off, c := range m {
			if c != 1 || off%complexBytes != 0 {
				t.Fatalf("work: offset %d accessed %d times", off, c)
			}
		}
	}
	if len(writes["kernarg"]) != 0 || len(reads["kernarg"]) != 1 {
		t.Errorf("kernarg: reads %v writes %v", reads["kernarg"], writes["kernarg"])
	}

	a, ks := benchtest.Setup(t, "fft", p)
	work := a.Object(0)
	s := ks[0].Wavefront(5, 0, 0)
	var in benchmarks.Instruction
	s.Next(&in) // kernarg
	for i := 0; i < 2*fftRegs; i++ {
		if !s.Next(&in) {
			t.Fatalf("stream ended after %d instructions", i+1)
		}
		if in.Write != (i >= fftRegs) || in.Lanes != fftLanes {
			t.Fatalf("instruction %d: write %v lanes %d", i+1, in.Write, in.Lanes)
		}
		for l := 0; l < fftLanes; l++ {
			want := uint64(5*fftPoints+i%fftRegs*fftLanes+l) * complexBytes
			if got := in.Addr[l] - work.Ptr; got != want {
				t.Fatalf("instruction %d lane %d: offset %d, want %d", i+1, l, got, want)
			}
		}
	}
	if s.Next(&in) {
		t.Fatal("stream longer than 17 instructions")
	}
}

// TestSTIterations checks, kernel by kernel, that the iteration reads only
// one grid and writes only the other, that the roles swap at each Barrier
// kernel, that every interior element is written exactly once and that the
// reads cover the whole grid with its halo (each element once per tile
// that needs it).
func TestSTIterations(t *testing.T) {
	p := benchmarks.Params{GPUs: 4, Size: "auto", Scale: 0.05, Iterations: 3}
	rows, cols, err := STGrid(p)
	if err != nil {
		t.Fatal(err)
	}
	pitch := stPitch(cols)
	_, ks := benchtest.Setup(t, "st", p)
	if len(ks) != 3 || ks[0].Barrier || !ks[1].Barrier || !ks[2].Barrier {
		t.Fatalf("Iterations 3: %d kernels", len(ks))
	}
	grids := []string{"currData", "newData"}
	for it := 0; it < 3; it++ {
		reads, writes, _ := benchtest.CountAccesses(t, "st", p, it)
		src, dst := grids[it%2], grids[(it+1)%2]
		if len(writes[src]) != 0 || len(reads[dst]) != 0 || len(writes["kernarg"]) != 0 {
			t.Fatalf("iteration %d: %s written %d, %s read %d, kernarg written %d", it,
				src, len(writes[src]), dst, len(reads[dst]), len(writes["kernarg"]))
		}
		if (len(reads["kernarg"]) == 1) != (it == 0) {
			t.Errorf("iteration %d: kernarg read at %d offsets", it, len(reads["kernarg"]))
		}
		if len(writes[dst]) != rows*cols {
			t.Fatalf("iteration %d: %d of %d interior elements written", it, len(writes[dst]), rows*cols)
		}
		for off, c := range writes[dst] {
			r, col := int(off/benchmarks.FloatBytes)/pitch, int(off/benchmarks.FloatBytes)%pitch
			if c != 1 || r < 1 || r > rows || col < 1 || col > cols {
				t.Fatalf("iteration %d: %s [%d][%d] written %d times", it, dst, r, col, c)
			}
		}
		if len(reads[src]) != (rows+2)*(cols+2) {
			t.Fatalf("iteration %d: %d of %d grid elements read", it, len(reads[src]), (rows+2)*(cols+2))
		}
		for off, c := range reads[src] {
			r, col := int(off/benchmarks.FloatBytes)/pitch, int(off/benchmarks.FloatBytes)%pitch
			// An element is read by one tile, by two if it is in a halo
			// row or column of a neighbouring tile, by four at corners.
			max := 1
			if r%stLRows <= 1 && r > 0 && r < rows+1 {
				max *= 2
			}
			if col%stLCols <= 1 && col > 0 && col < cols+1 {
				max *= 2
			}
			if col > cols+1 || c < 1 || c > max {
				t.Fatalf("iteration %d: %s [%d][%d] read %d times", it, src, r, col, c)
			}
		}
	}
	if n := STIterations(benchmarks.Params{}); n != stIterations {
		t.Errorf("default iterations %d, want %d", n, stIterations)
	}
}

// TestSHOCInstructionCount checks the instruction formulas against drained
// streams at small scale and logs the Table II counts.
func TestSHOCInstructionCount(t *testing.T) {
	small := benchmarks.Params{GPUs: 4, Size: "auto", Scale: 0.05}
	for _, name := range []string{"fft", "st"} {
		a, ks := benchtest.Setup(t, name, small)
		got := 0
		for _, k := range ks {
			for wg := 0; wg < k.Workgroups; wg++ {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					got += benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), nil)
				}
			}
		}
		var want uint64
		if name == "fft" {
			n, _ := FFTCount(small)
			want = FFTInstructions(n, FFTPasses(small))
		} else {
			rows, cols, _ := STGrid(small)
			want = STInstructions(rows, cols, STIterations(small))
		}
		if uint64(got) != want {
			t.Errorf("%s scale %v: drained %d instructions, formula says %d", name, small.Scale, got, want)
		}
	}
	for _, gpus := range []int{4, 8, 16} {
		p := benchmarks.Params{GPUs: gpus, Size: "auto", Scale: 1}
		n, _ := FFTCount(p)
		rows, cols, _ := STGrid(p)
		t.Logf("%2d GPUs: fft %d FFTs, %d instructions; st %d x %d, %d instructions",
			gpus, n, FFTInstructions(n, fftPasses), rows, cols, STInstructions(rows, cols, stIterations))
	}
	n, _ := FFTCount(benchmarks.Params{GPUs: 4, Scale: 1})
	rows, cols, _ := STGrid(benchmarks.Params{GPUs: 4, Scale: 1})
	if FFTInstructions(n, fftPasses) > 3e6 || STInstructions(rows, cols, stIterations) > 3.05e6 {
		t.Errorf("Table II over the speed budget: fft %d, st %d", FFTInstructions(n, fftPasses), STInstructions(rows, cols, stIterations))
	}
}
