package earlyadaptor_test

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/runtimes/earlyadaptor"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmtest"
)

// Early-Adaptor steers the trees: every block starts at 1% (a fault brings
// its whole VA block); the first eviction is its oversubscription signal,
// after which every block is at 100% and a fault brings only itself.
func TestEarlyAdaptorSteersTheTrees(t *testing.T) {
	c := uvm.DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	c.Prefetch = prefetch.DefaultConfig()
	c.PrefetchControl = earlyadaptor.Name
	s, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 4096).WithCapacity(1100).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	uvmtest.RunBatch(t, s, 0, 3) // block 0 at 1%: all 512 pages
	if s.Table().Used(0) != 512 {
		t.Fatalf("at 1%% one fault should bring its VA block: %d pages", s.Table().Used(0))
	}
	uvmtest.RunBatch(t, s, 0, 600)  // block 1: 1024 pages, under capacity
	uvmtest.RunBatch(t, s, 0, 1100) // block 2: over capacity, evicts: detection
	if st := s.Report(); st["ea_detections"] != 1 {
		t.Fatalf("no detection after evicting: %v", st)
	}
	before := s.Counters(0).Prefetches
	uvmtest.RunBatch(t, s, 0, 2000) // block 3 at 100%: the faulted page only
	if got := s.Counters(0).Prefetches - before; got != 0 {
		t.Fatalf("after detection a fault prefetched %d pages", got)
	}
	// Without tbn there is nothing to steer.
	c.Prefetch.Policy = prefetch.SequentialLocal
	if _, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 4096).BuildService(); err == nil || !strings.Contains(err.Error(), "uvm.prefetch.policy=tbn") {
		t.Fatalf("early-adaptor without tbn must be refused, naming the fix: %v", err)
	}
}
