package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteReplacesWholeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "r.json")
	for _, want := range []string{"first", "second, longer"} {
		if err := WriteBytes(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v; want 0644", st.Mode(), err)
	}
}

// A failed write leaves the old file and no temporary behind.
func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.csv")
	if err := WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v: want boom, naming %s", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("file now %q, want old", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d entries in dir, want only r.csv", len(entries))
	}
}

// The temporary file is synced before the rename makes it visible, and the
// directory after, so that a crash cannot leave an empty result.
func TestWriteSyncsFileBeforeRenameAndDirAfter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	var events []string
	oldFile, oldDir := syncFile, syncDir
	defer func() { syncFile, syncDir = oldFile, oldDir }()
	syncFile = func(f *os.File) error {
		data, _ := os.ReadFile(f.Name())
		_, err := os.Stat(path)
		events = append(events, "file:"+string(data)+":visible="+boolStr(err == nil))
		return f.Sync()
	}
	syncDir = func(d string) error {
		data, _ := os.ReadFile(path)
		events = append(events, "dir:"+filepath.Base(d)+":"+string(data))
		return oldDir(d)
	}
	if err := WriteBytes(path, []byte("data")); err != nil {
		t.Fatal(err)
	}
	want := []string{"file:data:visible=false", "dir:" + filepath.Base(dir) + ":data"}
	if strings.Join(events, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", events, want)
	}
}

// A failing fsync is a failed write: the old file stays.
func TestWriteSyncFailureKeepsOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	old := syncFile
	defer func() { syncFile = old }()
	boom := errors.New("disk gone")
	syncFile = func(*os.File) error { return boom }
	if err := WriteBytes(path, []byte("new")); !errors.Is(err, boom) {
		t.Fatalf("error %v, want the sync error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("file now %q, want old", got)
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestCheckRejectsUnusablePathsBeforeAnyWork(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	devLink := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", devLink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
		check            func(string) error
	}{
		{"file path is a directory", dir, "is a directory", CheckFile},
		{"file under a file", filepath.Join(file, "r.json"), file + " is a file", CheckFile},
		{"file deep under a file", filepath.Join(file, "a", "b", "r.json"), file + " is a file", CheckFile},
		{"unwritable place", "/proc/mgpu-no-such/r.json", "/proc/mgpu-no-such", CheckFile},
		{"dir is a file", file, "is a file, not a directory", CheckDir},
		{"dir under a file", filepath.Join(file, "sub"), file + " is a file", CheckDir},
		{"empty file name", "", "empty path", CheckFile},
		{"trailing slash", filepath.Join(dir, "new") + "/", "names a directory", CheckFile},
		{"character device", "/dev/null", "is a character device", CheckFile},
		{"symlink to a device", devLink, "is a character device", CheckFile},
		{"named pipe", fifo, "is a named pipe", CheckFile},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.check(c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%s: got %v, want an error mentioning %q", c.path, err, c.want)
			}
		})
	}
	// A good path passes, its directory is made, and no probe is left.
	good := filepath.Join(dir, "new", "deeper", "r.json")
	if err := CheckFile(good); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(good))
	if err != nil || len(entries) != 0 {
		t.Fatalf("after the check: %v, %v; want an empty new directory", entries, err)
	}
}

// A directory that is a symbolic link to nothing is named with its missing
// target, not "mkdir: file exists", whether it is the directory asked for
// or one above a file; nothing is created.
func TestCheckNamesADanglingLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "gone", "results")
	link := filepath.Join(dir, "results")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	want := link + " is a symbolic link to " + target + ", which does not exist: create " + target + ", or remove the link"
	if err := CheckDir(link); err == nil || err.Error() != want {
		t.Errorf("CheckDir: %v\nwant %s", err, want)
	}
	if err := CheckFile(filepath.Join(link, "sub", "r.json")); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckFile: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone")); err == nil {
		t.Error("the check created the link's target")
	}
}
