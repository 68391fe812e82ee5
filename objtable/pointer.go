// Package objtable tracks the objects a workload allocates with
// cudaMallocManaged, as OASIS's Object Tracker does (OASIS §V-B, Fig. 9/10).
//
// Every managed allocation gets an object ID and a 64-bit pointer whose bits
// above bit 48 carry that ID and a configuration bit. The simulator strips the
// tag before any page-table lookup, so the tag costs nothing on the access
// path but lets the driver attribute every fault to its object.
package objtable

import "fmt"

// AddrBits is the width of the virtual address below the tag (x86-64/ARMv8
// user space: 48 bits). The tag lives above it (OASIS Fig. 9).
const AddrBits = 48

// MaxIDBits is the largest object-ID width the 16 upper pointer bits allow
// once one bit is taken by the configuration bit (OASIS §V-B: up to 15 bits).
const MaxIDBits = 15

const addrMask = uint64(1)<<AddrBits - 1

// Tagging describes how object IDs are packed into pointers.
type Tagging struct {
	// IDBits is the width of Obj_ID (OASIS default 4, at most 15).
	IDBits int
	// ConfigBit is 1 when the ID is encoded in the pointer (OASIS) and 0
	// when it comes from the shadow map (OASIS-InMem, §V-E).
	ConfigBit uint64
}

// Validate reports a tagging that cannot fit in the upper pointer bits.
func (t Tagging) Validate() error {
	if t.IDBits < 1 || t.IDBits > MaxIDBits {
		return fmt.Errorf("object ID bits = %d: must be between 1 and %d", t.IDBits, MaxIDBits)
	}
	if t.ConfigBit > 1 {
		return fmt.Errorf("configuration bit = %d: must be 0 or 1", t.ConfigBit)
	}
	return nil
}

// Encode returns the tagged pointer for addr and object id: the ID in bits
// 48..48+IDBits-1 and the configuration bit just above it. The ID is
// truncated to IDBits. With the configuration bit 0 the upper bits stay
// clear, as OASIS-InMem requires.
func (t Tagging) Encode(addr uint64, id int) uint64 {
	p := addr & addrMask
	if t.ConfigBit == 0 {
		return p
	}
	idMask := uint64(1)<<t.IDBits - 1
	p |= (uint64(id) & idMask) << AddrBits
	p |= 1 << (AddrBits + t.IDBits)
	return p
}

// Decode splits a tagged pointer into address, object ID and configuration
// bit. A pointer with the configuration bit 0 has no ID (ok is false).
func (t Tagging) Decode(ptr uint64) (addr uint64, id int, ok bool) {
	addr = ptr & addrMask
	if ptr>>(AddrBits+t.IDBits)&1 == 0 {
		return addr, 0, false
	}
	idMask := uint64(1)<<t.IDBits - 1
	return addr, int(ptr >> AddrBits & idMask), true
}

// Strip removes the tag, as the GMMU does before a page-table lookup.
func Strip(ptr uint64) uint64 { return ptr & addrMask }
