package platform

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
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
	p, err := replay.Open(path)
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
			c := DefaultConfig()
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
	c := DefaultConfig()
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
}
