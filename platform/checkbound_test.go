package platform

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
)

// A Checker keeps at most maxRemembered configs and drivers, so that a
// sweep of a million configs is checked in bounded memory, and still
// answers each run as Check does.
func TestCheckerCachesAreBounded(t *testing.T) {
	k := NewChecker()
	o := Options{Workload: "private", Policy: "on-touch", Scale: 0.01, Config: config.DefaultConfig()}
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

// A footprint the workload's paper size declares well past a bound is
// refused before the workload builds its inputs (bfs generated a 3 TB
// graph at --scale 1e5 and died of "out of memory"); near the bound the
// check after set-up decides.
func TestDeclaredFootprintCheckedBeforeSetUp(t *testing.T) {
	c := config.DefaultConfig()
	c.GPUs = 4
	o := Options{Workload: "bfs", Policy: "on-touch", Scale: 1e5, Config: c}
	if err := Check(o); err == nil || !strings.Contains(err.Error(), "footprint 3.05TB of bfs exceeds the total GPU memory 16.00GB") {
		t.Errorf("without oversubscription: %v", err)
	}
	o.Config.Oversubscribe = 1.5
	if err := Check(o); err == nil || !strings.Contains(err.Error(), "over the 134217728 pages of 4.00KB (512.00GB) mgpu simulates: lower --scale to at most 1.638e+04 at this size") {
		t.Errorf("oversubscribed: %v", err)
	}
	w, _ := benchmarks.New("bfs")
	o.Scale = 1.9 * (1 << 39) / float64(32<<20) // declared 1.9 times 512 GB
	if err := checkDeclaredSize(w, o); err != nil {
		t.Errorf("near the bound: %v", err)
	}
}
