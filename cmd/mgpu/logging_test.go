package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var smallOASISRun = []string{"run", "--workload", "fft", "--gpus", "2", "--scale", "0.05", "--policy", "oasis"}

func runWith(extra ...string) (int, string, string) {
	return mgpu(append(append([]string{}, smallOASISRun...), extra...)...)
}

// --log-level debug adds kernel launches (with the simulated time and the
// run's label), trace adds fault batches, the default adds nothing; a
// buffer is no terminal, so no colour.
func TestLogLevels(t *testing.T) {
	code, _, errs := runWith()
	if code != 0 || errs != "" {
		t.Fatalf("default level: exit %d, stderr %q", code, errs)
	}
	code, debug, errs := runWith("--log-level", "debug")
	if code != 0 {
		t.Fatalf("debug: exit %d: %s", code, errs)
	}
	for _, want := range []string{"DBG kernel launch", "name=fft1D_512", "t_ns=5000", "run=fft/oasis/2gpu", "policy change"} {
		if !strings.Contains(errs, want) {
			t.Errorf("debug log lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "fault batch") {
		t.Errorf("debug log has fault batches, a trace event:\n%s", errs)
	}
	code, trace, terrs := runWith("--log-level", "trace")
	if code != 0 {
		t.Fatalf("trace: exit %d: %s", code, terrs)
	}
	for _, want := range []string{"TRC fault batch", "faults=", "gpu=", "TRC fault batch done", "DBG kernel launch"} {
		if !strings.Contains(terrs, want) {
			t.Errorf("trace log lacks %q", want)
		}
	}
	for _, s := range []string{errs, terrs} {
		if strings.Contains(s, "\x1b[") {
			t.Errorf("ANSI escape in a log to a buffer: %q", s[:min(len(s), 300)])
		}
	}
	// Logging changes nothing but stderr: the summaries differ only in wall time.
	wall := regexp.MustCompile(`(?m)\(wall .*\)$|\(.* M/s simulated per wall second\)`)
	_, plain, _ := runWith()
	if a, b, c := wall.ReplaceAllString(plain, ""), wall.ReplaceAllString(debug, ""), wall.ReplaceAllString(trace, ""); a != b || a != c {
		t.Errorf("summary changed with the log level:\n%s\n%s\n%s", a, b, c)
	}
}

func TestBadLogLevelExitsTwo(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("workloads: [mm]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.01\n"), 0o644)
	for _, args := range [][]string{
		{"sweep", spec, "--results", filepath.Join(dir, "res"), "--log-level", "nope"},
		{"figure", "fig15", "--log-level", "nope"},
		{"run", "--log-level", "nope"},
		{"run", "--log-level", ""},
		{"run", "--log-level", "fatal"},
		{"characterize", "--log-level", "nope"},
	} {
		code, out, errs := mgpu(args...)
		if code != 2 || out != "" || !strings.Contains(errs, "valid levels are trace, debug, info, warn, error") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "res")); err == nil {
		t.Error("a sweep with a bad --log-level created its results directory")
	}
}

// A sweep logs its runs, each line labelled with its run.
func TestSweepLogsWithRunLabels(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("workloads: [fft]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.05\n"), 0o644)
	code, _, errs := mgpu("sweep", spec, "--results", filepath.Join(dir, "res"), "--jobs", "2", "--log-level", "debug")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"run=fft/on-touch/2gpu", "run=fft/oasis/2gpu", "kernel launch"} {
		if !strings.Contains(errs, want) {
			t.Errorf("sweep log lacks %q:\n%s", want, errs)
		}
	}
	// Every log line starts a line, even with the progress bar about.
	for _, line := range strings.Split(errs, "\n") {
		if i := strings.Index(line, " DBG "); i > 0 && strings.Contains(line[:i], "runs") {
			t.Errorf("a log line continues the progress bar: %q", line)
		}
	}
}

// --progress on draws the progress line into any stderr and erases it at
// the end; auto draws nothing into a buffer, which is no terminal.
func TestProgressLine(t *testing.T) {
	args := []string{"run", "--workload", "st", "--gpus", "2", "--scale", "0.05", "--policy", "oasis"}
	code, _, errs := mgpu(append(args, "--progress", "on")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := regexp.MustCompile(`^\rsimulated \d+\.\d{3} ms  kernels \d+/20 done  page faults \d+  wall \d+s`).FindString(errs)
	if m == "" {
		t.Fatalf("no progress line: %q", errs)
	}
	// It ends erased: blanks over the last line drawn, and the cursor back
	// at the start of the line.
	end := regexp.MustCompile(`\r([^\r]*)\r( +)\r$`).FindStringSubmatch(errs)
	if end == nil || len(end[2]) < len(strings.TrimRight(end[1], " ")) || !strings.HasPrefix(end[1], "simulated ") {
		t.Errorf("progress line not erased at the end: %q", errs)
	}
	for _, mode := range []string{"auto", "off"} {
		if code, _, errs := mgpu(append(args, "--progress", mode)...); code != 0 || errs != "" {
			t.Errorf("--progress %s into a buffer: exit %d, stderr %q", mode, code, errs)
		}
	}
	if code, _, errs := mgpu(append(args, "--progress", "sometimes")...); code != 2 || !strings.Contains(errs, "valid values are auto, on, off") {
		t.Errorf("--progress sometimes: exit %d, stderr %q", code, errs)
	}
}

// A log line erases run's progress line first; it is redrawn by its next
// update, and the end erases it.
func TestTerminalKeepsLogAndProgressApart(t *testing.T) {
	var b bytes.Buffer
	term := newTerminal(&b)
	term.setStatus("simulated 1 ms")
	logSide{term}.Write([]byte("DBG x\n"))
	term.setStatus("simulated 22 ms")
	term.setStatus("simulated 3 ms")
	term.clearStatus()
	want := "\rsimulated 1 ms" + "\r              \r" + "DBG x\n" + "\rsimulated 22 ms" + "\rsimulated 3 ms " + "\r              \r"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A foreign status line (sweep's bar) is kept: the log goes below it.
	b.Reset()
	term.Write([]byte("\r[###...] 1/2 runs "))
	logSide{term}.Write([]byte("DBG y\n"))
	if got, want := b.String(), "\r[###...] 1/2 runs \nDBG y\n"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
