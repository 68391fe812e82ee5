package interconnect

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"
)

// The PCIe topologies, the values of link.pcie_topology.
const (
	// PCIePairs gives every host-GPU port pair its own link, so a GPU's
	// fault traffic (its GMMU's port) and its zero-copy traffic (its own
	// port) never share one, nor do two GPUs: the link as it was before
	// the key existed, kept by the single-GPU presets, whose papers give
	// one PCIe link and say nothing of switches.
	PCIePairs = "pairs"
	// PCIeTree is the PCIe of MGPUSim's R9 Nano platform (sarchlab/mgpusim,
	// v3.0.3 samples/runner/timingplatform.go: Akita's pcie.Connector, PCIe 4.0 x16,
	// one root complex, a new switch for every second GPU, 140 cycles in
	// each switch port). See Tree. The default.
	PCIeTree = "tree"
)

// PCIeTopologies returns the valid link.pcie_topology values.
func PCIeTopologies() []string { return []string{PCIePairs, PCIeTree} }

// Tree is a PCIe tree. The host's ports sit at the root complex. Each
// device (a GPU with all of its ports) has one link to its switch, and
// every fanout consecutive devices share one switch, whose single link to
// the root complex carries all their host traffic. This is how MGPUSim
// builds the platform the OASIS paper simulated (a switch per two GPUs),
// and how a DGX-1 wires its GPUs to the CPUs.
//
// Every link direction is a busy-until FIFO, as in FullyConnected, with the
// same occupancy for a message on every link (all are PCIe 4.0 x16 in
// MGPUSim). A message crosses its path cut-through, as Akita's flit-level
// network moves it: a link starts sending when the message's first byte has
// reached it and the link is free, and finishes no earlier than the last
// byte has reached it. Each switch crossed, the root complex included, adds
// the switch latency, and the message's own latency (the PCIe model's) is
// added once at the end. Unloaded, a GPU-host message therefore takes
// latency + 2 × switch latency + its occupancy.
type Tree struct {
	base
	fanout int
	swLat  sim.VTimeInSec
	device []int // each port's device; -1 for a host port

	// busy-until of each link direction: devices' links to their switch
	// (up and down), then switches' links to the root complex.
	devUp, devDown, swUp, swDown []sim.VTimeInSec
	// lanes holds, at (link+1)*ports + dst, the messages whose last link is
	// link (-1: none) bound for port dst. Their arrivals follow the link's
	// FIFO order, so never decrease. Sized at the first Send.
	lanes []*lane
}

var (
	_ sim.Connection = (*Tree)(nil)
	_ sim.Handler    = (*Tree)(nil)
)

// PlugIn connects a host port at the root complex. The source side is
// unbounded, so sourceSideBufSize is ignored.
func (c *Tree) PlugIn(port sim.Port, _ int) { c.plug(port, -1) }

// PlugInDevice connects port as one of device's ports (device >= 0); all
// ports of a device share its link.
func (c *Tree) PlugInDevice(port sim.Port, device int) {
	if device < 0 {
		panic(fmt.Sprintf("interconnect: %s: PlugInDevice(%s) with device %d", c.name, port.Name(), device))
	}
	c.plug(port, device)
}

func (c *Tree) plug(port sim.Port, device int) {
	c.mu.Lock()
	if c.lanes != nil {
		c.mu.Unlock()
		panic(fmt.Sprintf("interconnect: %s: %s plugged in after the first Send", c.name, port.Name()))
	}
	c.addPort(port)
	c.device = append(c.device, device)
	for len(c.devUp) <= device {
		c.devUp, c.devDown = append(c.devUp, 0), append(c.devDown, 0)
	}
	for len(c.swUp) <= device/c.fanout {
		c.swUp, c.swDown = append(c.swUp, 0), append(c.swDown, 0)
	}
	c.mu.Unlock()
	port.SetConnection(c)
}

// hop is one step of a path: a link direction (busy != nil) or a switch.
type hop struct {
	busy *sim.VTimeInSec
	id   int // the link's lane identity
}

// path lists the hops from device a to device b (-1 is the host).
func (c *Tree) path(a, b int, buf []hop) []hop {
	nd, ns := len(c.devUp), len(c.swUp)
	sw := hop{}
	if a >= 0 {
		buf = append(buf, hop{&c.devUp[a], a}, sw)
		if b >= 0 && a/c.fanout == b/c.fanout {
			return append(buf, hop{&c.devDown[b], nd + b})
		}
		s := a / c.fanout
		buf = append(buf, hop{&c.swUp[s], 2*nd + s}, sw)
	} else {
		buf = append(buf, sw) // into the root complex
	}
	if b >= 0 {
		s := b / c.fanout
		buf = append(buf, hop{&c.swDown[s], 2*nd + ns + s}, sw, hop{&c.devDown[b], nd + b})
	}
	return buf
}

// Send implements sim.Connection: see base.sendOrDefer.
func (c *Tree) Send(msg sim.Msg) *sim.SendError { return c.sendOrDefer(msg) }

// sendNow reserves every link of the message's path in order, cut-through. It
// never fails; it panics on unplugged ports or src == dst.
func (c *Tree) sendNow(msg sim.Msg) *sim.SendError {
	now := c.engine.CurrentTime()
	if c.held(msg, now) {
		return nil
	}
	c.mu.Lock()
	si, di, bytes := c.endpoints(msg)
	t := c.account(si, di, bytes)
	var buf [7]hop
	// head is when the message's first byte reaches the next hop; with
	// one bandwidth on every link, the last byte follows it by the
	// occupancy.
	head := maxTime(now, msg.Meta().SendTime)
	last := -1
	for _, h := range c.path(c.device[si], c.device[di], buf[:0]) {
		if h.busy == nil {
			head += c.swLat
			continue
		}
		head = maxTime(head, *h.busy)
		*h.busy = head + t.Occupancy
		last = h.id
	}
	n := len(c.ports)
	if c.lanes == nil {
		c.lanes = make([]*lane, (2*len(c.devUp)+2*len(c.swUp)+1)*n)
	}
	k := (last+1)*n + di
	l := c.lanes[k]
	if l == nil {
		l = c.newLane(di, k)
		c.lanes[k] = l
	}
	c.enqueue(l, msg, head+t.Occupancy+t.Latency)
	return nil
}
