package uvm

import (
	"testing"

	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// prefetchService is a service whose GPUs prefetch with cfg over pages 4 KB
// pages; capacity 0 means unlimited.
func prefetchService(t *testing.T, gpus int, pages uint64, cfg prefetch.Config, capacity int) *Service {
	t.Helper()
	c := DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	c.Prefetch = cfg
	s, err := MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(gpus).WithPages(4096, pages).WithCapacity(capacity).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runBatch runs one fault batch of GPU g on pages through the service to
// its end, answering every message as the GPUs would.
func runBatch(t *testing.T, s *Service, g int, pages ...uint64) {
	t.Helper()
	b := uvmproto.MakeBuilder()
	must(t, s.Receive(0, faults(g, pages...)))
	rd := drain(s)
	must(t, s.Tick(rd.WakeAt))
	for now := rd.WakeAt; s.Busy(); now += 1e-6 {
		rd = drain(s)
		if len(rd.Send) == 0 {
			t.Fatal("the batch stalled")
		}
		for _, o := range rd.Send {
			switch m := o.Msg.(type) {
			case *uvmproto.InvalidateMsg:
				must(t, s.Receive(now, b.InvalidateAck(m, o.To)))
			case *uvmproto.PageDataMsg:
				must(t, s.Receive(now, b.TransferDone(o.To, m.Batch)))
			case *uvmproto.TransferCmdMsg:
				if m.To == Host {
					must(t, s.Receive(now, b.Writeback(o.To, m.Pages, m.Batch)))
				} else {
					must(t, s.Receive(now, b.TransferDone(m.To, m.Batch)))
				}
			}
		}
	}
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
			runBatch(t, s, 0, c.fault...)
			if got := s.table.Used(0); got != c.want {
				t.Fatalf("GPU 0 holds %d pages, want %d", got, c.want)
			}
			if pf := s.counters[0].Prefetches; int(pf) != c.want-len(c.fault) {
				t.Fatalf("%d prefetches counted, want %d", pf, c.want-len(c.fault))
			}
			if h2d := s.counters[0].MigrationsH2D; int(h2d) != c.want {
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
	runBatch(t, s, 1, 100) // GPU 1 takes page 100's VA block (all 512 pages)
	if s.table.Used(1) != 512 {
		t.Fatalf("GPU 1 holds %d pages", s.table.Used(1))
	}
	runBatch(t, s, 0, 7) // GPU 0 takes page 7 from GPU 1; nothing else moves
	if s.table.Used(0) != 1 || s.table.Used(1) != 511 || s.counters[0].Prefetches != 0 {
		t.Fatalf("GPU 0 %d pages, GPU 1 %d, prefetches %d", s.table.Used(0), s.table.Used(1), s.counters[0].Prefetches)
	}
}

// Prefetched pages are pinned for their batch: the batch evicts other pages
// to make room, never the ones it brings.
func TestServicePrefetchWithinCapacity(t *testing.T) {
	one := prefetch.DefaultConfig()
	one.Threshold = 1
	s := prefetchService(t, 1, 2048, one, 600)
	runBatch(t, s, 0, 3)    // 512 pages
	runBatch(t, s, 0, 1030) // 512 more: over 600, the first block's pages go
	for p := uint64(1024); p < 1536; p++ {
		if s.table.Page(p).Copies&1 == 0 {
			t.Fatalf("page %d of the batch being placed was evicted", p)
		}
	}
	if used := s.table.Used(0); used > 600 {
		t.Fatalf("GPU 0 holds %d pages, capacity 600", used)
	}
}

// Early-Adaptor steers the trees: every block starts at 1% (a fault brings
// its whole VA block); the first eviction is its oversubscription signal,
// after which every block is at 100% and a fault brings only itself.
func TestServiceEarlyAdaptor(t *testing.T) {
	c := DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	c.Prefetch = prefetch.DefaultConfig()
	c.PrefetchControl = ControlEarlyAdaptor
	s, err := MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 4096).WithCapacity(1100).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	runBatch(t, s, 0, 3) // block 0 at 1%: all 512 pages
	if s.table.Used(0) != 512 {
		t.Fatalf("at 1%% one fault should bring its VA block: %d pages", s.table.Used(0))
	}
	runBatch(t, s, 0, 600)  // block 1: 1024 pages, under capacity
	runBatch(t, s, 0, 1100) // block 2: over capacity, evicts: detection
	if st := s.Report(); st["ea_detections"] != 1 {
		t.Fatalf("no detection after evicting: %v", st)
	}
	before := s.counters[0].Prefetches
	runBatch(t, s, 0, 2000) // block 3 at 100%: the faulted page only
	if got := s.counters[0].Prefetches - before; got != 0 {
		t.Fatalf("after detection a fault prefetched %d pages", got)
	}
	// Without tbn there is nothing to steer.
	c.Prefetch.Policy = prefetch.SequentialLocal
	if _, err := MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 4096).BuildService(); err == nil {
		t.Fatal("early-adaptor without tbn must be refused")
	}
}

// The prefetcher never brings a page no allocation holds: the padding
// between an object's end and its 2 MB slot stays where it is.
func TestServicePrefetchSkipsPadding(t *testing.T) {
	c := DefaultConfig()
	c.FaultServiceNs, c.PerFaultNs, c.HostThreads = 1000, 100, 0
	c.Prefetch = prefetch.DefaultConfig()
	c.Prefetch.Threshold = 1
	s, err := MakeBuilder().WithConfig(c).WithPolicy("on-touch", pagepolicy.DefaultConfig()).
		WithGPUs(1).WithPages(4096, 512).WithObjectLookup(func(ptr uint64) int {
		if ptr < 300*4096 {
			return 0
		}
		return -1
	}).BuildService()
	if err != nil {
		t.Fatal(err)
	}
	runBatch(t, s, 0, 3)
	if got := s.table.Used(0); got != 300 {
		t.Fatalf("GPU 0 holds %d pages, want the object's 300", got)
	}
}
