package main

// mgpu collect: the results in a directory merged into one CSV.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/sweep"
)

// writeCollected merges the results of runs, read from dir, into a CSV.
func writeCollected(dir, path string, runs []sweep.Run) error {
	return atomicfile.Write(path, func(w io.Writer) error { return sweep.WriteCSV(w, resultsOf(runs, dir)) })
}

// cmdCollect: mgpu collect DIR [--csv out.csv]
func cmdCollect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("collect")
	out := fs.String("csv", "", "output CSV (default <DIR>/collected.csv)")
	dir, err := parsePositional(fs, args, stdout)
	if err != nil {
		return err
	}
	if dir == "" {
		return usageError{"collect", errors.New("no directory: mgpu collect DIR [--csv out.csv]")}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return badInput("collect: %s is not a directory", dir)
	}
	if err := collectClobber(dir, *out); err != nil {
		return err
	}
	path := firstNonEmpty(*out, filepath.Join(dir, "collected.csv"))
	if err := atomicfile.CheckFile(path); err != nil {
		return badInput("--csv: %v", err)
	}
	col, err := sweep.Collect(dir)
	if err != nil {
		return inputError{err}
	}
	for _, s := range col.Skipped {
		fmt.Fprintf(stderr, "mgpu: warning: skipped %s: %s\n", s.File, s.Reason)
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return sweep.WriteCSV(w, col.Results) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "collected %d results (%d failed runs, %d files skipped) into %s\n", len(col.Results), len(col.Failures), len(col.Skipped), path)
	for _, f := range col.Failures {
		fmt.Fprintf(stdout, "  failed: %s: %s\n", f.Run, f.Error)
	}
	for _, s := range col.Skipped {
		fmt.Fprintf(stdout, "  skipped: %s\n", s.File)
	}
	return nil
}
