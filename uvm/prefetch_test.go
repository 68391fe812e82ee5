package uvm_test

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmtest"
)

// prefetchService is a service whose GPUs prefetch with cfg over pages 4 KB
// pages; capacity 0 means unlimited.
func prefetchService(t *testing.T, gpus int, pages uint64, cfg prefetch.Config, capacity int) *uvm.Service {
	t.Helper()
	c := uvm.DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	c.Prefetch = cfg
	s, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(gpus).WithPages(4096, pages).WithCapacity(capacity).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestServicePrefetch(t *testing.T) {
	tbn := prefetch.DefaultConfig()
	one := tbn
	one.Threshold = 1
	cases := []struct {
		name  string
		cfg   prefetch.Config
		pages uint64
		fault []uint64
		want  int // pages on GPU 0 after the batch
	}{
		{"off", prefetch.Config{Policy: prefetch.Off, Threshold: 51, BlockSize: 64 << 10, VABlockSize: 2 << 20}, 1024, []uint64{5}, 1},
		{"sequential-local brings the 64 KB block", func() prefetch.Config { c := tbn; c.Policy = prefetch.SequentialLocal; return c }(), 1024, []uint64{5}, 16},
		{"tbn at 51: one fault brings its block only", tbn, 1024, []uint64{5}, 16},
		{"tbn at 1: one fault brings its whole 2 MB VA block", one, 1024, []uint64{5}, 512},
		{"tbn at 1 never crosses the VA block", one, 1024, []uint64{511}, 512},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := prefetchService(t, 2, c.pages, c.cfg, 0)
			uvmtest.RunBatch(t, s, 0, c.fault...)
			if got := s.Table().Used(0); got != c.want {
				t.Fatalf("GPU 0 holds %d pages, want %d", got, c.want)
			}
			if pf := s.Counters(0).Prefetches; int(pf) != c.want-len(c.fault) {
				t.Fatalf("%d prefetches counted, want %d", pf, c.want-len(c.fault))
			}
			if h2d := s.Counters(0).MigrationsH2D; int(h2d) != c.want {
				t.Fatalf("%d host copies, want %d", h2d, c.want)
			}
		})
	}
}

// A page another GPU holds is not prefetched away from it.
func TestServicePrefetchLeavesPeerPages(t *testing.T) {
	one := prefetch.DefaultConfig()
	one.Threshold = 1
	s := prefetchService(t, 2, 512, one, 0)
	uvmtest.RunBatch(t, s, 1, 100) // GPU 1 takes page 100's VA block (all 512 pages)
	if s.Table().Used(1) != 512 {
		t.Fatalf("GPU 1 holds %d pages", s.Table().Used(1))
	}
	uvmtest.RunBatch(t, s, 0, 7) // GPU 0 takes page 7 from GPU 1; nothing else moves
	if s.Table().Used(0) != 1 || s.Table().Used(1) != 511 || s.Counters(0).Prefetches != 0 {
		t.Fatalf("GPU 0 %d pages, GPU 1 %d, prefetches %d", s.Table().Used(0), s.Table().Used(1), s.Counters(0).Prefetches)
	}
}

// Prefetched pages are pinned for their batch: the batch evicts other pages
// to make room, never the ones it brings.
func TestServicePrefetchWithinCapacity(t *testing.T) {
	one := prefetch.DefaultConfig()
	one.Threshold = 1
	s := prefetchService(t, 1, 2048, one, 600)
	uvmtest.RunBatch(t, s, 0, 3)    // 512 pages
	uvmtest.RunBatch(t, s, 0, 1030) // 512 more: over 600, the first block's pages go
	for p := uint64(1024); p < 1536; p++ {
		if s.Table().Page(p).Copies&1 == 0 {
			t.Fatalf("page %d of the batch being placed was evicted", p)
		}
	}
	if used := s.Table().Used(0); used > 600 {
		t.Fatalf("GPU 0 holds %d pages, capacity 600", used)
	}
}

// The prefetcher never brings a page no allocation holds: the padding
// between an object's end and its 2 MB slot stays where it is.
func TestServicePrefetchSkipsPadding(t *testing.T) {
	c := uvm.DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	c.Prefetch = prefetch.DefaultConfig()
	c.Prefetch.Threshold = 1
	s, err := uvm.MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 512).WithObjectLookup(func(ptr uint64) int {
		if ptr < 300*4096 {
			return 0
		}
		return -1
	}).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	uvmtest.RunBatch(t, s, 0, 3)
	if got := s.Table().Used(0); got != 300 {
		t.Fatalf("GPU 0 holds %d pages, want the object's 300", got)
	}
}
