package platform

import "github.com/mgpu-sim/mgpu/benchmarks"

// EstimateInstructions estimates the wavefront memory instructions a run
// of o issues, without simulating it: each kernel's wavefronts times the
// mean length of up to estimateSamples of them spread over its grid. The
// lengths of data-dependent kernels (graphs) vary, so it is an estimate;
// dense and streaming kernels, whose wavefronts are alike, come out
// nearly exact. It sets the workload up, which takes a second or more for
// large generated inputs (graphs).
func EstimateInstructions(o Options) (float64, error) {
	u, err := o.setUp()
	if err != nil {
		return 0, err
	}
	return estimateKernels(u.kernels), nil
}

// estimateSamples is how many wavefronts of a kernel EstimateInstructions
// runs through.
const estimateSamples = 64

func estimateKernels(ks []benchmarks.Kernel) float64 {
	total := 0.0
	for _, k := range ks {
		wpw := k.WavefrontsPerWorkgroup
		if k.Workgroups*wpw == 0 {
			continue
		}
		if k.OneIn <= 1 {
			total += meanLength(k, k.Workgroups, func(t int) int { return t }) * float64(k.Workgroups*wpw)
			continue
		}
		// A truncated kernel: its full workgroups and its outlines apart,
		// since the outlines are the many and the full ones the work.
		full := benchmarks.SampledWorkgroups(k.Workgroups, k.OneIn)
		n := k.OneIn
		total += meanLength(k, full, func(t int) int { return benchmarks.KeptWorkgroup(t, n) }) * float64(full*wpw)
		if rest := k.Workgroups - full; rest > 0 {
			total += meanLength(k, rest, func(t int) int { return benchmarks.OutlinedWorkgroup(t, n) }) * float64(rest*wpw)
		}
	}
	return total
}

// meanLength is the mean instructions of up to estimateSamples wavefronts
// spread over the workgroups wg(0) .. wg(count-1).
func meanLength(k benchmarks.Kernel, count int, wg func(t int) int) float64 {
	waves := count * k.WavefrontsPerWorkgroup
	n := min(waves, estimateSamples)
	var in benchmarks.Instruction
	sum := 0
	for i := 0; i < n; i++ {
		wave := i * waves / n
		for s := k.Wavefront(wg(wave/k.WavefrontsPerWorkgroup), wave%k.WavefrontsPerWorkgroup, 0); s.Next(&in); {
			sum++
		}
	}
	return float64(sum) / float64(n)
}
