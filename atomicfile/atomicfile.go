// Package atomicfile writes result files so that a reader, or a sweep that
// resumes after an interruption, never sees half a file: the data goes to a
// temporary file in the same directory, which is synced to disk and renamed
// into place only when everything was written, and the directory is synced
// after the rename, so that a crash or power loss leaves the old file or the
// new one, never an empty one. A path that is a symlink is written through
// (Resolve): the rename replaces its target, not the link. Abandon removes
// the temporary files of the writes under way, for a process ending on a
// signal.
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
// path atomically. On any error (or panic) path is left as it was and no
// temporary file remains.
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
	// A symlink is written through: the rename replaces its target, and
	// the link stays.
	target, err := Resolve(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := &lazyTemp{dir: dir, pattern: "." + filepath.Base(target) + ".tmp*", target: path}
	defer tmp.remove() // fails harmlessly after the rename
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.open() // an empty result is still a file
	}
	if err == nil {
		// CreateTemp makes 0600; results are shared, e.g. on a cluster.
		err = tmp.f.Chmod(0o644)
	}
	if err == nil {
		// Without this the rename may reach the disk before the data,
		// and a crash leaves an empty file under the final name.
		err = syncFile(tmp.f)
	}
	if cerr := tmp.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.f.Name(), target); err != nil {
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
	// Through a symlink, Write creates its target's directory.
	target, err := Resolve(path)
	if err != nil {
		return err
	}
	return checkDir(filepath.Dir(target), path)
}

// danglingAbove reports the first of path and its parents, as named, that
// is a symbolic link to nothing.
func danglingAbove(path string) error {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			return nil // it and everything above it resolve
		}
		if err := danglingLink(p); err != nil {
			return err
		}
		if up := filepath.Dir(p); up == p {
			return nil
		}
	}
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
// needed (through a symlink to a place that exists, its target, as Write
// would; a link to nothing is refused): it must not be,
// or lie under, a regular file, and must be writable.
func CheckDir(dir string) error { return checkDir(dir, dir) }

// checkDir is CheckDir for a target in dir, named in the messages.
func checkDir(dir, target string) error {
	if dir == "" {
		dir = "."
	}
	given := dir
	// A directory that is, or lies under, a symbolic link to nothing is
	// refused, not created: the link's target may be a filesystem not
	// mounted. (A file's own link to a file not made yet is written
	// through.)
	named := dir
	if target != dir {
		named = filepath.Dir(target)
	}
	if err := danglingAbove(named); err != nil {
		return err
	}
	dir, err := Resolve(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	for d := dir; ; {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				if d == dir && given == target {
					return fmt.Errorf("%s is a file, not a directory", given)
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
