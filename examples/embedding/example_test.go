package embedding_test

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/examples/embedding"
)

// Two GPUs of this module run the workload over mgpu's GMMUs and driver
// under OASIS. A is read by both (OASIS learns duplication: GPU 1 gets
// replicas) and stored to by GPU 0 (protection faults, collapses); after
// GPU 1 reads it again both hold copies. B is private: each half stays
// where it was first touched, and OASIS never records a policy for it.
// Each copy is in a frame of its GPU's memory (gmmu.Frames): GPU 0's from
// 0x20000, GPU 1's from 0x40000 (24 pages of memory each, rounded up to
// 32: 0x20000 bytes per GPU).
func Example() {
	r, err := embedding.Run(embedding.Workload())
	if err != nil {
		panic(err)
	}
	fmt.Print(r)
	// Output:
	// GPU 0: 12 answered, 6 far faults, 2 protection faults, 8 TLB flushes (6 skipped), 2 reads re-issued (2 in flight at a shootdown), 1 stale answers ignored
	//   6 pages sent to the peer; driver: 6 migrations from the host, 0 from a peer, 0 duplications, 2 collapses
	// GPU 1: 12 answered, 8 far faults, 0 protection faults, 4 TLB flushes (6 skipped), 4 reads re-issued (2 in flight at a shootdown), 2 stale answers ignored
	//   0 pages sent to the peer; driver: 2 migrations from the host, 0 from a peer, 6 duplications, 0 collapses
	// page 16 (A): owner GPU 0, copies on [0 1] at [0x20000 0x44000], remote on []
	// page 17 (A): owner GPU 0, copies on [0 1] at [0x21000 0x45000], remote on []
	// page 18 (A): owner GPU 0, copies on [0 1] at [0x22000 0x42000], remote on []
	// page 19 (A): owner GPU 0, copies on [0 1] at [0x23000 0x43000], remote on []
	// page 20 (B): owner GPU 0, copies on [0] at [0x24000], remote on []
	// page 21 (B): owner GPU 0, copies on [0] at [0x25000], remote on []
	// page 22 (B): owner GPU 1, copies on [1] at [0x40000], remote on []
	// page 23 (B): owner GPU 1, copies on [1] at [0x41000], remote on []
	// OASIS: object 1 duplication
	// ended at 15.962 us
}
