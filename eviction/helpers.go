package eviction

import "math/rand/v2"

// marks flags the pages (or blocks, or chunks) one Victims call has listed,
// so that no victim is listed twice; a new epoch clears them in O(1).
type marks struct {
	epoch uint32
	at    []uint32
}

func newMarks(n uint64) *marks { return &marks{at: make([]uint32, n)} }

// next starts a new Victims call.
func (m *marks) next() {
	m.epoch++
	if m.epoch == 0 {
		clear(m.at)
		m.epoch = 1
	}
}

func (m *marks) set(i uint64)      { m.at[i] = m.epoch }
func (m *marks) has(i uint64) bool { return m.at[i] == m.epoch }

// denseSet holds a subset of 0..n-1 with O(1) add, remove and uniform
// draw: the members sit in a slice, and a removal moves the last member
// into the hole. The slice order follows the call history, so draws are
// deterministic for a seed and a history.
type denseSet struct {
	items []uint64
	pos   []int32 // 1 + index in items; 0 = not a member
}

func newDenseSet(n uint64) *denseSet { return &denseSet{pos: make([]int32, n)} }

func (s *denseSet) add(x uint64) {
	if s.pos[x] != 0 {
		return
	}
	s.items = append(s.items, x)
	s.pos[x] = int32(len(s.items))
}

func (s *denseSet) remove(x uint64) {
	i := s.pos[x] - 1
	if i < 0 {
		return
	}
	last := s.items[len(s.items)-1]
	s.items[i] = last
	s.pos[last] = i + 1
	s.items = s.items[:len(s.items)-1]
	s.pos[x] = 0
}

// redraws is how many uniform draws the random policies make before they
// scan: UVMMU's Available Frame Manager's default victim_tries.
const redraws = 8

// pick is Pick over a PCG with redraws draws.
func pick(rng *rand.Rand, n int, taken func(i int) bool) int {
	return Pick(rng.IntN, n, redraws, taken)
}

// Pick is Linear-Random's choice of a victim group (UVMMU, §IV-D): UVMMU's
// Available Frame Manager draws again when the PRNG hits a protected
// frame-group; a bounded number of draws, then a forward scan, keeps a
// call finite when most candidates are taken. It returns an index in
// [0, n) for which taken is false: up to tries (at least 1) draws from draw (each in
// [0, n)), then a forward scan (wrapping) from the last draw. It returns
// -1 when every index is taken. taken sees every index tried, in order,
// so a caller can charge each try. Both eviction's random policies and
// UVMMU's AFM choose with it.
func Pick(draw func(n int) int, n, tries int, taken func(i int) bool) int {
	if n == 0 {
		return -1
	}
	i := 0
	for range tries {
		i = draw(n)
		if !taken(i) {
			return i
		}
	}
	for k := 1; k < n; k++ {
		if j := (i + k) % n; !taken(j) {
			return j
		}
	}
	return -1
}

// rngs returns one generator per GPU, each seeded by (seed, gpu), so a
// GPU's draws do not depend on how often the others evict.
func rngs(gpus int, seed uint64) []*rand.Rand {
	r := make([]*rand.Rand, gpus)
	for g := range r {
		r[g] = rand.New(rand.NewPCG(seed, uint64(g)))
	}
	return r
}

// appendChunk lists chunk ch's pages resident on g and not pinned, in
// address order: one chunk of chunkLRM.Victims.
func (c *chunkLRM) appendChunk(g int, ch int32, pinned func(uint64) bool, dst []uint64) []uint64 {
	lo := uint64(ch) * c.per
	hi := min(lo+c.per, c.pages)
	for p := lo; p < hi; p++ {
		if c.isRes[g][p] && !pinned(p) {
			dst = append(dst, p)
		}
	}
	return dst
}

// placeQuiet lists page p on g as Placed does, but leaves a chunk that is
// listed already where it is: a prefetch is not a use.
func (c *chunkLRM) placeQuiet(g int, p uint64) {
	if c.isRes[g][p] {
		return
	}
	if ch := p / c.per; c.resident[g][ch] > 0 {
		c.isRes[g][p] = true
		c.resident[g][ch]++
		return
	}
	c.Placed(g, p)
}
