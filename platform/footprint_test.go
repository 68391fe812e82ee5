package platform

import (
	"strings"
	"testing"
)

// An absurd footprint under oversubscription, which lifts the GPU memory
// check, fails with a message before the page tables are allocated (it
// died in the allocation with a Go stack trace).
func TestBuildRejectsAbsurdFootprint(t *testing.T) {
	c := DefaultConfig()
	c.GPUs = 1
	c.Oversubscribe = 1.5
	_, err := Build(Options{Workload: "mt", Policy: "on-touch", Scale: 1e6, Config: c})
	if err == nil || !strings.Contains(err.Error(), "lower --scale") {
		t.Fatalf("Build at scale 1e6: %v, want an error saying to lower --scale", err)
	}
}
