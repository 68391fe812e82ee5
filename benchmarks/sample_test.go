package benchmarks

import "testing"

// TestSampleWorkgroups checks the kept count against the definition, that
// kept workgroups are distinct, in range and in order, one per block of n,
// and that n <= 1 keeps the kernels as they are.
func TestSampleWorkgroups(t *testing.T) {
	for _, tc := range []struct{ w, n int }{{1, 1}, {10, 1}, {1, 4}, {3, 4}, {4, 4}, {5, 4}, {17, 4}, {1000, 7}, {4900, 128}, {128 * 128, 128}, {128*128 + 1, 128}} {
		var got []int
		k := Kernel{Workgroups: tc.w, WavefrontsPerWorkgroup: 1, Access: []Access{{Accesses: 100}},
			Wavefront: func(wg, _, _ int) Stream { got = append(got, wg); return IdleStream() }}
		s := SampleWorkgroups([]Kernel{k}, tc.n)[0]
		want := 0
		for x := 0; x*max(tc.n, 1)+x%max(tc.n, 1) < tc.w; x++ {
			want++
		}
		if s.Workgroups != want || SampledWorkgroups(tc.w, tc.n) != want {
			t.Fatalf("w=%d n=%d: kept %d (SampledWorkgroups %d), want %d", tc.w, tc.n, s.Workgroups, SampledWorkgroups(tc.w, tc.n), want)
		}
		for wg := 0; wg < s.Workgroups; wg++ {
			s.Wavefront(wg, 0, 0)
		}
		for i, g := range got {
			if g >= tc.w || (i > 0 && g <= got[i-1]) {
				t.Fatalf("w=%d n=%d: kept %v: out of range or order", tc.w, tc.n, got)
			}
			if n := max(tc.n, 1); g/n != i {
				t.Fatalf("w=%d n=%d: kept workgroup %d is %d, not in block %d", tc.w, tc.n, i, g, i)
			}
		}
		if s.Access[0].Accesses != 100 || s.Grid() != tc.w {
			t.Errorf("w=%d n=%d: declared accesses %v over a grid of %d, want the whole grid's 100 over %d",
				tc.w, tc.n, s.Access[0].Accesses, s.Grid(), tc.w)
		}
		if k.FullWorkgroups != 0 || k.Workgroups != tc.w {
			t.Errorf("w=%d n=%d: the original kernel changed", tc.w, tc.n)
		}
	}
}
