package sweep

import (
	"path/filepath"
	"testing"
)

// IsRunFile knows every name a run's files take, and no other.
func TestIsRunFileMatchesWhatARunWrites(t *testing.T) {
	r := Run{Workload: "mm", Policy: "oasis", Seed: 1, Scale: 1, Size: "auto"}
	dir := t.TempDir()
	for _, p := range []string{ResultPath(dir, r), stalePath(dir, r), filepath.Join(dir, r.Hash()+".failed.json")} {
		if !IsRunFile(filepath.Base(p)) {
			t.Errorf("%s is a run's file, IsRunFile says no", filepath.Base(p))
		}
	}
	for _, name := range []string{"collected.csv", "fig15.csv", r.Hash(), r.Hash() + ".csv", r.Hash() + "json", "0123456789ABCDEF.json", "0123456789abcde.json", "x" + r.Hash() + ".json"} {
		if IsRunFile(name) {
			t.Errorf("IsRunFile(%q) is true", name)
		}
	}
}
