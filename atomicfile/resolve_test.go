package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Resolve follows every link the write will follow, also toward files and
// directories that do not exist yet.
func TestResolveFollowsLinksAsTheWriteWill(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "real"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "real", "f"), []byte("x"), 0o644))
	must(os.Symlink("real", filepath.Join(dir, "dirlink")))
	must(os.Symlink("real/f", filepath.Join(dir, "filelink")))
	must(os.Symlink("dirlink/f", filepath.Join(dir, "chain")))
	must(os.Symlink(filepath.Join(dir, "nowhere", "new.json"), filepath.Join(dir, "dangling")))
	must(os.Symlink("missing-dir", filepath.Join(dir, "danglingdir")))
	must(os.Symlink("loop", filepath.Join(dir, "loop")))
	must(os.Symlink("real/sub", filepath.Join(dir, "deep")))
	must(os.Mkdir(filepath.Join(dir, "real", "sub"), 0o755))
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "real", "f"), filepath.Join(dir, "real", "f")},
		{filepath.Join(dir, "filelink"), filepath.Join(dir, "real", "f")},
		{filepath.Join(dir, "chain"), filepath.Join(dir, "real", "f")},
		{filepath.Join(dir, "dirlink", "new.json"), filepath.Join(dir, "real", "new.json")},
		{filepath.Join(dir, "dangling"), filepath.Join(dir, "nowhere", "new.json")},
		{filepath.Join(dir, "danglingdir", "a", "r.json"), filepath.Join(dir, "missing-dir", "a", "r.json")},
		// ".." after a link is the parent of its target, as the kernel
		// takes it, not the directory holding the link.
		{filepath.Join(dir, "deep") + "/../f", filepath.Join(dir, "real", "f")},
		{dir + "/./real//f", filepath.Join(dir, "real", "f")},
	} {
		got, err := Resolve(c.path)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
	if _, err := Resolve(filepath.Join(dir, "loop")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link loop: %v, want an error about links", err)
	}
	wd, err := os.Getwd()
	must(err)
	realWD, err := filepath.EvalSymlinks(wd)
	must(err)
	if got, err := Resolve("x.json"); err != nil || got != filepath.Join(realWD, "x.json") {
		t.Errorf("Resolve(x.json) = %q, %v; want it in the working directory %s", got, err, realWD)
	}
}

// A symlinked output is written through: the link stays a link and its
// target gets the data, also a target that does not exist yet.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "data", "r.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first", "second"} {
		if err := CheckFile(link); err != nil {
			t.Fatal(err)
		}
		if err := WriteBytes(link, []byte(want)); err != nil {
			t.Fatal(err)
		}
		st, err := os.Lstat(link)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symlink: %v, %v", link, st.Mode(), err)
		}
		if got, _ := os.ReadFile(target); string(got) != want {
			t.Fatalf("target holds %q, want %q", got, want)
		}
	}
	// A directory that is a dangling link is refused, naming its target
	// (TestCheckNamesADanglingLink): nothing is made where it points.
	dlink := filepath.Join(dir, "results")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), dlink); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(dlink); err == nil {
		t.Fatal("CheckDir through a dangling link: accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); err == nil {
		t.Fatal("CheckDir made the dangling link's target")
	}
}

// A write that panics leaves no temporary file; one that fails before its
// first byte never made one.
func TestWritePanicLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	func() {
		defer func() { recover() }()
		Write(path, func(w io.Writer) error {
			w.Write(make([]byte, 1<<17)) // past the buffer: the file exists
			panic("boom")
		})
	}()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v after a panic", entries)
	}
}

// Abandon removes the temporary file of a write under way, reports it,
// and refuses later writes.
func TestAbandonRemovesTempsOfWritesUnderWay(t *testing.T) {
	defer func() { temps.Lock(); temps.stopped = false; temps.Unlock() }()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	var got []Abandoned
	err := Write(path, func(w io.Writer) error {
		w.Write(make([]byte, 1<<17))
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), ".r.json.tmp") {
			t.Errorf("no temporary file while writing: %v", entries)
		}
		got = Abandon()
		return nil
	})
	if err == nil {
		t.Fatalf("the abandoned write succeeded")
	}
	if len(got) != 1 || got[0].Path != path || !strings.HasPrefix(filepath.Base(got[0].Temp), ".r.json.tmp") {
		t.Fatalf("Abandon reported %+v", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
	if err := WriteBytes(path, []byte("x")); err == nil || !strings.Contains(err.Error(), "stopping") {
		t.Fatalf("a write after Abandon: %v", err)
	}
}
