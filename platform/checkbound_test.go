package platform

import "testing"

// A Checker keeps at most maxRemembered configs and drivers, so that a
// sweep of a million configs is checked in bounded memory, and still
// answers each run as Check does.
func TestCheckerCachesAreBounded(t *testing.T) {
	k := NewChecker()
	o := Options{Workload: "private", Policy: "on-touch", Scale: 0.01, Config: DefaultConfig()}
	o.Config.GPUs = 2
	for i := range maxRemembered + 100 {
		o.Config.GPU.L2Cycles = i + 1
		if err := k.Check(o); err != nil {
			t.Fatalf("L2 of %d cycles: %v", i+1, err)
		}
	}
	if len(k.valid) > maxRemembered || len(k.drivers) > maxRemembered {
		t.Errorf("the Checker holds %d configs and %d drivers, more than %d", len(k.valid), len(k.drivers), maxRemembered)
	}
	o.Config.GPU.CUs = 0
	if err := k.Check(o); err == nil || err.Error() != Check(o).Error() {
		t.Errorf("a bad config after the bound: %v", err)
	}
}
