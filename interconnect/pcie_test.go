package interconnect

import (
	"math"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

func mustTiming(t *testing.T, c Config) TimingFunc {
	t.Helper()
	f, err := PCIeTiming(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func withModel(model string, set func(*Config)) Config {
	c := DefaultConfig()
	c.PCIeModel = model
	if set != nil {
		set(&c)
	}
	return c
}

// sizes are message sizes on the wire, in increasing order: empty, a
// control message, a cache line, 4 KB and 64 KB pages with a header, and
// transfers up to 4 MB.
var sizes = []int{0, 1, 24, 80, 4096, 4112, 16384, 65536, 65552, 262144, 1 << 20, 2 << 20, 4 << 20}

// Every model's time grows with the size: strictly for the occupancy, and
// the total.
func TestPCIeTimingMonotone(t *testing.T) {
	for _, m := range PCIeModels() {
		t.Run(m, func(t *testing.T) {
			f := mustTiming(t, withModel(m, nil))
			prev := f(sizes[0])
			for _, n := range sizes[1:] {
				got := f(n)
				if !(got.Occupancy > prev.Occupancy) || !(got.Total() > prev.Total()) {
					t.Errorf("%d bytes: %+v, not above the previous size's %+v", n, got, prev)
				}
				if got.Latency != prev.Latency {
					t.Errorf("%d bytes: latency %v changed from %v; only occupancy depends on size", n, got.Latency, prev.Latency)
				}
				prev = got
			}
		})
	}
}

// The default model is the link as it was: bytes / (gbps*1e9) of
// occupancy and latencyNs*1e-9 of latency, the same float operations
// link.go did, so equality is exact.
func TestPCIeOneWayIsTheOldLink(t *testing.T) {
	c := DefaultConfig()
	if c.PCIeModel != PCIeOneWay {
		t.Fatalf("default model %q, want %q", c.PCIeModel, PCIeOneWay)
	}
	f := mustTiming(t, c)
	// link.go before the models, at run time (a constant expression would
	// be rounded once, exactly, and differ in the last bit):
	// bytesPerSec = gbps*1e9, ser = float64(bytes)/bytesPerSec,
	// latency = latencyNs*1e-9.
	gbps, latNs := c.PCIeGBps, c.PCIeLatencyNs
	if gbps != 32 || latNs != 150 {
		t.Fatalf("defaults %v GB/s, %v ns; this test is written for 32 and 150", gbps, latNs)
	}
	bytesPerSec := gbps * 1e9
	for _, n := range sizes {
		want := Timing{Occupancy: sim.VTimeInSec(float64(n) / bytesPerSec), Latency: sim.VTimeInSec(latNs * 1e-9)}
		if got := f(n); got != want {
			t.Errorf("%d bytes: %+v, want exactly %+v", n, got, want)
		}
	}
	// By hand, 4 KB + 16 B header: 150 ns + 4112/32e9 s = 278.5 ns.
	if got := f(4112).Total(); math.Abs(float64(got)-278.5e-9) > 1e-18 {
		t.Errorf("4112 bytes: %v, want 278.5 ns", got)
	}
}

// rtt is RTT/2 + bytes/bandwidth per message, so a request up and its data
// down cost one RTT plus the data's transfer time: UVMMU's 1 µs +
// 4 KB / 16 GB/s.
func TestPCIeRTT(t *testing.T) {
	f := mustTiming(t, withModel(PCIeRTT, func(c *Config) { c.PCIeGBps, c.PCIeRTTNs = 16, 1000 }))
	for _, n := range sizes {
		want := 500e-9 + float64(n)/16e9
		got := f(n)
		if math.Abs(float64(got.Total())-want) > 1e-18 || math.Abs(float64(got.Latency)-500e-9) > 1e-18 {
			t.Errorf("%d bytes: %+v (total %v), want latency 500 ns, total %v", n, got, got.Total(), want)
		}
	}
	// A 4 KB page as UVMMU times it: RTT + 4096 B / 16 GB/s = 1.256 µs.
	if got := f(0).Latency + f(4096).Total(); math.Abs(float64(got)-1.256e-6) > 1e-15 {
		t.Errorf("empty request + 4 KB response = %v, want 1.256 µs", got)
	}
	// pcie_latency_ns is not used by rtt.
	g := mustTiming(t, withModel(PCIeRTT, func(c *Config) { c.PCIeGBps, c.PCIeRTTNs, c.PCIeLatencyNs = 16, 1000, 12345 }))
	if g(4096) != f(4096) {
		t.Errorf("pcie_latency_ns changed the rtt model: %+v vs %+v", g(4096), f(4096))
	}
}

// The UVMSmart curve at the sizes its migrations use, against values
// computed by hand (Python, float64) from
// t = bytes / ((2a/π)·atan(b·bytes/1024) · 2^30) with a = 12, b = 0.07292,
// and against a rounded table of the same curve worked out earlier (the
// curve is UVMSmart's simulator's; the UVMMU paper, DATE 2023, gives no
// such table: its PCIe is a 1 µs RTT plus 16 GB/s, §V-A1).
func TestPCIeUVMSmartCurve(t *testing.T) {
	f := mustTiming(t, withModel(PCIeUVMSmart, func(c *Config) { c.PCIeCurveA, c.PCIeCurveB = 12, 0.07292 }))
	for _, tc := range []struct {
		bytes   int
		us      float64 // by hand
		rounded float64 // the rounded table's µs, 0 if it lists none
	}{
		{0, 1.7119538685883748, 0}, // the limit π·1024/(2a·b·2^30)
		{4096, 1.7594483752979053, 1.76},
		{16384, 2.316617794619977, 2.32},
		{65536, 5.875862800877094, 5.88},
		{262144, 21.062667846957442, 21.1},
		{1 << 20, 82.07996120103076, 82},
		{2 << 20, 163.45720535110542, 163},
	} {
		got := f(tc.bytes)
		if got.Latency != 0 {
			t.Errorf("%d bytes: latency %v, want 0 (the curve is all occupancy)", tc.bytes, got.Latency)
		}
		us := float64(got.Occupancy) * 1e6
		if math.Abs(us-tc.us) > 1e-9*tc.us {
			t.Errorf("%d bytes: %.12g µs, want %.12g µs", tc.bytes, us, tc.us)
		}
		if tc.rounded != 0 && math.Abs(us-tc.rounded) > 0.006*tc.rounded {
			t.Errorf("%d bytes: %.4g µs, the rounded table lists %g µs", tc.bytes, us, tc.rounded)
		}
	}
	// Just above zero the curve meets its limit.
	if d := float64(f(1).Occupancy - f(0).Occupancy); !(d > 0 && d < 1e-12) {
		t.Errorf("1 byte is %g s above the empty message, want a tiny positive step", d)
	}
	// The speed is linear in a: a = 24 (UVMSmart's 32 GB/s) halves the time.
	g := mustTiming(t, withModel(PCIeUVMSmart, func(c *Config) { c.PCIeCurveA, c.PCIeCurveB = 24, 0.07292 }))
	if r := float64(f(65536).Occupancy / g(65536).Occupancy); math.Abs(r-2) > 1e-12 {
		t.Errorf("a=12 / a=24 time ratio %v, want 2", r)
	}
	// The effective bandwidth approaches a GiB/s from below.
	n := 64 << 20
	if bw := float64(n) / float64(f(n).Occupancy) / (1 << 30); !(bw < 12 && bw > 11.99) {
		t.Errorf("64 MB moves at %v GiB/s, want just under a = 12", bw)
	}
	// pcie_gbps and pcie_latency_ns are not used by uvmsmart.
	h := mustTiming(t, withModel(PCIeUVMSmart, func(c *Config) { c.PCIeCurveA, c.PCIeGBps, c.PCIeLatencyNs = 12, 1, 1e6 }))
	if h(4096) != f(4096) {
		t.Errorf("pcie_gbps/pcie_latency_ns changed the uvmsmart model: %+v vs %+v", h(4096), f(4096))
	}
}

func TestPCIeTimingRejects(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{withModel("fixed", nil), `unknown PCIe model "fixed": must be one of oneway, rtt, uvmsmart`},
		{withModel("", nil), `unknown PCIe model "": must be one of oneway, rtt, uvmsmart`},
		{withModel(PCIeUVMSmart, func(c *Config) { c.PCIeCurveA = 0 }), "a > 0 and b > 0"},
		{withModel(PCIeUVMSmart, func(c *Config) { c.PCIeCurveB = math.Inf(1) }), "a > 0 and b > 0"},
	} {
		if _, err := PCIeTiming(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PCIeTiming(%q) = %v, want an error containing %q", tc.c.PCIeModel, err, tc.want)
		}
		_, err := MakeBuilder().WithEngine(sim.NewSerialEngine()).WithPCIe(tc.c).BuildFullyConnected("PCIe")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build with model %q = %v, want an error containing %q", tc.c.PCIeModel, err, tc.want)
		}
	}
}

// pcieArrivals sends the same messages over a PCIe link built by b and
// returns their arrival times at agent 1: back to back from agent 0, then
// one later, then one the other way.
func pcieArrivals(t *testing.T, b Builder) (fwd, back []sim.VTimeInSec) {
	t.Helper()
	e := sim.NewSerialEngine()
	c, err := b.WithEngine(e).WithHeaderBytes(16).BuildFullyConnected("PCIe")
	if err != nil {
		t.Fatal(err)
	}
	a0, a1 := newAgent(e, 0, 8, true), newAgent(e, 1, 8, true)
	c.PlugIn(a0.port, 1)
	c.PlugIn(a1.port, 1)
	send(t, msg("A", a0, a1, 32, 0))
	send(t, msg("B", a0, a1, 4096, 0))
	send(t, msg("C", a0, a1, 65536, 0))
	e.Schedule(&sendEvent{time: 1e-3, a: a0, msg: msg("D", a0, a1, 8, 0)})
	send(t, msg("E", a1, a0, 1<<20, 0))
	run(t, e)
	for _, r := range a1.got {
		fwd = append(fwd, r.at)
	}
	for _, r := range a0.got {
		back = append(back, r.at)
	}
	return fwd, back
}

// Through the link, the default model arrives at exactly the times the
// link gave before the models (WithBandwidthGBps and WithLatencyNs alone).
func TestPCIeDefaultLinkUnchanged(t *testing.T) {
	c := DefaultConfig()
	oldF, oldB := pcieArrivals(t, MakeBuilder().WithBandwidthGBps(c.PCIeGBps).WithLatencyNs(c.PCIeLatencyNs))
	newF, newB := pcieArrivals(t, MakeBuilder().WithPCIe(c))
	if len(oldF) != 4 || len(oldB) != 1 {
		t.Fatalf("got %d and %d messages, want 4 and 1", len(oldF), len(oldB))
	}
	for i := range oldF {
		if oldF[i] != newF[i] {
			t.Errorf("message %d: arrives %.18g, before the models %.18g", i, newF[i], oldF[i])
		}
	}
	if oldB[0] != newB[0] {
		t.Errorf("reverse message: arrives %.18g, before the models %.18g", newB[0], oldB[0])
	}
}

// Through the link, each model's messages serialise on their direction by
// occupancy and arrive one latency after: the same queueing for all.
func TestPCIeModelsOnTheLink(t *testing.T) {
	for _, m := range PCIeModels() {
		t.Run(m, func(t *testing.T) {
			c := withModel(m, func(c *Config) { c.PCIeGBps, c.PCIeRTTNs, c.PCIeCurveA = 16, 1000, 12 })
			f := mustTiming(t, c)
			fwd, back := pcieArrivals(t, MakeBuilder().WithPCIe(c))
			a, b, cc, d, e := f(32+16), f(4096+16), f(65536+16), f(8+16), f(1<<20+16)
			want := []sim.VTimeInSec{
				a.Total(),
				a.Occupancy + b.Total(),
				a.Occupancy + b.Occupancy + cc.Total(),
				1e-3 + d.Total(),
			}
			for i := range want {
				if !near(fwd[i], want[i]) {
					t.Errorf("message %d arrives %.18g, want %.18g", i, fwd[i], want[i])
				}
			}
			if !near(back[0], e.Total()) {
				t.Errorf("reverse message arrives %.18g, want %.18g (directions are independent)", back[0], e.Total())
			}
		})
	}
}

// NVLink is built without WithPCIe and keeps its bandwidth and latency
// whatever the PCIe model.
func TestWithTimingNilIsBandwidthLatency(t *testing.T) {
	b := MakeBuilder().WithBandwidthGBps(300).WithLatencyNs(250)
	f0, _ := pcieArrivals(t, b)
	f1, _ := pcieArrivals(t, b.WithPCIe(withModel(PCIeUVMSmart, nil)).WithTiming(nil).WithBandwidthGBps(300).WithLatencyNs(250))
	for i := range f0 {
		if f0[i] != f1[i] {
			t.Errorf("message %d: %.18g vs %.18g", i, f0[i], f1[i])
		}
	}
}
