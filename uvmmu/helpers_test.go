package uvmmu

import (
	"fmt"
	"math"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/units"
)

// small is a scaled-down DA: regions of 4 frame-groups, a FrAB word of 4
// regions, an 8-entry DCQ refilled below 4 up to 5 entries. At 1000 MHz a
// cycle is 1 ns.
func small() Config {
	c := DefaultConfig()
	c.DCQEntries, c.Watermark, c.RefillTo = 8, 4, 5
	c.FrABWordBits = 4
	c.RegionBytes = 4 * c.GroupBytes
	return c
}

func smallSetup(frames uint32) Setup {
	return Setup{Frames: frames, ClockMHz: 1000, Seed: 1}
}

func mustNew(t testing.TB, c Config, s Setup) *Unit {
	t.Helper()
	u, err := New(c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// ns is t in ns, rounded to 1 ps against float noise.
func ns(t sim.VTimeInSec) float64 { return math.Round(float64(t)*1e12) / 1e3 }

func at(nanoseconds float64) sim.VTimeInSec { return sim.VTimeInSec(nanoseconds * 1e-9) }

// take returns the plans in Ready and advances.
func take(u *Unit) []Plan {
	p := append([]Plan(nil), u.Ready().Plans...)
	u.Advance()
	return p
}

// checkCounters checks that the unit's counts add up with its state.
func checkCounters(u *Unit, cfg Config) error {
	c := u.Counters()
	active := uint64(0)
	if _, ok := u.Refilling(); ok {
		active = 1
	}
	regionReads := c.IPgTAccesses - c.VictimDraws - c.Swaps
	checks := []struct {
		name string
		l, r uint64
	}{
		{"faults = fills + swaps + waiting", c.Faults, c.Fills + c.Swaps + uint64(u.Waiting())},
		{"pops = fills + swaps", c.Pops, c.Fills + c.Swaps},
		{"pushes = pops + DCQ length", c.FreePushes + c.VictimPushes, c.Pops + uint64(u.DCQLen())},
		{"refills = done + in flight", c.Refills, c.RefillsDone + active},
		{"victim draws = victim pushes + misses", c.VictimDraws, c.VictimPushes + c.VictimMisses},
		{"IPgT writes = free pushes + pops + releases", c.IPgTWrites, c.FreePushes + c.Pops + c.Releases},
		{"refill cycles = SRAM reads + IPgT reads + pushes", c.RefillCycles,
			c.SRAMReads*uint64(cfg.FrABReadCycles) + (regionReads+c.VictimDraws)*uint64(cfg.IPgTReadCycles) +
				(c.FreePushes+c.VictimPushes)*uint64(cfg.PushCycles)},
	}
	for _, k := range checks {
		if k.l != k.r {
			return fmt.Errorf("counters: %s: %d != %d (%+v)", k.name, k.l, k.r, c)
		}
	}
	if entries := c.IPgTReads - c.VictimDraws - c.Swaps; entries > regionReads*uint64(cfg.GroupsPerRegion()) || entries < regionReads {
		return fmt.Errorf("counters: %d IPgT entries read by %d region reads", entries, regionReads)
	}
	if c.Completes > c.Pops || c.VictimsGone > c.Fills || c.RefillsStarved > c.RefillsDone {
		return fmt.Errorf("counters: a part exceeds its whole: %+v", c)
	}
	return nil
}

// paperSetup is Table I's GTX 1080 Ti: 11 GB at 1481 MHz.
func paperSetup() Setup {
	return Setup{Frames: FramesFor(11*units.GB, DefaultConfig()), ClockMHz: 1481, Seed: 1}
}

// exact returns the unit's own time that prints as nanoseconds (a DCQ
// entry's, a refill end), so a test ticks at the time the unit computed,
// as an adapter does with Ready.WakeAt; otherwise at(nanoseconds).
func exact(u *Unit, nanoseconds float64) sim.VTimeInSec {
	if done, ok := u.Refilling(); ok && ns(done) == nanoseconds {
		return done
	}
	for i := 0; i < u.q.n; i++ {
		if e := u.q.buf[(u.q.head+i)&(len(u.q.buf)-1)]; ns(e.readyAt) == nanoseconds {
			return e.readyAt
		}
	}
	return at(nanoseconds)
}
