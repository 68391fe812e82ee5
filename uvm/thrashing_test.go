package uvm

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

func us(x float64) sim.VTimeInSec { return sim.VTimeInSec(x * 1e-6) }

func TestThrashingDetection(t *testing.T) {
	c := DefaultConfig() // lapse 500 us, threshold 3, pin after 10
	for _, tc := range []struct {
		name  string
		moves []float64 // migration times, us
		at    float64   // notification time, us
		skip  bool
	}{
		{"a calm page migrates", []float64{100, 900, 1700}, 1800, false},
		{"two close moves are not yet thrashing", []float64{100, 200, 300}, 350, false},
		{"the third close move marks it thrashing", []float64{100, 200, 300, 400}, 450, true},
		{"after an epoch without moves it is calm", []float64{100, 200, 300, 400}, 400 + 1e6 + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := newThrashing(c, 1)
			for _, m := range tc.moves {
				th.moved(0, us(m))
			}
			if got := th.skip(0, us(tc.at)); got != tc.skip {
				t.Fatalf("skip %v, want %v", got, tc.skip)
			}
		})
	}
}

func TestThrashingPins(t *testing.T) {
	th := newThrashing(DefaultConfig(), 1)
	for _, m := range []float64{100, 200, 300, 400} {
		th.moved(0, us(m))
	}
	for i := 0; i < 10; i++ {
		if !th.skip(0, us(500)) {
			t.Fatalf("notification %d of a thrashing page was not ignored", i)
		}
	}
	// Pinned for 300 lapses (150 ms) from the tenth, then free again once
	// the thrashing epoch is over too.
	if !th.skip(0, us(500+100000)) || th.throttles[0] != 0 {
		t.Fatal("a pinned page migrated before the pin expired")
	}
	if th.skip(0, us(500+150000+1e6+20)) {
		t.Fatal("the pin never expired")
	}
}
