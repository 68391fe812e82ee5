package figures

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/sarchlab/akita/v3/sim"
)

// MoveProfile records the GPU-to-GPU page moves of a run (a
// uvm.MoveObserver) and summarises how pages ping-pong: how often each
// page moves, how soon after its previous move, between how many GPUs,
// and how often straight back to the GPU it just left.
type MoveProfile struct {
	pages []pageMoves // by page number, grown as pages move
	moved int         // pages that moved at least once
	gaps  []float64   // ns between a page's consecutive moves
	moves int
	backs int // moves to the GPU the page left on its previous move
}

type pageMoves struct {
	n        int
	last     float64
	lastFrom int
	gpus     uint64
}

// NewMoveProfile returns an empty profile.
func NewMoveProfile() *MoveProfile { return &MoveProfile{} }

// Moved records one move.
func (m *MoveProfile) Moved(page uint64, from, to int, now sim.VTimeInSec) {
	t := float64(now) * 1e9
	if page >= uint64(len(m.pages)) {
		m.pages = append(m.pages, make([]pageMoves, int(page)+1-len(m.pages))...)
	}
	p := &m.pages[page]
	if p.n == 0 {
		m.moved++
	} else {
		m.gaps = append(m.gaps, t-p.last)
		if to == p.lastFrom {
			m.backs++
		}
	}
	p.n++
	p.last, p.lastFrom = t, from
	p.gpus |= 1<<uint(from) | 1<<uint(to)
	m.moves++
}

// MoveSummary is a profile's summary.
type MoveSummary struct {
	Pages, Moves int
	// PerPageP50, P90 and Max are moves per moved page.
	PerPageP50, PerPageP90, PerPageMax int
	// GapP50Ns is the median time between a page's consecutive moves;
	// Within are the shares of those gaps under 1, 10 and 100 µs.
	GapP50Ns float64
	Within   [3]float64
	// Back is the share of repeat moves that return the page to the GPU
	// it left on its previous move (A to B, then B to A).
	Back float64
	// GPUs is the mean number of GPUs a moved page visited.
	GPUs float64
}

// Summary summarises the profile.
func (m *MoveProfile) Summary() MoveSummary {
	s := MoveSummary{Pages: m.moved, Moves: m.moves}
	if s.Pages == 0 {
		return s
	}
	per := make([]int, 0, m.moved)
	var gpus int
	for _, p := range m.pages {
		if p.n > 0 {
			per = append(per, p.n)
			gpus += bits.OnesCount64(p.gpus)
		}
	}
	slices.Sort(per)
	s.PerPageP50, s.PerPageP90, s.PerPageMax = per[len(per)/2], per[len(per)*9/10], per[len(per)-1]
	s.GPUs = float64(gpus) / float64(s.Pages)
	if n := len(m.gaps); n > 0 {
		g := slices.Clone(m.gaps)
		slices.Sort(g)
		s.GapP50Ns = g[n/2]
		for i, lim := range []float64{1e3, 1e4, 1e5} {
			k, _ := slices.BinarySearch(g, lim)
			s.Within[i] = float64(k) / float64(n)
		}
		s.Back = float64(m.backs) / float64(n)
	}
	return s
}

// pingpongApps are the applications whose on-touch moves the figure
// profiles: every OASIS application.
var pingpongApps = []string{"bfs", "c2d", "fft", "i2c", "mm", "mt", "pr", "st", "lenet", "vgg16", "resnet18"}

// pingpong is issue 29's step 3 measurement: how pages move between GPUs
// under on-touch, the baseline every speedup is over.
func pingpong() CharFigure {
	return CharFigure{Name: "pingpong", Title: "on-touch's GPU-to-GPU page moves", OnTouch: pingpongApps, Build: buildPingpong}
}

func buildPingpong(in CharInput) CharOutput {
	tab := TextTable{Suffix: "-moves", Title: "GPU-to-GPU page moves under on-touch (4 GPUs, seed 1)",
		Header: []string{"app", "run (ms)", "pages moved", "moves", "per page p50 / p90 / max", "gap p50 (µs)",
			"gaps < 1 / 10 / 100 µs", "back to the GPU just left", "GPUs per page"}}
	for _, w := range pingpongApps {
		res, prof := in.OnTouch[w], in.Moves[w]
		if res == nil || prof == nil {
			continue
		}
		s := prof.Summary()
		tab.Rows = append(tab.Rows, []string{w, fmt.Sprintf("%.2f", res.SimTimeNs/1e6), istr(s.Pages), istr(s.Moves),
			fmt.Sprintf("%d / %d / %d", s.PerPageP50, s.PerPageP90, s.PerPageMax), fmt.Sprintf("%.1f", s.GapP50Ns/1e3),
			fmt.Sprintf("%s / %s / %s", pct(s.Within[0]), pct(s.Within[1]), pct(s.Within[2])), pct(s.Back), fmt.Sprintf("%.2f", s.GPUs)})
	}
	return CharOutput{Tables: []TextTable{tab}, Notes: []string{
		"A move is a GPU-to-GPU migration the driver issues (replicas and host copies are not moves). " +
			"A gap is the time between two consecutive moves of one page; \"back\" counts the repeat moves that return a page to the GPU it left on its previous move."}}
}
