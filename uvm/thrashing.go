package uvm

import "github.com/sarchlab/akita/v3/sim"

// thrashing is the NVIDIA driver's thrashing detection as far as
// access-counter migrations use it (NVIDIA open-gpu-kernel-modules
// kernel-open/nvidia-uvm/uvm_perf_thrashing.c: uvm_perf_thrashing_lapse_usec,
// uvm_perf_thrashing_threshold, uvm_perf_thrashing_pin_threshold, and the
// epoch and pin durations uvm_perf_thrashing_epoch and
// uvm_perf_thrashing_pin as multiples of the lapse): two
// migrations of a page within the lapse are a thrashing event, and the
// threshold-th consecutive event marks the page thrashing. An access-counter
// notification for a thrashing page is ignored (the driver's THROTTLE hint:
// uvm_gpu_access_counters.c skips throttled pages), so the page stays where
// it is, mapped remotely; after pinAfter ignored notifications the page is
// pinned there (the PIN hint) and notifications for it are ignored until
// the pin expires. A page that sees no event for an epoch is calm again.
type thrashing struct {
	lapse, epoch, pin sim.VTimeInSec
	threshold         uint8
	pinAfter          uint16

	last      []sim.VTimeInSec // last migration of the page
	events    []uint8          // consecutive thrashing events
	throttles []uint16         // notifications ignored since detection
	pinnedTo  []sim.VTimeInSec // pinned until
}

// thrashControl is thrashing detection as the Service uses it: told of
// every migration, asked whether to let a page move.
type thrashControl interface {
	moved(p uint64, now sim.VTimeInSec)
	skip(p uint64, now sim.VTimeInSec) bool
}

// offThrashing is thrashing control switched off: every page may move.
type offThrashing struct{}

func (offThrashing) moved(uint64, sim.VTimeInSec)     {}
func (offThrashing) skip(uint64, sim.VTimeInSec) bool { return false }

func newThrashing(c Config, pages uint64) *thrashing {
	lapse := sim.VTimeInSec(c.ThrashingLapseNs * 1e-9)
	return &thrashing{
		lapse: lapse, epoch: 2000 * lapse, pin: 300 * lapse,
		threshold: uint8(c.ThrashingThreshold), pinAfter: uint16(c.ThrashingPinThreshold),
		last: make([]sim.VTimeInSec, pages), events: make([]uint8, pages),
		throttles: make([]uint16, pages), pinnedTo: make([]sim.VTimeInSec, pages),
	}
}

// moved records a migration of page p at now.
func (t *thrashing) moved(p uint64, now sim.VTimeInSec) {
	gap := now - t.last[p]
	switch {
	case t.last[p] != 0 && gap <= t.lapse:
		if t.events[p] < 7 { // a 3-bit counter in the driver
			t.events[p]++
		}
	case t.last[p] == 0 || gap > t.epoch:
		t.events[p], t.throttles[p] = 0, 0
	}
	t.last[p] = now
}

// skip reports whether a notification for p at now is ignored.
func (t *thrashing) skip(p uint64, now sim.VTimeInSec) bool {
	if now < t.pinnedTo[p] {
		return true
	}
	if t.events[p] < t.threshold || now-t.last[p] > t.epoch {
		return false
	}
	t.throttles[p]++
	if t.throttles[p] >= t.pinAfter {
		t.pinnedTo[p] = now + t.pin
		t.throttles[p] = 0
	}
	return true
}
