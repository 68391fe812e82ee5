package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgpu-sim/mgpu/atomicfile"
)

// holdingWrite is run's result write in a test that signals the process
// while the write is under way: it writes the result into the temporary
// file, says so on stderr, and waits to be stopped.
func holdingWrite(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := write(w); err != nil {
			return err
		}
		if f, ok := w.(interface{ Flush() error }); ok {
			f.Flush()
		}
		fmt.Fprintln(os.Stderr, "test: holding the write of", path)
		time.Sleep(time.Minute)
		return nil
	})
}

// startMGPU starts this test binary as mgpu with args and env, and
// returns it with its stderr read up to and including the line holding
// ready.
func startMGPU(t *testing.T, ready string, env []string, args ...string) (*exec.Cmd, *bufio.Reader, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "MGPU_TEST_AS_MAIN=1"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(stderr)
	var seen bytes.Buffer
	for !strings.Contains(seen.String(), ready) {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("%q never appeared on stderr: %q", ready, seen.String())
		}
		seen.WriteByte(b)
	}
	return cmd, r, seen.String()
}

// stopMGPU sends sig and returns the exit status and the rest of stderr.
func stopMGPU(t *testing.T, cmd *exec.Cmd, r *bufio.Reader, sig os.Signal) (int, string) {
	t.Helper()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	cmd.Wait()
	return cmd.ProcessState.ExitCode(), string(rest)
}

// SIGTERM while run writes its result: the hidden temporary file is
// removed, stderr says what was stopped and what was not written, and the
// exit status is a shell's for SIGTERM.
func TestRunSIGTERMRemovesItsTemporaryResult(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	cmd, r, _ := startMGPU(t, "test: holding the write", []string{"MGPU_TEST_HOLD_WRITE=1"},
		"run", "--workload", "private", "--gpus", "2", "--scale", "0.01", "--out", out)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), ".r.json.tmp") {
		t.Fatalf("no temporary result while the write is held: %v", entries)
	}
	temp := filepath.Join(dir, entries[0].Name())
	code, errs := stopMGPU(t, cmd, r, syscall.SIGTERM)
	if code != 143 {
		t.Errorf("exit %d, want 143 (128+SIGTERM)", code)
	}
	want := fmt.Sprintf("mgpu: run stopped by SIGTERM while writing the result; not written: %s (its temporary file %s removed)\n", out, temp)
	if !strings.HasSuffix(errs, want) {
		t.Errorf("stderr %q\ndoes not end with %q", errs, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// SIGINT during the simulation: run says what it was simulating, below
// its progress line, writes no result and no partial CPU profile, and
// exits 130.
func TestRunSIGINTDuringSimulationSaysWhatStopped(t *testing.T) {
	dir := t.TempDir()
	cmd, r, _ := startMGPU(t, "simulated", nil, "run", "--workload", "mm", "--gpus", "4", "--progress", "on",
		"--out", filepath.Join(dir, "r.json"), "--cpuprofile", filepath.Join(dir, "cpu.prof"))
	code, errs := stopMGPU(t, cmd, r, os.Interrupt)
	if code != 130 {
		t.Errorf("exit %d, want 130 (128+SIGINT)", code)
	}
	// The progress line is erased ("\r"), then the message has its line.
	want := "mgpu: run stopped by SIGINT while simulating mm under on-touch on 4 GPUs, before any result was written\n"
	if i := strings.LastIndex(errs, "\r"); i < 0 || errs[i+1:] != want {
		t.Errorf("stderr %q\ndoes not end with the progress line erased and %q", errs, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
