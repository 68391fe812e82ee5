package eviction

import "math/rand/v2"

// LinearRandom is UVMMU's victim choice (Park, Jeong, Kim; §IV-D on the
// Available Frame Manager, and §V-C1): when no frame-group is free, "a
// pseudo-random number generator ... select[s] a random victim from frame-groups"; a
// protected frame-group is skipped. "We call this policy Linear-Random
// because a page-group is selected randomly, and the pages within the
// page-group are linearly replaced." So the randomness picks a 64 KB
// page-group, and "linear" is the order of pages inside it; the paper has
// no scan pointer over groups (the AFM's linear FrAB scan looks for free
// frames, not victims). It keeps no recency metadata, hence no Toucher.
//
// Our reading, where the model differs: UVMMU draws over physical
// frame-groups, each holding one whole page-group. Our driver tracks
// residency per page, so we draw uniformly over the basic blocks with at
// least one page resident on the GPU (the frame-groups in use), from a
// seeded PCG per GPU. The drawn block's resident pages are listed in
// ascending order. Pinned pages are skipped one by one (UVMMU's P flag
// protects a whole group); a block whose resident pages are all pinned
// yields nothing and another is drawn. UVMMU's swap (the victim takes the
// host slot the requested group leaves) is the driver's business.
const LinearRandom = "linear-random"

// linearRandom is LinearRandom.
type linearRandom struct {
	per, pages uint64
	isRes      [][]bool    // per GPU, per page
	count      [][]int32   // per GPU, per block: resident pages
	blocks     []*denseSet // per GPU: blocks with a resident page
	rng        []*rand.Rand
	drawn      *marks // blocks drawn by the current Victims call
}

func newLinearRandom(o Options) *linearRandom {
	nb := (o.Pages + o.PagesPerBlock - 1) / o.PagesPerBlock
	l := &linearRandom{per: o.PagesPerBlock, pages: o.Pages, rng: rngs(o.GPUs, o.Seed), drawn: newMarks(nb)}
	for range o.GPUs {
		l.isRes = append(l.isRes, make([]bool, o.Pages))
		l.count = append(l.count, make([]int32, nb))
		l.blocks = append(l.blocks, newDenseSet(nb))
	}
	return l
}

func (l *linearRandom) Placed(g int, p uint64) {
	if l.isRes[g][p] {
		return
	}
	l.isRes[g][p] = true
	b := p / l.per
	if l.count[g][b]++; l.count[g][b] == 1 {
		l.blocks[g].add(b)
	}
}

func (l *linearRandom) Removed(g int, p uint64) {
	if !l.isRes[g][p] {
		return
	}
	l.isRes[g][p] = false
	b := p / l.per
	if l.count[g][b]--; l.count[g][b] == 0 {
		l.blocks[g].remove(b)
	}
}

func (l *linearRandom) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	l.drawn.next()
	s := l.blocks[g]
	for len(dst)-start < n {
		i := pick(l.rng[g], len(s.items), func(i int) bool { return l.drawn.has(s.items[i]) })
		if i < 0 {
			break
		}
		b := s.items[i]
		l.drawn.set(b)
		for p := b * l.per; p < min((b+1)*l.per, l.pages); p++ {
			if l.isRes[g][p] && !pinned(p) {
				dst = append(dst, p)
			}
		}
	}
	return dst
}
