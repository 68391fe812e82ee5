package prefetch

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mgpu-sim/mgpu/units"
)

// reference is a direct transcription of the driver's algorithm
// (uvm_perf_prefetch_prenotify_fault_migrations): a tree whose leaves are
// pages of leafPages (the driver: 1), the bitmap resident|faulted, each
// faulted big page filled when fill is on, then for each faulted page the
// largest subtree with count*100 > pages*threshold, minus the faulted and
// resident pages. It is slow and obviously written, to check the Tree.
func reference(tr *Tree, leafPages uint64, faulted []uint64, res func(uint64) bool) []uint64 {
	cfg := tr.cfg
	if cfg.Policy == Off {
		return nil
	}
	want := map[uint64]bool{}
	isFault := map[uint64]bool{}
	for _, f := range faulted {
		isFault[f] = true
	}
	counted := func(p uint64) bool { return res(p) || isFault[p] }
	filled := map[uint64]bool{}
	for _, f := range faulted {
		lo := f - f%tr.perLeaf
		for p := lo; p < min(lo+tr.perLeaf, tr.pages); p++ {
			if cfg.Policy == SequentialLocal {
				want[p] = true
			} else if cfg.BigPageFill {
				filled[p] = true
			}
		}
	}
	if cfg.Policy == TBN {
		for _, f := range faulted {
			vb := f / tr.perVA
			end := min((vb+1)*tr.perVA, tr.pages)
			var lo, hi uint64
			for size := leafPages; size <= tr.perVA; size *= 2 {
				s := f - f%size
				e := min(s+size, end)
				n := uint64(0)
				for p := s; p < e; p++ {
					if counted(p) || filled[p] {
						n++
					}
				}
				if n*100 > (e-s)*uint64(tr.Threshold(vb)) {
					lo, hi = s, e
				}
			}
			for p := lo; p < hi; p++ {
				want[p] = true
			}
		}
	}
	var out []uint64
	for p := range want {
		if !counted(p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// TestMatchesReference compares the Tree with the reference on random
// geometries, residencies, batches and per-block thresholds. With big-page
// fill the driver's page-leaf tree and our basic-block-leaf tree agree
// exactly; without fill they agree when the basic block is one page, and
// the 64 KB-leaf tree is checked against a 64 KB-leaf reference.
func TestMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 3000; i++ {
		cfg := DefaultConfig()
		cfg.Policy = Names()[r.IntN(3)]
		cfg.BigPageFill = r.IntN(2) == 0
		cfg.BlockSize = units.Bytes(4096) << r.IntN(5)
		cfg.VABlockSize = cfg.BlockSize << r.IntN(6)
		cfg.Threshold = []int{1, 2, 25, 50, 51, 75, 99, 100, r.IntN(100) + 1}[r.IntN(9)]
		pages := uint64(r.IntN(3000) + 1)
		tr := mustNew(t, cfg, pages)
		for vb := uint64(0); vb < tr.VABlocks(); vb++ {
			if r.IntN(4) == 0 {
				_ = tr.SetThreshold(vb, r.IntN(100)+1)
			}
		}
		density := r.Float64()
		resident := make([]bool, pages)
		for p := range resident {
			resident[p] = r.Float64() < density
		}
		res := func(p uint64) bool { return resident[p] }
		faults := make([]uint64, r.IntN(40)+1)
		hot := r.Uint64N(pages)
		for j := range faults {
			faults[j] = min(hot+r.Uint64N(200), pages-1)
			if r.IntN(4) == 0 {
				faults[j] = r.Uint64N(pages)
			}
		}
		leaf := tr.perLeaf
		if cfg.BigPageFill {
			leaf = 1 // the driver's page leaves
		}
		got := tr.Prefetch(faults, res, nil)
		if want := reference(tr, leaf, faults, res); !slices.Equal(got, want) {
			t.Fatalf("case %d %+v, %d pages, faults %v:\ngot  %v\nwant %v", i, cfg, pages, faults, got, want)
		}
	}
}

// batch returns 256 faults clustered over a 1 GB-like footprint and a
// residency of about a quarter of the pages.
func batch(r *rand.Rand, pages uint64) ([]uint64, func(uint64) bool) {
	resident := make([]bool, pages)
	for p := range resident {
		resident[p] = r.IntN(4) == 0
	}
	faults := make([]uint64, 256)
	for i := range faults {
		faults[i] = (r.Uint64N(pages/512)*512 + r.Uint64N(64)) % pages
	}
	return faults, func(p uint64) bool { return resident[p] }
}

func BenchmarkPrefetch(b *testing.B) {
	for _, policy := range []string{TBN, SequentialLocal} {
		b.Run(policy+"/256-faults", func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Policy = policy
			tr := mustNew(b, cfg, 1<<18) // 1 GB of 4 KB pages
			faults, res := batch(rand.New(rand.NewPCG(1, 2)), 1<<18)
			dst := make([]uint64, 0, 1<<16)
			b.ReportAllocs()
			for b.Loop() {
				dst = tr.Prefetch(faults, res, dst[:0])
			}
		})
	}
	b.Run("tbn/1-fault", func(b *testing.B) {
		tr := mustNew(b, DefaultConfig(), 1<<18)
		faults := []uint64{1000}
		res := func(uint64) bool { return false }
		dst := make([]uint64, 0, 512)
		b.ReportAllocs()
		for b.Loop() {
			dst = tr.Prefetch(faults, res, dst[:0])
		}
	})
}
