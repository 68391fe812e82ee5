// Package sweep runs the cartesian product of workloads, policies, GPU
// counts, config overrides and seeds, resumably: each run's result lands in
// <results>/<hash of its full config>.json, written atomically, and a run
// whose file exists is skipped. It also merges results into CSV and emits
// cluster job scripts.
package sweep

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mgpu-sim/mgpu/benchmarks"
	_ "github.com/mgpu-sim/mgpu/benchmarks/all" // registers every workload
	"github.com/mgpu-sim/mgpu/config"
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
	Config   config.Config     `json:"config"`
	// Threads runs the run's GPUs on up to this many threads
	// (platform.Options.Threads): how, not what, so not part of its
	// identity or its result.
	Threads int `json:"-"`
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
		return nil, fmt.Errorf("%w (valid keys: %s)", config.YAMLError(path, data, err), specKeys)
	}
	if err := s.readDecimals(path, data); err != nil {
		return nil, err
	}
	return &s, nil
}

// readDecimals reads gpus, seeds and scale again from their text, in
// decimal, as mgpu run and config files read numbers: YAML's own rules
// read 010 as octal 8, 0x10 as 16 and 1e3 as 1000, and let a seed past
// 2^64 wrap. It also records whether scale was given.
func (s *Spec) readDecimals(path string, data []byte) error {
	var text struct {
		GPUs  []yaml.Node `yaml:"gpus"`
		Seeds []yaml.Node `yaml:"seeds"`
		Scale yaml.Node   `yaml:"scale"`
	}
	if err := yaml.Unmarshal(data, &text); err != nil {
		return nil // Decode took it; nothing here differs
	}
	bad := func(key string, n *yaml.Node, what string) error {
		return fmt.Errorf("%s:%d: %s: %q is not %s", path, n.Line, key, n.Value, what)
	}
	for i := range text.GPUs {
		n := deref(&text.GPUs[i])
		v, err := strconv.ParseInt(n.Value, 10, strconv.IntSize)
		if err != nil {
			return bad("gpus", n, "a decimal integer: write digits only, such as 8")
		}
		s.GPUs[i] = int(v)
	}
	for i := range text.Seeds {
		n := deref(&text.Seeds[i])
		v, err := strconv.ParseUint(n.Value, 10, 64)
		if err != nil {
			return bad("seeds", n, "a decimal integer from 0 to 18446744073709551615: write digits only, such as 8")
		}
		s.Seeds[i] = v
	}
	if text.Scale.Kind != 0 {
		n := deref(&text.Scale)
		v, err := strconv.ParseFloat(n.Value, 64)
		if err != nil && !isNull(n) {
			return bad("scale", n, "a decimal number: write one such as 0.5")
		}
		s.Scale, s.scaleGiven = v, !isNull(n)
	}
	return nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// prepare fills in the spec's defaults and checks its lists: everything
// that does not need a run's whole config. It returns the sets keys in
// the order runs combine them.
func (s *Spec) prepare() ([]string, error) {
	if s.Scale == 0 && !s.scaleGiven {
		s.Scale = 1
	}
	if s.Size == "" {
		s.Size = benchmarks.SizeAuto
	}
	var errs []error
	switch {
	case s.Seeds == nil: // no seeds key, or "seeds:" with no value
		s.Seeds = []uint64{1}
	case len(s.Seeds) == 0:
		errs = append(errs, errors.New("seeds: empty list, so the sweep has no runs; list at least one seed, or leave seeds out for seed 1"))
	}
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
		s.Workloads[i] = wl.Info().Name // a paper's alias runs as its workload
	}
	for _, p := range s.Policies {
		if _, err := pagepolicy.TraitsOf(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := benchmarks.CheckScale(s.Scale); err != nil {
		errs = append(errs, fmt.Errorf("%w (1 = the paper's size; leave scale out for 1)", err))
	}
	if !slices.Contains(benchmarks.SizeColumns(), s.Size) {
		errs = append(errs, fmt.Errorf("size %q: valid sizes are %s (one for every run)", s.Size, strings.Join(benchmarks.SizeColumns(), ", ")))
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
		if k != strings.TrimSpace(k) {
			errs = append(errs, fmt.Errorf("sets.%q: a key has no spaces around it; write %q", k, strings.TrimSpace(k)))
		}
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
	// A key or value that does not parse fails whatever it is combined
	// with: say so once, not once per run (an unknown key once for all
	// its values).
	said := map[string]bool{}
	for _, k := range keys {
		if _, ok := shadowed[k]; ok {
			continue
		}
		errs = append(errs, s.checkValues(k, said)...)
	}
	return keys, errors.Join(errs...)
}

// checkValues reports the values of sets key k that do not parse (an
// error said before, by another value, not again), and two spellings of
// one value (2MB and 2097152): each key sets its own field, so they would
// make the same runs twice, under two labels.
func (s *Spec) checkValues(k string, said map[string]bool) []error {
	var errs []error
	spelt := map[config.Config]string{}
	for _, v := range s.Sets[k] {
		cfg := config.DefaultConfig()
		if err := cfg.Set(k + "=" + v); err != nil {
			if !said[err.Error()] {
				said[err.Error()] = true
				errs = append(errs, err)
			}
			continue
		}
		if prev, ok := spelt[cfg]; ok && prev != v {
			errs = append(errs, fmt.Errorf("sets.%s: %s and %s are the same value, so they would make the same run twice (equal configs): list each value once", k, prev, v))
		}
		spelt[cfg] = v
	}
	return errs
}

// Count is the number of runs the spec expands to, found without
// expanding it (a spec of a million runs answers at once), or an error
// for a list that is wrong whatever its runs' configs are. A count beyond
// the largest int is that int.
func (s *Spec) Count() (int, error) {
	if _, err := s.prepare(); err != nil {
		return 0, err
	}
	n := 0
	for _, w := range s.Workloads {
		for _, p := range s.Policies {
			n = sum(n, product(len(s.GPUs), len(s.Seeds), s.readCombinations(p, w)))
		}
	}
	return n, nil
}

// readCombinations is the number of combinations of the sets values that
// a run of workload w under policy p reads (Runs leaves out the others).
func (s *Spec) readCombinations(p, w string) int {
	var ls []int
	for k, v := range s.Sets {
		if platform.Affects(k, p, w) {
			ls = append(ls, len(v))
		}
	}
	return product(ls...)
}

// sum adds non-negative counts, saturating at the largest int.
func sum(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// Product is the size of the spec's cartesian product, at most the
// largest int: Count, before leaving out the runs that would repeat
// another because their policy or workload ignores a sets key.
func (s *Spec) Product() int {
	return product(len(s.Workloads), len(s.Policies), len(s.GPUs), len(s.Seeds), s.SetCombinations())
}

// SetCombinations is the number of combinations of the sets values (1
// without sets), at most the largest int.
func (s *Spec) SetCombinations() int {
	var ls []int
	for _, v := range s.Sets {
		ls = append(ls, len(v))
	}
	return product(ls...)
}

// product multiplies non-negative counts, saturating at the largest int.
func product(ls ...int) int {
	n := 1
	for _, l := range ls {
		if l != 0 && n > math.MaxInt/l {
			n = math.MaxInt
			continue
		}
		n *= l
	}
	return n
}

// Runs lists the spec's runs in a fixed order. It checks the spec's
// lists and that every sets value parses, but not the runs' configs:
// Expand validates those, and CheckRuns everything a run's build checks.
// It holds every run (about 2 KB each): Each streams them instead.
func (s *Spec) Runs() ([]Run, error) {
	var runs []Run
	err := s.Each(func(_ int, r Run) error {
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return runs, nil
}

// Each calls f with the index and the run of each of the spec's runs, in
// Runs' order, holding none of them, so that a spec of a million runs is
// listed or checked in constant memory. It stops at f's first error and
// returns it.
//
// A sets key that a run's policy or workload ignores (policy.* keys under
// other policies, im2col on workloads without im2col; platform.Affects)
// is left out of that run, so an on-touch run beside OASIS runs over
// policy.reset_threshold [4, 8, 32] runs once, at the default, rather
// than three times with the same result under three labels: the run is
// made at the combination whose ignored keys are at their first values.
func (s *Spec) Each(f func(i int, r Run) error) error {
	keys, err := s.prepare()
	if err != nil {
		return err
	}
	reads := map[[2]string][]bool{} // which keys each policy and workload read
	for _, p := range s.Policies {
		for _, w := range s.Workloads {
			for _, k := range keys {
				reads[[2]string{p, w}] = append(reads[[2]string{p, w}], platform.Affects(k, p, w))
			}
		}
	}
	i := 0
	return eachCombo(keys, s.Sets, func(combo []int) error {
		configs := map[string]config.Config{} // this combination's, per set of keys read
		for _, g := range s.GPUs {
			for _, w := range s.Workloads {
				for _, p := range s.Policies {
					sets, id, first := readSets(keys, s.Sets, combo, reads[[2]string{p, w}])
					if !first {
						continue // an ignored key varied: its first value's run serves
					}
					cfg, ok := configs[id]
					if !ok {
						if cfg, err = configOf(sets); err != nil {
							return err
						}
						configs[id] = cfg
					}
					cfg.GPUs = g
					for _, seed := range s.Seeds {
						r := Run{Workload: w, Policy: p, GPUs: g, Seed: seed, Scale: s.Scale, Size: s.Size, Sets: sets, Config: cfg}
						if err := f(i, r); err != nil {
							return err
						}
						i++
					}
				}
			}
		}
		return nil
	})
}

// configOf is the default config with sets applied.
func configOf(sets map[string]string) (config.Config, error) {
	cfg := config.DefaultConfig()
	for _, k := range slices.Sorted(maps.Keys(sets)) {
		if err := cfg.Set(k + "=" + sets[k]); err != nil {
			return cfg, err // prepare tried every value: not reached
		}
	}
	return cfg, nil
}

// eachCombo calls f with each combination of the sets values, as the
// index of each key's value, the last key varying fastest; once, with
// nil, without sets.
func eachCombo(keys []string, sets map[string][]string, f func(combo []int) error) error {
	if len(keys) == 0 {
		return f(nil)
	}
	combo := make([]int, len(keys))
	for {
		if err := f(combo); err != nil {
			return err
		}
		i := len(keys) - 1
		for ; i >= 0; i-- {
			if combo[i]++; combo[i] < len(sets[keys[i]]) {
				break
			}
			combo[i] = 0
		}
		if i < 0 {
			return nil
		}
	}
}

// readSets is the combination's values of the keys a run reads (reads[i]
// for keys[i]), and a string naming them (nil and "" without sets).
// first is false when a key it ignores is not at its first value: the run
// repeats the one where it is.
func readSets(keys []string, values map[string][]string, combo []int, reads []bool) (sets map[string]string, id string, first bool) {
	if combo == nil {
		return nil, "", true
	}
	sets = make(map[string]string, len(keys))
	var b strings.Builder
	for i, k := range keys {
		if !reads[i] {
			if combo[i] != 0 {
				return nil, "", false
			}
			continue
		}
		v := values[k][combo[i]]
		sets[k] = v
		b.WriteString(k + "=" + v + "\n")
	}
	return sets, b.String(), true
}

// Expand validates the spec and lists its runs in a fixed order. Every
// run's config is built and validated here, so a bad key or value fails
// before anything runs; runs whose configs are invalid are an
// *InvalidRuns that lists them. CheckRuns also checks what only the
// workload's set-up and the driver tell (platform.Check).
func (s *Spec) Expand() ([]Run, error) {
	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	bad := &InvalidRuns{Total: len(runs)}
	valid := map[config.Config]error{} // runs share a handful of configs
	for _, r := range runs {
		err, ok := valid[r.Config]
		if !ok {
			err = r.Config.Validate()
			valid[r.Config] = err
		}
		if err != nil {
			bad.add(r, err)
		}
	}
	if bad.Bad > 0 {
		return nil, bad
	}
	return runs, nil
}

// CheckRuns makes every check that building each run would make (the
// workload's set-up, its footprint against memory, SUV's hints, the
// driver's combination of policy and mechanisms; platform.Check), without
// building or running any, so that a sweep fails before its first run
// rather than in a .failed.json after others took minutes. The runs that
// would fail are an *InvalidRuns.
func CheckRuns(runs []Run) error {
	c := NewRunChecker()
	for _, r := range runs {
		c.Check(r)
	}
	return c.Err()
}

// RunChecker is CheckRuns one run at a time, for the runs Each streams:
// it keeps no run but the first MaxListed that would fail.
type RunChecker struct {
	k   *platform.Checker
	bad InvalidRuns
}

// NewRunChecker returns a RunChecker that has checked nothing.
func NewRunChecker() *RunChecker { return &RunChecker{k: platform.NewChecker()} }

// Check checks one run, as CheckRuns does.
func (c *RunChecker) Check(r Run) {
	c.bad.Total++
	if err := c.k.Check(r.Options()); err != nil {
		c.bad.add(r, err)
	}
}

// Checked is how many runs Check was given.
func (c *RunChecker) Checked() int { return c.bad.Total }

// Err is the *InvalidRuns of the checked runs that would fail, or nil.
func (c *RunChecker) Err() error {
	if c.bad.Bad > 0 {
		bad := c.bad
		return &bad
	}
	return nil
}

// MaxListed is how many bad runs an InvalidRuns error lists.
const MaxListed = 20

// InvalidRuns is the error of a sweep some of whose runs would fail, found
// before any ran: the first MaxListed of them with their errors, and how
// many there are.
type InvalidRuns struct {
	Total, Bad int // the sweep's runs, and those that would fail
	Listed     []BadRun
	// Whose names the runs' owner in the message: "the sweep's" when
	// empty, "figure fig25's" for a figure's.
	Whose string
}

// BadRun is one run that would fail.
type BadRun struct {
	Label string
	Err   error
}

func (e *InvalidRuns) add(r Run, err error) {
	e.Bad++
	if len(e.Listed) < MaxListed {
		e.Listed = append(e.Listed, BadRun{r.Label(), err})
	}
}

func (e *InvalidRuns) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %s %d runs would fail, so none was started:", e.Bad, cmp.Or(e.Whose, "the sweep's"), e.Total)
	for _, r := range e.Listed {
		fmt.Fprintf(&b, "\n  %s: %s", r.Label, strings.ReplaceAll(r.Err.Error(), "\n", "; "))
	}
	if more := e.Bad - len(e.Listed); more > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", more)
	}
	return b.String()
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

// Hash identifies a run by everything that determines its result: the
// workload, policy, seed, scale, size and the full config.
func (r Run) Hash() string {
	id := struct {
		Workload, Policy, Size string
		Seed                   uint64
		Scale                  float64
		Config                 config.Config
	}{r.Workload, r.Policy, r.Size, r.Seed, r.Scale, r.Config}
	b, _ := json.Marshal(id)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Options is the run as the platform takes it.
func (r Run) Options() platform.Options {
	return platform.Options{Workload: r.Workload, Policy: r.Policy, Seed: r.Seed, Scale: r.Scale, Size: r.Size, Config: r.Config,
		Threads: r.Threads}
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
	if r.Threads > 1 {
		a = append(a, "--threads", fmt.Sprint(r.Threads))
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
