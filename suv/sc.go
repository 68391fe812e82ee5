package suv

import (
	"cmp"
	"fmt"
	"slices"
)

// PlanSC is the SC baseline (Li & Chapman, SC'19) as SUV describes and
// compares it (§III-B, §VI-B, Fig. 7) for one launch on one GPU: whole
// structures ranked by total access count (density x size, so hints serve
// both policies), placed greedily: each, in rank order, is pinned whole on
// HBM if it fits in what is left, else pinned on the host remote-mapped.
// A structure that does not fit does not stop the walk: a later, smaller
// one may still fit (first fit). SC makes "decisions for an entire data
// structure" (§III-B): nothing is split, and it is blind to Temporal and
// Iterative behaviour. It "ignores" pointer-chase structures: Unknown
// hints get no action and stay under the driver's default fault-driven
// migration. Host rather than on-demand for the rest follows SC's target
// (host memory accessed in place over coherent NVLink) and SUV's port of
// it, which maps the remainder with cudaMemAdviseSetAccessedBy
// (penguin-sc.h). The port ranks by reuse distance across launches first;
// this baseline, as specified for the simulator, ranks by count alone.
func PlanSC(c Config, availHBM int64, objects []Object, hints Hints) (Plan, error) {
	p, err := newPlanner(c, availHBM, objects, hints)
	if err != nil {
		return Plan{}, err
	}
	var order []int
	for i, e := range p.entries {
		p.placed[i].Class = e.h.Class
		if e.h.Class == Unknown {
			p.placed[i].Reason = "sc: pointer chase ignored, left to default migration"
			continue
		}
		order = append(order, i)
	}
	count := func(i int) float64 { return p.entries[i].h.Density * float64(p.entries[i].size) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(count(b), count(a)) })
	for rank, i := range order {
		e := p.entries[i]
		if e.need <= p.avail {
			p.hbmPin(i, e.need)
			p.placed[i].Reason = fmt.Sprintf("sc: rank %d by access count %.0f, whole on HBM", rank+1, count(i))
			continue
		}
		p.hostPin(i, "sc: rank %d by access count %.0f, %d bytes do not fit in %d", rank+1, count(i), e.need, p.avail)
	}
	return p.finish(), nil
}
