package gmmu

import (
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/engine"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// A driver built with more pages than the GMMU maps or invalidates past
// the GMMU's table: an error naming the disagreement, not an index panic
// (issue 32).
func TestDriverPageBeyondTable(t *testing.T) {
	m, err := MakeBuilder().WithEngine(engine.New()).WithGPUID(0).WithPages(4096, 16).Build("GPU[0].GMMU")
	if err != nil {
		t.Fatal(err)
	}
	b := uvmproto.MakeBuilder()
	for _, msg := range []sim.Msg{
		b.Map([]uvmproto.Mapping{{Page: 3}, {Page: 16}}, nil, true),
		b.CounterReply([]uvmproto.Mapping{{Page: 40}}, nil),
		b.Invalidate([]uvmproto.Inval{{Page: 99}}, 1),
	} {
		err := m.receive(0, msg)
		if err == nil || !strings.Contains(err.Error(), "beyond this GMMU's 16 pages") {
			t.Errorf("%T: err = %v", msg, err)
		}
	}
	if err := m.receive(0, b.Map([]uvmproto.Mapping{{Page: 15}}, nil, true)); err != nil {
		t.Errorf("page 15 of 16: %v", err)
	}
}
