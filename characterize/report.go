package characterize

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/mgpu-sim/mgpu/atomicfile"
)

// ObjectClass is the combined object class, e.g. "shared-read-only".
func ObjectClass(c *Census) string {
	if c.Pages() == 0 {
		return "untouched"
	}
	return c.Sharing().String() + "-" + c.Access().String()
}

func pct(n, d uint64) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

func pcti(n, d int) string { return pct(uint64(n), uint64(d)) }

func frac(n, d uint64) string {
	if d == 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(n)/float64(d), 'f', 6, 64)
}

func millions(n uint64) string { return fmt.Sprintf("%.2fM", float64(n)/1e6) }

func pageSizeName(ps uint64) string {
	if ps == LargePage {
		return "2MB"
	}
	return "4KB"
}

// maxPhaseRows bounds the per-phase table on stdout; objects.csv has all.
const maxPhaseRows = 60

// WriteTable prints the human-readable summary.
func (res *Result) WriteTable(w io.Writer) error {
	p := res.Params
	fmt.Fprintf(w, "%s on %d GPUs: scale %g, size %s, seed %d, distribution %s (%d CUs x %d wavefront slots), footprint %.1f MB\n",
		res.Workload, res.GPUs, p.Scale, p.Size, p.Seed, res.Distribution, res.CUs, res.WavefrontsPerCU, float64(res.Footprint)/(1<<20))
	fmt.Fprintf(w, "%d phases, %d memory instructions, %s page accesses (read %s, write %s), unmanaged %d\n",
		len(res.Phases), res.Instructions, millions(res.Accesses), pct(res.Reads, res.Accesses), pct(res.Writes, res.Accesses),
		res.Unmanaged)
	fmt.Fprintf(w, "observed on a zero-latency run of the platform (policy %s, %.1f us of instruction clock), wall %.2f s\n",
		res.Policy, res.SimTimeNs/1e3, res.Wall.Seconds())
	for _, m := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	section := func(title string, body func(tw *tabwriter.Writer)) error {
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		body(tw)
		return tw.Flush()
	}
	err := section("OBJECTS over the whole run", func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "  object\tsize MB\t4KB pages\tclass at 4KB\tprivate\tshared\tRO/WO/RW\t2MB pages\tclass at 2MB\taccesses")
		for i := range res.ObjectRun {
			op := &res.ObjectRun[i]
			ob := &res.Objects[op.Object]
			s := &op.Small
			fmt.Fprintf(tw, "  %s\t%.2f\t%d/%d\t%s\t%d\t%d\t%d/%d/%d\t%d/%d\t%s\t%s\n", ob.Name, float64(ob.Size)/(1<<20),
				s.Pages(), ob.Pages, ObjectClass(s), s.Count(Private, NoAccess), s.Count(Shared, NoAccess),
				s.Count(NoSharing, ReadOnly), s.Count(NoSharing, WriteOnly), s.Count(NoSharing, RWMix),
				op.Large.Pages(), ob.LargePages, ObjectClass(&op.Large), pct(op.Accesses(), res.Accesses))
		}
	})
	if err != nil {
		return err
	}
	err = section("PER PHASE (4KB pages)", func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "  phase\tobject\tpages\tclass\tprivate\tshared\tRO/WO/RW\tof phase\tof run")
		for i := range res.ObjectPhases {
			if i == maxPhaseRows {
				fmt.Fprintf(tw, "  ... %d more rows in objects.csv\n", len(res.ObjectPhases)-i)
				break
			}
			op := &res.ObjectPhases[i]
			ph := &res.Phases[op.Phase]
			s := &op.Small
			fmt.Fprintf(tw, "  %d %s\t%s\t%d\t%s\t%d\t%d\t%d/%d/%d\t%s\t%s\n", ph.Index, ph.Label, res.Objects[op.Object].Name,
				s.Pages(), ObjectClass(s), s.Count(Private, NoAccess), s.Count(Shared, NoAccess),
				s.Count(NoSharing, ReadOnly), s.Count(NoSharing, WriteOnly), s.Count(NoSharing, RWMix),
				pct(op.Accesses(), ph.Accesses), pct(op.Accesses(), res.Accesses))
		}
	})
	if err != nil {
		return err
	}
	title := fmt.Sprintf("PAGE CLASSES OVER TIME (4KB pages touched in each of %d equal intervals of the access order; Fig. 4/7)", len(res.Intervals))
	if res.PhaseIntervals {
		title = fmt.Sprintf("PAGE CLASSES PER PHASE (4KB pages touched in each of the %d phases; Fig. 7b)", len(res.Intervals))
	}
	err = section(title, func(tw *tabwriter.Writer) {
		fmt.Fprint(tw, "  interval\taccesses\tuntouched")
		for c := Class(0); c < NumClasses; c++ {
			fmt.Fprintf(tw, "\t%s", c)
		}
		fmt.Fprintln(tw)
		for _, iv := range res.Intervals {
			fmt.Fprintf(tw, "  %d\t%s\t%d", iv.Index, millions(iv.End-iv.Start), iv.Untouched)
			for _, n := range iv.Census {
				fmt.Fprintf(tw, "\t%d", n)
			}
			fmt.Fprintln(tw)
		}
	})
	if err != nil {
		return err
	}
	return section("APP LEVEL (Fig. 20; run: each page classified over the whole run; phase: each page once per phase)", func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "  page size\tperiod\tpages\tprivate\tshared\tread-only\twrite-only\trw-mix")
		for _, a := range res.App {
			c := &a.Census
			n := c.Pages()
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", pageSizeName(a.PageSize), a.Period, n,
				pcti(c.Count(Private, NoAccess), n), pcti(c.Count(Shared, NoAccess), n),
				pcti(c.Count(NoSharing, ReadOnly), n), pcti(c.Count(NoSharing, WriteOnly), n), pcti(c.Count(NoSharing, RWMix), n))
		}
	})
}

// DefaultDir is the output directory for a workload on gpus GPUs.
func DefaultDir(workload string, gpus int) string {
	return filepath.Join("results", "characterize", fmt.Sprintf("%s-%dgpu", workload, gpus))
}

// CSVFiles lists the files WriteCSVs writes, with what each holds.
var CSVFiles = []struct{ Name, Doc string }{
	{"phases.csv", "one row per phase (kernel)"},
	{"objects.csv", "one row per object, phase and page size: pages touched, classes, accesses"},
	{"objects_run.csv", "one row per object and page size over the whole run"},
	{"page_intervals.csv", "one row per 4KB page and interval it was touched in: its class (Fig. 4/7)"},
	{"intervals.csv", "one row per interval: pages of each class (Fig. 4/7 summary)"},
	{"app.csv", "app-level shares of page classes at 4KB and 2MB (Fig. 20)"},
	{"pages.csv", "one row per touched 4KB page: whole-run class and read/write accesses per GPU"},
}

// WriteCSVs writes the CSV files into dir (created if needed), each
// atomically.
func (res *Result) WriteCSVs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	writers := map[string]func(*csv.Writer) error{
		"phases.csv":         res.writePhases,
		"objects.csv":        func(c *csv.Writer) error { return res.writeObjects(c, res.ObjectPhases) },
		"objects_run.csv":    func(c *csv.Writer) error { return res.writeObjects(c, res.ObjectRun) },
		"page_intervals.csv": res.writePageIntervals,
		"intervals.csv":      res.writeIntervals,
		"app.csv":            res.writeApp,
		"pages.csv":          res.writePages,
	}
	for _, f := range CSVFiles {
		write := writers[f.Name]
		err := atomicfile.Write(filepath.Join(dir, f.Name), func(w io.Writer) error {
			c := csv.NewWriter(w)
			if err := write(c); err != nil {
				return err
			}
			c.Flush()
			return c.Error()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }
func itoa(v int) string { return strconv.Itoa(v) }

func (res *Result) gpuHeader(prefix string) []string {
	var h []string
	for g := 0; g < res.GPUs; g++ {
		h = append(h, fmt.Sprintf("%s_gpu%d", prefix, g))
	}
	return h
}

func (res *Result) writePhases(c *csv.Writer) error {
	c.Write([]string{"phase", "label", "name", "launch", "step", "explicit", "workgroups", "slots", "start_access", "accesses", "reads", "writes"})
	for _, p := range res.Phases {
		c.Write([]string{itoa(p.Index), p.Label, p.Name, itoa(p.Launch), itoa(p.Step), strconv.FormatBool(p.Explicit),
			itoa(p.Workgroups), itoa(p.Slots), u(p.Start), u(p.Accesses), u(p.Reads), u(p.Writes)})
	}
	return c.Error()
}

func (res *Result) writeObjects(c *csv.Writer, ops []ObjectPhase) error {
	h := []string{"phase", "label", "object_id", "object", "page_size", "pages", "pages_touched", "class", "sharing", "access",
		"private", "shared", "read_only", "write_only", "rw_mix"}
	for cl := Class(0); cl < NumClasses; cl++ {
		h = append(h, cl.String())
	}
	h = append(h, "reads", "writes", "share_of_phase", "share_of_run")
	h = append(h, res.gpuHeader("reads")...)
	h = append(h, res.gpuHeader("writes")...)
	c.Write(h)
	for i := range ops {
		op := &ops[i]
		ob := &res.Objects[op.Object]
		phase, label, phAccesses := "all", "(run)", res.Accesses
		if op.Phase >= 0 {
			ph := &res.Phases[op.Phase]
			phase, label, phAccesses = itoa(ph.Index), ph.Label, ph.Accesses
		}
		for _, ps := range []uint64{SmallPage, LargePage} {
			s, pages := &op.Small, ob.Pages
			if ps == LargePage {
				s, pages = &op.Large, ob.LargePages
			}
			row := []string{phase, label, itoa(ob.ID), ob.Name, pageSizeName(ps), itoa(pages), itoa(s.Pages()),
				ObjectClass(s), s.Sharing().String(), s.Access().String(),
				itoa(s.Count(Private, NoAccess)), itoa(s.Count(Shared, NoAccess)),
				itoa(s.Count(NoSharing, ReadOnly)), itoa(s.Count(NoSharing, WriteOnly)), itoa(s.Count(NoSharing, RWMix))}
			for _, n := range s {
				row = append(row, itoa(n))
			}
			row = append(row, u(op.ReadAccesses()), u(op.WriteAccesses()), frac(op.Accesses(), phAccesses), frac(op.Accesses(), res.Accesses))
			for _, v := range op.Reads {
				row = append(row, u(v))
			}
			for _, v := range op.Writes {
				row = append(row, u(v))
			}
			c.Write(row)
		}
	}
	return c.Error()
}

func (res *Result) writePageIntervals(c *csv.Writer) error {
	c.Write([]string{"page", "object", "object_page", "interval", "class"})
	I := len(res.Intervals)
	classes := make([]string, NumClasses)
	for cl := range classes {
		classes[cl] = Class(cl).String()
	}
	row := make([]string, 5)
	for oi := range res.Objects {
		ob := &res.Objects[oi]
		for i := 0; i < ob.Pages; i++ {
			d := ob.dense + i
			for iv := 0; iv < I; iv++ {
				cl, ok := ivClass(res.iv[d*I+iv])
				if !ok {
					continue
				}
				row[0], row[1], row[2], row[3], row[4] = u(ob.FirstPage+uint64(i)), ob.Name, itoa(i), itoa(iv), classes[cl]
				if err := c.Write(row); err != nil {
					return err
				}
			}
		}
	}
	return c.Error()
}

func (res *Result) writeIntervals(c *csv.Writer) error {
	h := []string{"interval", "start_access", "end_access", "pages_touched", "untouched"}
	for cl := Class(0); cl < NumClasses; cl++ {
		h = append(h, cl.String())
	}
	c.Write(h)
	for _, iv := range res.Intervals {
		row := []string{itoa(iv.Index), u(iv.Start), u(iv.End), itoa(iv.Census.Pages()), itoa(iv.Untouched)}
		for _, n := range iv.Census {
			row = append(row, itoa(n))
		}
		c.Write(row)
	}
	return c.Error()
}

func (res *Result) writeApp(c *csv.Writer) error {
	c.Write([]string{"page_size", "period", "pages", "private", "shared", "read_only", "write_only", "rw_mix",
		"private_pages", "shared_pages", "read_only_pages", "write_only_pages", "rw_mix_pages"})
	for _, a := range res.App {
		s := &a.Census
		n := uint64(s.Pages())
		counts := []int{s.Count(Private, NoAccess), s.Count(Shared, NoAccess),
			s.Count(NoSharing, ReadOnly), s.Count(NoSharing, WriteOnly), s.Count(NoSharing, RWMix)}
		row := []string{pageSizeName(a.PageSize), a.Period, u(n)}
		for _, k := range counts {
			row = append(row, frac(uint64(k), n))
		}
		for _, k := range counts {
			row = append(row, itoa(k))
		}
		c.Write(row)
	}
	return c.Error()
}

func (res *Result) writePages(c *csv.Writer) error {
	h := []string{"page", "object", "object_page", "class", "gpus"}
	h = append(h, res.gpuHeader("reads")...)
	h = append(h, res.gpuHeader("writes")...)
	c.Write(h)
	n := res.GPUs
	row := make([]string, 5+2*n)
	for oi := range res.Objects {
		ob := &res.Objects[oi]
		for i := 0; i < ob.Pages; i++ {
			cl, ok := res.PageClass(oi, i)
			if !ok {
				continue
			}
			d := ob.dense + i
			row[0], row[1], row[2], row[3], row[4] = u(ob.FirstPage+uint64(i)), ob.Name, itoa(i), cl.String(), itoa(res.PageGPUs(oi, i))
			for g := 0; g < n; g++ {
				row[5+g] = u(res.counts[d*2*n+2*g])
				row[5+n+g] = u(res.counts[d*2*n+2*g+1])
			}
			if err := c.Write(row); err != nil {
				return err
			}
		}
	}
	return c.Error()
}
