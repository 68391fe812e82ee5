package uvmproto_test

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	// Every package an embedding model may import; none may make Akita's
	// ID generator at init.
	_ "github.com/mgpu-sim/mgpu/gmmu"
	_ "github.com/mgpu-sim/mgpu/gpu"
	_ "github.com/mgpu-sim/mgpu/platform"
	_ "github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// An embedding model picks Akita's ID generator before its first message;
// Akita panics if one was made already (issue 32: uvmproto's init made it).
func TestImportLeavesAkitaIDsAlone(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("sim.UseParallelIDGenerator after importing mgpu: %v", r)
		}
	}()
	sim.UseParallelIDGenerator()
	b := uvmproto.Builder{}
	if id := b.TransferDone(0, 1).Meta().ID; id == "" {
		t.Fatal("no message ID from the parallel generator")
	}
}
