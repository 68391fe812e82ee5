package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mgpu-sim/mgpu/atomicfile"
)

// ioPath is a file a command reads or writes, or, with in set, the files
// in a directory that it reads or writes (a sweep's results).
type ioPath struct {
	what string // how messages name it: "--out", "the --config file"
	path string // "" for a flag not given: nothing to check
	// in, if not nil, makes path a directory: its files named so are the
	// ones meant; only existing ones if existing is set (collect reads
	// what is there, a sweep also writes new ones).
	in       func(name string) bool
	existing bool
	fix      string // what to do instead, for an output; default "choose another path for <what>"
}

func ioFile(what, path string) ioPath { return ioPath{what: what, path: path} }

// ioFiles are the files in dir whose names in accepts.
func ioFiles(what, dir string, in func(string) bool, existing bool, fix string) ioPath {
	return ioPath{what: what, path: dir, in: in, existing: existing, fix: fix}
}

// refuseClobber refuses, before a command does any work, an output that
// would overwrite one of its inputs or another of its outputs: without it
// 'run --config c.yaml --out c.yaml' replaced the config with the result,
// exit 0. Paths are compared as the write takes them (atomicfile.Resolve:
// through symlinks, also toward files not made yet) and, where both exist,
// as one file under two names (hard links). The error, exit 2, names both
// and what to do instead.
func refuseClobber(outs, ins []ioPath) error {
	c := clobberCheck{seen: map[string]resolvedPath{}, dirs: map[string][]member{}, stats: map[string]os.FileInfo{}}
	for i, o := range outs {
		for _, in := range ins {
			if err := c.pair(o, in, false); err != nil {
				return err
			}
		}
		for _, o2 := range outs[i+1:] {
			if err := c.pair(o, o2, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolvedPath is where a path leads, and the file there if any.
type resolvedPath struct {
	real string
	st   os.FileInfo // nil when nothing is there yet
}

// member is a file of an ioPath directory: its name, and for a symlink
// where it leads.
type member struct {
	name string
	link *resolvedPath
}

// clobberCheck caches what refuseClobber resolved, listed and stat'ed.
type clobberCheck struct {
	seen  map[string]resolvedPath
	dirs  map[string][]member
	stats map[string]os.FileInfo
}

func (c *clobberCheck) resolve(p ioPath) (resolvedPath, error) {
	if r, ok := c.seen[p.path]; ok {
		return r, nil
	}
	real, err := atomicfile.Resolve(p.path)
	if err != nil {
		return resolvedPath{}, badInput("%s %s: %v", p.what, p.path, err)
	}
	r := resolvedPath{real: real}
	if st, err := os.Stat(real); err == nil {
		r.st = st
	}
	c.seen[p.path] = r
	return r, nil
}

// pair checks one output against an input, or against another output.
func (c *clobberCheck) pair(out, other ioPath, bothOut bool) error {
	if out.path == "" || other.path == "" || (out.in != nil && other.in != nil) {
		return nil
	}
	f, d := out, other // a file, and a file or a directory's files
	if out.in != nil {
		f, d = other, out
	}
	rf, err := c.resolve(f)
	if err != nil {
		return err
	}
	fPath, dPath, rd := f.path, d.path, resolvedPath{}
	if d.in == nil {
		if rd, err = c.resolve(d); err != nil || !same(rf, rd) {
			return err
		}
	} else {
		if dPath, rd, err = c.memberLike(d, rf); err != nil || dPath == "" {
			return err
		}
	}
	outPath, otherPath := fPath, dPath
	if out.in != nil {
		outPath, otherPath = dPath, fPath
	}
	real := rf.real
	if rf.real != rd.real {
		real = ""
	}
	return clobbered(out, other, outPath, otherPath, real, bothOut)
}

// memberLike returns the path of d's file that is the file r, and where
// it leads, or "".
func (c *clobberCheck) memberLike(d ioPath, r resolvedPath) (string, resolvedPath, error) {
	rd, err := c.resolve(ioPath{what: d.what, path: d.path})
	if err != nil {
		return "", r, err
	}
	if name := filepath.Base(r.real); filepath.Dir(r.real) == rd.real && d.in(name) && (!d.existing || r.st != nil) {
		return filepath.Join(d.path, name), r, nil
	}
	for _, m := range c.members(d, rd.real) {
		if m.link != nil && same(r, *m.link) {
			return filepath.Join(d.path, m.name), *m.link, nil
		}
		// Another name of an existing file: a hard link.
		if m.link == nil && r.st != nil {
			if st := c.stat(filepath.Join(rd.real, m.name)); st != nil && os.SameFile(r.st, st) {
				return filepath.Join(d.path, m.name), resolvedPath{filepath.Join(rd.real, m.name), st}, nil
			}
		}
	}
	return "", r, nil
}

// members lists d's files in dir, resolving only the symlinks: the
// others are stat'ed only if a file to compare with exists, so that a
// large results directory costs one listing.
func (c *clobberCheck) members(d ioPath, dir string) []member {
	if ms, ok := c.dirs[dir]; ok {
		return ms
	}
	entries, _ := os.ReadDir(dir) // none yet, or reported where it is read
	var ms []member
	for _, e := range entries {
		if e.IsDir() || !d.in(e.Name()) {
			continue
		}
		m := member{name: e.Name()}
		if e.Type()&os.ModeSymlink != 0 {
			r, err := c.resolve(ioPath{what: d.what, path: filepath.Join(dir, e.Name())})
			if err != nil {
				continue // a loop of links leads to no file
			}
			m.link = &r
		}
		ms = append(ms, m)
	}
	c.dirs[dir] = ms
	return ms
}

// stat is os.Stat, once per path; nil if there is nothing.
func (c *clobberCheck) stat(path string) os.FileInfo {
	st, ok := c.stats[path]
	if !ok {
		st, _ = os.Stat(path)
		c.stats[path] = st
	}
	return st
}

// same is whether two resolved paths are one file: one path, or, where
// both exist, one inode (hard links).
func same(a, b resolvedPath) bool {
	return a.real == b.real || (a.st != nil && b.st != nil && os.SameFile(a.st, b.st))
}

// clobbered is refuseClobber's error: out, at outPath, would overwrite
// other, at otherPath; real is where both lead, "" for two names of one
// file (hard links).
func clobbered(out, other ioPath, outPath, otherPath, real string, bothOut bool) error {
	how := ""
	switch {
	case filepath.Clean(outPath) == filepath.Clean(otherPath):
	case real != "":
		how = " (both lead to " + real + ")"
	default:
		how = " (hard links to one file)"
	}
	if bothOut {
		names := otherPath
		if how != "" {
			names = fmt.Sprintf("one file, %s and %s%s", outPath, otherPath, how)
		}
		return badInput("%s and %s both name %s: one would replace the other; give each its own file", out.what, other.what, names)
	}
	fix := out.fix
	if fix == "" {
		fix = "choose another path for " + out.what
	}
	return badInput("%s %s names %s %s%s: writing it would destroy that input; %s", out.what, outPath, other.what, otherPath, how, fix)
}
