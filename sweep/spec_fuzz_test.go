package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/platform"
)

// maxFuzzRuns bounds the specs FuzzSweepSpec expands: the product of a
// few short lists is already large, and memory, not correctness, is what a
// bigger one tests.
const maxFuzzRuns = 2000

// FuzzSweepSpec: a spec either fails, Load naming the file and Expand
// saying something, or expands to exactly the runs it asks for: one per
// combination of its lists, each with the GPU count, seed and scale the
// spec writes, read as decimal numbers, and each sets value in force in
// the run's config under the key it names.
func FuzzSweepSpec(f *testing.F) {
	const base = "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\n"
	for _, s := range []string{
		"", "\n", "# only a comment\n", "---\n", "~\n", "[mm]\n", "workloads: mm\n", "workload: [mm]\n",
		base, base + "scale: 0.01\n", base + "scale: 0\n", base + "scale: -1\n", base + "scale: .inf\n", base + "scale: .nan\n",
		base + "scale: 1e-300\n", base + "scale: 1e6\n", base + "size: 32gpu\n", base + "size: 16gpu\n",
		base + "seeds: [1, 2, 3]\n", base + "seeds: [-1]\n", base + "seeds: [18446744073709551615]\n", base + "seeds: [18446744073709551616]\n",
		base + "sets: {uvm.prefetch.threshold: ['1', '51', '100']}\n", base + "sets: {uvm.adaptive: [suv]}\n",
		base + "sets: {uvm.fault_handling: [hardware]}\n", base + "sets: {link.pcie_gbps: ['1e-300']}\n",
		base + "sets: {gpu.memory: [2MB, '2097152']}\n", base + "sets: {gpus: ['8']}\n", base + "sets: {gpu.cus: []}\n",
		base + "sets: {gpu.cus: ['010', '08']}\n", base + "sets: {gpu.memroy: [4GB]}\n", base + "sets: {gpu: ['4']}\n",
		"workloads: [mm]\npolicies: [oasis]\ngpus: [4]\nsets: {uvm.fault_handling: [hardware]}\n",
		"workloads: [mm, mt]\npolicies: [on-touch, oasis]\ngpus: [2, 4]\nseeds: [1, 2]\n",
		"workloads: [mm]\npolicies:\n\t- oasis\n", "workloads: [mm]\npolicies: [on-touch]\ngpus: [1, 2\n",
		"workloads: [fft, fft]\npolicies: [on-touch]\ngpus: [4]\n", "workloads: [nope]\npolicies: [nope]\ngpus: [0, 65]\n",
		"name: ../../etc/evil\n" + base, "name: s\nresults: out\n" + base, base + "gpus: [8]\n",
		// Numbers as YAML reads them, and spaced sets keys (fixed: decimals, trimmed keys).
		"workloads: [mm]\npolicies: [on-touch]\ngpus: [010]\n", "workloads: [mm]\npolicies: [on-touch]\ngpus: [0x2]\n",
		base + "seeds: [010]\n", base + "seeds: [1e3]\n", base + "scale: 010\n", base + "sets: {'gpus ': ['8']}\n",
		base + "sets: {gpu.cus: ['8'], 'gpu.cus ': ['16']}\n",
		// A key a policy ignores does not multiply its runs.
		"workloads: [mm, lenet]\npolicies: [on-touch, oasis]\ngpus: [4]\nsets: {policy.reset_threshold: ['4', '8'], im2col: [mgpusim, per-element]}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "spec.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("Load error %q does not name the file", err)
			}
			return
		}
		all := max(1, len(s.Seeds)) * len(s.Workloads) * len(s.Policies) * len(s.GPUs)
		for _, v := range s.Sets {
			if all = all * len(v); all > maxFuzzRuns || len(v) > maxFuzzRuns {
				return
			}
		}
		if all > maxFuzzRuns || len(s.Workloads) > maxFuzzRuns || len(s.Policies) > maxFuzzRuns || len(s.GPUs) > maxFuzzRuns || len(s.Seeds) > maxFuzzRuns {
			return
		}
		runs, err := s.Expand()
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("Expand failed with an empty message")
			}
			return
		}
		lit := literals(data)
		if want := readProduct(s); len(runs) != want {
			t.Fatalf("%d runs, want %d (the product of the lists, each workload and policy over the sets keys it reads)", len(runs), want)
		}
		for _, r := range runs {
			if r.Config.GPUs != r.GPUs {
				t.Fatalf("%s: runs %d GPUs", r.Label(), r.Config.GPUs)
			}
			if !asDecimal(lit["gpus"], strconv.Itoa(r.GPUs)) {
				t.Fatalf("%s: %d GPUs, but the spec writes gpus %v", r.Label(), r.GPUs, lit["gpus"])
			}
			if len(lit["seeds"]) > 0 && !asDecimal(lit["seeds"], strconv.FormatUint(r.Seed, 10)) {
				t.Fatalf("%s: seed %d, but the spec writes seeds %v", r.Label(), r.Seed, lit["seeds"])
			}
			if sc := lit["scale"]; len(sc) == 1 {
				if v, err := strconv.ParseFloat(sc[0], 64); (err != nil || v != r.Scale) && !(yamlNull(sc[0]) && r.Scale == 1) {
					t.Fatalf("%s: scale %g, but the spec writes scale %s", r.Label(), r.Scale, sc[0])
				}
			}
			for k, v := range r.Sets {
				fresh := config.DefaultConfig()
				if err := fresh.Set(k + "=" + v); err != nil {
					t.Fatalf("%s: sets %s=%s, which Set rejects: %v", r.Label(), k, v, err)
				}
				key := strings.TrimSpace(k)
				w, _ := fresh.Get(key)
				if g, _ := r.Config.Get(key); g != w {
					t.Fatalf("%s: labelled %s=%s, but runs %s=%s", r.Label(), k, v, key, g)
				}
			}
		}
	})
}

// readProduct is the number of runs of an expanded spec: for each
// workload and policy, the product of the GPU counts, the seeds and the
// values of each sets key it reads (platform.Affects); a key it ignores
// does not multiply its runs.
func readProduct(s *Spec) int {
	n := 0
	for _, w := range s.Workloads {
		for _, p := range s.Policies {
			m := len(s.GPUs) * len(s.Seeds)
			for k, v := range s.Sets {
				if platform.Affects(k, p, w) {
					m *= len(v)
				}
			}
			n += m
		}
	}
	return n
}

// yamlNull says whether a plain scalar is YAML's null, which a spec reads
// as the key left out ("scale:" is scale 1).
func yamlNull(s string) bool { return slices.Contains([]string{"", "~", "null", "Null", "NULL"}, s) }

// asDecimal says whether one of texts, read as a decimal, is n.
func asDecimal(texts []string, n string) bool {
	for _, s := range texts {
		if v, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 64); err == nil && strconv.FormatUint(v, 10) == n {
			return true
		}
	}
	return false
}

// literals is the text of the scalars under the spec's top-level keys (a
// list's items, or the one scalar), and for "sets" the keys of its
// mapping.
func literals(data []byte) map[string][]string {
	var doc yaml.Node
	out := map[string][]string{}
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return out
	}
	root := yamlDeref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := yamlDeref(root.Content[i]), yamlDeref(root.Content[i+1])
		switch v.Kind {
		case yaml.ScalarNode:
			out[k.Value] = append(out[k.Value], v.Value)
		case yaml.SequenceNode:
			for _, item := range v.Content {
				out[k.Value] = append(out[k.Value], yamlDeref(item).Value)
			}
		case yaml.MappingNode:
			for j := 0; j < len(v.Content); j += 2 {
				out[k.Value] = append(out[k.Value], yamlDeref(v.Content[j]).Value)
			}
		}
	}
	return out
}

func yamlDeref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
