package interconnect

import (
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

func TestSingleMessageLatency(t *testing.T) {
	cases := []struct {
		name   string
		gbps   float64
		latNs  float64
		hdr    int
		bytes  int
		expect sim.VTimeInSec
	}{
		{"NVLinkLine", 300, 250, 16, 64, 250e-9 + 80.0/300e9},
		{"NVLinkPage", 300, 250, 16, 4096, 250e-9 + 4112.0/300e9},
		{"PCIePage", 32, 150, 16, 4096, 150e-9 + 4112.0/32e9},
		{"ZeroBytesNoHeader", 32, 150, 0, 0, 150e-9},
		{"ZeroLatency", 1, 0, 0, 1000, 1e-6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := sim.NewSerialEngine()
			c, err := MakeBuilder().WithEngine(e).WithBandwidthGBps(tc.gbps).
				WithLatencyNs(tc.latNs).WithHeaderBytes(tc.hdr).BuildFullyConnected("PCIe")
			if err != nil {
				t.Fatal(err)
			}
			a, b := newAgent(e, 0, 4, true), newAgent(e, 1, 4, true)
			c.PlugIn(a.port, 1)
			c.PlugIn(b.port, 1)
			send(t, msg("M", a, b, tc.bytes, 0))
			run(t, e)
			expectArrivals(t, b, []string{"M"}, []sim.VTimeInSec{tc.expect})
		})
	}
}

func TestBackToBackSerialise(t *testing.T) {
	e, _, ag := setup(t, "fc", 2, 4, true)
	send(t, msg("A", ag[0], ag[1], 64, 0))
	send(t, msg("B", ag[0], ag[1], 64, 0))
	send(t, msg("C", ag[0], ag[1], 4096, 0))
	run(t, e)
	first := ser(64) + lat
	expectArrivals(t, ag[1], []string{"A", "B", "C"},
		[]sim.VTimeInSec{first, first + ser(64), first + ser(64) + ser(4096)})
}

// Sending later than the link frees up starts at the send time, not at
// busy-until.
func TestIdleLinkStartsAtNow(t *testing.T) {
	e, _, ag := setup(t, "fc", 2, 4, true)
	const t0 = 1e-6
	send(t, msg("A", ag[0], ag[1], 64, 0))
	e.Schedule(&sendEvent{time: t0, a: ag[0], msg: msg("B", ag[0], ag[1], 64, 0)})
	run(t, e)
	expectArrivals(t, ag[1], []string{"A", "B"},
		[]sim.VTimeInSec{ser(64) + lat, t0 + ser(64) + lat})
}

func TestDirectionsAndPairsIndependent(t *testing.T) {
	e, _, ag := setup(t, "fc", 3, 4, true)
	send(t, msg("AB", ag[0], ag[1], 4096, 0))
	send(t, msg("BA", ag[1], ag[0], 4096, 0))
	send(t, msg("AC", ag[0], ag[2], 4096, 0))
	send(t, msg("CB", ag[2], ag[1], 4096, 0))
	run(t, e)
	want := ser(4096) + lat
	expectArrivals(t, ag[0], []string{"BA"}, []sim.VTimeInSec{want})
	expectArrivals(t, ag[2], []string{"AC"}, []sim.VTimeInSec{want})
	if len(ag[1].got) != 2 {
		t.Fatalf("Agent[1] got %v, want AB and CB", ag[1].got)
	}
	for _, r := range ag[1].got {
		if !near(r.at, want) {
			t.Errorf("%s arrived at %g, want %g", r.id, r.at, want)
		}
	}
}

func TestFutureSendTime(t *testing.T) {
	for _, kind := range []string{"fc", "switch"} {
		t.Run(kind, func(t *testing.T) {
			e, _, ag := setup(t, kind, 2, 4, true)
			const ready = 2e-6
			// F's data is ready at 2us; G, sent after it with an earlier
			// SendTime, queues behind it (FIFO by Send order).
			send(t, msg("F", ag[0], ag[1], 64, ready))
			send(t, msg("G", ag[0], ag[1], 64, 0))
			run(t, e)
			s := ser(64)
			f, g := ready+s+lat, ready+s+s+lat
			if kind == "switch" {
				f = ready + s + lat + swLat + s + lat
				g = f + s
			}
			expectArrivals(t, ag[1], []string{"F", "G"}, []sim.VTimeInSec{f, g})
		})
	}
}

// A capacity-1 destination that is not drained holds later messages on the
// link; they arrive in order once it frees space.
func TestFullBufferKeepsFIFO(t *testing.T) {
	for _, kind := range []string{"fc", "switch"} {
		t.Run(kind, func(t *testing.T) {
			e, _, ag := setup(t, kind, 3, 1, false)
			ids := []string{"M0", "M1", "M2", "M3"}
			for _, id := range ids {
				send(t, msg(id, ag[0], ag[2], 64, 0))
			}
			// A second source whose message arrives after M0..M3.
			send(t, msg("N", ag[1], ag[2], 64, 1e-6))
			const drainAt = 5e-6
			e.Schedule(&drainEvent{time: drainAt, a: ag[2]})
			run(t, e)
			m0 := ser(64) + lat
			if kind == "switch" {
				m0 = ser(64) + lat + swLat + ser(64) + lat
			}
			expectArrivals(t, ag[2], append(ids, "N"),
				[]sim.VTimeInSec{m0, drainAt, drainAt, drainAt, drainAt})
		})
	}
}

// Several blocked sources into one port are released earliest arrival first.
func TestRetryAcrossSourcesByArrival(t *testing.T) {
	e, _, ag := setup(t, "fc", 4, 1, false)
	send(t, msg("Fill", ag[0], ag[3], 64, 0))
	send(t, msg("Late", ag[0], ag[3], 64, 3e-6))
	send(t, msg("Mid", ag[1], ag[3], 64, 2e-6))
	send(t, msg("Early", ag[2], ag[3], 64, 1e-6))
	e.Schedule(&drainEvent{time: 10e-6, a: ag[3]})
	run(t, e)
	var order []string
	for _, r := range ag[3].got {
		order = append(order, r.id)
	}
	if got, want := strings.Join(order, ","), "Fill,Early,Mid,Late"; got != want {
		t.Errorf("delivery order %s, want %s", got, want)
	}
}

func TestSwitchTiming(t *testing.T) {
	s := ser(4096)
	unloaded := s + lat + swLat + s + lat
	cases := []struct {
		name  string
		sends [][2]int // src, dst
		want  map[int][]sim.VTimeInSec
	}{
		{"Unloaded", [][2]int{{0, 1}}, map[int][]sim.VTimeInSec{1: {unloaded}}},
		{"DownLinkContention", [][2]int{{0, 2}, {1, 2}},
			map[int][]sim.VTimeInSec{2: {unloaded, unloaded + s}}},
		{"UpLinkContention", [][2]int{{0, 1}, {0, 2}},
			map[int][]sim.VTimeInSec{1: {unloaded}, 2: {unloaded + s}}},
		{"DisjointPairs", [][2]int{{0, 1}, {2, 3}, {1, 0}},
			map[int][]sim.VTimeInSec{0: {unloaded}, 1: {unloaded}, 3: {unloaded}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, _, ag := setup(t, "switch", 4, 4, true)
			for _, sd := range tc.sends {
				send(t, msg("M", ag[sd[0]], ag[sd[1]], 4096, 0))
			}
			run(t, e)
			for i, a := range ag {
				want := tc.want[i]
				if len(a.got) != len(want) {
					t.Fatalf("%s got %d messages, want %d", a.Name(), len(a.got), len(want))
				}
				for k, r := range a.got {
					if !near(r.at, want[k]) {
						t.Errorf("%s message %d at %.18g, want %.18g", a.Name(), k, r.at, want[k])
					}
				}
			}
		})
	}
}

func TestTrafficAccounting(t *testing.T) {
	for _, kind := range []string{"fc", "switch"} {
		t.Run(kind, func(t *testing.T) {
			e, c, ag := setup(t, kind, 3, 8, true)
			// Sent out of plug order; Traffic must still be in plug order.
			send(t, msg("X", ag[2], ag[0], 100, 0))
			send(t, msg("X", ag[1], ag[2], 4096, 0))
			send(t, msg("X", ag[0], ag[2], 64, 0))
			send(t, msg("X", ag[0], ag[1], 0, 0))
			send(t, msg("X", ag[0], ag[2], 64, 0))
			run(t, e)
			want := []Traffic{
				{"Agent[0].Port", "Agent[1].Port", 16, 1},
				{"Agent[0].Port", "Agent[2].Port", 160, 2},
				{"Agent[1].Port", "Agent[2].Port", 4112, 1},
				{"Agent[2].Port", "Agent[0].Port", 116, 1},
			}
			got := c.Traffic()
			if len(got) != len(want) {
				t.Fatalf("Traffic() = %v, want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("Traffic()[%d] = %v, want %v", i, got[i], want[i])
				}
			}
			for i, b := range []uint64{176, 4112, 116} {
				if got := c.BytesFrom(ag[i].port); got != b {
					t.Errorf("BytesFrom(%s) = %d, want %d", ag[i].port.Name(), got, b)
				}
			}
			other := newAgent(e, 9, 1, true)
			if got := c.BytesFrom(other.port); got != 0 {
				t.Errorf("BytesFrom(unplugged) = %d, want 0", got)
			}
		})
	}
}

// Plugging a port after traffic started keeps existing lanes and counters.
func TestPlugInAfterSend(t *testing.T) {
	e, c, ag := setup(t, "fc", 2, 4, true)
	send(t, msg("A", ag[0], ag[1], 64, 0))
	late := newAgent(e, 2, 4, true)
	c.PlugIn(late.port, 1)
	send(t, msg("B", ag[0], ag[1], 64, 0))
	send(t, msg("C", ag[0], late, 64, 0))
	run(t, e)
	expectArrivals(t, ag[1], []string{"A", "B"}, []sim.VTimeInSec{ser(64) + lat, 2*ser(64) + lat})
	expectArrivals(t, late, []string{"C"}, []sim.VTimeInSec{ser(64) + lat})
	if got := c.BytesFrom(ag[0].port); got != 3*80 {
		t.Errorf("BytesFrom = %d, want 240", got)
	}
}

type countHook struct{ pos map[*sim.HookPos]int }

func (h *countHook) Func(ctx sim.HookCtx) { h.pos[ctx.Pos]++ }

func TestHooks(t *testing.T) {
	e, c, ag := setup(t, "fc", 2, 4, true)
	h := &countHook{pos: map[*sim.HookPos]int{}}
	c.AcceptHook(h)
	send(t, msg("A", ag[0], ag[1], 64, 0))
	send(t, msg("B", ag[1], ag[0], 64, 0))
	run(t, e)
	if h.pos[sim.HookPosConnStartSend] != 2 || h.pos[sim.HookPosConnDeliver] != 2 {
		t.Errorf("hook counts %v, want 2 StartSend and 2 Deliver", h.pos)
	}
}

func TestBuilderErrors(t *testing.T) {
	e := sim.NewSerialEngine()
	ok := testBuilder(e)
	cases := []struct {
		name    string
		b       Builder
		conn    string
		wantErr string
	}{
		{"Valid", ok, "NVLink", ""},
		{"ValidIndexed", ok, "PCIe[1]", ""},
		{"ZeroBandwidth", ok.WithBandwidthGBps(0), "NVLink", "bandwidth"},
		{"NegativeBandwidth", ok.WithBandwidthGBps(-1), "NVLink", "bandwidth"},
		{"NegativeLatency", ok.WithLatencyNs(-1), "NVLink", "latency"},
		{"NegativeSwitchLatency", ok.WithSwitchLatencyNs(-1), "NVLink", "switch latency"},
		{"NegativeHeader", ok.WithHeaderBytes(-1), "NVLink", "header"},
		{"NoEngine", ok.WithEngine(nil), "NVLink", "engine"},
		{"BadName", ok, "nvlink", "not valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc, err1 := tc.b.BuildFullyConnected(tc.conn)
			sw, err2 := tc.b.BuildSwitch(tc.conn)
			for _, err := range []error{err1, err2} {
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("unexpected error %v", err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("error %v, want one mentioning %q", err, tc.wantErr)
				}
			}
			if tc.wantErr == "" && (fc.Name() != tc.conn || sw.Name() != tc.conn) {
				t.Errorf("names %q %q, want %q", fc.Name(), sw.Name(), tc.conn)
			}
			if tc.wantErr != "" && (fc != nil || sw != nil) {
				t.Error("Build returned a connection along with an error")
			}
		})
	}
}

func TestSendPanics(t *testing.T) {
	for _, kind := range []string{"fc", "switch"} {
		e, c, ag := setup(t, kind, 2, 4, true)
		stranger := newAgent(e, 7, 4, true)
		cases := []struct {
			name, want string
			m          *testMsg
		}{
			{"SrcNotPlugged", "src Agent[7].Port is not plugged", msg("P", stranger, ag[0], 1, 0)},
			{"DstNotPlugged", "dst Agent[7].Port is not plugged", msg("P", ag[0], stranger, 1, 0)},
			{"SameSrcDst", "same port", msg("P", ag[0], ag[0], 1, 0)},
		}
		for _, tc := range cases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				defer func() {
					r := recover()
					if r == nil || !strings.Contains(r.(string), tc.want) {
						t.Errorf("panic %v, want one containing %q", r, tc.want)
					}
				}()
				c.Send(tc.m)
			})
		}
		if !c.CanSend(ag[0].port) {
			t.Error("CanSend = false")
		}
	}
}

func BenchmarkSend(b *testing.B) {
	e, _, ag := setup(b, "fc", 2, 64, true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := &testMsg{}
		m.Src, m.Dst, m.TrafficBytes = ag[0].port, ag[1].port, 64
		if err := ag[0].port.Send(m); err != nil {
			b.Fatal("send failed")
		}
		if i%1024 == 1023 {
			run(b, e)
			ag[1].got = ag[1].got[:0]
		}
	}
	run(b, e)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// With future_sends=hold, a message dated later joins its lane when due:
// G, sent after F but due now, no longer queues behind a message that has
// not left yet.
func TestHeldFutureSendTime(t *testing.T) {
	for _, kind := range []string{"fc", "switch", "tree"} {
		t.Run(kind, func(t *testing.T) {
			e := sim.NewSerialEngine()
			b := testBuilder(e).WithHeldFutureSends(true)
			var c link
			var err error
			switch kind {
			case "switch":
				c, err = b.BuildSwitch("NVSwitch")
			case "tree":
				c, err = b.BuildTree("PCIe", 2)
			default:
				c, err = b.BuildFullyConnected("NVLink")
			}
			if err != nil {
				t.Fatal(err)
			}
			ag := []*agent{newAgent(e, 0, 4, true), newAgent(e, 1, 4, true)}
			for _, a := range ag {
				c.PlugIn(a.port, 1)
			}
			const ready = 2e-6
			send(t, msg("F", ag[0], ag[1], 64, ready))
			send(t, msg("G", ag[0], ag[1], 64, 0))
			run(t, e)
			got := ag[1].got
			if len(got) != 2 || got[0].id != "G" || got[1].id != "F" {
				t.Fatalf("arrivals %+v, want G then F", got)
			}
			if got[1].at < ready || got[0].at >= ready {
				t.Errorf("G at %v, F at %v: G should not wait for F's date %v", got[0].at, got[1].at, ready)
			}
		})
	}
}
