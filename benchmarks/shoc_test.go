package benchmarks

import (
	"testing"
)

func TestSHOCFootprints(t *testing.T) {
	for _, c := range []struct {
		name    string
		objects int
		kernels int
		size    PaperSize
	}{{"fft", 2, 1, FFTSize}, {"st", 3, stIterations, STSize}} {
		for _, q := range append(paperColumns(c.size), paperColumn{2, "auto", c.size.TableII}) {
			a, ks := setupTest(t, c.name, Params{GPUs: q.gpus, Size: q.size, Scale: 1})
			if got := len(a.Objects()); got != c.objects {
				t.Errorf("%s: %d objects, want %d", c.name, got, c.objects)
			}
			if len(ks) != c.kernels {
				t.Fatalf("%s: %d kernels, want %d", c.name, len(ks), c.kernels)
			}
			for i, k := range ks {
				if len(k.Args) != c.objects || k.Name != ks[0].Name || k.Barrier != (i > 0) {
					t.Errorf("%s kernel %d: name %q, args %v, barrier %v", c.name, i, k.Name, k.Args, k.Barrier)
				}
			}
			fp := a.Footprint()
			checkFootprint(t, c.name, q, fp)
			t.Logf("%s %2d GPUs %-5s: %.2f MB (table %d MB), %d workgroups x %d kernels",
				c.name, q.gpus, q.size, float64(fp)/MiB, q.want/MiB, ks[0].Workgroups, len(ks))
		}
	}
}

// countAccesses drains every wavefront of kernel k and counts, per object
// name, the reads and writes of each byte offset.
func countAccesses(t *testing.T, name string, p Params, k int) (reads, writes map[string]map[uint64]int, instrs int) {
	a, ks := setupTest(t, name, p)
	reads, writes = map[string]map[uint64]int{}, map[string]map[uint64]int{}
	kn := ks[k]
	for wg := 0; wg < kn.Workgroups; wg++ {
		for wf := 0; wf < kn.WavefrontsPerWorkgroup; wf++ {
			instrs += drain(t, a, kn.Wavefront(wg, wf, wg%p.GPUs), func(x access) {
				m := reads
				if x.write {
					m = writes
				}
				if m[x.obj.Name] == nil {
					m[x.obj.Name] = map[uint64]int{}
				}
				m[x.obj.Name][x.addr-x.obj.Base]++
			})
		}
	}
	return reads, writes, instrs
}

// TestFFTAccesses checks that every element of work is read once and written
// once, that the kernel arguments are only read, and the strided layout of
// one wavefront.
func TestFFTAccesses(t *testing.T) {
	p := Params{GPUs: 4, Size: "auto", Scale: 0.02}
	reads, writes, _ := countAccesses(t, "fft", p, 0)
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

	a, ks := setupTest(t, "fft", p)
	work := a.Object(0)
	s := ks[0].Wavefront(5, 0, 0)
	var in Instruction
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
	p := Params{GPUs: 4, Size: "auto", Scale: 0.05, Iterations: 3}
	rows, cols, err := STGrid(p)
	if err != nil {
		t.Fatal(err)
	}
	pitch := stPitch(cols)
	_, ks := setupTest(t, "st", p)
	if len(ks) != 3 || ks[0].Barrier || !ks[1].Barrier || !ks[2].Barrier {
		t.Fatalf("Iterations 3: %d kernels", len(ks))
	}
	grids := []string{"currData", "newData"}
	for it := 0; it < 3; it++ {
		reads, writes, _ := countAccesses(t, "st", p, it)
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
			r, col := int(off/floatBytes)/pitch, int(off/floatBytes)%pitch
			if c != 1 || r < 1 || r > rows || col < 1 || col > cols {
				t.Fatalf("iteration %d: %s [%d][%d] written %d times", it, dst, r, col, c)
			}
		}
		if len(reads[src]) != (rows+2)*(cols+2) {
			t.Fatalf("iteration %d: %d of %d grid elements read", it, len(reads[src]), (rows+2)*(cols+2))
		}
		for off, c := range reads[src] {
			r, col := int(off/floatBytes)/pitch, int(off/floatBytes)%pitch
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
	if n := STIterations(Params{}); n != stIterations {
		t.Errorf("default iterations %d, want %d", n, stIterations)
	}
}

// TestSHOCInstructionCount checks the instruction formulas against drained
// streams at small scale and logs the Table II counts.
func TestSHOCInstructionCount(t *testing.T) {
	small := Params{GPUs: 4, Size: "auto", Scale: 0.05}
	for _, name := range []string{"fft", "st"} {
		a, ks := setupTest(t, name, small)
		got := 0
		for _, k := range ks {
			for wg := 0; wg < k.Workgroups; wg++ {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					got += drain(t, a, k.Wavefront(wg, wf, 0), nil)
				}
			}
		}
		var want uint64
		if name == "fft" {
			n, _ := FFTCount(small)
			want = FFTInstructions(n)
		} else {
			rows, cols, _ := STGrid(small)
			want = STInstructions(rows, cols, STIterations(small))
		}
		if uint64(got) != want {
			t.Errorf("%s scale %v: drained %d instructions, formula says %d", name, small.Scale, got, want)
		}
	}
	for _, gpus := range []int{4, 8, 16} {
		p := Params{GPUs: gpus, Size: "auto", Scale: 1}
		n, _ := FFTCount(p)
		rows, cols, _ := STGrid(p)
		t.Logf("%2d GPUs: fft %d FFTs, %d instructions; st %d x %d, %d instructions",
			gpus, n, FFTInstructions(n), rows, cols, STInstructions(rows, cols, stIterations))
	}
	n, _ := FFTCount(Params{GPUs: 4, Scale: 1})
	rows, cols, _ := STGrid(Params{GPUs: 4, Scale: 1})
	if FFTInstructions(n) > 3e6 || STInstructions(rows, cols, stIterations) > 3.05e6 {
		t.Errorf("Table II over the speed budget: fft %d, st %d", FFTInstructions(n), STInstructions(rows, cols, stIterations))
	}
}
