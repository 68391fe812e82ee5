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
type chunkLRU struct{ *chunkLRM }

func newChunkLRU(o Options) chunkLRU {
	return chunkLRU{newChunkLRM(o.GPUs, o.Pages, o.PagesPerChunk)}
}

// Touch moves the chunk of an accessed resident page to the most recent end.
func (c chunkLRU) Touch(g int, p uint64) {
	if !c.isRes[g][p] {
		return
	}
	if ch, o := int32(p/c.per), c.order[g]; o.Back() != ch {
		o.Touch(ch)
	}
}
