// Package atomicfile writes result files so that a reader, or a sweep that
// resumes after an interruption, never sees half a file: the data goes to a
// temporary file in the same directory, which is synced to disk and renamed
// into place only when everything was written, and the directory is synced
// after the rename, so that a crash or power loss leaves the old file or the
// new one, never an empty one.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// syncFile and syncDir are the fsyncs, replaceable by tests to observe
// their order against the rename.
var (
	syncFile = func(f *os.File) error { return f.Sync() }
	syncDir  = func(dir string) error {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	}
)

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
	if err == nil {
		// Without this the rename may reach the disk before the data,
		// and a crash leaves an empty file under the final name.
		err = syncFile(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename is durable only once the directory entry is.
	return syncDir(dir)
}

// CheckFile reports, before any work is done, whether Write(path) can
// succeed: path must name a regular file or a new one (not a directory,
// nor a device, pipe or socket, which the rename would replace), no
// ancestor may be a file, and its directory must be writable. The
// directory is created, as Write would create it, to prove that.
func CheckFile(path string) error {
	if path == "" {
		return errors.New("empty path: give a file name")
	}
	if strings.HasSuffix(path, string(filepath.Separator)) {
		return fmt.Errorf("%s ends with %c, so it names a directory: give a file name", path, filepath.Separator)
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory: give a file name inside it or elsewhere", path)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is %s: results are written only to regular files or new paths", path, fileKind(st.Mode()))
		}
	}
	return checkDir(filepath.Dir(path), path)
}

// danglingLink reports a path that does not exist because it is a
// symbolic link to nothing: MkdirAll would fail on it with "file exists".
func danglingLink(path string) error {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	to, err := os.Readlink(path)
	if err != nil {
		return nil
	}
	return fmt.Errorf("%s is a symbolic link to %s, which does not exist: create %s, or remove the link", path, to, to)
}

// fileKind names what a path that is not a regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// CheckDir reports whether files can be written into dir, creating it if
// needed: it must not be, or lie under, a regular file, and must be
// writable.
func CheckDir(dir string) error { return checkDir(dir, dir) }

// checkDir is CheckDir for a target in dir, named in the messages.
func checkDir(dir, target string) error {
	if dir == "" {
		dir = "."
	}
	for d := dir; ; {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				if d == target {
					return fmt.Errorf("%s is a file, not a directory", d)
				}
				return fmt.Errorf("%s: %s is a file, not a directory", target, d)
			}
			break
		}
		// ENOTDIR (a component is a file) and ENOENT: look further up.
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("%s: %w", target, err)
		}
		if err := danglingLink(d); err != nil {
			if d == target {
				return err
			}
			return fmt.Errorf("%s: %w", target, err)
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".mgpu-probe-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
