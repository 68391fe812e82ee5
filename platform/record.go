package platform

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/replay"
)

// Record writes the workload of o, set up as o's run would set it up (its
// allocator's pointer tags and alignment, its parameters), to out as a
// trace that `mgpu run --trace` replays. The kernels are recorded whole:
// a replay truncates them (sample_workgroups) as the run would.
func Record(o Options, out io.Writer) error {
	o, w, traits, err := o.resolve()
	if err != nil {
		return err
	}
	rec := &recorder{Workload: w}
	alloc, _, err := setupWorkload(rec, o, traits)
	if err != nil {
		return err
	}
	return replay.Write(out, w.Info(), o.params(), alloc, rec.kernels)
}

// recorder keeps the kernels of the last Setup, before the platform
// truncates them.
type recorder struct {
	benchmarks.Workload
	kernels []benchmarks.Kernel
}

func (r *recorder) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	k, err := r.Workload.Setup(alloc, p)
	r.kernels = k
	return k, err
}

// RecordingFor is what a trace made outside mgpu (an Accel-Sim
// conversion) must be made for to replay under o: the parameters a run of
// o sizes its workload from, and its allocator's pointer tags and
// alignment. o's workload is not consulted.
func RecordingFor(o Options) (benchmarks.Params, objtable.Tagging, uint64, error) {
	if err := o.Config.Validate(); err != nil {
		return benchmarks.Params{}, objtable.Tagging{}, 0, err
	}
	traits, err := pagepolicy.TraitsOf(o.Policy)
	if err != nil {
		return benchmarks.Params{}, objtable.Tagging{}, 0, err
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Size == "" {
		o.Size = "auto"
	}
	// What a replay would refuse is not recorded.
	if err := CheckParams(o.params()); err != nil {
		return benchmarks.Params{}, objtable.Tagging{}, 0, err
	}
	return o.params(), taggingOf(o.Config, traits), o.Config.AllocAlign(), nil
}

// OpenTrace opens a recording for `mgpu run --trace` and checks it whole
// (replay.Open), its recorded parameters by CheckParams.
func OpenTrace(path string) (*replay.Program, error) { return replay.Open(path, CheckParams) }

// CheckParams reports parameters a run would refuse: a recording sets
// them in place of run's flags, so they get the same checks, the GPU
// count and im2col kernel by Config.Validate, the scale, size and
// iterations as run checks its flags.
func CheckParams(p benchmarks.Params) error {
	c := config.DefaultConfig()
	c.GPUs, c.Im2col = p.GPUs, p.Im2col
	errs := []error{c.Validate(), benchmarks.CheckScale(p.Scale)}
	if p.Size != "" && !slices.Contains(benchmarks.SizeColumns(), p.Size) {
		errs = append(errs, fmt.Errorf("size %q: valid sizes are %v", p.Size, benchmarks.SizeColumns()))
	}
	if p.Iterations < 0 {
		errs = append(errs, fmt.Errorf("iterations %d: must be 0 (the workload's default) or a positive count", p.Iterations))
	}
	return errors.Join(errs...)
}
