package earlyadaptor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

const perVA = 512 // 2 MB / 4 KB

// call is one Thresholds call: SetAllThresholds when all, else SetThreshold.
type call struct {
	all bool
	vb  uint64
	t   int
}

func (c call) String() string {
	if c.all {
		return fmt.Sprintf("all=%d", c.t)
	}
	return fmt.Sprintf("%d=%d", c.vb, c.t)
}

// fake records calls and rejects thresholds outside 1..100, as prefetch does.
type fake struct {
	n     uint64
	calls []call
}

func (f *fake) VABlock(p uint64) uint64 { return p / perVA }
func (f *fake) VABlocks() uint64        { return f.n }
func (f *fake) SetThreshold(vb uint64, t int) error {
	if t < 1 || t > 100 || vb >= f.n {
		return fmt.Errorf("fake: threshold %d for block %d", t, vb)
	}
	f.calls = append(f.calls, call{vb: vb, t: t})
	return nil
}
func (f *fake) SetAllThresholds(t int) error {
	if t < 1 || t > 100 {
		return fmt.Errorf("fake: threshold %d", t)
	}
	f.calls = append(f.calls, call{all: true, t: t})
	return nil
}

func newCtl(t testing.TB, cfg Config, blocks, capBlocks uint64) (*Controller, *fake) {
	t.Helper()
	f := &fake{n: blocks}
	c, err := New(cfg, f, GPU{CapacityPages: capBlocks * perVA, PagesPerVABlock: perVA})
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

// fault records k faults in block vb at ns (distinct pages not needed).
func fault(t testing.TB, c *Controller, ns float64, vb uint64, k int) {
	t.Helper()
	pages := make([]uint64, k)
	for i := range pages {
		pages[i] = vb*perVA + uint64(i%perVA)
	}
	if err := c.OnFaults(ns, pages); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func callsString(cs []call) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, " ")
}

func TestDetection(t *testing.T) {
	def := DefaultConfig()
	capacity := def
	capacity.Detect = OnCapacity
	static := def
	static.Mode = Static
	for _, c := range []struct {
		name   string
		cfg    Config
		events func(t *testing.T, c *Controller)
		calls  string
		state  string
	}{
		{"no oversubscription: every block at 1, then nothing", def, func(t *testing.T, c *Controller) {
			for i := 0; i < 200; i++ {
				fault(t, c, float64(i)*5e6, uint64(i%8), 300)
			}
			must(t, c.OnEvict(1e9, 0))
			must(t, c.OnUsage(1e9, 8*perVA))
		}, "all=1", StateAggressive},
		{"first eviction: every block at 100, once", def, func(t *testing.T, c *Controller) {
			fault(t, c, 1e6, 0, 10)
			must(t, c.OnEvict(2e6, 16))
			must(t, c.OnEvict(3e6, 16))
		}, "all=1 all=100", StateAdaptive},
		{"eviction mode ignores usage", def, func(t *testing.T, c *Controller) {
			must(t, c.OnUsage(2e6, 1<<30))
		}, "all=1", StateAggressive},
		{"capacity: below it nothing, at it 100", capacity, func(t *testing.T, c *Controller) {
			must(t, c.OnUsage(1e6, 4*perVA-1))
			must(t, c.OnEvict(1.5e6, 8))
			must(t, c.OnUsage(2e6, 4*perVA))
			must(t, c.OnUsage(3e6, 5*perVA))
		}, "all=1 all=100", StateAdaptive},
		{"static: 51 throughout", static, func(t *testing.T, c *Controller) {
			must(t, c.OnEvict(1e6, 8))
			for i := 0; i < 100; i++ {
				fault(t, c, 1e6+float64(i)*5e6, uint64(i%8), 50)
			}
		}, "all=51", StateStatic},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctl, f := newCtl(t, c.cfg, 8, 4)
			c.events(t, ctl)
			if got := callsString(f.calls); got != c.calls {
				t.Errorf("calls %q, want %q", got, c.calls)
			}
			st := ctl.Stats()
			if st.State != c.state {
				t.Errorf("state %q, want %q", st.State, c.state)
			}
			if want := c.state != StateAggressive; ctl.Oversubscribed() != want || (st.Detections == 1) != want {
				t.Errorf("oversubscribed %v, detections %d", ctl.Oversubscribed(), st.Detections)
			}
		})
	}
}

// With ResetOnDetect the first analysis waits max(EvalPeriodNs, warm-up)
// after detection: 3 long slices = 60 ms, or with WarmupWindow one long
// window; without a reset, one period. Then one analysis per period,
// however many periods an input skips.
func TestAnalysisSchedule(t *testing.T) {
	for _, c := range []struct {
		name   string
		reset  bool
		warmup string
		at     []float64 // input times after detection at 10 ms
		evals  []uint64  // Evaluations after each
	}{
		{"reset: warm-up of 3 long slices", true, WarmupConsistent, []float64{69.9e6, 70e6, 75e6, 89.9e6, 90e6}, []uint64{0, 1, 1, 1, 2}},
		{"reset: a long gap runs one analysis", true, WarmupConsistent, []float64{500e6, 509e6, 510e6}, []uint64{1, 1, 2}},
		{"reset: warm-up of one long window", true, WarmupWindow, []float64{70e6, 1009.9e6, 1010e6, 1030e6}, []uint64{0, 0, 1, 2}},
		{"no reset: one period", false, WarmupConsistent, []float64{29.9e6, 30e6, 49e6, 50e6}, []uint64{0, 1, 1, 2}},
		{"no reset: warm-up ignored", false, WarmupWindow, []float64{29.9e6, 30e6}, []uint64{0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ResetOnDetect = c.reset
			cfg.Warmup = c.warmup
			ctl, _ := newCtl(t, cfg, 4, 2)
			must(t, ctl.OnEvict(10e6, 1))
			for i, at := range c.at {
				fault(t, ctl, at, 0, 1)
				if got := ctl.Stats().Evaluations; got != c.evals[i] {
					t.Errorf("after an input at %g: %d analyses, want %d", at, got, c.evals[i])
				}
			}
		})
	}
}

// Blocks 0 and 1 fault in every 20 ms slice after detection at 10 ms,
// block 2 from 115 ms on. With two blocks of capacity, the 60 ms warm-up
// sees two risky blocks, finds no risk and sends blocks 0 and 1 to 1%; a
// one-window warm-up sees three and keeps them at 100% (their VFRs are
// alike, so none passes the long test: no change).
func TestWarmupDecidesRisk(t *testing.T) {
	for _, c := range []struct {
		warmup      string
		risk, peak  uint64
		wantEnabled bool
	}{
		{WarmupConsistent, 0, 2, true},
		{WarmupWindow, 1, 3, false},
	} {
		t.Run(c.warmup, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Warmup = c.warmup
			ctl, _ := newCtl(t, cfg, 4, 2)
			must(t, ctl.OnEvict(10e6, 1))
			for ns := 15e6; ns < 1100e6; ns += 20e6 {
				for vb := uint64(0); vb < 3; vb++ {
					if vb < 2 || ns > 110e6 {
						fault(t, ctl, ns, vb, 4)
					}
				}
				if ctl.Stats().Evaluations > 0 {
					break
				}
			}
			st := ctl.Stats()
			if st.Evaluations != 1 || st.RiskSignals != c.risk || st.RiskyPeak != c.peak || st.CapacityBlocks != 2 {
				t.Fatalf("%d analyses, %d risk signals, peak %d of %d blocks; want 1, %d, %d of 2",
					st.Evaluations, st.RiskSignals, st.RiskyPeak, st.CapacityBlocks, c.risk, c.peak)
			}
			for vb := uint64(0); vb < 2; vb++ {
				if got := ctl.Threshold(vb) == cfg.Aggressive; got != c.wantEnabled {
					t.Errorf("block %d at %d%%; want enabled %v", vb, ctl.Threshold(vb), c.wantEnabled)
				}
			}
		})
	}
}

// Blocks 0-2 fault in three slices after detection at 10 ms, so the first
// analysis (75 ms) finds three risky blocks where the GPU holds two: risk,
// and every block stays at 100%. At 1.1 s those slices have left the long
// window and block 0 faults alone: no risk now. With no hold (the
// default) risk-first sends block 0 to 1%; a hold that still covers 1.1 s
// reads risk and leaves it at 100%; one that has lapsed does not.
func TestRiskHold(t *testing.T) {
	for _, c := range []struct {
		hold float64
		held uint64
		want int
	}{
		{0, 0, MinThreshold},
		{0.5, 0, MinThreshold},
		{2, 1, MaxThreshold},
	} {
		t.Run(fmt.Sprint(c.hold), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.RiskHoldWindows = c.hold
			ctl, _ := newCtl(t, cfg, 4, 2)
			must(t, ctl.OnEvict(10e6, 1))
			for _, ns := range []float64{15e6, 35e6, 55e6} {
				for vb := uint64(0); vb < 3; vb++ {
					fault(t, ctl, ns, vb, 4)
				}
			}
			fault(t, ctl, 75e6, 3, 4)
			if st := ctl.Stats(); st.Evaluations != 1 || st.RiskSignals != 1 || ctl.Threshold(0) != MaxThreshold {
				t.Fatalf("first analysis: %d analyses, %d risk signals, block 0 at %d; want 1, 1, 100",
					st.Evaluations, st.RiskSignals, ctl.Threshold(0))
			}
			fault(t, ctl, 1100e6, 0, 4)
			st := ctl.Stats()
			if st.Evaluations != 2 || st.RiskSignals != 1 || st.RiskHeld != c.held || ctl.Threshold(0) != c.want {
				t.Errorf("second analysis: %d analyses, %d signals, %d held, block 0 at %d; want 2, 1, %d, %d",
					st.Evaluations, st.RiskSignals, st.RiskHeld, ctl.Threshold(0), c.held, c.want)
			}
		})
	}
}

func TestResetOnDetectClearsHistory(t *testing.T) {
	for _, reset := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.ResetOnDetect = reset
		ctl, _ := newCtl(t, cfg, 4, 2)
		fault(t, ctl, 1e6, 1, 5)
		must(t, ctl.OnEvict(2e6, 1))
		got, _ := ctl.long.at(1, ctl.long.index(3e6))
		if want := map[bool]uint32{true: 0, false: 5}[reset]; got != want {
			t.Errorf("reset %v: block 1 holds %d faults after detection, want %d", reset, got, want)
		}
	}
}

func TestOnFaultsBeyondFootprint(t *testing.T) {
	ctl, _ := newCtl(t, DefaultConfig(), 2, 1)
	err := ctl.OnFaults(1, []uint64{0, 2 * perVA, 5, 3 * perVA})
	if err == nil || !strings.Contains(err.Error(), "page 1024 is in VA block 2") {
		t.Errorf("error %v", err)
	}
	if st := ctl.Stats(); st.Faults != 2 {
		t.Errorf("%d faults counted, want the 2 in the footprint", st.Faults)
	}
}

func TestNewErrors(t *testing.T) {
	gpu := GPU{PagesPerVABlock: perVA}
	bad := DefaultConfig()
	bad.Slices = 0
	for _, c := range []struct {
		name string
		cfg  Config
		t    Thresholds
		gpu  GPU
		want string
	}{
		{"bad config", bad, &fake{n: 1}, gpu, "slices 0"},
		{"no prefetcher", DefaultConfig(), nil, gpu, "no prefetcher"},
		{"no VA blocks", DefaultConfig(), &fake{}, gpu, "0 VA blocks"},
		{"no pages per block", DefaultConfig(), &fake{n: 1}, GPU{}, "0 pages per VA block"},
	} {
		if _, err := New(c.cfg, c.t, c.gpu); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// script drives a controller with a random but seeded mix of inputs over
// 3 simulated seconds: bursts on a few blocks, steady faults on others,
// evictions from 200 ms.
func script(t testing.TB, c *Controller, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	n := c.blocks
	pages := make([]uint64, 0, 256)
	for now := 0.0; now < 3e9; now += float64(1+r.IntN(400)) * 1e4 {
		pages = pages[:0]
		if r.IntN(4) == 0 { // a burst in one block
			vb := uint64(r.IntN(max(n/8, 1)))
			for range 64 + r.IntN(192) {
				pages = append(pages, vb*perVA+uint64(r.IntN(perVA)))
			}
		}
		for range r.IntN(16) { // steady, sparse
			pages = append(pages, uint64(r.IntN(n*perVA)))
		}
		must(t, c.OnFaults(now, pages))
		if now > 200e6 && r.IntN(3) == 0 {
			must(t, c.OnEvict(now, 1+r.IntN(32)))
		}
	}
}

// Same inputs, same calls and counters, in every configuration; and every
// threshold set stays in 1..100 (the fake rejects others).
func TestDeterminismAndBounds(t *testing.T) {
	for _, rd := range []string{RiskFirst, ShortFirst} {
		for _, sm := range []string{StepPoints, StepRelative} {
			for _, ref := range []string{RefShort, RefLong} {
				for _, av := range []string{AverageFaulting, AverageAll} {
					name := strings.Join([]string{rd, sm, ref, av}, "/")
					cfg := DefaultConfig()
					cfg.Reading, cfg.StepMode, cfg.ShortReference, cfg.Average = rd, sm, ref, av
					a, fa := newCtl(t, cfg, 64, 24)
					b, fb := newCtl(t, cfg, 64, 24)
					script(t, a, 11)
					script(t, b, 11)
					if !slices.Equal(fa.calls, fb.calls) || a.Stats() != b.Stats() {
						t.Errorf("%s: two runs differ", name)
					}
					if st := a.Stats(); st.Evaluations == 0 || st.Changes == 0 {
						t.Errorf("%s: the script exercised nothing: %+v", name, st)
					}
					for vb := range uint64(64) {
						if v := a.Threshold(vb); v < 1 || v > 100 {
							t.Errorf("%s: block %d at %d", name, vb, v)
						}
					}
				}
			}
		}
	}
}

func TestOnFaultsAllocatesNothing(t *testing.T) {
	ctl, _ := newCtl(t, DefaultConfig(), 4096, 2048)
	must(t, ctl.OnEvict(0, 1))
	pages := make([]uint64, 256)
	now := 0.0
	allocs := testing.AllocsPerRun(2000, func() {
		now += 1e5 // 100 us a batch: an analysis every 200 batches
		for i := range pages {
			pages[i] = uint64(i*97+int(now/1e5)*13) % (4096 * perVA)
		}
		if err := ctl.OnFaults(now, pages); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 || ctl.Stats().Evaluations == 0 {
		t.Errorf("%v allocations per batch over %d analyses", allocs, ctl.Stats().Evaluations)
	}
}

// BenchmarkOnFaults is the per-batch call on an 8 GB footprint (4096 VA
// blocks), 256 faults a batch, 100 us apart, oversubscribed, so the 20 ms
// analysis (a pass over every block) is amortized in.
func BenchmarkOnFaults(b *testing.B) {
	ctl, _ := newCtl(b, DefaultConfig(), 4096, 2731)
	must(b, ctl.OnEvict(0, 1))
	r := rand.New(rand.NewPCG(3, 4))
	pages := make([]uint64, 256)
	now := 0.0
	b.ReportAllocs()
	for b.Loop() {
		now += 1e5
		base := uint64(r.IntN(4096)) * perVA
		for i := range pages {
			pages[i] = base + uint64(r.IntN(2*perVA))%(4096*perVA-base)
		}
		if err := ctl.OnFaults(now, pages); err != nil {
			b.Fatal(err)
		}
	}
}
