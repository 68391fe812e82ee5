package interconnect

import "github.com/sarchlab/akita/v3/sim"

// FullyConnected gives every ordered pair of plugged ports a dedicated link
// direction with its own FIFO and busy-until, so pairs never contend. It
// models NVLink between GPU pairs and PCIe between the host and each GPU
// (GPU-GPU pairs on PCIe simply carry no traffic).
type FullyConnected struct {
	base
	lanes []*lane // srcIdx*n + dstIdx, created on first use
}

var (
	_ sim.Connection = (*FullyConnected)(nil)
	_ sim.Handler    = (*FullyConnected)(nil)
)

// PlugIn connects port. The source side is unbounded, so sourceSideBufSize
// is ignored.
func (c *FullyConnected) PlugIn(port sim.Port, _ int) {
	c.mu.Lock()
	n := c.addPort(port)
	c.lanes = regrow(c.lanes, n)
	c.mu.Unlock()
	port.SetConnection(c)
}

// Send implements sim.Connection: see base.sendOrDefer.
func (c *FullyConnected) Send(msg sim.Msg) *sim.SendError { return c.sendOrDefer(msg) }

// sendNow queues msg on its (src,dst) direction:
// depart = max(now, SendTime, busyUntil), busyUntil = depart + size/bandwidth,
// arrival = busyUntil + latency (occupancy and latency from the link's
// TimingFunc when it has one). It never fails; it panics on unplugged ports
// or src == dst.
func (c *FullyConnected) sendNow(msg sim.Msg) *sim.SendError {
	now := c.engine.CurrentTime()
	if c.held(msg, now) {
		return nil
	}
	c.mu.Lock()
	si, di, bytes := c.endpoints(msg)
	t := c.account(si, di, bytes)
	k := si*len(c.ports) + di
	l := c.lanes[k]
	if l == nil {
		l = c.newLane(di, k)
		c.lanes[k] = l
	}
	arrival := l.reserve(maxTime(now, msg.Meta().SendTime), t.Occupancy, t.Latency)
	c.enqueue(l, msg, arrival)
	return nil
}
