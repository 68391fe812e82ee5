package sweep

import (
	"fmt"
	"io"
	"strings"
)

// Slice returns the runs of array task task out of tasks: every run whose
// index is task modulo tasks, so tasks split the sweep evenly.
func Slice(runs []Run, task, tasks int) ([]Run, error) {
	if tasks < 1 || task < 0 || task >= tasks {
		return nil, fmt.Errorf("task %d of %d: need 0 <= task < tasks", task, tasks)
	}
	var out []Run
	for i := task; i < len(runs); i += tasks {
		out = append(out, runs[i])
	}
	return out, nil
}

// MaxArrayTasks caps the default job array: Slurm's default MaxArraySize
// is 1001 (indices 0..1000), so a sweep of a million runs becomes 1000
// tasks of about 1000 runs each rather than an array sbatch refuses.
const MaxArrayTasks = 1000

// ArrayTasks is the job-array size for a sweep of runs runs: tasks when
// given (at most one task per run), else min(runs, MaxArrayTasks).
func ArrayTasks(runs, tasks int) (int, error) {
	if tasks < 0 {
		return 0, fmt.Errorf("--tasks %d: must be >= 1, or 0 for one task per run up to %d", tasks, MaxArrayTasks)
	}
	if tasks == 0 {
		tasks = MaxArrayTasks
	}
	return min(tasks, max(runs, 1)), nil
}

// EmitSlurm writes SlurmScript's script to w.
func EmitSlurm(w io.Writer, mgpu, specPath, results string, runs, tasks int) error {
	script, err := SlurmScript(mgpu, specPath, results, runs, tasks)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, script)
	return err
}

// SlurmScript returns an sbatch job-array script: each array task runs one
// slice of the sweep (every tasks-th run, see Slice) into the results
// directory, which the nodes must share; `mgpu collect` merges them
// afterwards. tasks 0 means ArrayTasks' default. results should be
// absolute, as the tasks may start in another directory, and must exist
// before the job starts: Slurm does not create the directory of --output,
// and a task whose output file cannot be opened fails without a word.
// SlurmScript only writes text; the caller creates the directory.
func SlurmScript(mgpu, specPath, results string, runs, tasks int) (string, error) {
	tasks, err := ArrayTasks(runs, tasks)
	if err != nil {
		return "", err
	}
	output, err := sbatchQuote(strings.ReplaceAll(results, "%", "%%") + "/slurm-%A_%a.out")
	if err != nil {
		return "", fmt.Errorf("results directory %q: %w", results, err)
	}
	per := (runs + tasks - 1) / tasks
	return fmt.Sprintf(`#!/bin/bash
# mgpu sweep of %d runs as %d array tasks of at most %d runs each (task i
# runs runs i, i+%d, i+2*%d, ...; --tasks sets the count, by default one
# task per run up to %d). Submit with: sbatch <this file>
# Every task writes into %s, which must be on a filesystem
# the compute nodes share; it was created when this script was emitted
# (Slurm does not create it: mkdir -p it if you moved it).
# When every task has finished: %s collect %s
#SBATCH --job-name=mgpu-sweep
#SBATCH --array=0-%d
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=%s
set -euo pipefail
%s sweep %s --results %s --jobs 1 --tasks %d --task "$SLURM_ARRAY_TASK_ID" --no-csv
`, runs, tasks, per, tasks, tasks, MaxArrayTasks, results, shellQuote(mgpu), shellQuote(results), tasks-1, output,
		shellQuote(mgpu), shellQuote(specPath), shellQuote(results), tasks), nil
}

// sbatchQuote quotes s as one argument of an #SBATCH line. sbatch parses
// those lines itself, not with a shell: it splits at blanks outside quotes,
// strips "..." and '...' quotes, takes a backslash as escaping the next
// character, and ends the line at an unescaped # (older releases even
// inside quotes). So s is double-quoted with " and # escaped. A newline
// cannot be expressed, and a backslash that survives into a --output name
// tells Slurm not to expand %A and %a, so both are refused.
func sbatchQuote(s string) (string, error) {
	if strings.ContainsAny(s, "\n\r\\") {
		return "", fmt.Errorf("an #SBATCH line cannot hold a newline or backslash; choose a directory without one")
	}
	return `"` + strings.NewReplacer(`"`, `\"`, `#`, `\#`).Replace(s) + `"`, nil
}

// EmitList writes one `mgpu run` command per run, for GNU parallel or any
// batch system; each writes its result where a sweep would.
func EmitList(w io.Writer, mgpu, results string, runs []Run) error {
	for _, r := range runs {
		args := append([]string{mgpu, "run"}, r.Args()...)
		args = append(args, "--out", ResultPath(results, r))
		for i, a := range args {
			args[i] = shellQuote(a)
		}
		if _, err := fmt.Fprintln(w, strings.Join(args, " ")); err != nil {
			return err
		}
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
