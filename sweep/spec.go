// Package sweep runs the cartesian product of workloads, policies, GPU
// counts, config overrides and seeds, resumably: each run's result lands in
// <results>/<hash of its full config>.json, written atomically, and a run
// whose file exists is skipped. It also merges results into CSV and emits
// cluster job scripts.
package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/platform"
)

// Spec is a sweep: every combination of its lists is one run.
type Spec struct {
	Name      string   `yaml:"name"`
	Workloads []string `yaml:"workloads"`
	Policies  []string `yaml:"policies"`
	GPUs      []int    `yaml:"gpus"`
	Seeds     []uint64 `yaml:"seeds"`
	// Scale and Size apply to every run (1 and "auto" when unset).
	Scale float64 `yaml:"scale"`
	Size  string  `yaml:"size"`
	// Sets maps a config key to the values it sweeps; each combination of
	// values is applied with --set semantics.
	Sets map[string][]string `yaml:"sets"`
	// Results is the directory of per-run JSON files (default "results").
	Results string `yaml:"results"`

	// scaleGiven tells an explicit "scale: 0", which is an error, from no
	// scale at all, which means 1.
	scaleGiven bool
}

// shadowed maps the names a sets key could take that the spec already
// sweeps as a list or fixes itself, to that field. A sets key must not
// name one: the run would use the field while the result recorded the set.
var shadowed = map[string]string{
	"gpus": "gpus", "workload": "workloads", "workloads": "workloads", "policy": "policies",
	"policies": "policies", "seed": "seeds", "seeds": "seeds", "scale": "scale", "size": "size",
}

// Run is one point of a sweep.
type Run struct {
	Workload string            `json:"workload"`
	Policy   string            `json:"policy"`
	GPUs     int               `json:"gpus"`
	Seed     uint64            `json:"seed"`
	Scale    float64           `json:"scale"`
	Size     string            `json:"size"`
	Sets     map[string]string `json:"sets,omitempty"`
	Config   platform.Config   `json:"config"`
}

// specKeys are the keys a spec may have.
const specKeys = "name, workloads, policies, gpus, seeds, scale, size, sets, results"

// Load reads a spec from YAML, strictly: an unknown key is an error.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("%s is empty: a spec names at least its workloads and policies, e.g. 'workloads: [mm]' and 'policies: [oasis]' (valid keys: %s)", path, specKeys)
		}
		return nil, fmt.Errorf("%w (valid keys: %s)", platform.YAMLError(path, data, err), specKeys)
	}
	var given struct {
		Scale *float64 `yaml:"scale"`
	}
	if err := yaml.Unmarshal(data, &given); err == nil {
		s.scaleGiven = given.Scale != nil
	}
	return &s, nil
}

// Expand validates the spec and lists its runs in a fixed order. Every
// run's config is built and validated here, so a bad key or value fails
// before anything runs.
func (s *Spec) Expand() ([]Run, error) {
	if s.Scale == 0 && !s.scaleGiven {
		s.Scale = 1
	}
	if s.Size == "" {
		s.Size = benchmarks.SizeAuto
	}
	if len(s.Seeds) == 0 {
		s.Seeds = []uint64{1}
	}
	var errs []error
	for name, n := range map[string]int{"workloads": len(s.Workloads), "policies": len(s.Policies), "gpus": len(s.GPUs)} {
		if n == 0 {
			errs = append(errs, fmt.Errorf("%s: empty list, so the sweep has no runs", name))
		}
	}
	s.Workloads = slices.Clone(s.Workloads) // the caller's list stays as given
	for i, w := range s.Workloads {
		wl, err := benchmarks.New(w)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Workloads[i] = wl.Name() // a paper's alias runs as its workload
	}
	for _, p := range s.Policies {
		if _, err := pagepolicy.TraitsOf(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := benchmarks.CheckScale(s.Scale); err != nil {
		errs = append(errs, fmt.Errorf("%w (1 = the paper's size; leave scale out for 1)", err))
	}
	if err := checkName(s.Name); err != nil {
		errs = append(errs, err)
	}
	errs = appendDup(errs, "workloads", s.Workloads)
	errs = appendDup(errs, "policies", s.Policies)
	errs = appendDup(errs, "gpus", s.GPUs)
	errs = appendDup(errs, "seeds", s.Seeds)
	keys := make([]string, 0, len(s.Sets))
	for k, v := range s.Sets {
		if len(v) == 0 {
			errs = append(errs, fmt.Errorf("sets.%s: empty list, so the sweep has no runs", k))
		}
		if field, ok := shadowed[k]; ok {
			errs = append(errs, fmt.Errorf("sets.%s: the spec sets this itself with %q; put the values there (e.g. %s: [...]) and keep sets for config keys ('mgpu list')", k, field, field))
		}
		errs = appendDup(errs, "sets."+k, v)
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var runs []Run
	for _, combo := range combos(keys, s.Sets) {
		for _, g := range s.GPUs {
			cfg := platform.DefaultConfig()
			for _, k := range keys {
				if err := cfg.Set(k + "=" + combo[k]); err != nil {
					return nil, err
				}
			}
			cfg.GPUs = g
			if err := cfg.Validate(); err != nil {
				return nil, fmt.Errorf("gpus %d, sets %v: %w", g, combo, err)
			}
			for _, w := range s.Workloads {
				for _, p := range s.Policies {
					for _, seed := range s.Seeds {
						runs = append(runs, Run{Workload: w, Policy: p, GPUs: g, Seed: seed, Scale: s.Scale, Size: s.Size, Sets: combo, Config: cfg})
					}
				}
			}
		}
	}
	// Different spellings of one value (2MB and 2097152) still give the
	// same run, which would run twice and write duplicate rows.
	seen := map[string]Run{}
	for _, r := range runs {
		h := r.Hash()
		if prev, dup := seen[h]; dup {
			return nil, fmt.Errorf("%s and %s are the same run (equal configs): list each value once", prev.Label(), r.Label())
		}
		seen[h] = r
	}
	return runs, nil
}

// appendDup appends an error naming the entries list holds more than once.
func appendDup[T comparable](errs []error, field string, list []T) []error {
	count := map[T]int{}
	var dups []string
	for _, v := range list {
		if count[v]++; count[v] == 2 {
			dups = append(dups, fmt.Sprint(v))
		}
	}
	if len(dups) > 0 {
		errs = append(errs, fmt.Errorf("%s: %s listed more than once; list each value once", field, strings.Join(dups, ", ")))
	}
	return errs
}

// checkName keeps the merged CSV, <results>/<name>.csv, inside the
// results directory.
func checkName(name string) error {
	if strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || name == "." {
		return fmt.Errorf("name %q: must be a plain file name without path separators or \"..\" (the merged CSV is <results>/<name>.csv)", name)
	}
	return nil
}

// combos is the cartesian product of the value lists, one map per point.
func combos(keys []string, sets map[string][]string) []map[string]string {
	out := []map[string]string{{}}
	for _, k := range keys {
		var next []map[string]string
		for _, c := range out {
			for _, v := range sets[k] {
				m := map[string]string{k: v}
				for kk, vv := range c {
					m[kk] = vv
				}
				next = append(next, m)
			}
		}
		out = next
	}
	if len(keys) == 0 {
		return []map[string]string{nil}
	}
	return out
}

// Hash identifies a run by everything that determines its result: the
// workload, policy, seed, scale, size and the full config.
func (r Run) Hash() string {
	id := struct {
		Workload, Policy, Size string
		Seed                   uint64
		Scale                  float64
		Config                 platform.Config
	}{r.Workload, r.Policy, r.Size, r.Seed, r.Scale, r.Config}
	b, _ := json.Marshal(id)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Options is the run as the platform takes it.
func (r Run) Options() platform.Options {
	return platform.Options{Workload: r.Workload, Policy: r.Policy, Seed: r.Seed, Scale: r.Scale, Size: r.Size, Config: r.Config}
}

// Args is the run as `mgpu run` flags.
func (r Run) Args() []string {
	a := []string{"--workload", r.Workload, "--policy", r.Policy, "--gpus", fmt.Sprint(r.GPUs),
		"--seed", fmt.Sprint(r.Seed), "--scale", fmt.Sprint(r.Scale), "--size", r.Size}
	keys := make([]string, 0, len(r.Sets))
	for k := range r.Sets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a = append(a, "--set", k+"="+r.Sets[k])
	}
	return a
}

// Label is a short human name for progress and errors.
func (r Run) Label() string {
	var sets []string
	for k, v := range r.Sets {
		sets = append(sets, k+"="+v)
	}
	sort.Strings(sets)
	return strings.TrimSpace(fmt.Sprintf("%s/%s/%dgpu/seed%d %s", r.Workload, r.Policy, r.GPUs, r.Seed, strings.Join(sets, " ")))
}
