package platform

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/dnn"
	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// The keys of policy.* take effect under some policies only, and im2col on
// some workloads only; neither the policy nor the workload is a config
// key, so these rules sit beside the dependencies table rather than in it.
// A run that gives such a key a value other than its default under a
// policy or workload that ignores it is an error, as a dependent key is:
// its result would be the default run's, labelled with the key. A sweep
// or figure that varies such a key across policies gives it only to the
// runs that read it (sweep.Spec.Runs).

// policyPrefix is the section of the page policies' keys.
const policyPrefix = "policy."

// Affects reports whether config key changes a run of workload under
// policy. Every key does but those of policy.* (the ones the policy
// declared with pagepolicy.ReadsKeys; every key for a policy that
// declared none) and im2col (dnn.ReadsIm2col). Unknown policies
// and workloads are affected by everything: Check reports them.
func Affects(key, policy, workload string) bool {
	if name, ok := strings.CutPrefix(key, policyPrefix); ok {
		keys, declared, err := pagepolicy.KeysOf(policy)
		if err != nil || !declared {
			return true
		}
		return slices.Contains(keys, name)
	}
	if key == "im2col" {
		w, err := benchmarks.New(workload)
		return err != nil || dnn.ReadsIm2col(w)
	}
	return true
}

// readers says who reads a key that policy or workload ignores.
func readers(key string) string {
	if name, ok := strings.CutPrefix(key, policyPrefix); ok {
		if r := pagepolicy.ReadersOf(name); len(r) > 0 {
			return "it is read by policy " + strings.Join(r, ", ")
		}
		return "no policy reads it"
	}
	var ws []string
	for _, n := range benchmarks.Names() {
		if w, err := benchmarks.New(n); err == nil && dnn.ReadsIm2col(w) {
			ws = append(ws, n)
		}
	}
	return "it is read by workload " + strings.Join(ws, ", ")
}

// checkReads rejects the policy.* keys and im2col that o gives a value
// other than their default while o's policy or workload ignores them.
func checkReads(o Options) error {
	var errs []error
	for _, g := range o.Config.Given() {
		if !strings.HasPrefix(g.Key, policyPrefix) && g.Key != "im2col" || Affects(g.Key, o.Policy, o.Workload) {
			continue
		}
		what := "policy " + o.Policy
		if g.Key == "im2col" {
			what = "workload " + o.Workload
		}
		errs = append(errs, fmt.Errorf("%s = %s: has no effect under %s; %s", g.Key, g.Value, what, readers(g.Key)))
	}
	return errors.Join(errs...)
}
