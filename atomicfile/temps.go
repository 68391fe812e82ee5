package atomicfile

import (
	"errors"
	"os"
	"sort"
	"sync"
)

// temps are the temporary files of the writes under way, so that Abandon
// can remove them when the process is stopped by a signal: the deferred
// removal in Write never runs then.
var temps = struct {
	sync.Mutex
	files   map[string]string // temporary file -> the path being written
	stopped bool
}{files: map[string]string{}}

// errStopped is Write's error once Abandon has run.
var errStopped = errors.New("the process is stopping: no more files are written")

// lazyTemp is a write's temporary file, created on the first byte: a
// write that fails (or a process that dies) before producing output
// leaves nothing behind.
type lazyTemp struct {
	dir, pattern, target string
	f                    *os.File
	closed               bool
}

func (t *lazyTemp) Write(p []byte) (int, error) {
	if err := t.open(); err != nil {
		return 0, err
	}
	return t.f.Write(p)
}

// open creates the file once, registered in temps under the same lock
// that Abandon takes, so none is created unseen.
func (t *lazyTemp) open() error {
	if t.f != nil {
		return nil
	}
	temps.Lock()
	defer temps.Unlock()
	if temps.stopped {
		return errStopped
	}
	f, err := os.CreateTemp(t.dir, t.pattern)
	if err != nil {
		return err
	}
	t.f = f
	temps.files[f.Name()] = t.target
	return nil
}

func (t *lazyTemp) close() error {
	if t.f == nil || t.closed {
		return nil
	}
	t.closed = true
	return t.f.Close()
}

// remove deletes the temporary file if it is still there (after a
// failure) and forgets it.
func (t *lazyTemp) remove() {
	if t.f == nil {
		return
	}
	t.close()
	temps.Lock()
	defer temps.Unlock()
	delete(temps.files, t.f.Name())
	os.Remove(t.f.Name())
}

// Abandoned is a write Abandon stopped: the path it was writing, left as
// it was, and the temporary file removed.
type Abandoned struct{ Path, Temp string }

// Abandon removes the temporary file of every write under way and makes
// every later Write fail: the caller is about to end the process (on
// SIGINT or SIGTERM), and no hidden file may survive it. It returns the
// writes it stopped.
func Abandon() []Abandoned {
	temps.Lock()
	defer temps.Unlock()
	temps.stopped = true
	var out []Abandoned
	for tmp, path := range temps.files {
		// A write that renamed its file already is done, not abandoned.
		if os.Remove(tmp) == nil {
			out = append(out, Abandoned{Path: path, Temp: tmp})
		}
		delete(temps.files, tmp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
