package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A figure split into tasks runs each slice once: the slices together are
// the figure's runs, none twice, and the figure then draws from them
// without simulating anything.
func TestFigureTasksCoverItsRuns(t *testing.T) {
	dir := t.TempDir()
	res, out := filepath.Join(dir, "res"), filepath.Join(dir, "fig")
	fig := []string{"figure", "observuvm-fig5", "--scale", "0.02", "--results", res, "--out", out, "--jobs", "1"}
	for task, want := range []string{"task 0 of 2: 7 of the figure's 14 runs (0 reused, 0 failed)", "task 1 of 2: 7 of the figure's 14 runs (0 reused, 0 failed)"} {
		code, stdout, errs := mgpu(append(fig, "--tasks", "2", "--task", []string{"0", "1"}[task])...)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("task %d: exit %d, stdout %q (want %q), stderr %s", task, code, stdout, want, errs)
		}
		if _, err := os.Stat(filepath.Join(out, "observuvm-fig5-x0.02.csv")); err == nil {
			t.Fatalf("task %d drew the figure before every task had run", task)
		}
	}
	code, stdout, errs := mgpu(fig...)
	if code != 0 || !strings.Contains(stdout, "14 runs (14 reused, 0 failed)") {
		t.Fatalf("the figure after its tasks: exit %d, stdout %q, stderr %s", code, stdout, errs)
	}
}

// An emitted figure names its paths absolutely, runs its slices with
// --jobs 1, and says which command draws it; --emit list is one run per
// line, where the figure looks for it.
func TestFigureEmit(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, script, errs := mgpu("figure", "observuvm-fig5", "--size", "similar", "--emit", "slurm", "--tasks", "4", "--results", "res", "--out", "figs", "--mgpu", "bin/mgpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	bin, res, figs := filepath.Join(dir, "bin", "mgpu"), filepath.Join(dir, "res"), filepath.Join(dir, "figs")
	for _, want := range []string{
		"# mgpu figure observuvm-fig5 of 14 runs as 4 array tasks",
		"#SBATCH --array=0-3\n",
		bin + " figure observuvm-fig5 --size similar --results " + res + " --jobs 1 --tasks 4 --task \"$SLURM_ARRAY_TASK_ID\"\n",
		"# When every task has finished: " + bin + " figure observuvm-fig5 --size similar --results " + res + " --out " + figs + "\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if st, err := os.Stat(res); err != nil || !st.IsDir() {
		t.Errorf("results directory %s not created: %v", res, err)
	}
	code, list, errs := mgpu("figure", "observuvm-fig5", "--quick", "--emit", "list", "--results", "res")
	if lines := strings.Split(strings.TrimSpace(list), "\n"); code != 0 || len(lines) != 14 ||
		!strings.HasPrefix(lines[0], "mgpu run ") || !strings.Contains(lines[0], "--scale 0.2 ") || !strings.Contains(lines[0], " --out res/") {
		t.Errorf("--emit list: exit %d, %d lines: %s%s", code, len(lines), list, errs)
	}
}

func TestFigurePartsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"figure", "fig3", "--tasks", "2", "--task", "0"}, "fig3 is computed from characterizations"},
		{[]string{"figure", "fig15", "--emit", "csv"}, `--emit "csv": valid values are slurm, list`},
		{[]string{"figure", "fig15", "--tasks", "2"}, "task -1 of 2"},
		{[]string{"figure", "fig15", "--tasks", "2", "--task", "2"}, "task 2 of 2"},
	} {
		code, stdout, errs := mgpu(c.args...)
		if code != 2 || stdout != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, errs, c.want)
		}
	}
}
