package gpu

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/mgpu-sim/mgpu/trace"
)

// naiveCoalesce is the definition coalesce must meet: distinct lines in
// first-lane order, pages in first-lane order, each page's lines together.
func naiveCoalesce(addrs []uint64, lineShift, pageShift uint) (pages []uint64, byPage [][]uint64) {
	seen := map[uint64]bool{}
	index := map[uint64]int{}
	for _, a := range addrs {
		line := a >> lineShift
		if seen[line] {
			continue
		}
		seen[line] = true
		page := a >> pageShift
		i, ok := index[page]
		if !ok {
			i = len(pages)
			index[page] = i
			pages = append(pages, page)
			byPage = append(byPage, nil)
		}
		byPage[i] = append(byPage[i], line)
	}
	return pages, byPage
}

func TestCoalesceGroupsLinesByPage(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	patterns := map[string]func(lane int) uint64{
		"unit stride":       func(l int) uint64 { return 0x10000 + uint64(l)*4 },
		"row per lane":      func(l int) uint64 { return uint64(l) * 32768 },
		"two interleaved":   func(l int) uint64 { return uint64(l%2)*(1<<22) + uint64(l/2)*64 },
		"same address":      func(int) uint64 { return 0x5000 },
		"random in 8 pages": func(int) uint64 { return uint64(rng.Intn(8))<<12 | uint64(rng.Intn(4096)) },
		"random anywhere":   func(int) uint64 { return uint64(rng.Int63n(1 << 34)) },
		"revisit pages":     func(l int) uint64 { return uint64(l%5)<<21 + uint64(l/5)*4096 },
		// A, B, A again (a line already seen), then only B: the return
		// to B must not restart B's lines.
		"back after a repeat": func(l int) uint64 {
			if l < 3 {
				return []uint64{0, 1 << 21, 0}[l]
			}
			return 1<<21 + uint64(l-2)*64
		},
	}
	for _, pageShift := range []uint{12, 16, 21} {
		for name, addr := range patterns {
			for rep := 0; rep < 20; rep++ {
				g := &Comp{lineShift: 6, pageShift: pageShift, linesPerPage: pageShift - 6}
				wf := &inflight{}
				in := &trace.Instruction{Lanes: 1 + rng.Intn(trace.WavefrontSize)}
				lanes := in.Lanes
				for l := 0; l < lanes; l++ {
					in.Addr[l] = addr(l)
				}
				// Twice: the second pass must not see the first's index.
				for pass := 0; pass < 2; pass++ {
					g.coalesce(wf, in)
				}
				pages, byPage := naiveCoalesce(in.Addr[:lanes], 6, pageShift)
				if wf.nPages != len(pages) {
					t.Fatalf("%s, page shift %d: %d pages, want %d", name, pageShift, wf.nPages, len(pages))
				}
				total := 0
				for p := range pages {
					got := wf.lines[wf.pg[p].start:wf.pg[p+1].start]
					if wf.pg[p].page != pages[p] || !slices.Equal(got, byPage[p]) {
						t.Fatalf("%s, page shift %d: page %d is %#x with lines %v, want %#x with %v",
							name, pageShift, p, wf.pg[p].page, got, pages[p], byPage[p])
					}
					if wf.pg[p].done {
						t.Fatalf("%s: page %d starts done", name, p)
					}
					total += len(got)
				}
				if wf.nLines != total {
					t.Fatalf("%s: %d lines, want %d", name, wf.nLines, total)
				}
			}
		}
	}
}
