package interconnect

import (
	"errors"
	"fmt"

	"github.com/sarchlab/akita/v3/sim"
)

type params struct {
	engine          sim.Engine
	bandwidthGBps   float64
	latencyNs       float64
	switchLatencyNs float64
	headerBytes     int
	timing          TimingFunc // nil: latencyNs + bytes/bandwidthGBps
	holdFuture      bool       // future_sends=hold
	timingErr       error      // from WithPCIe, reported by Build
}

// Builder configures FullyConnected and Switch connections. It is a value:
// every With method returns a modified copy, as Akita builders do.
type Builder struct {
	p params
}

// MakeBuilder returns a Builder with no engine and zero bandwidth, so that
// forgetting either is reported by Build rather than silently defaulted.
func MakeBuilder() Builder {
	return Builder{}
}

// WithEngine sets the engine that delivery events are scheduled on.
func (b Builder) WithEngine(e sim.Engine) Builder {
	b.p.engine = e
	return b
}

// WithBandwidthGBps sets the bandwidth of every link direction
// (1 GB/s = 1e9 bytes/s).
func (b Builder) WithBandwidthGBps(f float64) Builder {
	b.p.bandwidthGBps = f
	return b
}

// WithLatencyNs sets the one-way latency of every link direction.
func (b Builder) WithLatencyNs(f float64) Builder {
	b.p.latencyNs = f
	return b
}

// WithHeaderBytes sets the header bytes added to every message's size.
func (b Builder) WithHeaderBytes(n int) Builder {
	b.p.headerBytes = n
	return b
}

// WithSwitchLatencyNs sets the latency through the switch between up-link
// and down-link. Only BuildSwitch and BuildTree use it.
func (b Builder) WithSwitchLatencyNs(f float64) Builder {
	b.p.switchLatencyNs = f
	return b
}

// WithTiming makes every message's occupancy and latency f(bytes) instead
// of bytes/bandwidth and the latency; nil restores those. The bandwidth
// must still be set, and valid, for Build.
func (b Builder) WithTiming(f TimingFunc) Builder {
	b.p.timing = f
	b.p.timingErr = nil
	return b
}

// WithHeldFutureSends makes the links take a message dated later than now
// onto its lane only when it is due (Config.FutureSends hold).
func (b Builder) WithHeldFutureSends(hold bool) Builder {
	b.p.holdFuture = hold
	return b
}

// WithPCIe configures the CPU-GPU link from c: its bandwidth and latency,
// and the timing of c.PCIeModel (PCIeTiming). An unknown model makes Build
// fail. NVLink is built with WithBandwidthGBps and WithLatencyNs alone.
func (b Builder) WithPCIe(c Config) Builder {
	b = b.WithBandwidthGBps(c.PCIeGBps).WithLatencyNs(c.PCIeLatencyNs)
	f, err := PCIeTiming(c)
	b.p.timing, b.p.timingErr = f, err
	return b
}

func (b Builder) validate(name string) (err error) {
	p := b.p
	switch {
	case p.timingErr != nil:
		return fmt.Errorf("%w (link %s)", p.timingErr, name)
	case p.engine == nil:
		return fmt.Errorf("interconnect: %s: no engine (use WithEngine)", name)
	case !(p.bandwidthGBps > 0) || p.bandwidthGBps > 1e300:
		return fmt.Errorf("interconnect: %s: bandwidth must be > 0 and finite GB/s, got %v", name, p.bandwidthGBps)
	case !(p.latencyNs >= 0) || p.latencyNs > 1e300:
		return fmt.Errorf("interconnect: %s: latency must be >= 0 and finite ns, got %v", name, p.latencyNs)
	case !(p.switchLatencyNs >= 0) || p.switchLatencyNs > 1e300:
		return fmt.Errorf("interconnect: %s: switch latency must be >= 0 and finite ns, got %v", name, p.switchLatencyNs)
	case p.headerBytes < 0:
		return fmt.Errorf("interconnect: %s: header bytes must be >= 0, got %d", name, p.headerBytes)
	}
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("interconnect: " + fmt.Sprint(r))
		}
	}()
	sim.NameMustBeValid(name)
	return nil
}

// BuildFullyConnected builds a connection giving every ordered pair of
// plugged ports its own link direction (NVLink pairs, or PCIe host-GPU links).
func (b Builder) BuildFullyConnected(name string) (*FullyConnected, error) {
	if err := b.validate(name); err != nil {
		return nil, err
	}
	c := &FullyConnected{}
	c.init(name, c, b.p)
	return c, nil
}

// BuildSwitch builds an NVSwitch-style connection: each port has an up-link
// and a down-link to one central switch.
func (b Builder) BuildSwitch(name string) (*Switch, error) {
	if err := b.validate(name); err != nil {
		return nil, err
	}
	c := &Switch{switchLatency: sim.VTimeInSec(b.p.switchLatencyNs * 1e-9)}
	c.init(name, c, b.p)
	return c, nil
}

// BuildTree builds a PCIe tree (Tree) with fanout devices per switch and
// the switch latency of WithSwitchLatencyNs in each switch crossed.
func (b Builder) BuildTree(name string, fanout int) (*Tree, error) {
	if err := b.validate(name); err != nil {
		return nil, err
	}
	if fanout < 1 {
		return nil, fmt.Errorf("interconnect: %s: devices per switch must be >= 1, got %d", name, fanout)
	}
	c := &Tree{fanout: fanout, swLat: sim.VTimeInSec(b.p.switchLatencyNs * 1e-9)}
	c.init(name, c, b.p)
	return c, nil
}
