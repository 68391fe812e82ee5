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
	var in benchmarks.Instruction
	for _, k := range ks {
		waves := k.Workgroups * k.WavefrontsPerWorkgroup
		if waves == 0 {
			continue
		}
		n := min(waves, estimateSamples)
		sum := 0
		for i := 0; i < n; i++ {
			wave := i * waves / n
			for s := k.Wavefront(wave/k.WavefrontsPerWorkgroup, wave%k.WavefrontsPerWorkgroup, 0); s.Next(&in); {
				sum++
			}
		}
		total += float64(sum) / float64(n) * float64(waves)
	}
	return total
}
