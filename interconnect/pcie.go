package interconnect

import (
	"fmt"
	"math"
	"strings"

	"github.com/sarchlab/akita/v3/sim"
)

// The PCIe timing models, the values of link.pcie_model. Each gives, for one
// message of n bytes on the wire (its TrafficBytes plus header_bytes, the
// size the link has always charged), how long the message occupies its link
// direction and how long after its last byte leaves it arrives. Messages of
// one direction still queue FIFO behind each other's occupancy (link.go).
const (
	// PCIeOneWay is the link as it has always been: a fixed one-way
	// latency after the message's last byte, which leaves at the link
	// bandwidth.
	//	occupancy = bytes / (pcie_gbps × 1e9 B/s), latency = pcie_latency_ns
	PCIeOneWay = "oneway"
	// PCIeRTT is UVMMU's PCIe ("UVMMU: Hardware-Offloaded Page Migration
	// for Heterogeneous Computing", DATE 2023, §V-A1 and Table I: "delay
	// queues with a 1µs round-trip time (T_RTT) and 16GB/s bandwidth"). A
	// round trip is a request one way and its response the other, so each
	// message carries half the round-trip time:
	//	occupancy = bytes / (pcie_gbps × 1e9 B/s), latency = pcie_rtt_ns / 2
	// A far fault (fault batch up, page data down) then costs one RTT plus
	// the data's transfer time, UVMMU's 1 µs + 4 KB / 16 GB/s per page.
	PCIeRTT = "rtt"
	// PCIeUVMSmart is UVMSmart's size-dependent transfer time
	// (DebashisGanguly/gpgpu-sim_UVMSmart, src/gpgpu-sim/gpu-sim.cc,
	// gmmu_t::get_ready_cycle, which times every PCIe migration). The
	// curve gives an effective bandwidth in GiB/s for a transfer of KB =
	// bytes / 1024:
	//	speed = (2a/π) · atan(b · KB)              [GiB/s, 1 GiB = 2^30 B]
	//	occupancy = bytes / (speed × 2^30 B/s), latency = 0
	// with a = pcie_curve_a and b = pcie_curve_b; UVMSmart's
	// convert_byte_string sets a = 12, 24, 48 for a 16, 32, 64 GB/s link
	// and b = 0.07292 in all three. speed rises to the asymptote a, so the
	// curve has no separate latency: a 4 KB page takes 1.76 µs at a = 12
	// and an empty message the limit π·1024 / (2a·b·2^30) s (1.71 µs).
	// UVMSmart keeps one transfer per direction in flight (its read and
	// write latency queues), so the whole time is occupancy. pcie_gbps and
	// pcie_latency_ns are not used. Unlike UVMSmart this does not round to
	// whole core cycles, and it omits the halved speed that UVMSmart's
	// calculate_transfer_time applies to cudaMemcpy transfers of 2 MB or
	// more, since get_ready_cycle (migrations) has none.
	PCIeUVMSmart = "uvmsmart"
)

// PCIeModels returns the valid link.pcie_model values.
func PCIeModels() []string { return []string{PCIeOneWay, PCIeRTT, PCIeUVMSmart} }

// Timing is one message's cost on an idle link direction: the direction is
// busy for Occupancy (a later message waits for it), and the message
// arrives Latency after that.
type Timing struct {
	Occupancy, Latency sim.VTimeInSec
}

// Total is the message's time from departure on an idle link to arrival.
func (t Timing) Total() sim.VTimeInSec { return t.Occupancy + t.Latency }

// TimingFunc gives the timing of a message of n bytes on the wire.
type TimingFunc func(bytes int) Timing

// oneWay is the fixed-latency, fixed-bandwidth timing every link used before
// the PCIe models: the same floating-point operations as before, so that
// results stay bit-identical.
func oneWay(gbps, latencyNs float64) TimingFunc {
	bytesPerSec := gbps * 1e9
	lat := sim.VTimeInSec(latencyNs * 1e-9)
	return func(bytes int) Timing {
		return Timing{Occupancy: sim.VTimeInSec(float64(bytes) / bytesPerSec), Latency: lat}
	}
}

// uvmSmart is UVMSmart's transfer-time curve (see PCIeUVMSmart).
func uvmSmart(a, b float64) TimingFunc {
	const gib = 1 << 30
	scale := 2 * a / math.Pi
	empty := sim.VTimeInSec(1024 / (scale * b * gib)) // the limit as bytes -> 0
	return func(bytes int) Timing {
		if bytes <= 0 {
			return Timing{Occupancy: empty}
		}
		n := float64(bytes)
		speed := scale * math.Atan(b*n/1024)
		return Timing{Occupancy: sim.VTimeInSec(n / (speed * gib))}
	}
}

// PCIeTiming returns the timing of c.PCIeModel with c's parameters: a pure
// function of a message's size. An unknown model is an error naming the
// valid ones.
func PCIeTiming(c Config) (TimingFunc, error) {
	switch c.PCIeModel {
	case PCIeOneWay:
		return oneWay(c.PCIeGBps, c.PCIeLatencyNs), nil
	case PCIeRTT:
		return oneWay(c.PCIeGBps, c.PCIeRTTNs/2), nil
	case PCIeUVMSmart:
		if !(c.PCIeCurveA > 0) || !(c.PCIeCurveB > 0) || math.IsInf(c.PCIeCurveA, 0) || math.IsInf(c.PCIeCurveB, 0) {
			return nil, fmt.Errorf("interconnect: uvmsmart PCIe curve needs finite a > 0 and b > 0, got a = %v, b = %v", c.PCIeCurveA, c.PCIeCurveB)
		}
		return uvmSmart(c.PCIeCurveA, c.PCIeCurveB), nil
	}
	return nil, fmt.Errorf("interconnect: unknown PCIe model %q: must be one of %s", c.PCIeModel, strings.Join(PCIeModels(), ", "))
}
