package benchmarks

// SampleWorkgroups runs one workgroup in every n of each kernel in full
// (n <= 1 keeps the kernels as they are): the truncation the
// oversubscription figures use for kernels whose work grows faster than
// their footprint (GEMM, SYRK, SYR2K), so that they run at a footprint
// where the paper's counts hold.
//
// Kept workgroup t is t*n + t mod n: one in each block of n, its offset
// cycling through the block, so that a 2-D grid's kept workgroups fall in
// every column as well as every row of blocks (KeptWorkgroup). Every other
// workgroup runs its outline (Outline): each wavefront issues its first
// and last instruction, the last of which, in the truncated kernels,
// stores its output tile. Without them a 4 KB page of output spans 32 tiles, so one in 256
// wrote an eighth of SYRK's C, and its runs never filled the GPU they
// were meant to oversubscribe. The kernels keep their order, their
// objects, their grid, their wavefronts and their declared accesses.
func SampleWorkgroups(ks []Kernel, n int) []Kernel {
	if n <= 1 {
		return ks
	}
	out := make([]Kernel, len(ks))
	for i, k := range ks {
		wave := k.Wavefront
		k.Wavefront = func(wg, wf, gpu int) Stream {
			if SampledWorkgroup(wg, n) {
				return wave(wg, wf, gpu)
			}
			return Outline(wave(wg, wf, gpu))
		}
		k.OneIn = n
		out[i] = k
	}
	return out
}

// SampledWorkgroup reports whether SampleWorkgroups at n runs workgroup wg
// in full.
func SampledWorkgroup(wg, n int) bool { return n <= 1 || wg%n == wg/n%n }

// KeptWorkgroup is the t-th workgroup SampleWorkgroups at n > 1 runs in
// full.
func KeptWorkgroup(t, n int) int { return t*n + t%n }

// OutlinedWorkgroup is the t-th workgroup SampleWorkgroups at n > 1 runs as
// an outline: the t-th of the n-1 in each block of n that are not kept.
func OutlinedWorkgroup(t, n int) int {
	block, j := t/(n-1), t%(n-1)
	if j >= block%n {
		j++ // past the block's kept one
	}
	return block*n + j
}

// SampledWorkgroups is how many of w workgroups SampleWorkgroups runs in
// full at n: the t with t*n + t mod n < w.
func SampledWorkgroups(w, n int) int {
	if n <= 1 {
		return w
	}
	q := w / n
	if q%n < w%n {
		return q + 1
	}
	return q
}

// Outline is s's first and last instruction.
func Outline(s Stream) Stream {
	if l, ok := s.(*Loop); ok {
		if l.N <= 2 {
			return l
		}
		return &Loop{N: 2, Gen: func(i int, in *Instruction) { l.Gen(i*(l.N-1), in) }}
	}
	return &ends{s: s}
}

// ends is Outline of a stream that is not a Loop: it runs through s.
type ends struct {
	s    Stream
	last Instruction
	done int
}

func (e *ends) Next(in *Instruction) bool {
	e.done++
	switch e.done {
	case 1:
		return e.s.Next(in)
	case 2:
		got := false
		for e.s.Next(&e.last) {
			got = true
		}
		if got {
			*in = e.last
		}
		return got
	}
	return false
}

// EachInstruction passes every instruction of every wavefront of ks to fn,
// kernel by kernel, workgroup by workgroup, without simulating (as GPU 0
// would see them): for counting and checking what kernels touch.
func EachInstruction(ks []Kernel, fn func(in *Instruction)) {
	var in Instruction
	for _, k := range ks {
		for wg := 0; wg < k.Workgroups; wg++ {
			for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
				for s := k.Wavefront(wg, wf, 0); s.Next(&in); {
					fn(&in)
				}
			}
		}
	}
}
