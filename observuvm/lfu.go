package observuvm

// lfu is the approximate LFU of Sec. VI-A (Fig. 7b). Resident regions sit
// in frequency bins, each a list with the most recently touched region at
// its tail. A first fault inserts a region at the tail of the lowest bin;
// every further fault, and every hit on an observed region, moves it to
// the tail of the next bin. The victim is the head of the lowest non-empty
// bin, and the regions nearest it are observed, so a region at risk that
// is still used climbs out of danger.
//
// The paper does not give the number of bins, any aging, or whether a
// frequency survives eviction. Here the top bin (LFUBins-1) saturates,
// there is no aging, and with LFUKeepHistory (default) the frequency
// survives eviction, so a refault counts as one more access: "the driver
// uses the fault stream to track the frequency of accesses to a region"
// while its pages are in DRAM. Observation candidates continue into the
// next bins when the lowest holds fewer than the budget.
type lfu struct {
	nbins int
	keep  bool
	per   []*lfuGPU
}

type lfuGPU struct {
	bins []*olist
	freq map[uint64]int // known regions' frequency
}

func newLFU(c Config, gpus int) *lfu {
	p := &lfu{nbins: c.LFUBins, keep: c.LFUKeepHistory}
	for range gpus {
		s := &lfuGPU{freq: map[uint64]int{}}
		for range c.LFUBins {
			s.bins = append(s.bins, newOList())
		}
		p.per = append(p.per, s)
	}
	return p
}

func (*lfu) Name() string { return LFU }

func (p *lfu) bin(f int) int { return min(f, p.nbins-1) }

// resident reports whether r is in a bin of s.
func (p *lfu) resident(s *lfuGPU, r uint64) bool {
	f, ok := s.freq[r]
	return ok && s.bins[p.bin(f)].has(r)
}

// bump counts one access to resident r and moves it to its bin's tail.
func (p *lfu) bump(s *lfuGPU, r uint64) {
	f := s.freq[r]
	s.bins[p.bin(f)].remove(r)
	s.freq[r] = f + 1
	s.bins[p.bin(f+1)].pushBack(r)
}

func (p *lfu) OnPageFault(g int, r uint64) {
	s := p.per[g]
	if p.resident(s, r) {
		p.bump(s, r)
		return
	}
	f, known := s.freq[r]
	if known {
		f++ // the refault is an access
	}
	s.freq[r] = f
	s.bins[p.bin(f)].pushBack(r)
}

func (p *lfu) OnAccessCounter(g int, r uint64) {
	if s := p.per[g]; p.resident(s, r) {
		p.bump(s, r)
	}
}

func (p *lfu) OnEviction(g int, r uint64, _ bool) {
	s := p.per[g]
	if f, ok := s.freq[r]; ok {
		s.bins[p.bin(f)].remove(r)
		if !p.keep {
			delete(s.freq, r)
		}
	}
}

// OnPrefetch lists a region a prefetch brought at its frequency (0 if new)
// without counting an access.
func (p *lfu) OnPrefetch(g int, r uint64, _ uint64) {
	s := p.per[g]
	if p.resident(s, r) {
		return
	}
	f := s.freq[r]
	s.freq[r] = f
	s.bins[p.bin(f)].pushBack(r)
}

func (p *lfu) Victim(g int, skip func(uint64) bool) (uint64, bool) {
	for _, b := range p.per[g].bins {
		if r, ok := b.first(b.head(), false, skip); ok {
			return r, true
		}
	}
	return 0, false
}

func (p *lfu) Candidates(g, n int, skip func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	for _, b := range p.per[g].bins {
		if len(dst)-start >= n {
			break
		}
		dst = b.walk(b.head(), false, n-(len(dst)-start), skip, dst)
	}
	return dst
}

// Frequency is r's frequency on g (for tests and stats).
func (p *lfu) Frequency(g int, r uint64) int { return p.per[g].freq[r] }
