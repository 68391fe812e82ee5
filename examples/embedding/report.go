package embedding

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/mgpu-sim/mgpu/pagepolicy"
)

// Report is what a run did, read through mgpu's exported accessors.
type Report struct {
	GPUs [2]GPUReport
	// Pages are the final placement of the objects' pages (the driver's
	// page table).
	Pages []PageReport
	// Policies are OASIS's last recorded policy per object, for the
	// objects it learned one for.
	Policies []ObjectPolicy
	// Answers are each GPU's answered accesses, in order.
	Answers [2][]Answer
	EndNs   float64
}

// GPUReport counts one GPU's run.
type GPUReport struct {
	Answered int
	Reissued int // reads re-issued after an Akita TLB flush lost them
	// AtShootdown counts the reads in flight when a shootdown's flush
	// began; each was re-issued after the flushes.
	AtShootdown  int
	StaleAnswers int // answers to requests a flush had lost, ignored
	Flushes      int
	// FlushesSkipped named no address the TLB could hold.
	FlushesSkipped int
	PagesSent      int // pages this GPU copied to its peer
	// From the GMMU's counters.
	FarFaults, ProtectionFaults uint64
	// From the driver's counters for this GPU.
	MigrationsH2D, MigrationsD2D, Duplications, Collapses uint64
}

// PageReport is one page's final placement.
type PageReport struct {
	Page   uint64
	Object string
	Owner  int   // pagepolicy.Host (-1): the host
	Copies []int // GPUs holding a physical copy
	Remote []int // GPUs mapping it remotely
	// PAddrs are the physical addresses of the copies' frames, in the
	// order of Copies (gmmu.Frames).
	PAddrs []uint64
}

// ObjectPolicy is OASIS's policy for an object.
type ObjectPolicy struct {
	Object int
	Policy string
}

func (s *system) report() Report {
	r := Report{EndNs: float64(s.engine.CurrentTime()) * 1e9}
	for i, g := range s.gpus {
		mc, dc := s.mmus[i].Counters(), s.driver.Service().Counters(i)
		reissued, stale, flushed, skipped := g.tlb.Counts()
		r.GPUs[i] = GPUReport{Answered: len(g.answers), Reissued: reissued, AtShootdown: g.atShootdown, StaleAnswers: stale,
			Flushes: flushed, FlushesSkipped: skipped, PagesSent: g.pagesSent, FarFaults: mc.PageFaults, ProtectionFaults: mc.ProtectionFaults,
			MigrationsH2D: dc.MigrationsH2D, MigrationsD2D: dc.MigrationsD2D,
			Duplications: dc.Duplications, Collapses: dc.Collapses}
		r.Answers[i] = g.settle()
	}
	t := s.driver.Table()
	for _, o := range Objects() {
		for p := o.FirstPage(PageSize); p < o.FirstPage(PageSize)+o.Pages(PageSize); p++ {
			pg := t.Page(p)
			pr := PageReport{Page: p, Object: o.Name, Owner: pg.Owner, Copies: gpusOf(pg.Copies), Remote: gpusOf(pg.Remote)}
			for _, g := range pr.Copies {
				pa, _ := s.frames.Addr(g, p)
				pr.PAddrs = append(pr.PAddrs, pa)
			}
			r.Pages = append(r.Pages, pr)
		}
	}
	last := map[int]string{}
	for _, c := range s.driver.Policy().Report().History {
		last[c.Object] = c.Policy
	}
	for _, o := range Objects() {
		if p, ok := last[o.ID]; ok {
			r.Policies = append(r.Policies, ObjectPolicy{Object: o.ID, Policy: p})
		}
	}
	return r
}

// gpusOf lists the GPUs whose bits are set in mask.
func gpusOf(mask uint64) []int {
	var gs []int
	for ; mask != 0; mask &= mask - 1 {
		gs = append(gs, bits.TrailingZeros64(mask))
	}
	return gs
}

// String prints the report without the answers.
func (r Report) String() string {
	var b strings.Builder
	for i, g := range r.GPUs {
		fmt.Fprintf(&b, "GPU %d: %d answered, %d far faults, %d protection faults, %d TLB flushes (%d skipped), %d reads re-issued (%d in flight at a shootdown), %d stale answers ignored\n",
			i, g.Answered, g.FarFaults, g.ProtectionFaults, g.Flushes, g.FlushesSkipped, g.Reissued, g.AtShootdown, g.StaleAnswers)
		fmt.Fprintf(&b, "  %d pages sent to the peer; driver: %d migrations from the host, %d from a peer, %d duplications, %d collapses\n",
			g.PagesSent, g.MigrationsH2D, g.MigrationsD2D, g.Duplications, g.Collapses)
	}
	for _, p := range r.Pages {
		fmt.Fprintf(&b, "page %d (%s): owner %s, copies on %v at %#x, remote on %v\n", p.Page, p.Object, where(p.Owner), p.Copies, p.PAddrs, p.Remote)
	}
	for _, p := range r.Policies {
		fmt.Fprintf(&b, "OASIS: object %d %s\n", p.Object, p.Policy)
	}
	fmt.Fprintf(&b, "ended at %.3f us\n", r.EndNs/1e3)
	return b.String()
}

func where(owner int) string {
	if owner == pagepolicy.Host {
		return "host"
	}
	return fmt.Sprintf("GPU %d", owner)
}
