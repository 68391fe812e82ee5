package platform

import (
	"bytes"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/earlyadaptor"
	earlyadaptorrt "github.com/mgpu-sim/mgpu/runtimes/earlyadaptor"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func smallOASIS() Options {
	c := config.DefaultConfig()
	c.GPUs = 2
	return Options{Workload: "st", Policy: "oasis", Scale: 0.05, Seed: 1, Config: c}
}

func resultJSON(t *testing.T, o Options) []byte {
	t.Helper()
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Progress arrives in order: simulated time, kernels done and faults never
// go back, the last snapshot is marked done with every kernel done and the
// result's fault count, and watching does not change the result.
func TestProgressIsMonotoneAndComplete(t *testing.T) {
	o := smallOASIS()
	o.progressEvery = 4096
	var got []Progress
	o.Progress = func(p Progress) { got = append(got, p) }
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("%d progress calls, want several", len(got))
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if b.SimTimeNs < a.SimTimeNs || b.Kernels < a.Kernels || b.PageFaults < a.PageFaults || b.Events < a.Events {
			t.Fatalf("progress went back: %+v then %+v", a, b)
		}
		if a.Done {
			t.Fatalf("progress after the final snapshot: %+v", b)
		}
	}
	last := got[len(got)-1]
	if !last.Done || last.Kernels != last.KernelsTotal || last.KernelsTotal < 2 {
		t.Errorf("last progress %+v: want done with every kernel done", last)
	}
	if last.PageFaults != r.Totals.PageFaults || last.SimTimeNs < r.SimTimeNs {
		t.Errorf("last progress %+v, result %d faults at %.0f ns", last, r.Totals.PageFaults, r.SimTimeNs)
	}
	if got[0].Kernels == last.KernelsTotal {
		t.Errorf("first progress %+v already has every kernel done", got[0])
	}

	plain := smallOASIS()
	watched := smallOASIS()
	watched.Progress = func(Progress) {}
	watched.progressEvery = 1
	defer zerolog.SetGlobalLevel(zerolog.GlobalLevel())
	zerolog.SetGlobalLevel(zerolog.TraceLevel)
	var logs bytes.Buffer
	l := zerolog.New(&logs).Level(zerolog.TraceLevel)
	watched.Log = &l
	if a, b := resultJSON(t, plain), resultJSON(t, watched); !bytes.Equal(stripVersion(a), stripVersion(b)) {
		t.Errorf("progress and trace logging changed the result")
	}
	if logs.Len() == 0 {
		t.Errorf("no log output at trace")
	}
}

func stripVersion(b []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"version":`)) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// The log carries kernel launches and policy changes at debug, fault
// batches only at trace, with the simulated time and the run's label.
func TestLogLevels(t *testing.T) {
	defer zerolog.SetGlobalLevel(zerolog.GlobalLevel())
	zerolog.SetGlobalLevel(zerolog.TraceLevel)
	logAt := func(lvl zerolog.Level) string { return runLogged(t, smallOASIS(), lvl) }
	debug := logAt(zerolog.DebugLevel)
	for _, want := range []string{`"message":"kernel launch"`, `"message":"policy change"`, `"run":"st/oasis/2gpu"`, `"t_ns":`, `"name":`} {
		if !strings.Contains(debug, want) {
			t.Errorf("debug log lacks %s:\n%.2000s", want, debug)
		}
	}
	if strings.Contains(debug, `"fault batch"`) {
		t.Errorf("debug log has fault batches, a trace event")
	}
	trace := logAt(zerolog.TraceLevel)
	for _, want := range []string{`"message":"fault batch"`, `"message":"fault batch done"`, `"faults":`, `"gpu":`, `"latency_ns":`} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace log lacks %s", want)
		}
	}
	if info := logAt(zerolog.InfoLevel); info != "" {
		t.Errorf("info log has simulation events:\n%.1000s", info)
	}
}

// runLogged runs o and returns what it logged at lvl, as JSON lines.
func runLogged(t *testing.T, o Options, lvl zerolog.Level) string {
	t.Helper()
	var b bytes.Buffer
	l := zerolog.New(&b).Level(lvl)
	o.Log = &l
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// SUV logs where each launch's plan put each structure, and why, at
// debug; at info the run logs nothing.
func TestSUVLogsPlacements(t *testing.T) {
	defer zerolog.SetGlobalLevel(zerolog.GlobalLevel())
	zerolog.SetGlobalLevel(zerolog.TraceLevel)
	c := configWith(t, "uvm.adaptive=suv", "uvm.prefetch.policy=tbn", "oversubscribe=1.5")
	c.GPUs = 1
	logAt := func(lvl zerolog.Level) string {
		return runLogged(t, Options{Workload: "gmm", Policy: "on-touch", Seed: 1, Scale: 0.05, Config: c}, lvl)
	}
	debug := logAt(zerolog.DebugLevel)
	for _, want := range []string{`"message":"suv placement"`, `"object":`, `"class":`, `"hbm_left":`, `"reason":`} {
		if !strings.Contains(debug, want) {
			t.Errorf("debug log lacks %s:\n%.2000s", want, debug)
		}
	}
	if info := logAt(zerolog.InfoLevel); strings.Contains(info, "suv placement") {
		t.Errorf("info log has SUV's placements:\n%.1000s", info)
	}
}

// TestWarnsWhenEarlyAdaptorIdles: a small run at EA's own 1 s window ends
// before the first benefit analysis, which the log says at warn level with
// the fix; with windows scaled to the run there is no warning.
func TestWarnsWhenEarlyAdaptorIdles(t *testing.T) {
	run := func(scaleWindows bool) string {
		var b bytes.Buffer
		l := zerolog.New(&b).Level(zerolog.WarnLevel)
		c := small(1)
		c.Oversubscribe = 1.5
		c.UVM.Prefetch.Policy, c.UVM.PrefetchControl = "tbn", "early-adaptor"
		if scaleWindows {
			earlyadaptorrt.Config.Edit(&c.UVM, func(s *earlyadaptor.Config) { s.ShortWindowNs, s.LongWindowNs, s.EvalPeriodNs = 2e4, 1e6, 2e4 })
		}
		r := mustRun(t, Options{Workload: "hotspot", Policy: "on-touch", Scale: 0.02, Seed: 1, Config: c, Log: &l})
		if r.PolicyStats["ea_detections"] == 0 {
			t.Fatalf("no oversubscription detected: %v", r.PolicyStats)
		}
		if (r.PolicyStats["ea_evaluations"] > 0) != scaleWindows {
			t.Fatalf("scaled windows %v: %v evaluations", scaleWindows, r.PolicyStats["ea_evaluations"])
		}
		return b.String()
	}
	if got := run(false); !strings.Contains(got, "ran no benefit analysis") || !strings.Contains(got, "long_window_ns") {
		t.Errorf("EA's own windows: log %q", got)
	}
	if got := run(true); got != "" {
		t.Errorf("scaled windows: log %q", got)
	}
}
