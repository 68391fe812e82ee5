package uvmproto

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"
)

// Port is Akita's LimitNumMsgPort that remembers the connection plugged
// into it, so that its component can refuse a connection it cannot run on
// (OnDirectConnection) instead of stalling on it.
type Port struct {
	*sim.LimitNumMsgPort
	conn sim.Connection
}

// NewPort makes comp's port named name, holding buf incoming messages.
func NewPort(comp sim.Component, buf int, name string) *Port {
	return &Port{LimitNumMsgPort: sim.NewLimitNumMsgPort(comp, buf, name)}
}

// SetConnection implements sim.Port.
func (p *Port) SetConnection(c sim.Connection) {
	p.conn = c
	p.LimitNumMsgPort.SetConnection(c)
}

// Is reports whether q is p: Akita notifies the component with the port
// inside, not with p.
func (p *Port) Is(q sim.Port) bool { return q == sim.Port(p) || q == sim.Port(p.LimitNumMsgPort) }

// NeedsRecvDelay is an error when p is plugged into Akita's
// DirectConnection and its component handles what arrives in the instant
// it arrives (delay 0). A DirectConnection ticks once an instant: what the
// component answers within the instant the connection already ticked
// stays in the connection's buffer, and the run ends with it undelivered.
func (p *Port) NeedsRecvDelay(delay sim.VTimeInSec) error {
	c, ok := p.conn.(*sim.DirectConnection)
	if !ok || delay > 0 {
		return nil
	}
	return fmt.Errorf("port %s is on Akita's DirectConnection %q, which delivers what is sent within an instant it has ticked only if it ticks again: build the component WithRecvDelay(one cycle of the connection, e.g. 1e-9 at 1 GHz)",
		p.Name(), c.Name())
}
