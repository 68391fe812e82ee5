package prefetch

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

// span returns the pages lo..hi-1 without the ones in except.
func span(lo, hi uint64, except ...uint64) []uint64 {
	var s []uint64
	for p := lo; p < hi; p++ {
		if !slices.Contains(except, p) {
			s = append(s, p)
		}
	}
	return s
}

func join(parts ...[]uint64) []uint64 { return slices.Concat(parts...) }

func residentIn(pages []uint64) func(uint64) bool {
	return func(p uint64) bool { return slices.Contains(pages, p) }
}

func mustNew(t testing.TB, cfg Config, pages uint64) *Tree {
	t.Helper()
	tr, err := New(cfg, pages)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Default geometry: 4 KB pages, 16 pages per 64 KB leaf, 512 per 2 MB block.
func TestPrefetch(t *testing.T) {
	def := DefaultConfig()
	with := func(f func(*Config)) Config { c := def; f(&c); return c }
	noFill := with(func(c *Config) { c.BigPageFill = false })
	thr := func(v int) Config { return with(func(c *Config) { c.Threshold = v }) }
	for _, c := range []struct {
		name     string
		cfg      Config
		resident []uint64
		faulted  []uint64
		want     []uint64
	}{
		{"51: a lone fault brings its 64KB leaf (fill)", def, nil, []uint64{0}, span(1, 16)},
		{"51: half of a 128KB node is not more than 51%", def, span(0, 16), []uint64{16}, span(17, 32)},
		{"51: 3 of 4 leaves qualify the 256KB node", def, span(0, 32), []uint64{32}, span(33, 64)},
		{"1: the whole VA block on the first fault", thr(1), nil, []uint64{5}, span(0, 512, 5)},
		{"1 without fill: 1 page qualifies up to 256KB", with(func(c *Config) { c.Threshold, c.BigPageFill = 1, false }), nil, []uint64{0}, span(1, 64)},
		{"100: never prefetches, not even the fill", thr(100), nil, []uint64{0}, nil},
		{"100: never, even at 511 of 512 resident", thr(100), span(1, 512), []uint64{0}, nil},
		{"99: the full 64KB leaf qualifies, so the fill moves", thr(99), nil, []uint64{0}, span(1, 16)},
		{"no crossing: a fault at a block's end stays in it", thr(1), nil, []uint64{511}, span(0, 511)},
		{"no crossing: a fault at a block's start stays in it", thr(1), nil, []uint64{512}, span(513, 1024)},
		{"two VA blocks in one batch, sorted", def, nil, []uint64{600, 5}, join(span(0, 16, 5), span(592, 608, 600))},
		{"duplicate and unsorted faults", def, nil, []uint64{7, 3, 7, 3}, span(0, 16, 3, 7)},
		{"a faulted page that is resident is never returned", def, []uint64{2}, []uint64{2}, join(span(0, 2), span(3, 16))},
		{"resident pages are never returned", def, []uint64{1, 9}, []uint64{0}, span(2, 16, 9)},
		{"two faults under one qualifying node: no duplicate", def, span(16, 48), []uint64{0, 50}, join(span(1, 16), span(48, 64, 50))},
		{"no fill, 51: 9 of 16 counted qualify the leaf", noFill, span(1, 9), []uint64{0}, span(9, 16)},
		{"no fill, 51: a lone fault brings nothing", noFill, nil, []uint64{0}, nil},
		{"off", with(func(c *Config) { c.Policy = Off }), nil, []uint64{0}, nil},
		{"sequential-local: the faulted blocks only", with(func(c *Config) { c.Policy = SequentialLocal }), span(16, 48), []uint64{0, 3, 40, 700}, join(span(1, 16, 3), span(688, 704, 700))},
		{"sequential-local ignores the threshold", with(func(c *Config) { c.Policy, c.Threshold = SequentialLocal, 1 }), nil, []uint64{0}, span(1, 16)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := mustNew(t, c.cfg, 2048)
			got := tr.Prefetch(c.faulted, residentIn(c.resident), nil)
			if !slices.Equal(got, c.want) {
				t.Fatalf("prefetch %v\nwant      %v", got, c.want)
			}
		})
	}
}

// TestEarlyAdaptorFig1 replays Early-Adaptor (ISPASS'23 poster) Fig. 1,
// "Example of TBN prefetcher operation", threshold 51: (1) the first fault
// hits the leftmost 4 KB page of the first VABlock; (2) "the remaining pages
// in the leaf node are prefetched" ("Prefetching 60KB"); after three 64 KB
// leaves are resident, "more than 50% of the pages under node N_2^0 [the
// 256 KB node over leaves 0-3] are resident", so (3) the prefetcher
// "migrates all pages that are not yet present ... under N_2^0"
// ("Prefetching 64KB"). The poster does not say which pages fault in the
// second and third leaves; we fault each leaf's first page. The second
// fault brings only its leaf: N_1^0 is then full but N_2^0 is 32/64 = 50%.
func TestEarlyAdaptorFig1(t *testing.T) {
	tr := mustNew(t, DefaultConfig(), 512)
	var res []uint64
	for _, step := range []struct {
		fault uint64
		want  []uint64
	}{
		{0, span(1, 16)},   // (2) 60 KB: the rest of leaf 0
		{16, span(17, 32)}, // leaf 1 fills; N_2^0 at 32/64 = 50% does not qualify
		{32, span(33, 64)}, // leaf 2 fills (60 KB) and N_2^0 at 48/64 = 75% brings leaf 3 (64 KB)
		// Beyond the figure: leaf 4 fills, and N_3^0 (512 KB) then holds
		// 64+16 = 80 of 128 pages, 62.5%, so its remaining 3 leaves come too.
		{64, span(65, 128)},
	} {
		got := tr.Prefetch([]uint64{step.fault}, residentIn(res), nil)
		if !slices.Equal(got, step.want) {
			t.Fatalf("fault %d: prefetch %v\nwant %v", step.fault, got, step.want)
		}
		res = append(append(res, step.fault), got...)
	}
}

// TestLastVABlockPartial: a footprint that ends inside a VA block clamps
// every subtree to the pages that exist, as the driver clamps leaf ranges.
func TestLastVABlockPartial(t *testing.T) {
	c := DefaultConfig().ForPageSize(64 * units.KB) // 1 page per leaf, 32 per VA block
	for _, tc := range []struct {
		name     string
		thr      int
		resident []uint64
		fault    uint64
		want     []uint64
	}{
		{"64KB pages: leaves are pages, 3 of 4 qualify", 51, []uint64{0, 1}, 2, []uint64{3}},
		{"64KB pages: 2 of 4 do not", 51, []uint64{0}, 1, nil},
		{"partial block: 3 of the 4-page node", 51, []uint64{32, 34}, 33, []uint64{35}},
		{"partial block: 4 of 8 existing pages is 50%", 51, []uint64{32, 34, 35}, 33, nil},
		{"partial block: 5 of 8 existing pages qualify the clamped root", 51, []uint64{32, 34, 35, 36}, 33, span(37, 40)},
		{"partial block, threshold 1: up to the footprint's end", 1, nil, 39, span(32, 39)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := c
			cfg.Threshold = tc.thr
			tr := mustNew(t, cfg, 40)
			if got := tr.Prefetch([]uint64{tc.fault}, residentIn(tc.resident), nil); !slices.Equal(got, tc.want) {
				t.Fatalf("prefetch %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPerBlockThreshold(t *testing.T) {
	tr := mustNew(t, DefaultConfig(), 1500) // blocks 0, 1 and a partial 2
	if err := tr.SetThreshold(1, 1); err != nil {
		t.Fatal(err)
	}
	got := tr.Prefetch([]uint64{5, 600}, residentIn(nil), nil)
	if want := join(span(0, 16, 5), span(512, 1024, 600)); !slices.Equal(got, want) {
		t.Fatalf("prefetch %v\nwant %v", got, want)
	}
	if tr.Threshold(0) != 51 || tr.Threshold(1) != 1 || tr.VABlocks() != 3 || tr.VABlock(1499) != 2 {
		t.Fatalf("thresholds %d %d, %d blocks", tr.Threshold(0), tr.Threshold(1), tr.VABlocks())
	}
	if err := tr.SetAllThresholds(100); err != nil {
		t.Fatal(err)
	}
	if tr.Threshold(1) != 100 || tr.Threshold(2) != 100 {
		t.Fatal("SetAllThresholds kept an override")
	}
	if got := tr.Prefetch([]uint64{5, 600}, residentIn(nil), nil); len(got) != 0 {
		t.Fatalf("threshold 100 prefetched %v", got)
	}
	for _, bad := range []struct {
		vb  uint64
		thr int
	}{{0, 0}, {0, 101}, {3, 51}} {
		if err := tr.SetThreshold(bad.vb, bad.thr); err == nil {
			t.Errorf("SetThreshold(%d, %d) accepted", bad.vb, bad.thr)
		}
	}
	if err := tr.SetAllThresholds(0); err == nil {
		t.Error("SetAllThresholds(0) accepted")
	}
}

func TestConfigErrors(t *testing.T) {
	def := DefaultConfig()
	for _, c := range []struct {
		name string
		set  func(*Config)
		msg  string
	}{
		{"unknown prefetcher", func(c *Config) { c.Policy = "stride" }, "valid prefetchers are off, sequential-local, tbn"},
		{"threshold 0", func(c *Config) { c.Threshold = 0 }, "must be in 1..100"},
		{"threshold 101", func(c *Config) { c.Threshold = 101 }, "must be in 1..100"},
		{"page not a power of two", func(c *Config) { c.PageSize = 3000 }, "page size 3000 bytes: must be a power of two"},
		{"block not a power of two", func(c *Config) { c.BlockSize = 48 * units.KB }, "basic block 49152 bytes"},
		{"VA block zero", func(c *Config) { c.VABlockSize = 0 }, "VA block 0 bytes"},
		{"block below page", func(c *Config) { c.PageSize = 128 * units.KB }, "smaller than the page size"},
		{"VA block below block", func(c *Config) { c.VABlockSize = 32 * units.KB }, "smaller than the basic block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := def
			c.set(&cfg)
			_, err := New(cfg, 1)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want one containing %q", err, c.msg)
			}
		})
	}
	if _, err := New(def, 0); err == nil {
		t.Error("an empty footprint accepted")
	}
	if err := def.ForPageSize(2 * units.MB).Validate(); err != nil {
		t.Errorf("2MB pages: %v", err)
	}
}

func TestLargePagesPrefetchNothing(t *testing.T) {
	tr := mustNew(t, DefaultConfig().ForPageSize(2*units.MB), 8)
	if got := tr.Prefetch([]uint64{3}, residentIn(nil), nil); len(got) != 0 {
		t.Fatalf("2MB pages prefetched %v", got)
	}
}

func TestPageBeyondFootprintPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	mustNew(t, DefaultConfig(), 100).Prefetch([]uint64{100}, residentIn(nil), nil)
}

func TestPrefetchDoesNotAllocate(t *testing.T) {
	tr := mustNew(t, DefaultConfig(), 1<<16)
	faults, res := batch(rand.New(rand.NewPCG(1, 2)), 1<<16)
	dst := make([]uint64, 0, 1<<16)
	allocs := testing.AllocsPerRun(20, func() { dst = tr.Prefetch(faults, res, dst[:0]) })
	if allocs != 0 {
		t.Fatalf("%v allocations per call", allocs)
	}
}
