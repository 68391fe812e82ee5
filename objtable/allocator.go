package objtable

import (
	"fmt"
	"sort"
)

// Object is one managed allocation.
type Object struct {
	ID   int
	Name string
	// Base is the untagged start address; it is page aligned.
	Base uint64
	Size uint64
	// Ptr is the tagged pointer MallocManaged returned.
	Ptr   uint64
	Freed bool
}

// FirstPage and Pages give the object's page range for a page size.
func (o *Object) FirstPage(pageSize uint64) uint64 { return o.Base / pageSize }

// Pages is the number of pages the object spans.
func (o *Object) Pages(pageSize uint64) uint64 { return (o.Size + pageSize - 1) / pageSize }

// Allocator hands out a compact managed address space, so that page state can
// live in slices indexed by page number rather than in maps.
type Allocator struct {
	tag     Tagging
	align   uint64
	next    uint64
	objects []*Object
}

// heapBase keeps address 0 unused so a nil pointer is never a valid object.
const heapBase = 1 << 21

// NewAllocator makes an allocator whose objects are aligned to align bytes
// (the largest page size in use, so an object never shares a page with
// another).
func NewAllocator(tag Tagging, align uint64) (*Allocator, error) {
	if err := tag.Validate(); err != nil {
		return nil, err
	}
	if align == 0 || align&(align-1) != 0 {
		return nil, fmt.Errorf("allocation alignment %d is not a power of two", align)
	}
	return &Allocator{tag: tag, align: align, next: heapBase}, nil
}

// MallocManaged allocates size bytes and returns the tagged pointer. IDs are
// given in allocation order.
func (a *Allocator) MallocManaged(size uint64, name string) (uint64, error) {
	if size == 0 {
		return 0, fmt.Errorf("MallocManaged(%q): size must be positive", name)
	}
	base := a.next
	span := (size + a.align - 1) / a.align * a.align
	if base+span > addrMask {
		return 0, fmt.Errorf("MallocManaged(%q, %d): managed address space exhausted", name, size)
	}
	a.next += span
	id := len(a.objects)
	o := &Object{ID: id, Name: name, Base: base, Size: size, Ptr: a.tag.Encode(base, id)}
	a.objects = append(a.objects, o)
	return o.Ptr, nil
}

// MustMalloc is MallocManaged for workload set-up code whose sizes are
// already validated; it panics only on a programming error.
func (a *Allocator) MustMalloc(size uint64, name string) uint64 {
	p, err := a.MallocManaged(size, name)
	if err != nil {
		panic(err)
	}
	return p
}

// Free releases an object. Its pages stay addressable in the simulator's
// page arrays but the object is marked freed.
func (a *Allocator) Free(ptr uint64) error {
	o := a.ObjectAt(Strip(ptr))
	if o == nil || o.Base != Strip(ptr) {
		return fmt.Errorf("Free(%#x): not the start of a managed object", ptr)
	}
	if o.Freed {
		return fmt.Errorf("Free(%#x): object %q already freed", ptr, o.Name)
	}
	o.Freed = true
	return nil
}

// Objects lists every object ever allocated, in ID order.
func (a *Allocator) Objects() []*Object { return a.objects }

// Object returns the object with the given ID.
func (a *Allocator) Object(id int) *Object { return a.objects[id] }

// Tagging returns the pointer tagging in use.
func (a *Allocator) Tagging() Tagging { return a.tag }

// End is one past the last allocated address: every managed page number is
// below End()/pageSize.
func (a *Allocator) End() uint64 { return a.next }

// Footprint is the sum of all object sizes.
func (a *Allocator) Footprint() uint64 {
	var s uint64
	for _, o := range a.objects {
		s += o.Size
	}
	return s
}

// ObjectAt finds the object that holds an untagged address, or nil.
func (a *Allocator) ObjectAt(addr uint64) *Object {
	i := sort.Search(len(a.objects), func(i int) bool { return a.objects[i].Base > addr }) - 1
	if i < 0 {
		return nil
	}
	o := a.objects[i]
	if addr >= o.Base+o.Size {
		return nil
	}
	return o
}
