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
// afterwards. tasks 0 means ArrayTasks' default. Paths are used as given:
// they should be absolute, as the tasks may start in another directory,
// and results must exist before the job starts, since Slurm does not
// create the directory of --output and a task whose output file cannot be
// opened fails without a word. SlurmScript only writes text; the caller
// creates the directory.
func SlurmScript(mgpu, specPath, results string, runs, tasks int) (string, error) {
	return SweepJob(specPath, results).Script(mgpu, runs, tasks)
}

// SweepJob is the sweep of specPath as an array job writing into results.
func SweepJob(specPath, results string) ArrayJob {
	return ArrayJob{
		Name: "mgpu-sweep", What: "mgpu sweep",
		Args: []string{"sweep", specPath, "--results", results, "--jobs", "1"}, Extra: []string{"--no-csv"},
		Results: results, Then: []string{"collect", results},
	}
}

// ArrayJob is a command that runs one slice of its runs per Slurm array
// task (--tasks T --task i), as `mgpu sweep` and `mgpu figure` do.
type ArrayJob struct {
	Name, What string // the job's name and what it is, for the script's header
	// Args is the command without the binary; every task appends --tasks
	// T --task i and then Extra.
	Args, Extra []string
	Results     string   // the results directory every task writes into
	Then        []string // the command that uses the results, when all have run
}

// Script returns the sbatch script that runs j's runs as tasks array tasks
// (0: one per run, up to MaxArrayTasks).
func (j ArrayJob) Script(mgpu string, runs, tasks int) (string, error) {
	tasks, err := ArrayTasks(runs, tasks)
	if err != nil {
		return "", err
	}
	output, err := sbatchQuote(strings.ReplaceAll(j.Results, "%", "%%") + "/slurm-%A_%a.out")
	if err != nil {
		return "", fmt.Errorf("results directory %q: %w", j.Results, err)
	}
	per := (runs + tasks - 1) / tasks
	task := append(append([]string{mgpu}, j.Args...), "--tasks", fmt.Sprint(tasks), "--task")
	return fmt.Sprintf(`#!/bin/bash
# %s of %d runs as %d array tasks of at most %d runs each (task i
# runs runs i, i+%d, i+2*%d, ...; --tasks sets the count, by default one
# task per run up to %d). Submit with: sbatch <this file>
# Every task writes into %s, which must be on a filesystem
# the compute nodes share; it was created when this script was emitted
# (Slurm does not create it: mkdir -p it if you moved it).
# When every task has finished: %s
#SBATCH --job-name=%s
#SBATCH --array=0-%d
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=%s
set -euo pipefail
%s "$SLURM_ARRAY_TASK_ID"%s
`, j.What, runs, tasks, per, tasks, tasks, MaxArrayTasks, j.Results, shellLine(append([]string{mgpu}, j.Then...)),
		j.Name, tasks-1, output, shellLine(task), prefixSpace(shellLine(j.Extra))), nil
}

// shellLine quotes each argument and joins them with spaces.
func shellLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// prefixSpace is " "+s, or "" for an empty s.
func prefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
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
		if err := EmitCommand(w, mgpu, results, r); err != nil {
			return err
		}
	}
	return nil
}

// EmitCommand writes one run's line of EmitList, for a list streamed from
// Spec.Each.
func EmitCommand(w io.Writer, mgpu, results string, r Run) error {
	args := append([]string{mgpu, "run"}, r.Args()...)
	args = append(args, "--out", ResultPath(results, r))
	_, err := fmt.Fprintln(w, shellLine(args))
	return err
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
