package gmmu

import (
	"fmt"
	"math"
	"math/bits"
)

// Frames is the GPUs' physical memory, one frame per page held, shared by
// the GMMUs of a system (WithFrames) so that each can answer a
// translation with the physical address of a page in any GPU's memory.
// GPU g's memory is the physical range [(g+1)·Span, (g+1)·Span + frames ·
// page size), as MGPUSim places each GPU's DRAM above the host's; Span is
// the memory size rounded up to a power of two, so the addresses of one
// GPU's frames are dense from its base and an address-interleaved memory
// below them sees every bank used. Frames are handed out lowest first,
// and a freed frame is reused first, so the same run gives the same
// addresses.
type Frames struct {
	pageSize uint64
	pages    uint64
	span     uint64
	limit    uint64
	gpu      []frameSet
}

type frameSet struct {
	of   []uint32 // by page: its frame + 1, 0 for none
	held int
	free []uint32 // freed frames, to reuse before new ones
	next uint64   // frames from here on were never used
}

// NewFrames makes the memory of gpus GPUs of memBytes each, for pages
// pages (the GMMUs' WithPages) of pageSize bytes.
func NewFrames(gpus int, pages, memBytes, pageSize uint64) (*Frames, error) {
	switch {
	case gpus < 1:
		return nil, fmt.Errorf("frames: %d GPUs; need at least 1", gpus)
	case pageSize == 0 || pageSize&(pageSize-1) != 0:
		return nil, fmt.Errorf("frames: page size %d is not a power of two", pageSize)
	case memBytes < pageSize:
		return nil, fmt.Errorf("frames: %d B of memory holds no %d B page", memBytes, pageSize)
	case memBytes/pageSize >= math.MaxUint32:
		return nil, fmt.Errorf("frames: %d B of memory is more than 2^32 pages of %d B", memBytes, pageSize)
	}
	f := &Frames{pageSize: pageSize, pages: pages, limit: memBytes / pageSize, gpu: make([]frameSet, gpus)}
	f.span = uint64(1) << bits.Len64(f.limit*pageSize-1)
	for i := range f.gpu {
		f.gpu[i].of = make([]uint32, pages)
	}
	return f, nil
}

// Span is the physical address space each GPU's memory starts in.
func (f *Frames) Span() uint64 { return f.span }

// Place gives page a frame in GPU g's memory, if it has none yet.
func (f *Frames) Place(g int, page uint64) error {
	s := &f.gpu[g]
	if s.of[page] != 0 {
		return nil
	}
	var fr uint32
	switch {
	case len(s.free) > 0:
		fr = s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
	case s.next < f.limit:
		fr = uint32(s.next)
		s.next++
	default:
		return fmt.Errorf("GPU %d has no free frame for page %d: its memory holds %d pages", g, page, f.limit)
	}
	s.of[page] = fr + 1
	s.held++
	return nil
}

// Release frees page's frame in GPU g's memory, if it has one.
func (f *Frames) Release(g int, page uint64) {
	s := &f.gpu[g]
	if fr := s.of[page]; fr != 0 {
		s.of[page] = 0
		s.held--
		s.free = append(s.free, fr-1)
	}
}

// Addr is the physical address of page's frame in GPU g's memory.
func (f *Frames) Addr(g int, page uint64) (uint64, bool) {
	fr := f.gpu[g].of[page]
	if fr == 0 {
		return 0, false
	}
	return uint64(g+1)*f.span + uint64(fr-1)*f.pageSize, true
}

// Held is how many frames of GPU g hold a page.
func (f *Frames) Held(g int) int { return f.gpu[g].held }
