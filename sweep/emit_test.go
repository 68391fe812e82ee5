package sweep

import (
	"strings"
	"testing"
)

// sbatchArgs splits the options of an #SBATCH line as sbatch's own parser
// (_get_argument in src/sbatch/opt.c) does: blanks separate arguments
// outside quotes, "..." and '...' quote, a backslash takes the next
// character literally, and an unescaped # outside quotes ends the line.
func sbatchArgs(t *testing.T, line string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(line, "#SBATCH")
	if !ok {
		t.Fatalf("not an #SBATCH line: %q", line)
	}
	var args []string
	var arg strings.Builder
	in, quote, escaped, started := false, byte(0), false, false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped, started = true, true
			continue
		case in && c == quote:
			in = false
			continue
		case in:
		case c == '"' || c == '\'':
			in, quote, started = true, c, true
			continue
		case c == ' ' || c == '\t':
			if started {
				args = append(args, arg.String())
				arg.Reset()
				started = false
			}
			continue
		case c == '#':
			i = len(rest)
			continue
		}
		arg.WriteByte(c)
		started = true
	}
	if in {
		t.Fatalf("unmatched %c in %q", quote, line)
	}
	if started {
		args = append(args, arg.String())
	}
	return args
}

func scriptLine(t *testing.T, script, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(script, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no line starting %q in:\n%s", prefix, script)
	return ""
}

// The task command names the results directory: without it every task
// wrote into the spec's default and `mgpu collect DIR` found nothing.
func TestSlurmTaskCommandPassesResults(t *testing.T) {
	script, err := SlurmScript("/opt/mgpu", "/home/u/spec.yaml", "/scratch/my res", 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	cmd := scriptLine(t, script, "/opt/mgpu sweep ")
	want := `/opt/mgpu sweep /home/u/spec.yaml --results '/scratch/my res' --jobs 1 --tasks 2 --task "$SLURM_ARRAY_TASK_ID" --no-csv`
	if cmd != want {
		t.Errorf("task command\n got %s\nwant %s", cmd, want)
	}
	if !strings.Contains(script, "# When every task has finished: /opt/mgpu collect '/scratch/my res'\n") {
		t.Errorf("the collect hint does not name the same directory:\n%s", script)
	}
}

// The --output line reaches sbatch as one argument naming a file in the
// results directory, whatever the directory's name, with % escaped for
// Slurm's file name patterns.
func TestSlurmOutputLineQuoted(t *testing.T) {
	for _, dir := range []string{
		"/scratch/res",
		"/scratch/my results",
		"/scratch/run #1",
		`/scratch/say "hi"`,
		"/scratch/it's",
		"/scratch/100% done",
		"/scratch/$HOME `x`",
	} {
		script, err := SlurmScript("mgpu", "/s.yaml", dir, 4, 0)
		if err != nil {
			t.Fatalf("%q: %v", dir, err)
		}
		line := scriptLine(t, script, "#SBATCH --output=")
		if !strings.HasPrefix(line, `#SBATCH --output="`) {
			t.Errorf("%q: output not quoted: %s", dir, line)
		}
		args := sbatchArgs(t, line)
		want := "--output=" + strings.ReplaceAll(dir, "%", "%%") + "/slurm-%A_%a.out"
		if len(args) != 1 || args[0] != want {
			t.Errorf("%q: sbatch would read %q from\n%s\nwant [%q]", dir, args, line, want)
		}
	}
	for _, dir := range []string{`/scratch/a\b`, "/scratch/a\nb"} {
		if _, err := SlurmScript("mgpu", "/s.yaml", dir, 4, 0); err == nil {
			t.Errorf("%q: no error for a name no #SBATCH line can hold", dir)
		}
	}
}

func TestArrayTasks(t *testing.T) {
	for _, c := range []struct{ runs, tasks, want int }{
		{1, 0, 1},
		{2, 0, 2},
		{999, 0, 999},
		{1000, 0, 1000},
		{1001, 0, 1000},
		{1066240, 0, MaxArrayTasks},
		{4, 2, 2},          // explicit
		{4, 10, 4},         // never more tasks than runs
		{5000, 2000, 2000}, // explicit beats the default cap
		{0, 0, 1},
	} {
		got, err := ArrayTasks(c.runs, c.tasks)
		if err != nil || got != c.want {
			t.Errorf("ArrayTasks(%d, %d) = %d, %v; want %d", c.runs, c.tasks, got, err, c.want)
		}
	}
	if _, err := ArrayTasks(4, -1); err == nil {
		t.Error("ArrayTasks(4, -1): no error")
	}
}

// A million-run sweep fits a default MaxArraySize; a small one gets one
// task per run; an explicit --tasks is what the array and the command use.
func TestSlurmArraySize(t *testing.T) {
	for _, c := range []struct {
		runs, tasks  int
		array, count string
	}{
		{1066240, 0, "#SBATCH --array=0-999", "--tasks 1000 "},
		{2, 0, "#SBATCH --array=0-1", "--tasks 2 "},
		{4, 0, "#SBATCH --array=0-3", "--tasks 4 "},
		{1066240, 5000, "#SBATCH --array=0-4999", "--tasks 5000 "},
		{100, 7, "#SBATCH --array=0-6", "--tasks 7 "},
		{3, 7, "#SBATCH --array=0-2", "--tasks 3 "},
	} {
		script, err := SlurmScript("mgpu", "/s.yaml", "/r", c.runs, c.tasks)
		if err != nil {
			t.Fatal(err)
		}
		if l := scriptLine(t, script, "#SBATCH --array="); l != c.array {
			t.Errorf("%d runs, --tasks %d: %s, want %s", c.runs, c.tasks, l, c.array)
		}
		if !strings.Contains(scriptLine(t, script, "mgpu sweep "), c.count) {
			t.Errorf("%d runs, --tasks %d: command lacks %q:\n%s", c.runs, c.tasks, c.count, script)
		}
	}
	script, _ := SlurmScript("mgpu", "/s.yaml", "/r", 1066240, 0)
	if !strings.Contains(script, "# mgpu sweep of 1066240 runs as 1000 array tasks of at most 1067 runs each") {
		t.Errorf("header does not say how the runs are split:\n%s", script)
	}
}
