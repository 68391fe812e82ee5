package characterize

import "math/bits"

// Sharing is the private/shared class of a page or an object (OASIS
// §IV-B).
type Sharing uint8

// Sharing classes. NoSharing marks a page or object nobody touched.
const (
	NoSharing Sharing = iota
	Private
	Shared
	// PrivateSharedMix is an object whose touched pages are neither over
	// 90% private nor over 90% shared.
	PrivateSharedMix
)

func (s Sharing) String() string {
	switch s {
	case Private:
		return "private"
	case Shared:
		return "shared"
	case PrivateSharedMix:
		return "private-shared-mix"
	}
	return "untouched"
}

// Access is the read/write class of a page or an object (OASIS §IV-B).
type Access uint8

// Access classes. NoAccess marks a page or object nobody touched.
const (
	NoAccess Access = iota
	ReadOnly
	WriteOnly
	// RWMix is a page both read and written, or an object whose touched
	// pages are neither over 90% read-only nor over 90% write-only (the
	// paper calls both "rw-mix").
	RWMix
)

func (a Access) String() string {
	switch a {
	case ReadOnly:
		return "read-only"
	case WriteOnly:
		return "write-only"
	case RWMix:
		return "rw-mix"
	}
	return "untouched"
}

// Class is the combined class of a touched page: private or shared times
// read-only, write-only or rw-mix.
type Class uint8

// The six page classes, in the order the CSV columns use. NumClasses counts
// them.
const (
	PrivateRO Class = iota
	PrivateWO
	PrivateRW
	SharedRO
	SharedWO
	SharedRW
	NumClasses
)

// MakeClass combines a page's sharing and access classes. s must be Private
// or Shared and a one of ReadOnly, WriteOnly, RWMix.
func MakeClass(s Sharing, a Access) Class {
	c := Class(a - ReadOnly)
	if s == Shared {
		c += SharedRO
	}
	return c
}

// Sharing and Access split a class.
func (c Class) Sharing() Sharing {
	if c >= SharedRO {
		return Shared
	}
	return Private
}

// Access is the read/write half of the class.
func (c Class) Access() Access { return ReadOnly + Access(c%3) }

func (c Class) String() string { return c.Sharing().String() + "-" + c.Access().String() }

// Flag bits of a page's access record.
const (
	flagRead  = 1
	flagWrite = 2
)

// PageSharing classifies a page from the number of distinct GPUs that
// accessed it in the period: 0 untouched, 1 private, more shared.
func PageSharing(gpus int) Sharing {
	switch {
	case gpus <= 0:
		return NoSharing
	case gpus == 1:
		return Private
	}
	return Shared
}

// PageAccess classifies a page from whether it was read and whether it was
// written in the period.
func PageAccess(read, written bool) Access {
	switch {
	case read && written:
		return RWMix
	case read:
		return ReadOnly
	case written:
		return WriteOnly
	}
	return NoAccess
}

// Predominant reports the paper's 90% rule: all of total, or over 90% of
// it (strictly: exactly 90% is not enough). A zero total has no predominant
// pattern.
func Predominant(count, total int) bool {
	return total > 0 && count*10 > total*9
}

// ObjectSharing classifies an object from the number of its touched pages
// that are private and shared: the predominant class by the 90% rule, else
// PrivateSharedMix.
func ObjectSharing(private, shared int) Sharing {
	total := private + shared
	switch {
	case total == 0:
		return NoSharing
	case Predominant(private, total):
		return Private
	case Predominant(shared, total):
		return Shared
	}
	return PrivateSharedMix
}

// ObjectAccess classifies an object from the number of its touched pages
// that are read-only, write-only and rw-mix: read-only or write-only when
// that class is predominant by the 90% rule, rw-mix otherwise (OASIS
// §IV-B: "30% read-only and 70% write-only or rw-mix" is an rw-mix
// object).
func ObjectAccess(ro, wo, rw int) Access {
	total := ro + wo + rw
	switch {
	case total == 0:
		return NoAccess
	case Predominant(ro, total):
		return ReadOnly
	case Predominant(wo, total):
		return WriteOnly
	}
	return RWMix
}

// Census counts touched pages by class.
type Census [NumClasses]int

// Pages is the number of touched pages counted.
func (c *Census) Pages() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Count returns the pages of one sharing class (Private or Shared) or, with
// NoSharing, of any.
func (c *Census) Count(s Sharing, a Access) int {
	n := 0
	for cl := Class(0); cl < NumClasses; cl++ {
		if (s == NoSharing || cl.Sharing() == s) && (a == NoAccess || cl.Access() == a) {
			n += c[cl]
		}
	}
	return n
}

// Sharing is the object class of the counted pages.
func (c *Census) Sharing() Sharing {
	return ObjectSharing(c.Count(Private, NoAccess), c.Count(Shared, NoAccess))
}

// Access is the object class of the counted pages.
func (c *Census) Access() Access {
	return ObjectAccess(c.Count(NoSharing, ReadOnly), c.Count(NoSharing, WriteOnly), c.Count(NoSharing, RWMix))
}

func (c *Census) add(o *Census) {
	for i := range c {
		c[i] += o[i]
	}
}

// classOf classifies a page from its GPU mask and flag bits; ok is false
// for an untouched page.
func classOf(mask uint64, flags uint8) (Class, bool) {
	if mask == 0 || flags == 0 {
		return 0, false
	}
	return MakeClass(PageSharing(bits.OnesCount64(mask)), PageAccess(flags&flagRead != 0, flags&flagWrite != 0)), true
}
