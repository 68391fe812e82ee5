package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/mgpu-sim/mgpu/platform"
)

// TestHashOutlines: a truncated run's hash changed when its dropped
// workgroups began to run their outlines, so no result kept from before
// is reused for it; every other run's hash is what it was, so their kept
// results still are.
func TestHashOutlines(t *testing.T) {
	before := func(r Run) string { // Hash as it was before outlines
		b, _ := json.Marshal(struct {
			Workload, Policy, Size string
			Seed                   uint64
			Scale                  float64
			Config                 platform.Config
		}{r.Workload, r.Policy, r.Size, r.Seed, r.Scale, r.Config})
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:8])
	}
	for _, n := range []int{1, 2, 256} {
		r := Run{Workload: "syrk", Policy: "on-touch", Size: "auto", Seed: 1, Scale: 1, Config: platform.DefaultConfig()}
		r.Config.SampleWorkgroups = n
		if same := r.Hash() == before(r); same != (n == 1) {
			t.Errorf("sample_workgroups %d: hash %s, before outlines %s", n, r.Hash(), before(r))
		}
	}
}
