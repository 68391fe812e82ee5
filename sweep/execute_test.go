package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/rs/zerolog/log"

	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/stats"
)

// fakeSimulate replaces the simulator for the test: a result of this
// build at once, or, for the runs in hold, after the hold channel closes
// (reporting on started when the run begins).
func fakeSimulate(t *testing.T, hold map[string]bool, started chan<- string, release <-chan struct{}) {
	t.Helper()
	old := simulate
	t.Cleanup(func() { simulate = old })
	simulate = func(o platform.Options) (*platform.Result, error) {
		key := o.Workload + "/" + o.Policy
		if hold[key] {
			started <- key
			<-release
		}
		return wholeResult(o), nil
	}
}

// wholeResult is a result of o that ReadResult accepts: every field,
// with a counter and stall set per GPU.
func wholeResult(o platform.Options) *platform.Result {
	return &platform.Result{Workload: o.Workload, Policy: o.Policy, GPUs: o.Config.GPUs, Seed: o.Seed,
		Scale: o.Scale, Size: o.Size, Version: platform.FullVersion(), Config: o.Config, Sets: o.Sets,
		PerGPU: make([]stats.Counters, o.Config.GPUs), PerGPUStal: make([]stats.Stalls, o.Config.GPUs)}
}

func versionOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Version string }
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v.Version
}

// A cached result from another build is run again, with a line naming its
// build; results of this build are reused.
func TestResultsOfAnotherBuildAreRunAgain(t *testing.T) {
	fakeSimulate(t, nil, nil, nil)
	runs := smallSpec(t)[:3]
	dir := t.TempDir()
	if _, err := Execute(runs, dir, 1, nil); err != nil {
		t.Fatal(err)
	}
	old := bytes.Replace(mustRead(t, ResultPath(dir, runs[1])), []byte(platform.FullVersion()), []byte("0.0.1+0123456789ab"), 1)
	if err := os.WriteFile(ResultPath(dir, runs[1]), old, 0o644); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	sum, err := Execute(runs, dir, 1, &progress)
	if err != nil || sum.Skipped != 2 || sum.Done != 1 || sum.Stale != 1 {
		t.Fatalf("%+v %v", sum, err)
	}
	if !strings.Contains(progress.String(), "1 cached results are from build 0.0.1+0123456789ab, not this build "+platform.FullVersion()) {
		t.Fatalf("no line naming the old build: %q", progress.String())
	}
	if v := versionOf(t, ResultPath(dir, runs[1])); v != platform.FullVersion() {
		t.Fatalf("result still from %s", v)
	}
	sum, err = Execute(runs, dir, 1, nil)
	if err != nil || sum.Skipped != 3 || sum.Stale != 0 {
		t.Fatalf("same build not reused: %+v %v", sum, err)
	}
}

// A stale result whose rerun fails is moved aside, so neither a resume nor
// a merged CSV takes it for this build's.
func TestStaleResultWhoseRerunFailsIsMovedAside(t *testing.T) {
	fakeSimulate(t, nil, nil, nil)
	r := smallSpec(t)[0]
	dir := t.TempDir()
	if err := os.WriteFile(ResultPath(dir, r), []byte(`{"workload":"private","policy":"on-touch","version":"0.0.1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	simulate = func(platform.Options) (*platform.Result, error) { return nil, errors.New("boom") }
	sum, err := Execute([]Run{r}, dir, 1, nil)
	if err != nil || sum.Failed != 1 {
		t.Fatalf("%+v %v", sum, err)
	}
	if _, err := os.Stat(ResultPath(dir, r)); err == nil {
		t.Fatal("the stale result is still where a resume would reuse it")
	}
	if _, err := os.Stat(stalePath(dir, r)); err != nil {
		t.Fatal("the stale result was not kept aside")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonFiles(t *testing.T, dir string) (results int, others []string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			results++
		} else {
			others = append(others, e.Name())
		}
	}
	return results, others
}

// First interrupt: no new runs start, the one in flight finishes and is
// kept, the progress line is ended, and a later Execute resumes.
func TestInterruptFinishesRunsInFlight(t *testing.T) {
	runs := smallSpec(t)[:4]
	started, release := make(chan string, 1), make(chan struct{})
	fakeSimulate(t, map[string]bool{runs[1].Workload + "/" + runs[1].Policy: true}, started, release)
	dir := t.TempDir()
	intr := make(chan os.Signal, 2)
	var progress syncBuffer
	type out struct {
		sum Summary
		err error
	}
	done := make(chan out)
	go func() {
		sum, err := ExecuteUntil(intr, runs, dir, 1, &progress)
		done <- out{sum, err}
	}()
	<-started // runs[0] is written, runs[1] is in flight
	intr <- os.Interrupt
	select {
	case <-done:
		t.Fatal("returned before the run in flight finished")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	o := <-done
	if !errors.Is(o.err, ErrInterrupted) || !o.sum.Interrupted || o.sum.Done != 2 || o.sum.Kept() != 2 || o.sum.Abandoned != 0 {
		t.Fatalf("%+v %v", o.sum, o.err)
	}
	if n, others := jsonFiles(t, dir); n != 2 || len(others) != 0 {
		t.Fatalf("%d results and %v in the directory, want 2 results only", n, others)
	}
	p := progress.String()
	if !strings.Contains(p, "interrupted") || !strings.HasSuffix(p, "\n") {
		t.Fatalf("progress %q: want the interrupt noted and the line ended", p)
	}
	sum, err := Execute(runs, dir, 1, nil)
	if err != nil || sum.Skipped != 2 || sum.Done != 2 {
		t.Fatalf("resume: %+v %v", sum, err)
	}
}

// Second interrupt: the run in flight is abandoned at once and never
// writes, even when it completes later.
func TestSecondInterruptAbandonsRunsInFlight(t *testing.T) {
	runs := smallSpec(t)[:3]
	started, release := make(chan string, 1), make(chan struct{})
	fakeSimulate(t, map[string]bool{runs[0].Workload + "/" + runs[0].Policy: true}, started, release)
	dir := t.TempDir()
	intr := make(chan os.Signal, 2)
	done := make(chan error)
	var sum Summary
	go func() {
		var err error
		sum, err = ExecuteUntil(intr, runs, dir, 1, nil)
		done <- err
	}()
	<-started
	intr <- os.Interrupt
	intr <- os.Interrupt
	select {
	case err := <-done:
		if !errors.Is(err, ErrInterrupted) || sum.Abandoned != 1 || sum.Kept() != 0 {
			t.Fatalf("%+v %v", sum, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a second interrupt did not abandon the run in flight")
	}
	close(release)
	time.Sleep(100 * time.Millisecond) // let the abandoned run return
	if n, others := jsonFiles(t, dir); n != 0 || len(others) != 0 {
		t.Fatalf("an abandoned run wrote: %d results, %v", n, others)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A stray .json that is not a result is skipped and listed; the results
// are still collected.
func TestCollectSkipsStrayJSON(t *testing.T) {
	fakeSimulate(t, nil, nil, nil)
	runs := smallSpec(t)[:2]
	dir := t.TempDir()
	if _, err := Execute(runs, dir, 1, nil); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"notes.json": `{"author": "me"}`, "broken.json": `{"author": `, "x.failed.json": `[1]`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	col, err := Collect(dir)
	if err != nil || len(col.Results) != 2 || len(col.Failures) != 0 {
		t.Fatalf("%d results, %d failures, %v", len(col.Results), len(col.Failures), err)
	}
	var skipped []string
	for _, s := range col.Skipped {
		skipped = append(skipped, filepath.Base(s.File)+": "+s.Reason)
	}
	got := strings.Join(skipped, "\n")
	for _, want := range []string{"broken.json: not an mgpu result", "notes.json: not an mgpu result", "x.failed.json: not an mgpu failure record"} {
		if !strings.Contains(got, want) {
			t.Errorf("skipped list lacks %q:\n%s", want, got)
		}
	}
}

// At --log-level info every finished run logs its label and wall time,
// and nothing does at the default warn.
func TestRunWallTimeIsLoggedAtInfo(t *testing.T) {
	fakeSimulate(t, nil, nil, nil)
	runs := smallSpec(t)[:2]
	var buf bytes.Buffer
	old, oldLevel := log.Logger, zerolog.GlobalLevel()
	t.Cleanup(func() { log.Logger = old; zerolog.SetGlobalLevel(oldLevel) })
	log.Logger = zerolog.New(&buf)
	zerolog.SetGlobalLevel(zerolog.WarnLevel)
	if _, err := Execute(runs, t.TempDir(), 1, nil); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Fatalf("logged at warn: %s", buf.String())
	}
	zerolog.SetGlobalLevel(zerolog.InfoLevel)
	if _, err := Execute(runs, t.TempDir(), 1, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if !strings.Contains(buf.String(), `"run":"`+r.Label()+`","wall":`) {
			t.Errorf("no wall time logged for %s in %s", r.Label(), buf.String())
		}
	}
}
