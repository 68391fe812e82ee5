package dnn

import (
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestInferenceForwardOnly checks that alexnet and squeezenet run one
// forward pass: the launch order of their layers, no gradient or
// optimiser tensor, no kernel reading an activation before a launch wrote
// it, and the fire modules' concatenation copying each expand output
// once.
func TestInferenceForwardOnly(t *testing.T) {
	conv := "im2col gemm bias_relu"
	grouped := "im2col gemm im2col gemm bias_relu"
	fire := "gemm bias_relu gemm bias_relu im2col gemm bias_relu concat"
	want := map[string]string{
		"alexnet": strings.Join([]string{conv, "lrn maxpool", grouped, "lrn maxpool", conv, grouped, grouped, "maxpool",
			"gemm bias_relu gemm bias_relu gemm bias"}, " "),
		"squeezenet": strings.Join([]string{conv, "maxpool", fire, fire, fire, "maxpool", fire, fire, fire, fire, "maxpool",
			fire, "gemm bias_relu avgpool"}, " "),
	}
	for name, seq := range want {
		a, ks := benchtest.Setup(t, name, benchmarks.Params{GPUs: 2, Scale: 0.01})
		var names []string
		for _, k := range ks {
			names = append(names, k.Name)
		}
		if got := strings.Join(names, " "); got != seq {
			t.Errorf("%s launches\n%s\nwant\n%s", name, got, seq)
		}
		for _, o := range a.Objects() {
			for _, s := range []string{"grad", "velocity", "labels", "softmax", "mask"} {
				if strings.Contains(o.Name, s) {
					t.Errorf("%s: inference allocates %q", name, o.Name)
				}
			}
		}
		written := map[string]bool{}
		for i, k := range ks {
			wrote := map[string]bool{}
			for wg := 0; wg < k.Workgroups; wg++ {
				for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
					benchtest.Drain(t, a, k.Wavefront(wg, wf, 0), func(x benchtest.Access) {
						n := x.Obj.Name
						if x.Write {
							wrote[n] = true
							return
						}
						if !written[n] && n != "input" && n != "kernarg" && !strings.HasSuffix(n, ".weight") && !strings.HasSuffix(n, ".bias") {
							t.Fatalf("%s launch %d (%s) reads %q before any kernel wrote it", name, i, k.Name, n)
						}
					})
				}
			}
			for n := range wrote {
				written[n] = true
			}
			if k.Name == "lrn" { // output e reads the same pixel in the channels c-2 .. c+2
				for wg := 0; wg < k.Workgroups; wg++ {
					for wf := 0; wf < k.WavefrontsPerWorkgroup; wf++ {
						ins := benchtest.InstructionAccesses(t, a, k.Wavefront(wg, wf, 0))
						if len(ins) != 7 {
							continue // past the end: the kernarg load only
						}
						out := benchtest.LaneElems(ins[6], benchmarks.FloatBytes)
						hw := map[string]uint64{"norm1": 55 * 55, "norm2": 27 * 27}[ins[6][0].Obj.Name]
						for d := 0; d < 5; d++ {
							for _, e := range benchtest.LaneElems(ins[1+d], benchmarks.FloatBytes) {
								if !slices.Contains(out, e+2*hw-uint64(d)*hw) {
									t.Fatalf("%s launch %d: lrn read %d (channel offset %d) for none of outputs %v", name, i, e, d-2, out)
								}
							}
						}
					}
				}
			}
			if k.Name == "concat" {
				c := benchtest.CountKernel(t, a, k, benchmarks.FloatBytes)
				var srcs []string
				for n := range c.Reads {
					if n != "kernarg" {
						srcs = append(srcs, n)
					}
				}
				slices.Sort(srcs)
				if len(srcs) != 2 || !strings.HasSuffix(srcs[0], ".expand1x1") || !strings.HasSuffix(srcs[1], ".expand3x3") {
					t.Fatalf("%s launch %d: concat reads %v", name, i, srcs)
				}
				for _, n := range srcs {
					o := benchtest.ObjectNamed(a, n)
					benchtest.ExactlyOnce(t, n, c.Reads[n], o.Size/benchmarks.FloatBytes, func(uint64) bool { return true })
				}
			}
		}
	}
}
