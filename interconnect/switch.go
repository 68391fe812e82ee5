package interconnect

import "github.com/sarchlab/akita/v3/sim"

// Switch models an NVSwitch: each plugged port has an up-link to the switch
// and a down-link from it, each with the configured bandwidth and latency.
// A message is stored and forwarded: it crosses the source's up-link, waits
// the switch latency, then crosses the destination's down-link. Sources to
// one destination therefore contend on its down-link, while a source's
// messages to different destinations contend on its up-link.
type Switch struct {
	base
	switchLatency sim.VTimeInSec
	upBusy        []sim.VTimeInSec // busy-until of each port's up-link
	down          []*lane          // each port's down-link
}

var (
	_ sim.Connection = (*Switch)(nil)
	_ sim.Handler    = (*Switch)(nil)
)

// PlugIn connects port with its own up- and down-link. The source side is
// unbounded, so sourceSideBufSize is ignored.
func (c *Switch) PlugIn(port sim.Port, _ int) {
	c.mu.Lock()
	n := c.addPort(port)
	c.upBusy = append(c.upBusy, 0)
	c.down = append(c.down, c.newLane(n, n))
	c.mu.Unlock()
	port.SetConnection(c)
}

// Send implements sim.Connection: see base.sendOrDefer.
func (c *Switch) Send(msg sim.Msg) *sim.SendError { return c.sendOrDefer(msg) }

// sendNow reserves the source up-link from max(now, SendTime), then the
// destination down-link from no earlier than the up-link arrival plus the
// switch latency. It never fails; it panics on unplugged ports or src == dst.
func (c *Switch) sendNow(msg sim.Msg) *sim.SendError {
	now := c.engine.CurrentTime()
	if c.held(msg, now) {
		return nil
	}
	c.mu.Lock()
	si, di, bytes := c.endpoints(msg)
	t := c.account(si, di, bytes)
	up := maxTime(maxTime(now, msg.Meta().SendTime), c.upBusy[si]) + t.Occupancy
	c.upBusy[si] = up
	l := c.down[di]
	arrival := l.reserve(up+t.Latency+c.switchLatency, t.Occupancy, t.Latency)
	c.enqueue(l, msg, arrival)
	return nil
}
