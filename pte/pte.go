// Package pte holds what a page-table entry says about a page's
// management and what the wire between GPU and driver (uvmproto) carries
// of it: the two OASIS policy bits and the host residency. It is a leaf,
// so that the messages do not depend on the policies that set the bits.
package pte

import "fmt"

// Bits are the two PTE policy bits of OASIS Fig. 12.
type Bits uint8

// The PTE policy-bit encodings (OASIS Fig. 12).
const (
	OnTouch       Bits = 0b00
	AccessCounter Bits = 0b01
	Duplication   Bits = 0b11
)

func (b Bits) String() string {
	switch b {
	case OnTouch:
		return "on-touch"
	case AccessCounter:
		return "access-counter"
	case Duplication:
		return "duplication"
	}
	return fmt.Sprintf("bits(%02b)", uint8(b))
}

// Host is the residency of a page that lives in CPU memory.
const Host = -1
