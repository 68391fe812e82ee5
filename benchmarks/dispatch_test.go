package benchmarks

import (
	"slices"
	"strings"
	"testing"
)

func TestDispatchEachWorkgroupOnce(t *testing.T) {
	for _, scheme := range Schemes() {
		for _, gpus := range []int{1, 2, 3, 4, 7, 8, 16} {
			for _, w := range []int{0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 64, 100, 257, 1000} {
				d, err := NewDispatcherOn(scheme, w, gpus, 3)
				if err != nil {
					t.Fatal(err)
				}
				got := make([][]int, gpus)
				seen := make([]bool, w)
				// Ask the GPUs in a scrambled, uneven order.
				x := uint32(w*31 + gpus)
				for steps := 0; d.Remaining() > 0; steps++ {
					if steps > 100*(w+gpus) {
						t.Fatalf("%s W=%d N=%d: not done after %d requests", scheme, w, gpus, steps)
					}
					x = x*1664525 + 1013904223
					g := int(x>>16) % gpus
					if _, ok := d.Next(-1); ok {
						t.Fatal("gpu -1 got a workgroup")
					}
					if _, ok := d.Next(gpus); ok {
						t.Fatal("gpu out of range got a workgroup")
					}
					before := d.Remaining()
					wg, ok := d.Next(g)
					if !ok {
						if scheme == SchemeGreedy {
							t.Fatalf("greedy W=%d N=%d: refused gpu %d with %d left", w, gpus, g, before)
						}
						continue
					}
					if wg < 0 || wg >= w || seen[wg] {
						t.Fatalf("%s W=%d N=%d: workgroup %d out of range or repeated", scheme, w, gpus, wg)
					}
					seen[wg] = true
					got[g] = append(got[g], wg)
					if d.Remaining() != before-1 {
						t.Fatalf("%s: Remaining %d after %d", scheme, d.Remaining(), before)
					}
				}
				for g := 0; g < gpus; g++ {
					if wg, ok := d.Next(g); ok {
						t.Fatalf("%s W=%d N=%d: gpu %d got workgroup %d after the end", scheme, w, gpus, g, wg)
					}
				}
				for wg, s := range seen {
					if !s {
						t.Fatalf("%s W=%d N=%d: workgroup %d never handed out", scheme, w, gpus, wg)
					}
				}
				if d.Remaining() != 0 {
					t.Fatalf("%s: Remaining %d at the end", scheme, d.Remaining())
				}
				checkAssignment(t, scheme, w, gpus, got)
			}
		}
	}
}

func checkAssignment(t *testing.T, scheme string, w, n int, got [][]int) {
	t.Helper()
	for g, list := range got {
		var want []int
		switch scheme {
		case SchemeContiguous:
			for wg := g * w / n; wg < (g+1)*w/n; wg++ {
				want = append(want, wg)
			}
		case SchemeRoundRobin:
			for wg := g; wg < w; wg += n {
				want = append(want, wg)
			}
		default:
			for i := 1; i < len(list); i++ {
				if list[i] <= list[i-1] {
					t.Fatalf("greedy W=%d N=%d: gpu %d got %v out of order", w, n, g, list)
				}
			}
			continue
		}
		if len(list) != len(want) {
			t.Fatalf("%s W=%d N=%d: gpu %d got %v, want %v", scheme, w, n, g, list, want)
		}
		for i := range want {
			if list[i] != want[i] {
				t.Fatalf("%s W=%d N=%d: gpu %d got %v, want %v", scheme, w, n, g, list, want)
			}
		}
	}
}

func TestDispatchGreedyFillsFirstAsker(t *testing.T) {
	d, err := NewDispatcher(SchemeGreedy, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	for want := 0; want < 10; want++ {
		wg, ok := d.Next(0)
		if !ok || wg != want {
			t.Fatalf("GPU 0 got %d, %v; want %d", wg, ok, want)
		}
	}
	if _, ok := d.Next(1); ok {
		t.Fatal("GPU 1 got a workgroup after GPU 0 took all")
	}
}

func TestDispatchErrors(t *testing.T) {
	_, err := NewDispatcher("diagonal", 10, 4)
	if err == nil {
		t.Fatal("unknown scheme accepted")
	}
	for _, s := range Schemes() {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
	if _, err := NewDispatcher(SchemeGreedy, 10, 0); err == nil {
		t.Error("0 GPUs accepted")
	}
	if _, err := NewDispatcher(SchemeGreedy, -1, 2); err == nil {
		t.Error("negative workgroups accepted")
	}
}

// TestMGPUSimDispatchFormula checks the mgpusim scheme against upstream
// MGPUSim's distributeWGToGPUs: GPU i gets the contiguous range starting at
// i*CUs*ceil(W/(GPUs*CUs)), cut at W.
func TestMGPUSimDispatchFormula(t *testing.T) {
	for _, c := range []struct {
		w, gpus, cus int
		want         [][2]int // [first, end) per GPU
	}{
		{640, 4, 64, [][2]int{{0, 192}, {192, 384}, {384, 576}, {576, 640}}},
		{64, 4, 64, [][2]int{{0, 64}, {64, 64}, {64, 64}, {64, 64}}}, // all on GPU 0
		{1024, 4, 64, [][2]int{{0, 256}, {256, 512}, {512, 768}, {768, 1024}}},
		{257, 4, 64, [][2]int{{0, 128}, {128, 256}, {256, 257}, {257, 257}}},
		{1000, 8, 64, [][2]int{{0, 128}, {128, 256}, {256, 384}, {384, 512}, {512, 640}, {640, 768}, {768, 896}, {896, 1000}}},
		{10, 2, 3, [][2]int{{0, 6}, {6, 10}}},
	} {
		d, err := NewDispatcherOn(SchemeMGPUSim, c.w, c.gpus, c.cus)
		if err != nil {
			t.Fatal(err)
		}
		for g, r := range c.want {
			for wg := r[0]; wg < r[1]; wg++ {
				if got, ok := d.Next(g); !ok || got != wg {
					t.Fatalf("W=%d on %dx%d CUs: GPU %d got %d (%v), want %d", c.w, c.gpus, c.cus, g, got, ok, wg)
				}
			}
			if _, ok := d.Next(g); ok {
				t.Fatalf("W=%d on %dx%d CUs: GPU %d got more than [%d, %d)", c.w, c.gpus, c.cus, g, r[0], r[1])
			}
		}
	}
	if _, err := NewDispatcher(SchemeMGPUSim, 10, 2); err == nil {
		t.Error("mgpusim without a CU count was accepted")
	}
}

// TestSpreadNote: a grid too small for the mgpusim distribution to reach
// every GPU is named, with the distribution that spreads it; one that
// reaches them all, or could reach no more, is not.
func TestSpreadNote(t *testing.T) {
	for _, tc := range []struct {
		wgs       []int
		scheme    string
		gpus, cus int
		reach     int
		want      string
	}{
		{[]int{8}, SchemeMGPUSim, 4, 64, 1, "the mgpusim distribution runs them on 1 of the 4 GPUs"},
		{[]int{3, 100}, SchemeMGPUSim, 4, 64, 2, "--set distribution=contiguous spreads them over 4"},
		{[]int{256}, SchemeMGPUSim, 4, 64, 4, ""},
		{[]int{2}, SchemeMGPUSim, 4, 1, 2, ""},
		{[]int{8}, SchemeContiguous, 4, 64, 4, ""},
		{[]int{8}, SchemeRoundRobin, 4, 64, 4, ""},
		{[]int{1}, SchemeMGPUSim, 4, 64, 1, ""},
	} {
		w := slices.Max(tc.wgs)
		if got := Reach(tc.scheme, w, tc.gpus, tc.cus); got != tc.reach {
			t.Errorf("%v on %s: reach %d, want %d", tc.wgs, tc.scheme, got, tc.reach)
		}
		d, err := NewDispatcherOn(tc.scheme, w, tc.gpus, tc.cus)
		if err != nil {
			t.Fatal(err)
		}
		reached := 0
		for g := range tc.gpus {
			if _, ok := d.Next(g); ok {
				reached++
			}
		}
		if reached != tc.reach {
			t.Errorf("%v on %s: the dispatcher reaches %d GPUs, Reach says %d", tc.wgs, tc.scheme, reached, tc.reach)
		}
		got := SpreadNote(tc.wgs, tc.scheme, tc.gpus, tc.cus)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%v on %s: note %q, want %q", tc.wgs, tc.scheme, got, tc.want)
		}
	}
}
