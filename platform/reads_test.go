package platform

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// unreadValues gives every policy.* key a value other than its default.
var unreadValues = map[string]string{
	"ac_threshold": "64", "ac_group": "2MB", "ac_migrate": "group", "ac_host": "migrate", "ac_evict": "remote",
	"otable_entries": "2", "otable_ns": "500", "reset_threshold": "2", "id_bits": "12",
	"shadow_id_bits": "8", "host_llc_size": "64KB", "host_llc_ways": "4", "host_llc_hit_ns": "400",
	"host_mem_ns": "5000", "dup_write_first": "migrate", "grit_threshold": "2",
	"pa_cache_entries": "4", "pa_cache_ways": "2", "pa_cache_ns": "300", "grit_neighbors": "false",
	"grit_pa_lookup": "serial",
}

// TestUnreadKeysChangeNothing backs the check that rejects a policy.* key
// under a policy that does not declare it, and im2col on a workload
// without im2col: run anyway, each such key gives the default run's
// result exactly. pingpong and lenet share pages between GPUs, so every
// policy's shared path runs; lenet also runs im2col.
func TestUnreadKeysChangeNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates: skipped in -short")
	}
	var keys []string
	for _, k := range config.Keys(config.DefaultConfig()) {
		if name, ok := strings.CutPrefix(k.Key, policyPrefix); ok {
			if _, ok := unreadValues[name]; !ok {
				t.Fatalf("unreadValues has no value for %s", k.Key)
			}
			keys = append(keys, name)
		}
	}
	run := func(t *testing.T, o Options) []byte {
		t.Helper()
		o.unreadKeys = true
		r, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		r.Version, r.Config, r.Sets = "", config.Config{}, nil
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, p := range pagepolicy.Names() {
		read, declared, err := pagepolicy.KeysOf(p)
		if err != nil || !declared {
			t.Fatalf("policy %s declares no keys (pagepolicy.ReadsKeys): %v", p, err)
		}
		for _, w := range []string{"pingpong", "lenet"} {
			t.Run(p+"_"+w, func(t *testing.T) {
				t.Parallel()
				base := Options{Workload: w, Policy: p, Seed: 1, Scale: 0.05, Config: fourGPUs(nil)}
				want := run(t, base)
				for _, k := range keys {
					if Affects(policyPrefix+k, p, w) != slices.Contains(read, k) {
						t.Fatalf("Affects(%s, %s) disagrees with the declaration", k, p)
					}
					if slices.Contains(read, k) {
						continue
					}
					o := base
					if err := o.Config.Set(policyPrefix + k + "=" + unreadValues[k]); err != nil {
						t.Fatal(err)
					}
					if checkReads(o) == nil {
						t.Errorf("policy.%s = %s under %s: not rejected", k, unreadValues[k], p)
					}
					if got := run(t, o); !bytes.Equal(got, want) {
						t.Errorf("policy %s ignores policy.%s by its declaration, but %s changes the %s run", p, k, unreadValues[k], w)
					}
				}
			})
		}
	}
	t.Run("im2col_pingpong", func(t *testing.T) {
		o := Options{Workload: "pingpong", Policy: "oasis", Seed: 1, Scale: 0.05, Config: fourGPUs(nil)}
		want := run(t, o)
		o.Config.Im2col = "per-element"
		if checkReads(o) == nil {
			t.Error("im2col on pingpong: not rejected")
		}
		if !bytes.Equal(run(t, o), want) {
			t.Error("im2col changes pingpong, which Affects says ignores it")
		}
	})
}
