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
	"os"
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
		return nil, fmt.Errorf("%s: %w (valid keys: name, workloads, policies, gpus, seeds, scale, size, sets, results)", path, err)
	}
	return &s, nil
}

// Expand validates the spec and lists its runs in a fixed order. Every
// run's config is built and validated here, so a bad key or value fails
// before anything runs.
func (s *Spec) Expand() ([]Run, error) {
	if s.Scale == 0 {
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
	for _, w := range s.Workloads {
		if _, err := benchmarks.New(w); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range s.Policies {
		if _, err := pagepolicy.TraitsOf(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := benchmarks.CheckScale(s.Scale); err != nil {
		errs = append(errs, err)
	}
	keys := make([]string, 0, len(s.Sets))
	for k, v := range s.Sets {
		if len(v) == 0 {
			errs = append(errs, fmt.Errorf("sets.%s: empty list, so the sweep has no runs", k))
		}
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
	return runs, nil
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
