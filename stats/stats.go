// Package stats holds the counters a run reports. Components increment the
// counters of their GPU; the platform sums them into the result.
package stats

// Counters are the event counts of one GPU (or, summed, of the system).
// Their JSON names are the result file's schema.
type Counters struct {
	MemInstructions  uint64 `json:"mem_instructions"`
	PageFaults       uint64 `json:"page_faults"`
	ProtectionFaults uint64 `json:"protection_faults"`
	MigrationsH2D    uint64 `json:"migrations_h2d"`
	MigrationsD2D    uint64 `json:"migrations_d2d"`
	MigrationsD2H    uint64 `json:"migrations_d2h"`
	Duplications     uint64 `json:"duplications"`
	Collapses        uint64 `json:"collapses"`
	RemoteLines      uint64 `json:"remote_lines"`
	// HostLines counts the remote lines that went to host memory over
	// PCIe (zero-copy access to a page that stays on the host).
	HostLines       uint64 `json:"host_lines"`
	ACNotifications uint64 `json:"ac_notifications"`
	// ACThrottled counts notified pages not migrated because they thrash.
	ACThrottled uint64 `json:"ac_throttled"`
	Evictions   uint64 `json:"evictions"`
	// Prefetches counts pages the driver's prefetcher brought with a fault
	// batch beyond the faulted ones (also counted in MigrationsH2D).
	Prefetches    uint64 `json:"prefetches"`
	Invalidations uint64 `json:"invalidations"`
	BytesNVLink   uint64 `json:"bytes_nvlink"`
	BytesPCIe     uint64 `json:"bytes_pcie"`
	TLBL1Hits     uint64 `json:"tlb_l1_hits"`
	TLBL1Misses   uint64 `json:"tlb_l1_misses"`
	TLBL2Hits     uint64 `json:"tlb_l2_hits"`
	TLBL2Misses   uint64 `json:"tlb_l2_misses"`
	PageWalks     uint64 `json:"page_walks"`
	L1VHits       uint64 `json:"l1v_hits"`
	L2Hits        uint64 `json:"l2_hits"`
	DRAMLines     uint64 `json:"dram_lines"`
	FaultBatches  uint64 `json:"fault_batches"`
	// L2 TLB misses by the PTE policy bits of the missing page (OASIS
	// Fig. 23): 00 on-touch, 01 access-counter, 11 duplication.
	L2MissOnTouch       uint64 `json:"l2tlb_miss_on_touch"`
	L2MissAccessCounter uint64 `json:"l2tlb_miss_access_counter"`
	L2MissDuplication   uint64 `json:"l2tlb_miss_duplication"`
}

// Add accumulates o into c.
func (c *Counters) Add(o *Counters) {
	c.MemInstructions += o.MemInstructions
	c.PageFaults += o.PageFaults
	c.ProtectionFaults += o.ProtectionFaults
	c.MigrationsH2D += o.MigrationsH2D
	c.MigrationsD2D += o.MigrationsD2D
	c.MigrationsD2H += o.MigrationsD2H
	c.Duplications += o.Duplications
	c.Collapses += o.Collapses
	c.RemoteLines += o.RemoteLines
	c.HostLines += o.HostLines
	c.ACNotifications += o.ACNotifications
	c.ACThrottled += o.ACThrottled
	c.Evictions += o.Evictions
	c.Prefetches += o.Prefetches
	c.Invalidations += o.Invalidations
	c.BytesNVLink += o.BytesNVLink
	c.BytesPCIe += o.BytesPCIe
	c.TLBL1Hits += o.TLBL1Hits
	c.TLBL1Misses += o.TLBL1Misses
	c.TLBL2Hits += o.TLBL2Hits
	c.TLBL2Misses += o.TLBL2Misses
	c.PageWalks += o.PageWalks
	c.L1VHits += o.L1VHits
	c.L2Hits += o.L2Hits
	c.DRAMLines += o.DRAMLines
	c.FaultBatches += o.FaultBatches
	c.L2MissOnTouch += o.L2MissOnTouch
	c.L2MissAccessCounter += o.L2MissAccessCounter
	c.L2MissDuplication += o.L2MissDuplication
}

// Stalls is wavefront stall time by cause, in nanoseconds summed over
// stalled wavefronts (so it can exceed the simulated time). The causes are
// GRIT's Fig. 3 breakdown.
type Stalls struct {
	LocalWalk     float64 `json:"local_walk"`
	HostFault     float64 `json:"host_fault"`
	Migration     float64 `json:"migration"`
	RemoteAccess  float64 `json:"remote_access"`
	Duplication   float64 `json:"duplication"`
	WriteCollapse float64 `json:"write_collapse"`
}

// Add accumulates o into s.
func (s *Stalls) Add(o *Stalls) {
	s.LocalWalk += o.LocalWalk
	s.HostFault += o.HostFault
	s.Migration += o.Migration
	s.RemoteAccess += o.RemoteAccess
	s.Duplication += o.Duplication
	s.WriteCollapse += o.WriteCollapse
}
