package eviction

import "math/rand/v2"

// Random4KB evicts resident pages chosen at random: UVMSmart's
// -eviction_policy 3 (gpgpu-sim_UVMSmart gpu-sim.cc page_eviction_procedure:
// "in random eviction, select a random page" of the valid-page list, at
// page granularity). UVMSmart uses rand() and walks forward from the drawn
// entry to the first evictable one; we draw uniformly among the GPU's
// resident pages from a seeded PCG per GPU (Options.Seed), redraw a few
// times when the page is pinned or already listed, then walk forward. The
// victims are a function of the seed and the call history.
const Random4KB = "random-4kb"

// random4KB is Random4KB.
type random4KB struct {
	res    []*denseSet // per GPU: resident pages
	rng    []*rand.Rand
	listed *marks
}

func newRandom4KB(o Options) *random4KB {
	r := &random4KB{rng: rngs(o.GPUs, o.Seed), listed: newMarks(o.Pages)}
	for range o.GPUs {
		r.res = append(r.res, newDenseSet(o.Pages))
	}
	return r
}

func (r *random4KB) Placed(g int, p uint64)  { r.res[g].add(p) }
func (r *random4KB) Removed(g int, p uint64) { r.res[g].remove(p) }

func (r *random4KB) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	start := len(dst)
	r.listed.next()
	s := r.res[g]
	for len(dst)-start < n {
		i := pick(r.rng[g], len(s.items), func(i int) bool {
			p := s.items[i]
			return r.listed.has(p) || pinned(p)
		})
		if i < 0 {
			break
		}
		r.listed.set(s.items[i])
		dst = append(dst, s.items[i])
	}
	return dst
}
