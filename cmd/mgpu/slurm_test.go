package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Emitting a Slurm script from relative paths names them absolutely (the
// tasks may start anywhere) and creates the results directory, since Slurm
// does not create the directory of --output and a task that cannot open
// its output file fails without a word.
func TestEmitSlurmResultsDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("s.yaml", []byte("name: tiny\nworkloads: [private]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.05\n"), 0o644)
	code, out, errs := mgpu("sweep", "s.yaml", "--emit", "slurm", "--results", "out/my res", "--mgpu", "bin/mgpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	res := filepath.Join(dir, "out", "my res")
	if st, err := os.Stat(res); err != nil || !st.IsDir() {
		t.Fatalf("results directory %s not created: %v", res, err)
	}
	bin, spec := filepath.Join(dir, "bin", "mgpu"), filepath.Join(dir, "s.yaml")
	for _, want := range []string{
		"#SBATCH --array=0-1\n",
		`#SBATCH --output="` + res + `/slurm-%A_%a.out"` + "\n",
		bin + " sweep " + spec + " --results '" + res + "' --jobs 1 --tasks 2 ",
		"# When every task has finished: " + bin + " collect '" + res + "'\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("script lacks %q:\n%s", want, out)
		}
	}

	// A results path under a file fails before any script is written.
	os.WriteFile("file", nil, 0o644)
	if code, out, _ := mgpu("sweep", "s.yaml", "--emit", "slurm", "--results", "file/res"); code == 0 || out != "" {
		t.Errorf("results under a file: exit %d, script %q", code, out)
	}
	if code, out, _ := mgpu("sweep", "s.yaml", "--emit", "slurm", "--tasks", "-1"); code == 0 || out != "" {
		t.Errorf("--tasks -1: exit %d, script %q", code, out)
	}
}

// TestSlurmArrayJob runs scripts/slurm/check.sh against the Slurm that
// sbatch reaches: a 4-run sweep as a 2-task job array whose CSV and result
// files must equal a local sweep's byte for byte. make test-slurm sets up
// a private single-node Slurm and runs the same script; this test is for a
// machine that already has one (on a multi-node cluster, point
// MGPU_SLURM_WORK at a directory the nodes share).
func TestSlurmArrayJob(t *testing.T) {
	if os.Getenv("MGPU_SLURM") != "1" {
		t.Skip("Slurm is not installed: run make test-slurm (or set MGPU_SLURM=1 to use a running Slurm)")
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Skip("Slurm is not installed (no sbatch on PATH): run make test-slurm")
	}
	check, err := filepath.Abs("../../scripts/slurm/check.sh")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", check).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("%s: %v", check, err)
	}
}
