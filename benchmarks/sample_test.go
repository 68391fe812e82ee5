package benchmarks

import "testing"

// TestSampleWorkgroups checks which workgroups run in full against the
// definition (one per block of n, t*n + t mod n), that the others run
// their outline (first and last instruction of each wavefront), that the
// grid is kept, and that n <= 1 keeps the kernels as they are.
func TestSampleWorkgroups(t *testing.T) {
	const length = 5
	for _, tc := range []struct{ w, n int }{{1, 1}, {10, 1}, {1, 4}, {3, 4}, {4, 4}, {5, 4}, {17, 4}, {1000, 7}, {4900, 128}, {128 * 128, 128}, {128*128 + 1, 128}} {
		k := Kernel{Workgroups: tc.w, WavefrontsPerWorkgroup: 1, Access: []Access{{Accesses: 100}},
			Wavefront: func(wg, _, _ int) Stream {
				return &Loop{N: length, Gen: func(i int, in *Instruction) { in.Lanes, in.Addr[0] = 1, uint64(wg*length+i) }}
			}}
		s := SampleWorkgroups([]Kernel{k}, tc.n)[0]
		n := max(tc.n, 1)
		var full []int
		for x := 0; x*n+x%n < tc.w; x++ {
			full = append(full, x*n+x%n)
		}
		if SampledWorkgroups(tc.w, tc.n) != len(full) {
			t.Fatalf("w=%d n=%d: SampledWorkgroups %d, want %d", tc.w, tc.n, SampledWorkgroups(tc.w, tc.n), len(full))
		}
		var in Instruction
		kept, outlined := 0, 0
		for wg := 0; wg < s.Workgroups; wg++ {
			var got []uint64
			for st := s.Wavefront(wg, 0, 0); st.Next(&in); {
				got = append(got, in.Addr[0])
			}
			want := []uint64{uint64(wg * length), uint64(wg*length + length - 1)}
			if kept < len(full) && full[kept] == wg {
				kept++
				want = nil
				for i := 0; i < length; i++ {
					want = append(want, uint64(wg*length+i))
				}
			}
			if len(got) != len(want) || (len(got) > 0 && (got[0] != want[0] || got[len(got)-1] != want[len(want)-1])) {
				t.Fatalf("w=%d n=%d: workgroup %d issued %v, want %v", tc.w, tc.n, wg, got, want)
			}
			if SampledWorkgroup(wg, tc.n) != (len(want) == length) {
				t.Fatalf("w=%d n=%d: SampledWorkgroup(%d) disagrees", tc.w, tc.n, wg)
			}
			switch {
			case n == 1:
			case len(want) == length:
				if KeptWorkgroup(kept-1, n) != wg {
					t.Fatalf("w=%d n=%d: KeptWorkgroup(%d) = %d, want %d", tc.w, tc.n, kept-1, KeptWorkgroup(kept-1, n), wg)
				}
			default:
				if OutlinedWorkgroup(outlined, n) != wg {
					t.Fatalf("w=%d n=%d: OutlinedWorkgroup(%d) = %d, want %d", tc.w, tc.n, outlined, OutlinedWorkgroup(outlined, n), wg)
				}
				outlined++
			}
		}
		if kept != len(full) {
			t.Fatalf("w=%d n=%d: %d workgroups ran in full, want %d", tc.w, tc.n, kept, len(full))
		}
		if s.Access[0].Accesses != 100 || s.Workgroups != tc.w {
			t.Errorf("w=%d n=%d: declared accesses %v over a grid of %d, want the whole grid's 100 over %d",
				tc.w, tc.n, s.Access[0].Accesses, s.Workgroups, tc.w)
		}
		if k.OneIn != 0 || k.Workgroups != tc.w {
			t.Errorf("w=%d n=%d: the original kernel changed", tc.w, tc.n)
		}
	}
}

// TestOutlineOfAnyStream: a stream that is not a Loop gives its first and
// last instruction too, and short streams are kept whole.
func TestOutlineOfAnyStream(t *testing.T) {
	for _, length := range []int{0, 1, 2, 3, 10} {
		var in Instruction
		var got []uint64
		for st := Outline(&onlyNext{&Loop{N: length, Gen: func(i int, in *Instruction) { in.Lanes, in.Addr[0] = 1, uint64(i) }}}); st.Next(&in); {
			got = append(got, in.Addr[0])
		}
		want := map[int][]uint64{0: nil, 1: {0}, 2: {0, 1}, 3: {0, 2}, 10: {0, 9}}[length]
		if len(got) != len(want) || (len(got) == 2 && (got[0] != want[0] || got[1] != want[1])) {
			t.Errorf("outline of %d instructions: %v, want %v", length, got, want)
		}
	}
}

// onlyNext hides a Loop behind the bare Stream interface.
type onlyNext struct{ s Stream }

func (o *onlyNext) Next(in *Instruction) bool { return o.s.Next(in) }
