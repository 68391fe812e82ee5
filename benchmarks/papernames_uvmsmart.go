package benchmarks

// The papers' labels for the UVMSmart / Early-Adaptor kernels: EA's Table
// II and figures (2DC, FDT, HS, PF, ATA, BIC, NW, BFS), UVMMU's RA, and
// ObservUVM's preferred eviction where its Table II lists the kernel (2DC
// and BFS are cyclic, so CP).

// Aliases implements Aliased.
func (Convolution2D) Aliases() []string { return []string{"2DC"} }

// PreferredEviction implements EvictionPreferring.
func (Convolution2D) PreferredEviction() (string, string) { return "cp", "ObservUVM Table II" }

// Aliases implements Aliased.
func (FDTD2D) Aliases() []string { return []string{"FDT"} }

// Aliases implements Aliased.
func (Hotspot) Aliases() []string { return []string{"HS"} }

// Aliases implements Aliased.
func (Pathfinder) Aliases() []string { return []string{"PF"} }

// Aliases implements Aliased.
func (ATAX) Aliases() []string { return []string{"ATA"} }

// Aliases implements Aliased.
func (BiCG) Aliases() []string { return []string{"BIC"} }

// Aliases implements Aliased.
func (NW) Aliases() []string { return []string{"NW"} }

// Aliases implements Aliased: EA's and ObservUVM's BFS is Rodinia's (the
// registered bfs is SHOC's).
func (RodiniaBFS) Aliases() []string { return []string{"BFS"} }

// PreferredEviction implements EvictionPreferring.
func (RodiniaBFS) PreferredEviction() (string, string) { return "cp", "ObservUVM Table II" }

// Aliases implements Aliased.
func (RandomAccess) Aliases() []string { return []string{"RA"} }
