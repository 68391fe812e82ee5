package benchmarks

// SampleWorkgroups keeps one workgroup in every n of each kernel (n <= 1
// keeps them all): the truncation the oversubscription figures use for
// kernels whose work grows faster than their footprint (GEMM, SYRK,
// SYR2K), so that they run at a footprint where the paper's counts hold.
//
// Kept workgroup t is t*n + t mod n: one in each block of n, its offset
// cycling through the block, so that a 2-D grid's kept workgroups fall in
// every column as well as every row of blocks, and every page the full
// grid touches is still touched when a page spans n workgroups' tiles.
// The kernels keep their order, their objects, their wavefronts and their
// declared accesses (which describe the whole grid, FullWorkgroups); each
// kept workgroup does all its work.
func SampleWorkgroups(ks []Kernel, n int) []Kernel {
	if n <= 1 {
		return ks
	}
	out := make([]Kernel, len(ks))
	for i, k := range ks {
		wave := k.Wavefront
		k.Wavefront = func(wg, wf, gpu int) Stream { return wave(wg*n+wg%n, wf, gpu) }
		k.FullWorkgroups = k.Grid()
		k.Workgroups = SampledWorkgroups(k.Workgroups, n)
		out[i] = k
	}
	return out
}

// SampledWorkgroups is how many of w workgroups SampleWorkgroups keeps at
// n: the t with t*n + t mod n < w.
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
