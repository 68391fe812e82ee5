package interconnect

import (
	"fmt"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

// setupTree builds a PCIe tree with one host agent (agent 0) and the given
// device of every further agent (agent i+1 is a port of devices[i]).
func setupTree(t *testing.T, fanout int, devices ...int) (*sim.SerialEngine, *Tree, []*agent) {
	t.Helper()
	e := sim.NewSerialEngine()
	c, err := testBuilder(e).BuildTree("PCIe", fanout)
	if err != nil {
		t.Fatal(err)
	}
	ag := []*agent{newAgent(e, 0, 16, true)}
	c.PlugIn(ag[0].port, 1)
	for i, d := range devices {
		a := newAgent(e, i+1, 16, true)
		c.PlugInDevice(a.port, d)
		ag = append(ag, a)
	}
	return e, c, ag
}

// A lone message pays its latency, each switch it crosses, and its
// occupancy once: the tree is cut-through, so a page is not serialised
// again at every link.
func TestTreeUnloadedTimes(t *testing.T) {
	cases := []struct {
		name     string
		from, to int // agents: 0 is the host, i >= 1 are devices i-1
		bytes    int
		switches int
	}{
		{"GPUToHostLine", 1, 0, 64, 2},
		{"HostToGPUPage", 0, 1, 4096, 2},
		{"HostToFarGPU", 0, 4, 4096, 2},
		{"GPUToGPUSameSwitch", 1, 2, 4096, 1},
		{"GPUToGPUOtherSwitch", 1, 3, 64, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, _, ag := setupTree(t, 2, 0, 1, 2, 3)
			send(t, msg("M", ag[tc.from], ag[tc.to], tc.bytes, 0))
			run(t, e)
			want := lat + sim.VTimeInSec(tc.switches)*swLat + ser(tc.bytes)
			expectArrivals(t, ag[tc.to], []string{"M"}, []sim.VTimeInSec{want})
		})
	}
}

// What shares a link: a GPU's ports share its link; the GPUs of one switch
// share its link to the root complex; GPUs under different switches share
// nothing.
func TestTreeSharing(t *testing.T) {
	cases := []struct {
		name    string
		fanout  int
		devices []int // of agents 1 and 2
		shared  bool
	}{
		{"PortsOfOneGPU", 2, []int{0, 0}, true},
		{"GPUsOfOneSwitch", 2, []int{0, 1}, true},
		{"GPUsOfTwoSwitches", 1, []int{0, 1}, false},
		{"FarGPUs", 2, []int{0, 2}, false},
	}
	for _, tc := range cases {
		for _, up := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/up=%v", tc.name, up), func(t *testing.T) {
				e, _, ag := setupTree(t, tc.fanout, tc.devices...)
				ends := [][2]*agent{{ag[0], ag[1]}, {ag[0], ag[2]}} // host to each device
				if up {
					ends = [][2]*agent{{ag[1], ag[0]}, {ag[2], ag[0]}}
				}
				send(t, msg("A", ends[0][0], ends[0][1], 4096, 0))
				send(t, msg("B", ends[1][0], ends[1][1], 4096, 0))
				run(t, e)
				first := lat + 2*swLat + ser(4096)
				second := first
				if tc.shared {
					second += ser(4096)
				}
				if up {
					expectArrivals(t, ag[0], []string{"A", "B"}, []sim.VTimeInSec{first, second})
					return
				}
				expectArrivals(t, ag[1], []string{"A"}, []sim.VTimeInSec{first})
				expectArrivals(t, ag[2], []string{"B"}, []sim.VTimeInSec{second})
			})
		}
	}
}

// A small message behind a large one on a shared link waits for it, and
// messages of one lane arrive in the order they were sent.
func TestTreeFIFO(t *testing.T) {
	e, c, ag := setupTree(t, 2, 0, 1)
	send(t, msg("Big", ag[1], ag[0], 1<<20, 0))
	send(t, msg("Small", ag[2], ag[0], 64, 0))
	send(t, msg("Tiny", ag[2], ag[0], 0, 0))
	run(t, e)
	big := lat + 2*swLat + ser(1<<20)
	expectArrivals(t, ag[0], []string{"Big", "Small", "Tiny"},
		[]sim.VTimeInSec{big, big + ser(64), big + ser(64) + ser(0)})
	if got, want := c.BytesFrom(ag[2].port), uint64(64+2*testHdr); got != want {
		t.Errorf("bytes from agent 2 = %d, want %d", got, want)
	}
}

func TestTreeNeedsADeviceSwitch(t *testing.T) {
	if _, err := testBuilder(sim.NewSerialEngine()).BuildTree("PCIe", 0); err == nil {
		t.Fatal("BuildTree with 0 devices per switch succeeded")
	}
}

// Link and lane indices are fixed by the first Send, so a later PlugIn is
// refused rather than left to misroute.
func TestTreePlugAfterSendPanics(t *testing.T) {
	e, c, ag := setupTree(t, 2, 0)
	send(t, msg("M", ag[1], ag[0], 64, 0))
	run(t, e)
	defer func() {
		if recover() == nil {
			t.Fatal("PlugInDevice after a Send did not panic")
		}
	}()
	c.PlugInDevice(newAgent(e, 9, 4, true).port, 1)
}
