package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/uvm"
)

// The rules between config keys live here, as two tables that Validate
// applies to every config, whatever made it (defaults, a --config file,
// --set, a sweep's sets):
//
//   - requirements: a feature that runs only with another setting is an
//     error while that setting is missing (Early-Adaptor steers the tbn
//     prefetcher, so it needs uvm.prefetch.policy=tbn);
//   - dependencies: a key that takes effect only while a feature is on is
//     an error when it is given a value other than its default while the
//     feature is off (uvm.prefetch.threshold with the prefetcher off).
//     Such a key would change nothing in the run, yet the result, and a
//     sweep's labels, would record it as if it had.
//
// A key "given" is one whose value differs from DefaultConfig(): every
// config starts from the defaults, so a key differs from its default only
// when a file, --set or a sweep gave it another value. A key given its
// default value changes nothing either way and is accepted.
//
// The keys of policy.* depend on --policy too, and im2col on the
// workload, neither of them a config key: platform checks those (reads.go),
// from the keys Given lists.

// A dependency is a group of keys and when they take effect. Keys ending
// in ".*" stand for every key below that prefix. When a key belongs to
// several dependencies, the first in the table that is off is reported.
type dependency struct {
	keys []string
	// on reports whether the keys take effect.
	on func(c *Config) bool
	// while is the key whose value leaves them without effect, and use
	// what to set to give them effect ("uvm.prefetch.policy=tbn").
	while, use string
	// note, if set, says what decides instead or what else uses the keys.
	note string
}

// dependencies is every dependent key of Config: the registered runtimes'
// (uvm.RuntimeSpec.Dependencies), then the table below. The test checks
// that every key named here exists.
// It is made at first use, so that it holds every runtime registered
// before (a test's too).
var dependencies = sync.OnceValue(func() []dependency { return append(runtimeDependencies(), keyDependencies()...) })

// keyDependencies are the dependent keys no runtime declares, with the
// fault-handling cores' in their place.
func keyDependencies() []dependency {
	return slices.Concat([]dependency{
		// The driver's prefetcher (package prefetch).
		{keys: []string{"uvm.prefetch.threshold", "uvm.prefetch.big_page_fill", "uvm.prefetch.va_block_size"},
			on:    func(c *Config) bool { return c.UVM.Prefetch.Policy == prefetch.TBN },
			while: "uvm.prefetch.policy", use: "uvm.prefetch.policy=tbn"},
		{keys: []string{"uvm.prefetch.block_size"},
			on: func(c *Config) bool {
				u := c.UVM
				return u.Prefetch.Policy != prefetch.Off || runtimeUses(c, "uvm.prefetch.block_size") ||
					u.FaultHandling == uvm.HandlingSoftware && runtimesLeave(c, "uvm.eviction") && slices.Contains(blockEvictions, u.Eviction)
			},
			while: "uvm.prefetch.policy", use: "uvm.prefetch.policy=sequential-local or tbn",
			note: "it is also the basic block of " + usersOf("uvm.prefetch.block_size") + "and of uvm.eviction=" + strings.Join(blockEvictions, ", ")},

		// Who handles far faults: the host driver's batches or a core
		// registered for uvm.fault_handling (uvm.HandlingSpec).
	}, handlingDependencies(), []dependency{
		{keys: []string{"uvm.per_fault_charge"},
			on:    func(c *Config) bool { return c.UVM.FaultHandling == uvm.HandlingSoftware && c.UVM.HostThreads == 0 },
			while: "uvm.host_threads", use: "uvm.host_threads=0",
			note: "host threads charge each fault as it arrives, before the batch knows which pages it maps"},

		// The driver's thrashing control.
		{keys: []string{"uvm.thrashing_lapse_ns", "uvm.thrashing_threshold", "uvm.thrashing_pin_threshold", "uvm.thrashing_faults"},
			on:    func(c *Config) bool { return c.UVM.Thrashing },
			while: "uvm.thrashing", use: "uvm.thrashing=true"},

		// Eviction: the chunk is the unit of the chunk policies (and of the
		// runtimes that use it, UVMSmart's tree eviction).
		{keys: []string{"uvm.eviction_chunk"},
			on: func(c *Config) bool {
				return slices.Contains(chunkEvictions, c.UVM.Eviction) || runtimeUses(c, "uvm.eviction_chunk")
			},
			while: "uvm.eviction", use: "uvm.eviction=" + strings.Join(chunkEvictions, ", "),
			note: "or " + usersOf("uvm.eviction_chunk") + "which uses it"},

		// The access counters: a runtime that adapts to oversubscription may
		// count with its own threshold and region (uvm.RuntimeSpec.Counters).
		{keys: []string{"policy.ac_threshold", "policy.ac_group", "policy.ac_migrate"},
			on: func(c *Config) bool {
				_, own := c.UVM.OwnCounters()
				return !own
			},
			while: "uvm.adaptive", use: "uvm.adaptive=" + strings.Join(ownCounters(false), " or "),
			note: strings.Join(ownCounters(true), ", ") + " count with their own settings (mgpu list: uvm.<runtime>.*)"},

		// Links: one GPU has no peer, and each PCIe model reads its own keys.
		{keys: []string{"topology", "link.nvlink_gbps", "link.nvlink_latency_ns", "link.switch_latency_ns"},
			on:    func(c *Config) bool { return c.GPUs > 1 },
			while: "gpus", use: "gpus to 2 or more", note: "one GPU has no peer to reach over NVLink"},
		{keys: []string{"link.switch_latency_ns"},
			on:    func(c *Config) bool { return c.Topology == "switch" },
			while: "topology", use: "topology=switch"},
		{keys: []string{"link.pcie_gpus_per_switch", "link.pcie_switch_latency_ns"},
			on:    func(c *Config) bool { return c.Link.PCIeTopology == interconnect.PCIeTree },
			while: "link.pcie_topology", use: "link.pcie_topology=tree"},
		{keys: []string{"link.pcie_latency_ns"},
			on:    func(c *Config) bool { return c.Link.PCIeModel == interconnect.PCIeOneWay },
			while: "link.pcie_model", use: "link.pcie_model=oneway", note: "rtt charges link.pcie_rtt_ns/2 instead"},
		{keys: []string{"link.pcie_rtt_ns"},
			on:    func(c *Config) bool { return c.Link.PCIeModel == interconnect.PCIeRTT },
			while: "link.pcie_model", use: "link.pcie_model=rtt"},
		{keys: []string{"link.pcie_curve_a", "link.pcie_curve_b"},
			on:    func(c *Config) bool { return c.Link.PCIeModel == interconnect.PCIeUVMSmart },
			while: "link.pcie_model", use: "link.pcie_model=uvmsmart"},
		{keys: []string{"link.pcie_gbps"},
			on:    func(c *Config) bool { return c.Link.PCIeModel != interconnect.PCIeUVMSmart },
			while: "link.pcie_model", use: "link.pcie_model=oneway or rtt",
			note: "the uvmsmart curve's bandwidth is link.pcie_curve_a"},
	})
}

// runtimeDependencies are the registered runtimes' dependent keys.
func runtimeDependencies() []dependency {
	var out []dependency
	for _, r := range uvm.Runtimes() {
		out = appendDependencies(out, r.Spec.Dependencies)
	}
	return out
}

// handlingDependencies are the registered fault-handling cores' dependent
// keys.
func handlingDependencies() []dependency {
	var out []dependency
	for _, h := range uvm.Handlings() {
		out = appendDependencies(out, h.Dependencies)
	}
	return out
}

func appendDependencies(out []dependency, ds []uvm.Dependency) []dependency {
	for _, d := range ds {
		out = append(out, dependency{keys: d.Keys, on: func(c *Config) bool { return d.On(c.UVM) },
			while: d.While, use: d.Use, note: d.Note})
	}
	return out
}

// runtimeUses reports whether a runtime c selects reads driver key k
// (uvm.RuntimeSpec.Uses).
func runtimeUses(c *Config, k string) bool {
	for _, r := range c.UVM.Selected() {
		if slices.Contains(r.Spec.Uses, k) {
			return true
		}
	}
	return false
}

// runtimesLeave reports whether the registered runtimes leave key k in
// effect in c: no dependency of theirs on k is off.
func runtimesLeave(c *Config, k string) bool {
	for _, r := range uvm.Runtimes() {
		for _, d := range r.Spec.Dependencies {
			if slices.Contains(d.Keys, k) && !d.On(c.UVM) {
				return false
			}
		}
	}
	return true
}

// usersOf names the runtimes that read driver key k, as "uvm.adaptive=a
// and b " ("" for none).
func usersOf(k string) string {
	var s string
	for _, r := range uvm.Runtimes() {
		if slices.Contains(r.Spec.Uses, k) {
			s += r.Key + "=" + r.Name + " "
		}
	}
	return s
}

// ownCounters names the uvm.adaptive runtimes that count with their own
// access-counter settings (own) or with the page policy's (with none).
func ownCounters(own bool) []string {
	var names []string
	if !own {
		names = append(names, uvm.AdaptiveNone)
	}
	for _, r := range uvm.Runtimes() {
		if r.Key == uvm.KeyAdaptive && (r.Spec.Counters != nil) == own {
			names = append(names, r.Name)
		}
	}
	return names
}

// The eviction policies that evict by chunk (uvm.eviction_chunk) or by
// basic block (uvm.prefetch.block_size) under software fault handling.
var (
	chunkEvictions = []string{eviction.LRM2MB, eviction.LRU2MB, eviction.LFU2MB, eviction.TBN}
	blockEvictions = []string{eviction.SequentialLocal, eviction.TBN, eviction.LinearRandom}
)

// A requirement is a feature that runs only with another setting.
type requirement struct {
	key string
	// on reports whether the feature is on, ok whether what it needs holds.
	on, ok func(c *Config) bool
	// need says why and what to set, as "<reason>: set <key>=<value>".
	need func(c *Config) string
}

func says(s string) func(*Config) string { return func(*Config) string { return s } }

// requirements is every requirement between config keys: what each
// fault-handling core (uvm.HandlingSpec.Rules), then each driver runtime
// declares (uvm.RuntimeSpec).
func requirements() []requirement {
	return append(handlingRequirements(), runtimeRequirements()...)
}

// handlingRequirements are the registered fault-handling cores' rules,
// each on uvm.fault_handling while it selects the core.
func handlingRequirements() []requirement {
	var out []requirement
	for _, name := range uvm.HandlingNames()[1:] {
		h, _ := uvm.HandlingOf(name)
		for _, r := range h.Rules {
			need := func(c *Config) string {
				return r.Need(c.UVM, c.PageSize, func(k string) string { v, _ := c.Get(k); return v })
			}
			out = append(out, requirement{key: "uvm.fault_handling",
				on: func(c *Config) bool { return c.UVM.FaultHandling == name },
				ok: func(c *Config) bool { return need(c) == "" }, need: need})
		}
	}
	return out
}

// runtimeRequirements are the registered runtimes' requirements on config
// keys, as uvm's builder checks them; the page policy a runtime needs is
// not a config key, and the builder checks it when the run starts.
func runtimeRequirements() []requirement {
	var out []requirement
	for _, key := range []string{uvm.KeyPrefetchControl, uvm.KeyAdaptive} {
		for _, name := range uvm.RuntimeNames(key) {
			for _, r := range uvm.RuntimeRequires(key, name) {
				if r.Key == "policy" {
					continue
				}
				out = append(out, requirement{key: key,
					on:   func(c *Config) bool { v, _ := c.Get(key); return v == name },
					ok:   func(c *Config) bool { v, _ := c.Get(r.Key); return v == r.Value },
					need: says(r.Why + ": set " + r.Key + "=" + r.Value)})
			}
		}
	}
	return out
}

// keyRules are the tables' keys resolved against Config, once.
type keyRules struct {
	keys  [][]string // dependencies[i]'s keys, ".*" expanded
	index map[string]int
	def   []string // every leaf's default value, by index
}

var rules = sync.OnceValues(func() (keyRules, error) {
	var r keyRules
	ls := leaves(reflect.ValueOf(DefaultConfig()), "", nil)
	r.index = map[string]int{}
	r.def = defaults()
	for i, l := range ls {
		r.index[l.key] = i
	}
	for _, d := range dependencies() {
		var ks []string
		for _, k := range d.keys {
			if prefix, ok := strings.CutSuffix(k, ".*"); ok {
				for _, l := range ls {
					if strings.HasPrefix(l.key, prefix+".") {
						ks = append(ks, l.key)
					}
				}
				if len(ks) == 0 {
					return r, fmt.Errorf("dependency key %q: no key below %s", k, prefix)
				}
				continue
			}
			if _, ok := r.index[k]; !ok {
				return r, fmt.Errorf("dependency key %q is not a config key", k)
			}
			ks = append(ks, k)
		}
		if _, ok := r.index[d.while]; !ok {
			return r, fmt.Errorf("dependency condition %q is not a config key", d.while)
		}
		r.keys = append(r.keys, ks)
	}
	for _, q := range requirements() {
		if _, ok := r.index[q.key]; !ok {
			return r, fmt.Errorf("requirement key %q is not a config key", q.key)
		}
	}
	return r, nil
})

// defaults are every leaf's default value, in Keys' order, made at first
// use (after every runtime registered its section).
var defaults = sync.OnceValue(func() []string {
	var def []string
	for _, l := range leaves(reflect.ValueOf(DefaultConfig()), "", nil) {
		def = append(def, formatValue(l.v))
	}
	return def
})

// A Given is a key a config gives a value other than its default: a
// file, --set or a sweep gave it. Platform rejects the given keys a run's
// policy or workload ignores.
type Given struct {
	Key   string
	Value string // as Validate's messages show it: a string quoted
}

// Given lists the keys c gives a value other than their default, in Keys'
// order.
func (c Config) Given() []Given {
	def := defaults()
	var out []Given
	for i, l := range leaves(reflect.ValueOf(&c).Elem(), "", make([]leaf, 0, len(def))) {
		if formatValue(l.v) != def[i] {
			out = append(out, Given{Key: l.key, Value: shown(l.v)})
		}
	}
	return out
}

// shown is a value as Validate's messages show it: strings quoted.
func shown(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	return formatValue(v)
}

// ruleErrors applies the requirements and the dependencies to c. prior
// are the errors Validate found already: a rule on a key they name, or
// whose condition is such a key ("while gpus = 0"), would only repeat them.
func (c *Config) ruleErrors(prior []error) []error {
	r, err := rules()
	if err != nil {
		return []error{fmt.Errorf("internal error: %w", err)} // the tables' test keeps this from happening
	}
	bad := map[string]bool{}
	for _, e := range prior {
		if k, _, ok := strings.Cut(e.Error(), " = "); ok {
			bad[k] = true
		}
	}
	ls := leaves(reflect.ValueOf(c).Elem(), "", nil)
	var errs []error
	for _, q := range requirements() {
		if q.on(c) && !q.ok(c) && !bad[q.key] {
			errs = append(errs, fmt.Errorf("%s = %s: %s", q.key, shown(ls[r.index[q.key]].v), q.need(c)))
		}
	}
	reported := map[string]bool{}
	for i, d := range dependencies() {
		if d.on(c) || bad[d.while] {
			continue
		}
		for _, k := range r.keys[i] {
			j := r.index[k]
			if reported[k] || bad[k] || formatValue(ls[j].v) == r.def[j] {
				continue
			}
			reported[k] = true
			note := ""
			if d.note != "" {
				note = " (" + d.note + ")"
			}
			errs = append(errs, fmt.Errorf("%s = %s: has no effect while %s = %s; set %s to use it%s",
				k, shown(ls[j].v), d.while, shown(ls[r.index[d.while]].v), d.use, note))
		}
	}
	return errs
}

// InEffect reports whether key takes effect in c: false for a key of the
// dependencies table while its feature is off in c, true for every other
// key. A generated config (characterize's zero-latency system) sets only
// the keys in effect, as Validate accepts no other key away from its
// default.
func (c Config) InEffect(key string) bool {
	r, err := rules()
	if err != nil {
		return true
	}
	for i, d := range dependencies() {
		if slices.Contains(r.keys[i], key) && !d.on(&c) {
			return false
		}
	}
	return true
}
