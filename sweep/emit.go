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

// EmitSlurm writes an sbatch job-array script: each array task runs one
// slice of the sweep into the shared results directory; `mgpu collect`
// merges them afterwards.
func EmitSlurm(w io.Writer, mgpu, specPath, results string, runs, tasks int) error {
	if tasks < 1 {
		return fmt.Errorf("--tasks %d: must be >= 1", tasks)
	}
	tasks = min(tasks, max(runs, 1))
	_, err := fmt.Fprintf(w, `#!/bin/bash
# mgpu sweep of %d runs as %d array tasks. Submit with: sbatch <this file>
# When every task has finished: %s collect %s
#SBATCH --job-name=mgpu-sweep
#SBATCH --array=0-%d
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=%s/slurm-%%A_%%a.out
set -euo pipefail
%s sweep %s --jobs 1 --tasks %d --task "$SLURM_ARRAY_TASK_ID" --no-csv
`, runs, tasks, mgpu, shellQuote(results), tasks-1, results, mgpu, shellQuote(specPath), tasks)
	return err
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
