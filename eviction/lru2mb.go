package eviction

// LRU2MB is least-recently-used at 2 MB chunk granularity: UVMSmart's
// default eviction (gpgpu-sim_UVMSmart, -eviction_policy 0, the "NVIDIA UM"
// baseline of UVMMU §V; Ganguly et al. ISCA'19). UVMSmart refreshes a
// chunk's time when one of its pages arrives and on every access to it
// (gpu-sim.cc refresh_valid_pages, called from the validate path and from
// shader.cc on a TLB hit), and evicts the whole chunk with the oldest time
// (page_eviction_procedure). It is an oracle in our driver model, as LRU4KB
// is: it needs the GPUs' accesses (Toucher).
const LRU2MB = "lru-2mb"

// chunkLRU is LRU2MB: LRM2MB's chunk list, also refreshed by accesses.
// With one page a chunk it is LRU4KB, and over 2 MB region numbers it is
// ObservUVM's LRU (Listing 1), refreshed by access-counter notifications.
type chunkLRU struct{ *chunkLRM }

func newChunkLRU(gpus int, pages, per uint64) chunkLRU {
	return chunkLRU{newChunkLRM(gpus, pages, per)}
}

// Prefetched lists p without refreshing its chunk if the chunk is listed.
func (c chunkLRU) Prefetched(g int, p uint64) { c.placeQuiet(g, p) }

// Touch moves the chunk of an accessed resident page to the most recent end.
func (c chunkLRU) Touch(g int, p uint64) {
	if !c.isRes[g][p] {
		return
	}
	if ch, o := int32(p/c.per), c.order[g]; o.Back() != ch {
		o.Touch(ch)
	}
}
