package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links Resolve follows, as the kernel's
// ELOOP does, so that a loop of links is an error, not a hang.
const maxLinks = 255

// Resolve returns the file a Write to path replaces: path made absolute,
// with every symbolic link along it followed, a last one too even when its
// target does not exist yet. Write renames onto this path, so that it
// writes through a link instead of replacing it, and a command compares
// its outputs with its inputs by it. The part of a path that does not
// exist yet is kept as given, as Write creates it.
//
// Components are taken in order, as the kernel does, so that "link/.."
// is the parent of link's target, not the directory holding link.
func Resolve(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("empty path: give a file name")
	}
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		path = wd + string(filepath.Separator) + path
	}
	vol := filepath.VolumeName(path)
	done, todo := vol+string(filepath.Separator), path[len(vol):]
	for links := 0; todo != ""; {
		var part string
		part, todo, _ = strings.Cut(strings.TrimLeft(todo, string(filepath.Separator)), string(filepath.Separator))
		switch part {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, part)
		st, err := os.Lstat(next)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			done = next // a file, a directory, or not there yet
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: more than %d symbolic links (a loop?)", path, maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			done, target = v+string(filepath.Separator), target[len(v):]
		}
		todo = target + string(filepath.Separator) + todo
	}
	return done, nil
}
