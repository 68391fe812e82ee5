package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// catalogueRow is one case of the bad-input catalogue (issues 30 and
// before): an argv, the files it needs, the exit status and the words the
// message must hold. In args and files, $D is the row's temporary
// directory.
type catalogueRow struct {
	name  string
	args  []string
	files map[string]string // name in $D -> contents
	links map[string]string // name in $D -> symlink target
	code  int
	want  []string // each must appear in stderr (stdout too for exit 0)
	// sim marks a row that simulates (a tiny run): its exit-2 check that
	// nothing was simulated does not apply.
	sim  bool
	skip string // "known: ..." for a row that shows an open bug
}

const (
	spec      = "workloads: [private]\npolicies: [on-touch]\ngpus: [2]\nscale: 0.01\n"
	tinyRun   = "--workload private --scale 0.01"
	helpWords = "Usage: mgpu "
)

func tiny(args ...string) []string {
	return append(append([]string{"run"}, strings.Fields(tinyRun)...), args...)
}

// catalogue is every example of issue 30 that is fixed, then the earlier
// classes: each fails before simulating, with exit 2 and a message naming
// the bad value and what to write instead; help exits 0.
var catalogue = []catalogueRow{
	// Issue 30: numbers are decimal everywhere.
	{name: "--gpus 010 runs 10 GPUs", args: tiny("--gpus", "010"), code: 0, want: []string{"on 10 GPUs"}, sim: true},
	{name: "--gpus 0100 is 100, not octal 64", args: []string{"run", "--gpus", "0100"}, code: 2, want: []string{"gpus = 100", "between 1 and 64"}},
	{name: "--gpus 065 is 65, not octal 53", args: []string{"run", "--gpus", "065"}, code: 2, want: []string{"gpus = 65"}},
	{name: "--seed 010 records seed 10", args: tiny("--seed", "010"), code: 0, want: []string{"seed 10"}, sim: true},
	{name: "--set gpus=010 runs 10 GPUs", args: tiny("--set", "gpus=010"), code: 0, want: []string{"on 10 GPUs"}, sim: true},
	{name: "--set gpus=0100 is 100", args: []string{"run", "--set", "gpus=0100"}, code: 2, want: []string{"gpus = 100"}},
	{name: "--gpus 08 is 8", args: tiny("--gpus", "08"), code: 0, want: []string{"on 8 GPUs"}, sim: true},
	{name: "--gpus 0x8 is not decimal", args: []string{"run", "--gpus", "0x8"}, code: 2, want: []string{`"0x8" is not a decimal integer`, "such as 8"}},
	{name: "--seed 0o10 is not decimal", args: []string{"run", "--seed", "0o10"}, code: 2, want: []string{`"0o10" is not a decimal integer`}},
	{name: "config file gpus: 010 is 10", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "gpus: 0100\n"}, code: 2, want: []string{"gpus = 100"}},
	// Issue 30: --config at most once.
	{name: "--config twice", args: []string{"run", "--config", "$D/a.yaml", "--config", "$D/b.yaml"}, files: map[string]string{"a.yaml": "gpus: 2\n", "b.yaml": "gpus: 8\n"},
		code: 2, want: []string{"given twice", "--set key=value"}},
	{name: "--config empty", args: []string{"run", "--config", ""}, code: 2, want: []string{"empty", "YAML config file"}},
	// Issue 30: output paths are checked before simulating.
	{name: "--out /dev/null", args: []string{"run", "--out", "/dev/null"}, code: 2, want: []string{"/dev/null is a character device", "regular files"}},
	{name: "--out symlink to a device", args: []string{"run", "--out", "$D/link"}, links: map[string]string{"link": "/dev/null"}, code: 2, want: []string{"character device"}},
	{name: "--csv /dev/null", args: []string{"run", "--csv", "/dev/null"}, code: 2, want: []string{"--csv", "character device"}},
	{name: "--out x --csv x", args: []string{"run", "--out", "$D/x", "--csv", "$D/x"}, code: 2, want: []string{"--out and --csv both name", "own file"}},
	{name: "--out empty", args: []string{"run", "--out", ""}, code: 2, want: []string{"--out is empty", "give a file name"}},
	{name: "--csv empty", args: []string{"run", "--csv", ""}, code: 2, want: []string{"--csv is empty"}},
	{name: "--out dir/", args: []string{"run", "--out", "$D/new/"}, code: 2, want: []string{"names a directory"}},
	{name: "--out an existing directory", args: []string{"run", "--out", "$D"}, code: 2, want: []string{"is a directory"}},
	{name: "--out under a file", args: []string{"run", "--out", "$D/f/r.json"}, files: map[string]string{"f": "x"}, code: 2, want: []string{"is a file"}},
	// Issue 30: policy keys under a policy that ignores them, im2col on a
	// workload without it; in a sweep, such runs run once.
	{name: "policy key, other policy", args: []string{"run", "--policy", "on-touch", "--set", "policy.reset_threshold=4"}, code: 2,
		want: []string{"policy.reset_threshold = 4", "no effect under policy on-touch", "read by policy oasis, oasis-inmem"}},
	{name: "GRIT key under OASIS", args: []string{"run", "--policy", "oasis", "--set", "policy.grit_threshold=8"}, code: 2,
		want: []string{"policy.grit_threshold = 8", "no effect under policy oasis", "read by policy grit"}},
	{name: "O-Table size under OASIS-InMem", args: []string{"run", "--policy", "oasis-inmem", "--set", "policy.otable_entries=32"}, code: 2,
		want: []string{"policy.otable_entries = 32", "read by policy oasis"}},
	{name: "im2col on mm", args: []string{"run", "--workload", "mm", "--set", "im2col=per-element"}, code: 2,
		want: []string{`im2col = "per-element"`, "no effect under workload mm", "c2d, i2c, lenet, resnet18, vgg16"}},
	{name: "policy key where it acts", args: tiny("--policy", "oasis", "--set", "policy.reset_threshold=4"), code: 0, want: []string{"policy oasis"}, sim: true},
	{name: "sweep: policy key across policies", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res", "--emit", "list"},
		files: map[string]string{"s.yaml": "workloads: [private]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.01\nsets:\n  policy.reset_threshold: [\"4\", \"32\"]\n"},
		code:  0, want: []string{"expands to 3 runs", "1 fewer", "runs once"}},
	// Issue 30: infinite and absurd values.
	{name: "link.pcie_gbps=1e-300", args: []string{"run", "--set", "link.pcie_gbps=1e-300"}, code: 2, want: []string{"link.pcie_gbps = 1e-300", "between 0.001 and 1e+09"}},
	{name: "link.pcie_gbps=+Inf", args: []string{"run", "--set", "link.pcie_gbps=+Inf"}, code: 2, want: []string{"link.pcie_gbps = +Inf", "finite"}},
	{name: "--scale 1e6 --oversubscribe 1.5", args: []string{"run", "--scale", "1e6", "--oversubscribe", "1.5"}, code: 2, want: []string{"footprint 30.52TB", "lower --scale"}},
	{name: "--scale 1e6", args: []string{"run", "--scale", "1e6"}, code: 2, want: []string{"exceeds the total GPU memory", "--oversubscribe"}},
	// Issue 30: unclear messages made clear.
	{name: "empty sweep spec", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": ""}, code: 2, want: []string{"is empty", "workloads: [mm]"}},
	{name: "comment-only sweep spec", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": "# nothing\n"}, code: 2, want: []string{"is empty"}},
	{name: "tab in sweep spec", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": "workloads: [mm]\npolicies:\n\t- oasis\n"}, code: 2, want: []string{"s.yaml", "YAML indents with spaces only"}},
	{name: "tab in config file", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "gpu:\n\tcus: 4\n"}, code: 2, want: []string{"c.yaml", "YAML indents with spaces only"}},
	{name: "--scale abc", args: []string{"run", "--scale", "abc"}, code: 2, want: []string{`"abc" is not a number`, "such as 1.5"}},
	{name: "--quick=maybe", args: []string{"figure", "fig15", "--quick=maybe"}, code: 2, want: []string{`"maybe" is not true or false`, "=true or =false"}},
	{name: "--check=2", args: []string{"run", "--check=2"}, code: 2, want: []string{`"2" is not true or false`}},
	{name: "--oversubscribe 1e400", args: []string{"run", "--oversubscribe", "1e400"}, code: 2, want: []string{`"1e400" is out of range`}},
	// Found while writing this table: a --set of a key whose flag is also given.
	{name: "--gpus with --set gpus", args: []string{"run", "--gpus", "2", "--set", "gpus=8"}, code: 2, want: []string{"--set gpus=8 and --gpus 2 both set gpus"}},
	{name: "--oversubscribe with --set oversubscribe", args: []string{"run", "--oversubscribe", "1.5", "--set", "oversubscribe=2"}, code: 2, want: []string{"both set oversubscribe"}},
	{name: "--check with --set check", args: []string{"run", "--check", "--set", "check=false"}, code: 2, want: []string{"both set check"}},
	// Found by FuzzConfigSet: sizes are exact or an error.
	{name: "gpu.memory=16777217TB", args: []string{"run", "--set", "gpu.memory=16777217TB"}, code: 2, want: []string{"gpu.memory", `"16777217TB"`, "out of range", "below 16777216TB"}},
	{name: "gpu.memory=NaN", args: []string{"run", "--set", "gpu.memory=NaN"}, code: 2, want: []string{"gpu.memory", `"NaN"`, "such as 4GB"}},
	{name: "gpu.memory=1e30", args: []string{"run", "--set", "gpu.memory=1e30"}, code: 2, want: []string{"gpu.memory", "out of range"}},
	{name: "page_size=1.3KB", args: []string{"run", "--set", "page_size=1.3KB"}, code: 2, want: []string{"page_size", "not a whole number of bytes", "1331 and 1332"}},
	// Found by FuzzSweepSpec, open: spec numbers are read by YAML's rules.
	{name: "sweep gpus: [010]", args: []string{"sweep", "$D/s.yaml", "--emit", "list"}, files: map[string]string{"s.yaml": "workloads: [private]\npolicies: [on-touch]\ngpus: [010]\n"},
		code: 0, want: []string{"--gpus 10 "}},
	{name: "sweep seeds: [010]", args: []string{"sweep", "$D/s.yaml", "--emit", "list"}, files: map[string]string{"s.yaml": spec + "seeds: [010]\n"},
		code: 0, want: []string{"--seed 10 "}},
	{name: "sweep sets key with spaces", args: []string{"sweep", "$D/s.yaml", "--emit", "list"}, files: map[string]string{"s.yaml": spec + "sets: {'gpus ': ['8']}\n"},
		code: 2, want: []string{"sets.", `"gpus"`}},

	// Earlier classes: names.
	{name: "unknown command", args: []string{"frobnicate"}, code: 2, want: []string{`unknown command "frobnicate"`, "valid commands are run"}},
	{name: "unknown workload", args: []string{"run", "--workload", "nope"}, code: 2, want: []string{`unknown workload "nope"`, "valid workloads are", "mm"}},
	{name: "unknown policy", args: []string{"run", "--policy", "nope"}, code: 2, want: []string{"nope", "valid policies are", "on-touch"}},
	{name: "unknown size", args: []string{"run", "--size", "32gpu"}, code: 2, want: []string{`unknown size "32gpu"`, "auto, 4gpu, 8gpu, 16gpu"}},
	{name: "unknown flag", args: []string{"run", "--wrokload", "mm"}, code: 2, want: []string{"-wrokload", "Run 'mgpu run --help'"}},
	{name: "stray argument", args: []string{"run", "stray"}, code: 2, want: []string{`unexpected argument "stray"`}},
	{name: "unknown progress mode", args: []string{"run", "--progress", "nope"}, code: 2, want: []string{`--progress "nope"`, "auto, on, off"}},
	{name: "unknown log level", args: []string{"run", "--log-level", "nope"}, code: 2, want: []string{`--log-level "nope"`, "trace, debug, info, warn, error"}},
	{name: "unknown figure", args: []string{"figure", "nope"}, code: 2, want: []string{`unknown figure "nope"`, "fig15"}},
	{name: "figure zero seeds", args: []string{"figure", "fig15", "--seeds", "0"}, code: 2, want: []string{"--seeds 0", "between 1 and 100"}},
	{name: "characterize unknown workload", args: []string{"characterize", "--workload", "nope"}, code: 2, want: []string{`unknown workload "nope"`}},
	{name: "trace without subcommand", args: []string{"trace"}, code: 2, want: []string{"give a subcommand: record"}},
	{name: "trace record without --out", args: []string{"trace", "record", "--workload", "mm"}, code: 2, want: []string{"--out is required"}},
	{name: "trace record unknown workload", args: []string{"trace", "record", "--workload", "nope", "--out", "$D/t.tr"}, code: 2, want: []string{`unknown workload "nope"`}},
	{name: "convert missing trace", args: []string{"trace", "convert", "--accelsim", "$D/none/kernelslist.g", "--out", "$D/t.tr"}, code: 2, want: []string{"--accelsim", "no such file"}},
	{name: "convert bad trace", args: []string{"trace", "convert", "--accelsim", "$D/kernelslist.g", "--out", "$D/t.tr"}, files: map[string]string{"kernelslist.g": "cudaFree\n"},
		code: 2, want: []string{"kernelslist.g:1", "unknown command"}},
	{name: "replay truncated trace", args: []string{"run", "--trace", "$D/t.tr"}, files: map[string]string{"t.tr": "mgpu-trace\n\x01abc"},
		code: 2, want: []string{"t.tr", "byte", "truncated"}},
	{name: "replay other version", args: []string{"run", "--trace", "$D/t.tr"}, files: map[string]string{"t.tr": "mgpu-trace\n\x09abcdefghijklmnopq"},
		code: 2, want: []string{"byte 11", "version 9", "reads version 1"}},
	{name: "replay not a trace", args: []string{"run", "--trace", "$D/t.tr"}, files: map[string]string{"t.tr": "-1\n"},
		code: 2, want: []string{"not an mgpu trace"}},
	{name: "replay with --workload", args: []string{"run", "--trace", "$D/t.tr", "--workload", "mm"}, files: map[string]string{"t.tr": ""},
		code: 2, want: []string{"--workload with --trace", "leave --workload out"}},
	{name: "unknown placement", args: []string{"run", "--set", "placement=nope"}, code: 2, want: []string{`placement = "nope"`, "host, spread"}},
	{name: "unknown topology", args: []string{"run", "--set", "topology=ring"}, code: 2, want: []string{`topology = "ring"`, "full, switch"}},
	{name: "unknown eviction", args: []string{"run", "--set", "uvm.eviction=nope"}, code: 2, want: []string{"uvm.eviction", "lrm-2mb"}},
	{name: "unknown prefetcher", args: []string{"run", "--set", "uvm.prefetch.policy=nope"}, code: 2, want: []string{"uvm.prefetch.policy", "tbn"}},
	// Earlier classes: counts and ranges.
	{name: "zero GPUs", args: []string{"run", "--gpus", "0"}, code: 2, want: []string{"gpus = 0", "between 1 and 64"}},
	{name: "65 GPUs", args: []string{"run", "--gpus", "65"}, code: 2, want: []string{"gpus = 65", "between 1 and 64"}},
	{name: "negative GPUs", args: []string{"run", "--gpus", "-1"}, code: 2, want: []string{"gpus = -1"}},
	{name: "huge GPU count", args: []string{"run", "--gpus", "99999999999999999999"}, code: 2, want: []string{`"99999999999999999999" is out of range`}},
	{name: "GPU count 4.0", args: []string{"run", "--gpus", "4.0"}, code: 2, want: []string{`"4.0" is not a decimal integer`}},
	{name: "GPU count 1e3", args: []string{"run", "--gpus", "1e3"}, code: 2, want: []string{`"1e3" is not a decimal integer`}},
	{name: "GPU count empty", args: []string{"run", "--gpus", ""}, code: 2, want: []string{`"" is not a decimal integer`}},
	{name: "negative seed", args: []string{"run", "--seed", "-1"}, code: 2, want: []string{`"-1" is not a decimal integer`}},
	{name: "seed 2^64", args: []string{"run", "--seed", "18446744073709551616"}, code: 2, want: []string{"out of range"}},
	{name: "negative iterations", args: []string{"run", "--workload", "pingpong", "--iterations", "-1"}, code: 2, want: []string{"--iterations -1", "positive"}},
	{name: "zero scale", args: []string{"run", "--scale", "0"}, code: 2, want: []string{"--scale 0", "positive number"}},
	{name: "negative scale", args: []string{"run", "--scale", "-1"}, code: 2, want: []string{"--scale -1"}},
	{name: "NaN scale", args: []string{"run", "--scale", "NaN"}, code: 2, want: []string{"--scale NaN"}},
	{name: "infinite scale", args: []string{"run", "--scale", "+Inf"}, code: 2, want: []string{"--scale +Inf"}},
	{name: "oversubscribe below 1", args: []string{"run", "--oversubscribe", "0.5"}, code: 2, want: []string{"oversubscribe = 0.5", "factor >= 1"}},
	{name: "negative oversubscribe", args: []string{"run", "--oversubscribe", "-1"}, code: 2, want: []string{"oversubscribe = -1"}},
	{name: "NaN oversubscribe", args: []string{"run", "--oversubscribe", "NaN"}, code: 2, want: []string{"oversubscribe = NaN"}},
	{name: "page size not a power of two", args: []string{"run", "--set", "page_size=3000"}, code: 2, want: []string{"page_size = 3000", "power of two"}},
	{name: "page size zero", args: []string{"run", "--set", "page_size=0"}, code: 2, want: []string{"page_size = 0"}},
	{name: "page size 2GB", args: []string{"run", "--set", "page_size=2GB"}, code: 2, want: []string{"page_size = 2GB", "<= 1GB"}},
	{name: "GPU memory zero", args: []string{"run", "--set", "gpu.memory=0"}, code: 2, want: []string{"gpu.memory = 0"}},
	{name: "negative GPU memory", args: []string{"run", "--set", "gpu.memory=-1GB"}, code: 2, want: []string{"gpu.memory", `"-1GB"`}},
	{name: "footprint over capacity", args: []string{"run", "--set", "gpu.memory=1MB"}, code: 2, want: []string{"exceeds the total GPU memory", "--oversubscribe"}},
	{name: "zero CUs", args: []string{"run", "--set", "gpu.cus=0"}, code: 2, want: []string{"gpu.cus = 0", ">= 1"}},
	{name: "CUs 1e3", args: []string{"run", "--set", "gpu.cus=1e3"}, code: 2, want: []string{"gpu.cus", "expected an integer", `"1e3"`}},
	{name: "negative latency", args: []string{"run", "--set", "link.pcie_latency_ns=-1"}, code: 2, want: []string{"link.pcie_latency_ns = -1", ">= 0"}},
	{name: "latency of years", args: []string{"run", "--set", "link.pcie_latency_ns=1e13"}, code: 2, want: []string{"link.pcie_latency_ns", "at most 1e+12 ns"}},
	{name: "unknown PCIe topology", args: []string{"run", "--set", "link.pcie_topology=ring"}, code: 2, want: []string{"link.pcie_topology", "pairs, tree"}},
	{name: "switch latency without switches", args: []string{"run", "--set", "link.pcie_topology=pairs", "--set", "link.pcie_switch_latency_ns=100"}, code: 2, want: []string{"link.pcie_switch_latency_ns", "link.pcie_topology=tree"}},
	{name: "no GPU per switch", args: []string{"run", "--set", "link.pcie_gpus_per_switch=0"}, code: 2, want: []string{"link.pcie_gpus_per_switch = 0", ">= 1"}},
	{name: "negative bandwidth", args: []string{"run", "--set", "link.nvlink_gbps=-5"}, code: 2, want: []string{"link.nvlink_gbps = -5"}},
	{name: "NaN bandwidth", args: []string{"run", "--set", "link.nvlink_gbps=NaN"}, code: 2, want: []string{"link.nvlink_gbps = NaN", "finite"}},
	{name: "bandwidth 1e10", args: []string{"run", "--set", "link.nvlink_gbps=1e10"}, code: 2, want: []string{"link.nvlink_gbps", "between 0.001 and 1e+09"}},
	{name: "thrashing threshold 8", args: []string{"run", "--set", "uvm.thrashing_threshold=8"}, code: 2, want: []string{"uvm.thrashing_threshold = 8", "1..7"}},
	{name: "access-counter group 32KB", args: []string{"run", "--set", "policy.ac_group=32KB"}, code: 2, want: []string{"policy.ac_group = 32KB", "64KB to 2MB"}},
	{name: "ID bits 16", args: []string{"run", "--set", "policy.id_bits=16"}, code: 2, want: []string{"policy.id_bits = 16", "between 1 and 15"}},
	{name: "check maybe", args: []string{"run", "--set", "check=maybe"}, code: 2, want: []string{"check", "true or false", `"maybe"`}},
	// Earlier classes: keys and --set syntax.
	{name: "unknown key with a suggestion", args: []string{"run", "--set", "gpu.memroy=1GB"}, code: 2, want: []string{`unknown config key "gpu.memroy"`, `did you mean "gpu.memory"`}},
	{name: "key missing its section", args: []string{"run", "--set", "memory=1GB"}, code: 2, want: []string{`did you mean "gpu.memory"`}},
	{name: "group key", args: []string{"run", "--set", "gpu=4"}, code: 2, want: []string{`"gpu" is a group`, "gpu.cus"}},
	{name: "--set without =", args: []string{"run", "--set", "gpus"}, code: 2, want: []string{`setting "gpus"`, "key=value"}},
	{name: "--set without key", args: []string{"run", "--set", "=4"}, code: 2, want: []string{`setting "=4"`, "missing key"}},
	// Earlier classes: config files.
	{name: "malformed config", args: []string{"run", "--config", "$D/bad.yaml"}, files: map[string]string{"bad.yaml": "gpu:\n  cus: [1, 2\n"}, code: 2, want: []string{"bad.yaml"}},
	{name: "unknown config file key", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "gpu:\n  cuss: 4\n"}, code: 2, want: []string{"c.yaml:2", `"gpu.cuss"`, `did you mean "gpu.cus"`}},
	{name: "dotted key in a config file", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "gpu.memory: 8GB\n"}, code: 2, want: []string{"dotted", "gpu:\n  memory: 8GB"}},
	{name: "key given twice in a config file", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "gpus: 2\ngpus: 4\n"}, code: 2, want: []string{"c.yaml"}},
	{name: "two documents in a config file", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "gpus: 2\n---\ngpus: 4\n"}, code: 2, want: []string{"one YAML document"}},
	{name: "list as a config file", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "[1, 2]\n"}, code: 2, want: []string{"expected a mapping of config keys"}},
	{name: "config value of the wrong type", args: []string{"run", "--config", "$D/c.yaml"}, files: map[string]string{"c.yaml": "gpu:\n  cus: many\n"}, code: 2, want: []string{"c.yaml:2", "gpu.cus", `"many"`}},
	{name: "missing config file", args: []string{"run", "--config", "$D/none.yaml"}, code: 2, want: []string{"none.yaml"}},
	{name: "config file is a directory", args: []string{"run", "--config", "$D"}, code: 2, want: []string{"is a directory"}},
	// Earlier classes: sweep, collect, plot.
	{name: "sweep without spec", args: []string{"sweep"}, code: 2, want: []string{"no spec file"}},
	{name: "sweep with two specs", args: []string{"sweep", "$D/a.yaml", "$D/b.yaml"}, code: 2, want: []string{"unexpected argument"}},
	{name: "missing sweep spec", args: []string{"sweep", "$D/none.yaml"}, code: 2, want: []string{"none.yaml"}},
	{name: "unknown spec key", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": spec + "workload: [mm]\n"}, code: 2, want: []string{"workload", "valid keys"}},
	{name: "duplicate workloads in a spec", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": "workloads: [fft, fft]\npolicies: [on-touch]\ngpus: [4]\n"}, code: 2, want: []string{"fft listed more than once"}},
	{name: "spec scale 0", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": spec + "scale: 0\n"}, code: 2},
	{name: "spec name escapes", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": "name: ../evil\n" + spec}, code: 2, want: []string{"path separators"}},
	{name: "spec sets shadows gpus", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": spec + "sets: {gpus: ['8']}\n"}, code: 2, want: []string{"sets.gpus"}},
	{name: "spec sets unknown key", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": spec + "sets: {gpu.memroy: [4GB]}\n"}, code: 2, want: []string{"gpu.memroy", `did you mean "gpu.memory"`}},
	{name: "spec with an unknown workload", args: []string{"sweep", "$D/s.yaml", "--results", "$D/res"}, files: map[string]string{"s.yaml": "workloads: [nope]\npolicies: [on-touch]\ngpus: [2]\n"}, code: 2, want: []string{`unknown workload "nope"`}},
	{name: "sweep --jobs 0", args: []string{"sweep", "$D/s.yaml", "--jobs", "0"}, files: map[string]string{"s.yaml": spec}, code: 2, want: []string{"--jobs 0", ">= 1"}},
	{name: "collect without directory", args: []string{"collect"}, code: 2, want: []string{"no directory"}},
	{name: "collect a missing directory", args: []string{"collect", "$D/none"}, code: 2, want: []string{"none is not a directory"}},
	{name: "plot unknown kind", args: []string{"plot", "$D/t.csv", "--kind", "nope"}, files: map[string]string{"t.csv": "app,a\nmm,1\n"}, code: 2, want: []string{`--kind "nope"`, "bars, stacked"}},
	{name: "characterize zero scale", args: []string{"characterize", "--scale", "0"}, code: 2, want: []string{"--scale 0"}},
	{name: "characterize zero GPUs", args: []string{"characterize", "--gpus", "0"}, code: 2, want: []string{"gpus = 0"}},
	{name: "version with an argument", args: []string{"version", "extra"}, code: 2, want: []string{`unexpected argument "extra"`}},
	// Help exits 0.
	{name: "mgpu --help", args: []string{"--help"}, code: 0, want: []string{"mgpu run", "mgpu sweep"}},
	{name: "mgpu help run", args: []string{"help", "run"}, code: 0, want: []string{helpWords + "run"}},
	{name: "run --help", args: []string{"run", "--help"}, code: 0, want: []string{helpWords + "run", "-scale F"}},
	{name: "run -h", args: []string{"run", "-h"}, code: 0, want: []string{helpWords + "run"}},
	{name: "list --help", args: []string{"list", "--help"}, code: 0, want: []string{helpWords + "list"}},
	{name: "sweep --help", args: []string{"sweep", "--help"}, code: 0, want: []string{helpWords + "sweep", "Spec format"}},
	{name: "collect --help", args: []string{"collect", "--help"}, code: 0, want: []string{helpWords + "collect"}},
	{name: "figure --help", args: []string{"figure", "--help"}, code: 0, want: []string{helpWords + "figure"}},
	{name: "plot --help", args: []string{"plot", "--help"}, code: 0, want: []string{helpWords + "plot"}},
	{name: "characterize --help", args: []string{"characterize", "--help"}, code: 0, want: []string{helpWords + "characterize"}},
	{name: "version --help", args: []string{"version", "--help"}, code: 0, want: []string{helpWords + "version"}},
	{name: "help after other flags", args: []string{"run", "--gpus", "4", "--help"}, code: 0, want: []string{helpWords + "run"}},
}

// TestCatalogue runs the catalogue: each row's exit status and words, no
// crash, and for bad input no simulation and nothing written.
func TestCatalogue(t *testing.T) { runCatalogue(t, catalogue) }

// runCatalogue runs rows as TestCatalogue does.
func runCatalogue(t *testing.T, rows []catalogueRow) {
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if r.skip != "" {
				t.Skip(r.skip)
			}
			dir := t.TempDir()
			for name, body := range r.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range r.links {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			args := make([]string, len(r.args))
			for i, a := range r.args {
				args[i] = strings.ReplaceAll(a, "$D", dir)
			}
			code, out, errs := mgpu(args...)
			if code != r.code {
				t.Fatalf("%q: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, r.code, out, errs)
			}
			msg := errs
			if r.code == 0 {
				msg = out + errs
			}
			for _, w := range r.want {
				if !strings.Contains(msg, strings.ReplaceAll(w, "$D", dir)) {
					t.Errorf("%q: message lacks %q:\n%s", args, w, msg)
				}
			}
			if strings.Contains(errs, "internal error") || strings.Contains(errs, "goroutine ") {
				t.Errorf("%q crashed:\n%s", args, errs)
			}
			if r.code != 0 && !r.sim {
				if strings.Contains(out, "simulated time") || strings.Contains(out, "wrote") {
					t.Errorf("%q simulated before failing:\n%s", args, out)
				}
				if entries, _ := os.ReadDir(filepath.Join(dir, "res")); len(entries) > 0 {
					t.Errorf("%q wrote %d results before failing", args, len(entries))
				}
			}
		})
	}
}

// TestCatalogueSize keeps the catalogue at issue 30's size: every example
// plus at least 40 more.
func TestCatalogueSize(t *testing.T) {
	if len(catalogue) < 80 {
		t.Errorf("the catalogue has %d rows", len(catalogue))
	}
}
