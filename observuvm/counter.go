package observuvm

import (
	"fmt"
	"slices"

	"github.com/mgpu-sim/mgpu/units"
)

// SourceKind is where a counted remote access went.
type SourceKind uint8

// Source kinds. The counters see GPU accesses over PCIe to host DRAM and
// accesses to peer GPUs' HBM, never local HBM (Sec. II-B, Sec. VIII-A); a
// multi-GPU observer must tell the two apart.
const (
	Host SourceKind = iota
	Peer
)

// Source labels a counted access: host DRAM, or the HBM of peer GPU GPU.
type Source struct {
	Kind SourceKind
	GPU  int // the peer that holds the page; 0 for Host
}

// HostSource is an access to host DRAM.
func HostSource() Source { return Source{Kind: Host} }

// PeerSource is an access to the HBM of GPU g.
func PeerSource(g int) Source { return Source{Kind: Peer, GPU: g} }

func (s Source) String() string {
	if s.Kind == Host {
		return "host"
	}
	return fmt.Sprintf("peer%d", s.GPU)
}

// Stock access-counter-based migration (ACBM, Sec. II-B) as the driver
// configures it (uvm_perf_access_counter_threshold 256, 2 MB granularity),
// for a baseline unit: NewCounterUnit(256, ACBMThreshold, ACBMGranularity,
// pageSize).
const (
	ACBMThreshold   = 256
	ACBMGranularity = 2 * units.MB
)

// Notification is an access-counter notification: the counter of the
// granule that holds Page, for accesses to Source, reached the threshold.
type Notification struct {
	Page        uint64 // the access that reached the threshold
	First, Size uint64 // the granule's pages: First .. First+Size-1
	Source      Source
}

// CounterStats are one unit's counts.
type CounterStats struct {
	// Accesses counts remote accesses offered; Untracked those to a new
	// granule while every counter was in use (lost, as on hardware).
	Accesses, Untracked, Notifications uint64
}

// CounterUnit is one GPU's access-counter unit (Sec. II-B, Sec. III-D):
// Capacity counters, each tracking one granule (at one source) once its
// first access finds a free counter. A counter that reaches the threshold
// notifies once and then stays allocated and silent until the driver
// clears it (Clear, ClearAll), as the driver's targeted and full clears
// do; the paper does not say when hardware frees counters, and freeing
// only on a clear is what makes Fig. 3 saturate at the capacity whatever
// the access order: p regions each accessed up to the threshold give
// min(p, Capacity) notifications.
type CounterUnit struct {
	capacity, threshold int
	gran, pageSize      uint64
	entries             map[counterKey]*counterEntry
	stats               CounterStats
}

type counterKey struct {
	granule uint64
	src     Source
}

type counterEntry struct {
	count    int
	notified bool
}

// NewCounterUnit returns a unit of capacity counters (Fig. 3: 256) that
// notifies after threshold accesses (1..65535; observation 1, stock ACBM
// 256) to a granule of granularity bytes (64KB, 2MB, 16MB or 1GB), for a
// simulator whose pages are pageSize bytes.
func NewCounterUnit(capacity, threshold int, granularity units.Bytes, pageSize uint64) (*CounterUnit, error) {
	if capacity < 1 {
		return nil, fmt.Errorf("observuvm counter capacity %d: must be at least 1 (Fig. 3: 256)", capacity)
	}
	if threshold < MinCounterThreshold || threshold > MaxCounterThreshold {
		return nil, fmt.Errorf("observuvm counter threshold %d: must be in %d..%d", threshold, MinCounterThreshold, MaxCounterThreshold)
	}
	if !slices.Contains(Granularities(), granularity) {
		return nil, fmt.Errorf("observuvm counter granularity %v: valid values are 64KB, 2MB, 16MB, 1GB", granularity)
	}
	if pageSize == 0 || pageSize&(pageSize-1) != 0 {
		return nil, fmt.Errorf("observuvm: page size %d bytes: must be a power of two", pageSize)
	}
	return &CounterUnit{capacity: capacity, threshold: threshold, gran: uint64(granularity), pageSize: pageSize,
		entries: map[counterKey]*counterEntry{}}, nil
}

// granule returns the granule of page and its page range.
func (u *CounterUnit) granule(page uint64) (g, first, size uint64) {
	g = page * u.pageSize / u.gran
	size = max(1, u.gran/u.pageSize)
	return g, g * u.gran / u.pageSize, size
}

// Access counts one remote access of the GPU to page at src and returns
// the notification it raises, if any.
func (u *CounterUnit) Access(page uint64, src Source) (Notification, bool) {
	u.stats.Accesses++
	g, first, size := u.granule(page)
	k := counterKey{g, src}
	e := u.entries[k]
	if e == nil {
		if len(u.entries) >= u.capacity {
			u.stats.Untracked++
			return Notification{}, false
		}
		e = &counterEntry{}
		u.entries[k] = e
	}
	if e.notified {
		return Notification{}, false
	}
	e.count++
	if e.count < u.threshold {
		return Notification{}, false
	}
	e.notified = true
	u.stats.Notifications++
	return Notification{Page: page, First: first, Size: size, Source: src}, true
}

// Clear frees the counter of the granule holding page at src, if any.
func (u *CounterUnit) Clear(page uint64, src Source) {
	g, _, _ := u.granule(page)
	delete(u.entries, counterKey{g, src})
}

// ClearAll frees every counter.
func (u *CounterUnit) ClearAll() { clear(u.entries) }

// Tracked is how many counters are in use.
func (u *CounterUnit) Tracked() int { return len(u.entries) }

// Capacity is the number of counters.
func (u *CounterUnit) Capacity() int { return u.capacity }

// Stats are the unit's counts.
func (u *CounterUnit) Stats() CounterStats { return u.stats }
