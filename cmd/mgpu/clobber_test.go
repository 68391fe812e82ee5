package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// clobberRow is a command whose output would overwrite one of its inputs
// (or another output): it must exit 2 before any work, naming both, and
// leave every file as it was. In args, files, links and hard, $D is the
// row's temporary directory ($R in want: its path with no symlink).
type clobberRow struct {
	writes string            // the command and flag that writes: "run --out"
	name   string            // how the output is the input
	args   []string          // after the command
	files  map[string]string // name in $D -> contents
	links  map[string]string // name in $D -> symlink target
	hard   map[string]string // name in $D -> a file in $D it is a hard link of
	want   []string          // each in the message
}

const (
	kernelList = "MemcpyHtoD,0x7f0000000000,4096\nkernel-1.traceg\n"
	keptName   = "0123456789abcdef.json" // a sweep's or figure's kept result
	tinySpec   = "name: s\nworkloads: [private]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.01\n"
)

var (
	configInput = map[string]string{"c.yaml": "gpus: 2\n"}
	table       = map[string]string{"t.csv": "app,a\nmm,1\n"}
	recorded    = map[string]string{"t.tr": "mgpu-trace\n"}
	accel       = map[string]string{"tr/kernelslist.g": kernelList, "tr/kernel-1.traceg": "-kernel name = k\n"}
	specFile    = map[string]string{"s.yaml": tinySpec}
	kept        = map[string]string{"res/" + keptName: `{"workload": "mm", "policy": "oasis"}`}
)

func with(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// clobberRows: every command and flag that writes a file, against each
// input it reads, by the same path, through a symlink and as a hard link.
var clobberRows = []clobberRow{
	{writes: "run --out", name: "the config", args: []string{"run", "--config", "$D/c.yaml", "--out", "$D/c.yaml"}, files: configInput, want: []string{"--out $D/c.yaml names the --config file $D/c.yaml", "choose another path for --out"}},
	{writes: "run --out", name: "a symlink to the config", args: []string{"run", "--config", "$D/c.yaml", "--out", "$D/r.json"}, files: configInput, links: map[string]string{"r.json": "c.yaml"},
		want: []string{"--out $D/r.json names the --config file $D/c.yaml (both lead to $R/c.yaml)"}},
	{writes: "run --out", name: "a hard link to the config", args: []string{"run", "--config", "$D/c.yaml", "--out", "$D/r.json"}, files: configInput, hard: map[string]string{"r.json": "c.yaml"},
		want: []string{"--out $D/r.json names the --config file $D/c.yaml (hard links to one file)"}},
	{writes: "run --out", name: "the config through a linked directory", args: []string{"run", "--config", "$D/c.yaml", "--out", "$D/same/c.yaml"}, files: configInput, links: map[string]string{"same": "."},
		want: []string{"--out $D/same/c.yaml names the --config file $D/c.yaml"}},
	{writes: "run --out", name: "the trace", args: []string{"run", "--trace", "$D/t.tr", "--out", "$D/t.tr"}, files: recorded, want: []string{"--out $D/t.tr names the --trace file $D/t.tr"}},
	{writes: "run --csv", name: "the config", args: []string{"run", "--config", "$D/c.yaml", "--csv", "$D/c.yaml"}, files: configInput, want: []string{"--csv $D/c.yaml names the --config file", "choose another path for --csv"}},
	{writes: "run --csv", name: "the trace via a symlink", args: []string{"run", "--trace", "$D/t.tr", "--csv", "$D/r.csv"}, files: recorded, links: map[string]string{"r.csv": "$D/t.tr"},
		want: []string{"--csv $D/r.csv names the --trace file $D/t.tr"}},
	{writes: "run --csv", name: "--out through a symlink", args: []string{"run", "--out", "$D/r.json", "--csv", "$D/r.csv"}, links: map[string]string{"r.csv": "r.json"},
		want: []string{"--out and --csv both name one file, $D/r.json and $D/r.csv (both lead to $R/r.json)", "give each its own file"}},
	{writes: "run --csv", name: "--out, through directory links to one not made yet", args: []string{"run", "--out", "$D/a/r.json", "--csv", "$D/b/r.json"}, links: map[string]string{"a": "new", "b": "new"},
		want: []string{"--out and --csv both name one file, $D/a/r.json and $D/b/r.json (both lead to $R/new/r.json)"}},
	{writes: "run --cpuprofile", name: "the config", args: []string{"run", "--config", "$D/c.yaml", "--cpuprofile", "$D/c.yaml"}, files: configInput, want: []string{"--cpuprofile $D/c.yaml names the --config file"}},
	{writes: "run --cpuprofile", name: "the trace", args: []string{"run", "--trace", "$D/t.tr", "--cpuprofile", "$D/t.tr"}, files: recorded, want: []string{"--cpuprofile $D/t.tr names the --trace file"}},
	{writes: "trace record --out", name: "the config", args: []string{"trace", "record", "--config", "$D/c.yaml", "--out", "$D/c.yaml"}, files: configInput, want: []string{"--out $D/c.yaml names the --config file"}},
	{writes: "trace convert --out", name: "the kernel list", args: []string{"trace", "convert", "--accelsim", "$D/tr/kernelslist.g", "--out", "$D/tr/kernelslist.g"}, files: accel,
		want: []string{"--out $D/tr/kernelslist.g names the kernel list (--accelsim) $D/tr/kernelslist.g"}},
	{writes: "trace convert --out", name: "a kernel trace", args: []string{"trace", "convert", "--accelsim", "$D/tr/kernelslist.g", "--out", "$D/k.tr"}, files: accel, links: map[string]string{"k.tr": "tr/kernel-1.traceg"},
		want: []string{"--out $D/k.tr names the kernel trace $D/tr/kernel-1.traceg"}},
	{writes: "trace convert --out", name: "the config", args: []string{"trace", "convert", "--accelsim", "$D/tr/kernelslist.g", "--config", "$D/c.yaml", "--out", "$D/c.yaml"}, files: with(accel, configInput),
		want: []string{"--out $D/c.yaml names the --config file"}},
	{writes: "sweep --csv", name: "the spec", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--csv", "$D/s.yaml"}, files: specFile, want: []string{"--csv $D/s.yaml names the sweep spec $D/s.yaml"}},
	{writes: "sweep --csv", name: "a kept result", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--csv", "$D/res/" + keptName}, files: with(specFile, kept),
		want: []string{"--csv and the sweep's kept result both name $D/res/" + keptName}},
	{writes: "sweep --csv", name: "the default merged CSV, a link to the spec", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: specFile, links: map[string]string{"res/s.csv": "../s.yaml"},
		want: []string{"the merged CSV $D/res/s.csv names the sweep spec $D/s.yaml"}},
	{writes: "sweep --results", name: "the spec as a kept result", args: []string{"sweep", "$D/res/" + keptName, "--results", "$D/res", "--no-csv"}, files: map[string]string{"res/" + keptName: tinySpec},
		want: []string{"the sweep's kept result $D/res/" + keptName + " names the sweep spec", "choose another --results directory"}},
	{writes: "sweep --results", name: "a hard link to the spec", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--no-csv"}, files: specFile, hard: map[string]string{"res/" + keptName: "s.yaml"},
		want: []string{"names the sweep spec $D/s.yaml", "hard link"}},
	{writes: "collect --csv", name: "a result it reads", args: []string{"collect", "$D/res", "--csv", "$D/res/r.json"}, files: map[string]string{"res/r.json": `{"workload": "mm", "policy": "oasis"}`},
		want: []string{"--csv $D/res/r.json names the result file $D/res/r.json"}},
	{writes: "collect --csv", name: "the default CSV, a link to a result", args: []string{"collect", "$D/res"}, files: kept, links: map[string]string{"res/collected.csv": keptName},
		want: []string{"the collected CSV $D/res/collected.csv names the result file $D/res/" + keptName}},
	{writes: "collect --csv", name: "a hard link to a result", args: []string{"collect", "$D/res", "--csv", "$D/all.csv"}, files: kept, hard: map[string]string{"all.csv": "res/" + keptName},
		want: []string{"--csv $D/all.csv names the result file", "hard link"}},
	{writes: "figure --out", name: "its CSV, a link to a kept result", args: []string{"figure", "fig15", "--quick", "--results", "$D/res", "--out", "$D/figs"}, files: kept, links: map[string]string{"figs/fig15-quick.csv": "../res/" + keptName},
		want: []string{"--out and the figure's kept result both name one file, $D/figs/fig15-quick.csv and $D/res/" + keptName + " (both lead to $R/res/" + keptName + ")"}},
	{writes: "figure --results", name: "its PNG, a hard link to a kept result", args: []string{"figure", "fig15", "--quick", "--results", "$D/res", "--out", "$D/figs"}, files: with(kept, map[string]string{"figs/.keep": ""}), hard: map[string]string{"figs/fig15-quick.png": "res/" + keptName},
		want: []string{"--out and the figure's kept result both name one file, $D/figs/fig15-quick.png and $D/res/" + keptName + " (hard links to one file)"}},
	{writes: "plot --out", name: "the CSV, by its default base", args: []string{"plot", "$D/t.svg"}, files: map[string]string{"t.svg": table["t.csv"]},
		want: []string{"the plot $D/t.svg names the plotted CSV $D/t.svg", "give --out another base name"}},
	{writes: "plot --out", name: "the CSV, through a symlink", args: []string{"plot", "$D/t.csv", "--out", "$D/p"}, files: table, links: map[string]string{"p.png": "t.csv"},
		want: []string{"the plot $D/p.png names the plotted CSV $D/t.csv"}},
	{writes: "characterize --out", name: "the config", args: []string{"characterize", "--workload", "private", "--config", "$D/c.yaml", "--out", "$D/ch"}, files: configInput, links: map[string]string{"ch/app.csv": "../c.yaml"},
		want: []string{"--out's $D/ch/app.csv names the --config file $D/c.yaml", "choose another --out directory"}},
}

// TestNoOutputIsAnInput runs clobberRows: each exits 2 naming the output
// and the input, simulates nothing, and changes no file or link.
func TestNoOutputIsAnInput(t *testing.T) {
	for _, r := range clobberRows {
		t.Run(r.writes+": "+r.name, func(t *testing.T) {
			dir := t.TempDir()
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				t.Fatal(err)
			}
			d := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "$D", dir), "$R", real) }
			for name, body := range r.files {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range r.links {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.Symlink(d(target), p); err != nil {
					t.Fatal(err)
				}
			}
			for name, of := range r.hard {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.Link(filepath.Join(dir, of), p); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, dir)
			args := make([]string, len(r.args))
			for i, a := range r.args {
				args[i] = d(a)
			}
			code, out, errs := mgpu(args...)
			if code != 2 {
				t.Fatalf("%q: exit %d, want 2\nstdout: %s\nstderr: %s", args, code, out, errs)
			}
			for _, w := range r.want {
				if !strings.Contains(errs, d(w)) {
					t.Errorf("message lacks %q:\n%s", d(w), errs)
				}
			}
			if strings.Count(errs, "\n") != 1 || strings.Contains(out, "simulated") {
				t.Errorf("not one line before any work:\nstdout: %s\nstderr: %s", out, errs)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// snapshot lists every entry under dir: links with their targets, files
// with their contents.
func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			b.WriteString(rel + " -> " + target + "\n")
		case info.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			b.WriteString(rel + ": " + string(data) + "\n")
		default:
			b.WriteString(rel + "/\n")
		}
		return nil
	})
	return b.String()
}

// outputFlags are the flags by which a command writes a file.
var outputFlags = []string{"out", "csv", "cpuprofile", "results"}

// TestClobberRowsCoverEveryWriter: every command's output flag (read
// from its --help) has a row, so a new one cannot go unchecked.
func TestClobberRowsCoverEveryWriter(t *testing.T) {
	covered := map[string]bool{}
	for _, r := range clobberRows {
		covered[r.writes] = true
	}
	flagLine := regexp.MustCompile(`(?m)^  -(\w+)`)
	for _, cmd := range append(slices.Clone(commands), "trace record", "trace convert") {
		_, help, _ := mgpu(append(strings.Fields(cmd), "--help")...)
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			if slices.Contains(outputFlags, m[1]) && !covered[cmd+" --"+m[1]] {
				t.Errorf("%s --%s writes files but has no row in clobberRows", cmd, m[1])
			}
		}
	}
}

// An output that is a symlink is written through to its target, which
// is created if need be; the link stays.
func TestOutputSymlinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "data", "r.json") // its directory not made yet
	os.Symlink(res, filepath.Join(dir, "r.json"))
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(table["t.csv"]), 0o644)
	os.Mkdir(filepath.Join(dir, "img"), 0o755)
	os.Symlink(filepath.Join(dir, "img"), filepath.Join(dir, "imglink"))
	if code, _, errs := mgpu("run", "--workload", "private", "--gpus", "2", "--scale", "0.01", "--out", filepath.Join(dir, "r.json")); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if code, _, errs := mgpu("plot", filepath.Join(dir, "t.csv"), "--out", filepath.Join(dir, "imglink", "p")); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, errs)
	}
	if st, err := os.Lstat(filepath.Join(dir, "r.json")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("--out's symlink was replaced: %v %v", st.Mode(), err)
	}
	if data, err := os.ReadFile(res); err != nil || !bytes.Contains(data, []byte(`"workload": "private"`)) {
		t.Fatalf("the link's target holds no result: %v\n%.200s", err, data)
	}
	for _, f := range []string{"p.png", "p.svg"} {
		if st, err := os.Stat(filepath.Join(dir, "img", f)); err != nil || st.Size() == 0 {
			t.Errorf("plot through a linked directory: %s: %v", f, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "data")); len(entries) != 1 {
		t.Errorf("temporary files left beside the target: %v", entries)
	}
}

// Outputs beside inputs, not on them, are not refused: a new .json in the
// directory collect reads (it was not there to be read), and a plot beside
// its CSV.
func TestOutputsBesideInputsRun(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "res"), 0o755)
	// collect reads only whole results: a real one.
	if code, _, errs := mgpu("run", "--workload", "private", "--gpus", "2", "--scale", "0.01", "--out", filepath.Join(dir, "res", keptName)); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(table["t.csv"]), 0o644)
	for _, args := range [][]string{
		{"collect", filepath.Join(dir, "res"), "--csv", filepath.Join(dir, "res", "new.json")},
		{"plot", filepath.Join(dir, "t.csv")},
	} {
		if code, _, errs := mgpu(args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
}
