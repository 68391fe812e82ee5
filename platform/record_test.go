package platform

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/replay"
)

// recorded records o's workload to a file and opens the recording.
func recorded(t *testing.T, o Options) *replay.Program {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.mgputrace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Record(o, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := OpenTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// recordReplay records o's workload and runs the recording.
func recordReplay(t *testing.T, o Options) []byte {
	t.Helper()
	o.Program, o.Workload = recorded(t, o), ""
	return resultJSON(t, o)
}

// TestReplayEqualsRun: every workload, recorded and replayed, gives the
// result of its own run byte for byte, on two GPUs so that per-device
// kernels record each GPU's streams.
func TestReplayEqualsRun(t *testing.T) {
	for _, name := range benchmarks.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := config.DefaultConfig()
			c.GPUs = 2
			o := Options{Workload: name, Policy: "on-touch", Scale: 0.01, Seed: 1, Config: c}
			want := resultJSON(t, o)
			if got := recordReplay(t, o); !bytes.Equal(got, want) {
				t.Fatalf("replay differs from the run:\nrun    %.400s\nreplay %.400s", want, got)
			}
		})
	}
}

// TestReplayRefusesOtherParams: a recording replayed with another scale
// or GPU count is refused, not run as something else.
func TestReplayRefusesOtherParams(t *testing.T) {
	c := config.DefaultConfig()
	c.GPUs = 2
	o := Options{Workload: "mm", Policy: "on-touch", Scale: 0.01, Seed: 1, Config: c}
	p := recorded(t, o)
	for name, change := range map[string]func(*Options){
		"scale": func(o *Options) { o.Scale = 0.02 },
		"gpus":  func(o *Options) { o.Config.GPUs = 4 },
		"seed":  func(o *Options) { o.Seed = 2 },
		"tags":  func(o *Options) { o.Policy = "oasis-inmem" },
	} {
		x := o
		x.Program, x.Workload = p, ""
		change(&x)
		if _, err := Run(x); !errors.Is(err, replay.ErrParams) {
			t.Errorf("%s changed: got %v, want ErrParams", name, err)
		}
	}
	// Parameters no run accepts are refused before the recording's Setup
	// compares them.
	x := o
	x.Program, x.Workload, x.Scale = p, "", -1
	if err := Check(x); err == nil || !strings.Contains(err.Error(), "recording of mm: scale -1: must be a positive number") {
		t.Errorf("scale -1: got %v", err)
	}
}

// TestCheckParams: a recording's parameters get run's checks, each fault
// named with what is valid; the parameters of every valid run pass.
func TestCheckParams(t *testing.T) {
	ok := benchmarks.Params{GPUs: 4, Scale: 1, Size: "auto", Seed: 1, Im2col: "mgpusim"}
	for _, tc := range []struct {
		name   string
		change func(p *benchmarks.Params)
		want   string // "" when accepted
	}{
		{"a run's", func(*benchmarks.Params) {}, ""},
		{"64 GPUs, size 16gpu, 3 iterations", func(p *benchmarks.Params) { p.GPUs, p.Size, p.Iterations = 64, "16gpu", 3 }, ""},
		{"no size (auto)", func(p *benchmarks.Params) { p.Size = "" }, ""},
		{"0 GPUs", func(p *benchmarks.Params) { p.GPUs = 0 }, "gpus = 0: must be between 1 and 64"},
		{"65 GPUs", func(p *benchmarks.Params) { p.GPUs = 65 }, "gpus = 65: must be between 1 and 64"},
		{"scale -1", func(p *benchmarks.Params) { p.Scale = -1 }, "scale -1: must be a positive number"},
		{"scale 0", func(p *benchmarks.Params) { p.Scale = 0 }, "scale 0: must be a positive number"},
		{"scale NaN", func(p *benchmarks.Params) { p.Scale = math.NaN() }, "scale NaN"},
		{"scale +Inf", func(p *benchmarks.Params) { p.Scale = math.Inf(1) }, "scale +Inf"},
		{"size 5gpu", func(p *benchmarks.Params) { p.Size = "5gpu" }, `size "5gpu": valid sizes are [auto 4gpu 8gpu 16gpu]`},
		{"iterations -1", func(p *benchmarks.Params) { p.Iterations = -1 }, "iterations -1: must be 0"},
		{"another im2col", func(p *benchmarks.Params) { p.Im2col = "fast" }, `im2col = "fast": must be one of`},
	} {
		p := ok
		tc.change(&p)
		err := CheckParams(p)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
