package objtable

import "fmt"

// Shadow-map geometry (OASIS §V-F): a 48-bit address splits into a 24-bit
// first-level index, a 12-bit second-level index and a 12-bit offset in the
// 4 KB segment each second-level entry covers.
const (
	ShadowL1Entries = 1 << 24
	ShadowL2Entries = 1 << 12
	ShadowSegment   = 1 << 12
	// shadowL1Bytes is one first-level entry: a 64-bit pointer.
	shadowL1Bytes = 8
)

// ShadowMap is OASIS-InMem's two-level map from a virtual address to the
// N-bit Obj_ID of the object that holds it, for pointers that carry no tag
// (configuration bit 0). It is a software structure in host memory; Lookup
// reports the host addresses it reads so a cache model can price them.
type ShadowMap struct {
	idBits int
	l2     map[uint64][]uint32 // first-level index -> second-level table (ID+1, 0 = none)
	base   map[uint64]uint64   // first-level index -> host address of its table
	next   uint64
}

// Host addresses of the shadow map's parts, for the cache model. They are
// made up but disjoint: the first level, then second-level tables in
// allocation order.
const (
	shadowL1Base = 1 << 40
	shadowL2Base = shadowL1Base + ShadowL1Entries*shadowL1Bytes
)

// NewShadowMap makes an empty map with idBits-bit entries (the paper's N,
// 16 in its example).
func NewShadowMap(idBits int) (*ShadowMap, error) {
	if idBits < 1 || idBits > 32 {
		return nil, fmt.Errorf("shadow-map ID bits = %d: must be between 1 and 32", idBits)
	}
	return &ShadowMap{idBits: idBits, l2: map[uint64][]uint32{}, base: map[uint64]uint64{}, next: shadowL2Base}, nil
}

// Set records that [addr, addr+size) belongs to object id: every 4 KB
// segment's entry holds the ID, allocating second-level tables on demand.
func (m *ShadowMap) Set(addr, size uint64, id int) error {
	if id < 0 || uint64(id) >= 1<<m.idBits {
		return fmt.Errorf("object ID %d does not fit the shadow map's %d-bit entries", id, m.idBits)
	}
	for seg := Strip(addr) / ShadowSegment; seg*ShadowSegment < Strip(addr)+size; seg++ {
		i1, i2 := seg/ShadowL2Entries, seg%ShadowL2Entries
		t, ok := m.l2[i1]
		if !ok {
			t = make([]uint32, ShadowL2Entries)
			m.l2[i1] = t
			m.base[i1] = m.next
			m.next += m.tableBytes()
		}
		t[i2] = uint32(id) + 1
	}
	return nil
}

// Clear removes [addr, addr+size) (a freed object).
func (m *ShadowMap) Clear(addr, size uint64) {
	for seg := Strip(addr) / ShadowSegment; seg*ShadowSegment < Strip(addr)+size; seg++ {
		if t, ok := m.l2[seg/ShadowL2Entries]; ok {
			t[seg%ShadowL2Entries] = 0
		}
	}
}

// Lookup returns the object ID of addr (ok false if unmapped) and the host
// addresses of the first- and second-level entries it read.
func (m *ShadowMap) Lookup(addr uint64) (id int, ok bool, l1Addr, l2Addr uint64) {
	seg := Strip(addr) / ShadowSegment
	i1, i2 := seg/ShadowL2Entries, seg%ShadowL2Entries
	l1Addr = shadowL1Base + i1*shadowL1Bytes
	t, present := m.l2[i1]
	if !present {
		return 0, false, l1Addr, 0
	}
	l2Addr = m.base[i1] + i2*uint64(m.idBits)/8
	if t[i2] == 0 {
		return 0, false, l1Addr, l2Addr
	}
	return int(t[i2] - 1), true, l1Addr, l2Addr
}

func (m *ShadowMap) tableBytes() uint64 { return (ShadowL2Entries*uint64(m.idBits) + 7) / 8 }

// Bytes is the map's memory use as the paper counts it: the whole
// 2^24-pointer first level (128 MB) plus the second-level tables allocated.
func (m *ShadowMap) Bytes() (firstLevel, secondLevel uint64) {
	return ShadowL1Entries * shadowL1Bytes, uint64(len(m.l2)) * m.tableBytes()
}

// Tables is the number of second-level tables allocated.
func (m *ShadowMap) Tables() int { return len(m.l2) }
