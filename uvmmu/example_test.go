package uvmmu_test

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/uvmmu"
)

// A GPU of two frame-groups: two faults fill it, the third swaps. The
// adapter turns each plan's moves into messages, issued at StartAt, and
// reports the end of each migration with Complete.
func Example() {
	u, err := uvmmu.New(uvmmu.DefaultConfig(), uvmmu.Setup{Frames: 2, ClockMHz: 1000, Seed: 1}, nil)
	if err != nil {
		panic(err)
	}
	now := sim.VTimeInSec(1e-6)
	for i, g := range []uint64{10, 11, 12} {
		if err := u.Fault(now, uvmmu.Fault{Group: g, Critical: 3, Remote: 500 + g}); err != nil {
			panic(err)
		}
		for rd := u.Ready(); ; rd = u.Ready() {
			for _, p := range rd.Plans {
				fmt.Printf("group %d -> frame-group %d, swap %v, handling %.0f ns, stalled %v\n",
					p.Group, p.Frame, p.Swap, float64(p.StartAt-p.DestAt)*1e9, p.Stalled)
				for _, mv := range p.Transfers() {
					fmt.Printf("  dir %d group %d pages %v\n", mv.Dir, mv.Group, mv.AppendPages(nil)[:min(3, mv.Count())])
				}
				if err := u.Complete(p.DestAt, p.Frame); err != nil {
					panic(err)
				}
			}
			u.Advance()
			if !rd.Wake {
				break
			}
			now = rd.WakeAt
			if err := u.Tick(now); err != nil {
				panic(err)
			}
		}
		now += sim.VTimeInSec(float64(i+1) * 1e-6)
	}
	c := u.Counters()
	fmt.Printf("fills %d, swaps %d, DCQ-empty stalls %d, refills %d\n", c.Fills, c.Swaps, c.DCQEmptyStalls, c.Refills)
	// Output:
	// group 10 -> frame-group 0, swap false, handling 10 ns, stalled false
	//   dir 0 group 10 pages [163]
	//   dir 0 group 10 pages [160 161 162]
	// group 11 -> frame-group 1, swap false, handling 10 ns, stalled false
	//   dir 0 group 11 pages [179]
	//   dir 0 group 11 pages [176 177 178]
	// group 12 -> frame-group 0, swap true, handling 10 ns, stalled false
	//   dir 0 group 12 pages [195]
	//   dir 0 group 12 pages [192 193 194]
	//   dir 1 group 10 pages [160 161 162]
	// fills 2, swaps 1, DCQ-empty stalls 0, refills 4
}
