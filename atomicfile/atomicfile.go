// Package atomicfile writes result files so that a reader, or a sweep that
// resumes after an interruption, never sees half a file: the data goes to a
// temporary file in the same directory, which is renamed into place only
// when everything was written.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates path's directory if needed and streams write's output to
// path atomically. On any error path is left as it was.
func Write(path string, write func(io.Writer) error) error {
	if err := writeTemp(path, write); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func writeTemp(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		// CreateTemp makes 0600; results are shared, e.g. on a cluster.
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
