package eviction

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestVictimsAreResident drives every policy with random histories of
// placements, removals, touches (resident or not) and victim requests, as
// the driver would, and checks each answer against a model of residency: a
// victim is resident on that GPU, not pinned, listed once; and a short
// answer lists every unpinned resident page. The driver then evicts the
// victims, or some of them.
func TestVictimsAreResident(t *testing.T) {
	geometries := []Options{
		small,
		{GPUs: 3, Pages: 37, PagesPerChunk: 8, PagesPerBlock: 2},  // a partial last chunk and block
		{GPUs: 2, Pages: 40, PagesPerChunk: 4, PagesPerBlock: 4},  // chunk = block
		{GPUs: 1, Pages: 64, PagesPerChunk: 16, PagesPerBlock: 1}, // page = block
	}
	for _, name := range Names() {
		for gi, o := range geometries {
			for seed := uint64(1); seed <= 5; seed++ {
				o.Seed = seed
				p, err := NewWith(name, o)
				if err != nil {
					t.Fatal(err)
				}
				checkHistory(t, name, gi, p, o, rand.New(rand.NewPCG(seed, 99)))
			}
		}
	}
}

func checkHistory(t *testing.T, name string, gi int, p Policy, o Options, r *rand.Rand) {
	t.Helper()
	res := make([][]bool, o.GPUs)
	for g := range res {
		res[g] = make([]bool, o.Pages)
	}
	for step := 0; step < 3000; step++ {
		g, pg := r.IntN(o.GPUs), r.Uint64N(o.Pages)
		switch k := r.IntN(10); {
		case k < 4:
			p.Placed(g, pg)
			res[g][pg] = true
		case k < 5:
			p.Removed(g, pg)
			res[g][pg] = false
		case k < 8:
			if tc, ok := p.(Toucher); ok {
				tc.Touch(g, pg)
			}
		default:
			pins := make([]bool, o.Pages)
			for range r.IntN(6) {
				pins[r.Uint64N(o.Pages)] = true
			}
			n := r.IntN(20) + 1
			v := p.Victims(g, n, func(q uint64) bool { return pins[q] }, nil)
			if err := checkVictims(v, n, res[g], pins); err != "" {
				t.Fatalf("%s, geometry %d, step %d, GPU %d, n %d: victims %v: %s", name, gi, step, g, n, v, err)
			}
			for _, q := range v[:r.IntN(len(v)+1)] {
				p.Removed(g, q)
				res[g][q] = false
			}
		}
	}
}

func checkVictims(v []uint64, n int, res, pins []bool) string {
	seen := map[uint64]bool{}
	for _, q := range v {
		switch {
		case !res[q]:
			return "a page not resident on the GPU"
		case pins[q]:
			return "a pinned page"
		case seen[q]:
			return "a page listed twice"
		}
		seen[q] = true
	}
	if len(v) < n {
		for q := range res {
			if res[q] && !pins[q] && !seen[uint64(q)] {
				return fmt.Sprintf("short, yet unpinned resident page %d is missing", q)
			}
		}
	}
	return ""
}

// TestVictimsDoNotAllocate: with dst large enough, no policy allocates.
func TestVictimsDoNotAllocate(t *testing.T) {
	for _, name := range Names() {
		p, err := NewWith(name, Options{GPUs: 1, Pages: 4096, PagesPerChunk: 512, PagesPerBlock: 16, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for q := uint64(0); q < 4096; q += 3 {
			p.Placed(0, q)
		}
		none := func(uint64) bool { return false }
		dst := make([]uint64, 0, 4096)
		if a := testing.AllocsPerRun(10, func() { dst = p.Victims(0, 600, none, dst[:0]) }); a != 0 {
			t.Errorf("%s: %v allocations per Victims", name, a)
		}
	}
}

func BenchmarkVictims(b *testing.B) {
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			const pages = 1 << 18 // 1 GB of 4 KB pages
			p, _ := NewWith(name, Options{GPUs: 1, Pages: pages, PagesPerChunk: 512, PagesPerBlock: 16, Seed: 1})
			r := rand.New(rand.NewPCG(1, 1))
			resident := r.Perm(pages)[:pages/2]
			for _, q := range resident {
				p.Placed(0, uint64(q))
			}
			tc, _ := p.(Toucher)
			none := func(uint64) bool { return false }
			dst := make([]uint64, 0, 4096)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = p.Victims(0, 256, none, dst[:0])
				if tc != nil {
					tc.Touch(0, uint64(resident[i%len(resident)]))
				}
				i++
			}
		})
	}
}

func BenchmarkTouch(b *testing.B) {
	for _, name := range Names() {
		p, _ := NewWith(name, Options{GPUs: 1, Pages: 1 << 18, PagesPerChunk: 512, PagesPerBlock: 16, Seed: 1})
		tc, ok := p.(Toucher)
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			for q := uint64(0); q < 1<<18; q += 2 {
				p.Placed(0, q)
			}
			i := uint64(0)
			for b.Loop() {
				tc.Touch(0, (i*7919)%(1<<18))
				i++
			}
		})
	}
}
