package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/sweep"
)

// TestMain lets a test run this binary as mgpu itself (see asMGPU), to
// deliver real signals to a sweep.
func TestMain(m *testing.M) {
	if os.Getenv("MGPU_TEST_AS_MAIN") == "1" {
		if os.Getenv("MGPU_TEST_HOLD_WRITE") == "1" {
			writeResult = holdingWrite
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func mgpu(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

var commands = []string{"run", "list", "sweep", "collect", "figure", "plot", "characterize", "version"}

func TestSubcommandHelpExitsZero(t *testing.T) {
	for _, cmd := range commands {
		for _, flag := range []string{"--help", "-h"} {
			code, out, errs := mgpu(cmd, flag)
			if code != 0 || errs != "" {
				t.Fatalf("%s %s: exit %d, stderr %q", cmd, flag, code, errs)
			}
			for _, want := range []string{"Usage: mgpu " + cmd, "Example:\n  mgpu " + cmd} {
				if !strings.Contains(out, want) {
					t.Errorf("%s %s: help lacks %q:\n%s", cmd, flag, want, out)
				}
			}
		}
	}
	_, out, _ := mgpu("sweep", "--help")
	for _, want := range []string{"Spec format", "workloads:", "policies:", "gpus:", "seeds:", "scale:", "sets:", "results:", "-jobs"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep help lacks %q", want)
		}
	}
	_, out, _ = mgpu("run", "--help")
	if !strings.Contains(out, "-iterations") || !strings.Contains(out, "pingpong") || strings.Contains(out, " mm,") {
		t.Errorf("run help does not list the workloads that take --iterations:\n%s", out)
	}
	code, out2, _ := mgpu("help", "run")
	if code != 0 || out2 != out {
		t.Errorf("'mgpu help run' (exit %d) differs from 'mgpu run --help'", code)
	}
	if code, out, _ := mgpu("--help"); code != 0 || !strings.Contains(out, "mgpu version") {
		t.Errorf("mgpu --help: exit %d:\n%s", code, out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := mgpu(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		for _, want := range []string{"mgpu " + platform.FullVersion() + "\n", runtime.Version(), "module", "revision"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
	if code, _, errs := mgpu("version", "extra"); code != 2 || !strings.Contains(errs, "--help") {
		t.Errorf("version with an argument: exit %d, %q", code, errs)
	}
}

// The version string tells builds apart: the revision with a dirty flag,
// plus the executable's digest when the revision alone does not pin the
// code.
func TestBuildVersionString(t *testing.T) {
	info := func(version string, settings ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/mgpu-sim/mgpu", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return b
	}
	const rev = "0123456789abcdef0123"
	for _, c := range []struct {
		name string
		b    platform.BuildInfo
		want string
	}{
		{"clean checkout", platform.BuildOf(info("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "cafe"), "0.1.0+0123456789ab"},
		{"dirty checkout", platform.BuildOf(info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "cafe"), "0.1.0+0123456789ab-dirty.cafe"},
		{"released module", platform.BuildOf(info("v0.2.0"), "cafe"), "0.1.0+v0.2.0"},
		{"no VCS data", platform.BuildOf(info("(devel)"), "cafe"), "0.1.0+exe.cafe"},
		{"nothing known", platform.BuildOf(nil, ""), "0.1.0"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	var b bytes.Buffer
	writeVersion(&b, platform.BuildOf(info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "cafe"))
	for _, want := range []string{rev + "-dirty", "github.com/mgpu-sim/mgpu", "go1.99"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("version output lacks %q:\n%s", want, b.String())
		}
	}
}

// A bad flag gives the error once and one line pointing to --help, not
// flag's usage dump.
func TestBadFlagIsOneErrorAndAPointerToHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--gpus", "abc"}, `invalid value "abc" for flag -gpus`},
		{[]string{"run", "--nope"}, "-nope"},
		{[]string{"sweep", "s.yaml", "--jobs", "x"}, "-jobs"},
		{[]string{"figure", "fig15", "--quick=maybe"}, "-quick"},
		{[]string{"characterize", "--scale", "big"}, "-scale"},
		{[]string{"collect", "dir", "--nope"}, "-nope"},
		{[]string{"plot", "a.csv", "--nope"}, "-nope"},
		{[]string{"list", "--nope"}, "-nope"},
		{[]string{"run", "stray"}, `unexpected argument "stray"`},
	} {
		code, out, errs := mgpu(c.args...)
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		wantHint := "Run 'mgpu " + c.args[0] + " --help' for usage."
		if code != 2 || len(lines) != 2 || !strings.Contains(lines[0], c.want) || lines[1] != wantHint || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", c.args, code, out, errs)
		}
	}
}

// Every output path is checked before anything is simulated: each of
// these would otherwise fail only after the run (after 66 runs for a
// figure).
// simulates are the commands that build systems, and take --log-level.
var simulates = map[string]bool{"run": true, "characterize": true, "figure": true, "sweep": true}

func TestOutputPathsCheckedBeforeSimulating(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("workloads: [mm]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.01\n"), 0o644)
	table := filepath.Join(dir, "t.csv")
	os.WriteFile(table, []byte("app,a\nmm,1\n"), 0o644)
	res := filepath.Join(dir, "results")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--out", dir}, "--out: " + dir + " is a directory"},
		{[]string{"run", "--out", filepath.Join(file, "r.json")}, file + " is a file"},
		{[]string{"run", "--out", filepath.Join(file, "a", "r.json")}, file + " is a file"},
		{[]string{"run", "--out", "/proc/mgpu-nope/r.json"}, "/proc/mgpu-nope"},
		{[]string{"run", "--csv", dir}, "--csv: " + dir + " is a directory"},
		{[]string{"run", "--csv", filepath.Join(file, "r.csv")}, file + " is a file"},
		{[]string{"run", "--out", ""}, "--out is empty"},
		{[]string{"run", "--out", filepath.Join(dir, "r"), "--csv", filepath.Join(dir, "r")}, "--out and --csv both name"},
		{[]string{"run", "--out", filepath.Join(dir, "new") + "/"}, "names a directory"},
		{[]string{"run", "--out", "/dev/null"}, "is a character device"},
		{[]string{"characterize", "--scale", "0.01", "--out", file}, "--out: " + file + " is a file"},
		{[]string{"characterize", "--scale", "0.01", "--out", filepath.Join(file, "sub")}, file + " is a file"},
		{[]string{"figure", "fig15", "--quick", "--results", res, "--out", file}, "--out: " + file + " is a file"},
		{[]string{"figure", "fig15", "--quick", "--results", file}, "--results: " + file + " is a file"},
		{[]string{"sweep", spec, "--results", res, "--csv", dir}, dir + " is a directory"},
		{[]string{"sweep", spec, "--results", file}, file + " is a file"},
		{[]string{"collect", dir, "--csv", dir}, dir + " is a directory"},
		{[]string{"plot", table, "--out", filepath.Join(file, "fig")}, file + " is a file"},
	} {
		args := c.args
		if simulates[args[0]] {
			// Every simulation logs "simulating" at debug level.
			args = append(slices.Clone(args), "--log-level", "debug")
		}
		code, out, errs := mgpu(args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, errs, c.want)
		}
		if strings.Contains(out, "simulated time") || strings.Contains(out, "wrote") || strings.Contains(errs, "DBG simulating") || strings.Contains(errs, `"message":"simulating"`) {
			t.Errorf("%v: simulated before failing: %s%s", c.args, out, errs)
		}
	}
	if entries, _ := os.ReadDir(res); len(entries) != 0 {
		t.Errorf("runs were made before an output path failed: %d files in %s", len(entries), res)
	}
}

func TestIterationsFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--workload", "pingpong", "--iterations", "-1"}, []string{"--iterations -1", "positive"}},
		{[]string{"run", "--workload", "mm", "--iterations", "5"}, []string{"workload mm has no iterations", "pingpong", "st", "pr"}},
		{[]string{"characterize", "--workload", "mt", "--iterations", "2"}, []string{"workload mt has no iterations", "pingpong"}},
		{[]string{"characterize", "--iterations", "-1"}, []string{"--iterations -1"}},
	} {
		code, _, errs := mgpu(c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d: %s", c.args, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: %q lacks %q", c.args, errs, w)
			}
		}
	}
	if slices.Contains(iterationWorkloads(), "mm") {
		t.Errorf("mm listed as taking iterations: %v", iterationWorkloads())
	}
	// The result says which iteration count ran.
	dir := t.TempDir()
	iters := func(args ...string) any {
		t.Helper()
		path := filepath.Join(dir, "r.json")
		code, _, errs := mgpu(append([]string{"run", "--workload", "pingpong", "--gpus", "2", "--scale", "0.02", "--out", path}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var r map[string]any
		if err := json.Unmarshal(mustReadFile(t, path), &r); err != nil {
			t.Fatal(err)
		}
		return r["iterations"]
	}
	if got := iters("--iterations", "1"); got != float64(1) {
		t.Errorf("--iterations 1 recorded as %v", got)
	}
	if got := iters(); got != nil {
		t.Errorf("the default recorded as %v, want absent (the workload's default)", got)
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSweepSpecErrorsExitTwo(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\nsets: {gpus: ['8']}\n", "sets.gpus"},
		{"workloads: [fft, fft]\npolicies: [on-touch]\ngpus: [4]\n", "fft listed more than once"},
		{"workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\nscale: 0\n", "scale 0"},
		{"name: ../../etc/evil\nworkloads: [mm]\npolicies: [on-touch]\ngpus: [4]\n", "path separators"},
		{"", "is empty: a spec names at least its workloads"},
		{"# only a comment\n", "is empty"},
		{"workloads: [mm]\npolicies:\n\t- oasis\n", "YAML indents with spaces only"},
	} {
		spec := filepath.Join(dir, "s.yaml")
		os.WriteFile(spec, []byte(c.body), 0o644)
		code, _, errs := mgpu("sweep", spec, "--results", filepath.Join(dir, "res"))
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q", c.body, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "res")); err == nil {
		t.Error("a rejected spec created its results directory")
	}
}

// A result of another build is run again, with a line naming that build.
func TestSweepRerunsResultsOfAnotherBuild(t *testing.T) {
	dir := t.TempDir()
	spec, res := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "res")
	os.WriteFile(spec, []byte("workloads: [private]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.05\n"), 0o644)
	if code, _, errs := mgpu("sweep", spec, "--results", res); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	s, _ := sweep.Load(spec)
	runs, _ := s.Expand()
	path := sweep.ResultPath(res, runs[0])
	old := bytes.Replace(mustReadFile(t, path), []byte(platform.FullVersion()), []byte("0.0.9+feedfacecafe"), 1)
	os.WriteFile(path, old, 0o644)
	code, out, errs := mgpu("sweep", spec, "--results", res)
	if code != 0 || !strings.Contains(errs, "from build 0.0.9+feedfacecafe") || !strings.Contains(out, "1 done now (1 from other builds run again), 1 already done") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

func TestCollectSkipsStrayJSONWithAWarning(t *testing.T) {
	dir := t.TempDir()
	spec, res := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "res")
	os.WriteFile(spec, []byte("workloads: [private]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.05\n"), 0o644)
	if code, _, errs := mgpu("sweep", spec, "--results", res); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	os.WriteFile(filepath.Join(res, "notes.json"), []byte(`{"todo": 1}`), 0o644)
	os.WriteFile(filepath.Join(res, "package.json"), []byte(`[`), 0o644)
	code, out, errs := mgpu("collect", res)
	if code != 0 || !strings.Contains(out, "collected 1 results (0 failed runs, 2 files skipped)") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	for _, f := range []string{"notes.json", "package.json"} {
		if !strings.Contains(errs, "warning: skipped "+filepath.Join(res, f)) || !strings.Contains(out, "skipped: "+filepath.Join(res, f)) {
			t.Errorf("%s not listed as skipped:\n%s\n%s", f, out, errs)
		}
	}
}

func TestPlotInfiniteValueExitsTwoNamingTheCell(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("app,on-touch,oasis\nmm,1,Inf\n"), 0o644)
	code, _, errs := mgpu("plot", path)
	if code != 2 || !strings.Contains(errs, `row 2 ("mm"), column "oasis"`) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, out, _ := mgpu("plot", "--help")
	if strings.Contains(out, "normalised") {
		t.Errorf("plot help claims normalisation that plot does not do:\n%s", out)
	}
}

// A real SIGINT to a sweep: it stops, says what it kept, ends the progress
// line, exits 130, and a rerun resumes from there.
func TestSweepInterruptKeepsResultsAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	spec, res := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "res")
	os.WriteFile(spec, []byte("name: s\nworkloads: [mm, mt]\npolicies: [on-touch, oasis]\ngpus: [2]\nseeds: [1, 2]\nscale: 0.05\n"), 0o644)
	cmd := exec.Command(os.Args[0], "sweep", spec, "--results", res, "--jobs", "1")
	cmd.Env = append(os.Environ(), "MGPU_TEST_AS_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	r := bufio.NewReader(stderr)
	// The progress bar, drawn once the sweep handles interrupts (the line
	// before it, the spec's run count, comes before the runs are checked).
	for !strings.Contains(all.String(), "already done") {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("no progress before EOF: %q", all.String())
		}
		all.WriteByte(b)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	all.Write(rest)
	err = cmd.Wait()
	if cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr:\n%s", err, all.String())
	}
	m := regexp.MustCompile(`\nmgpu: interrupted: kept (\d+)/8 results; rerun to resume\n$`).FindStringSubmatch(all.String())
	if m == nil {
		t.Fatalf("stderr does not end the progress line and report what it kept:\n%q", all.String())
	}
	kept, _ := strconv.Atoi(m[1])
	if kept >= 8 {
		t.Fatalf("the sweep finished before the interrupt took effect (kept %d)", kept)
	}
	code, out, errs := mgpu("sweep", spec, "--results", res, "--jobs", "1")
	if code != 0 || !strings.Contains(out, strconv.Itoa(8-kept)+" done now") || !strings.Contains(out, strconv.Itoa(kept)+" already done") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errs)
	}
}

// A scale below the workload's smallest shape still runs, but says so: the
// result is not at the size asked for.
func TestTinyScaleWarns(t *testing.T) {
	code, _, errs := mgpu("run", "--workload", "fft", "--gpus", "2", "--scale", "1e-300")
	if code != 0 || !strings.Contains(errs, "smallest shape") || !strings.Contains(errs, "4.03KB") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if code, _, errs := mgpu("run", "--workload", "fft", "--gpus", "2", "--scale", "0.05"); code != 0 || errs != "" {
		t.Fatalf("a scale that fits: exit %d, stderr %q", code, errs)
	}
}

// run --csv gives every --set key its own column, as a sweep's CSV does.
func TestRunCSVSetColumns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.csv")
	if code, _, errs := mgpu("run", "--workload", "fft", "--policy", "oasis", "--gpus", "2", "--scale", "0.05", "--set", "policy.reset_threshold=4", "--csv", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v\n%s", err, b)
	}
	i := slices.Index(recs[0], "policy.reset_threshold")
	if i < 0 || recs[1][i] != "4" {
		t.Fatalf("no policy.reset_threshold column holding 4:\n%s", b)
	}
}

// Presets: a missing preset file and an oversubscription below 1 with a
// preset are input errors that say what is valid.
func TestPresetBadInput(t *testing.T) {
	preset := filepath.Join("..", "..", "configs", "gtx1080ti.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "hotspot", "--config", "no-such-preset.yaml"}, "no-such-preset.yaml"},
		{[]string{"run", "--workload", "hotspot", "--config", preset, "--oversubscribe", "0.5"}, "factor >= 1"},
		{[]string{"run", "--workload", "hotspot", "--config", preset, "--set", "uvm.prefetch.threshold=0"}, "1..100"},
		{[]string{"run", "--workload", "hotspot", "--config", preset, "--set", "uvm.prefetch.policy=nope"}, "off, sequential-local, tbn"},
		{[]string{"run", "--workload", "hotspot", "--config", preset, "--set", "uvm.eviction=nope"}, "linear-random"},
	} {
		code, _, errs := mgpu(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
