package platform

import (
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
)

// TestEstimateInstructions: on kernels whose wavefronts are alike (dense
// linear algebra, stencils) the estimate is the count, within 1%, and it
// follows sample_workgroups.
func TestEstimateInstructions(t *testing.T) {
	for _, w := range []string{"syrk", "2dconv", "hotspot"} {
		for _, sample := range []int{1, 8, 128} {
			c := config.DefaultConfig()
			c.GPUs = 1
			c.SampleWorkgroups = sample
			o := Options{Workload: w, Policy: "on-touch", Scale: 0.1, Seed: 1, Config: c}
			got, err := EstimateInstructions(o)
			if err != nil {
				t.Fatal(err)
			}
			o, wl, traits, err := o.resolve()
			if err != nil {
				t.Fatal(err)
			}
			_, ks, err := setupWorkload(wl, o, traits)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			benchmarks.EachInstruction(ks, func(*benchmarks.Instruction) { want++ })
			if d := got/float64(want) - 1; d > 0.01 || d < -0.01 || want == 0 {
				t.Errorf("%s, one workgroup in %d: estimate %.0f, count %d", w, sample, got, want)
			}
		}
	}
}
