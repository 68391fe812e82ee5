package figures

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mgpu-sim/mgpu/characterize"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/platform"
)

// RuleFor is the policy OASIS's Observation 3 (§IV-B) gives an object of
// this class: on-touch for private objects, duplication for shared
// read-only ones, access-counter for shared write-only and rw-mix ones.
// A private-shared-mix object has no single rule ("").
func RuleFor(s characterize.Sharing, a characterize.Access) string {
	switch {
	case s == characterize.Private:
		return "on-touch"
	case s == characterize.Shared && a == characterize.ReadOnly:
		return "duplication"
	case s == characterize.Shared && (a == characterize.WriteOnly || a == characterize.RWMix):
		return "access-counter"
	}
	return ""
}

// PolicyShares is the share of [from, end] that object spent under each
// policy of history (time order), from its first decision on; an object
// with no decision gets nil. Changes counts its decisions.
func PolicyShares(history []pagepolicy.PolicyChange, object int, end float64) (shares map[string]float64, changes int) {
	var cur string
	var since, first float64
	for _, h := range history {
		if h.Object != object {
			continue
		}
		if changes == 0 {
			shares, first = map[string]float64{}, h.TimeNs
		} else {
			shares[cur] += h.TimeNs - since
		}
		cur, since = h.Policy, h.TimeNs
		changes++
	}
	if changes == 0 {
		return nil, 0
	}
	shares[cur] += end - since
	if span := end - first; span > 0 {
		for p := range shares {
			shares[p] /= span
		}
	} else {
		shares = map[string]float64{cur: 1}
	}
	return shares, changes
}

// dominant is the policy with the largest share (ties by name).
func dominant(shares map[string]float64) string {
	best := ""
	for _, p := range slices.Sorted(maps.Keys(shares)) {
		if best == "" || shares[p] > shares[best] {
			best = p
		}
	}
	return best
}

// decisionApps are the applications whose decisions the figure checks:
// the seven with one kernel function, where an object's class over the run
// is the class OASIS sees (§IV-B), then the multi-launch ones, whose
// objects change class at every explicit phase (reported, not judged).
var decisionApps = []string{"bfs", "fft", "i2c", "mm", "mt", "pr", "st", "c2d", "lenet", "vgg16", "resnet18"}

// oasisDecisions is issue 29's step 4: for each object, the policies OASIS
// held over the run (time shares from its first decision, and how many
// decisions), beside the policy Observation 3 gives its class.
func oasisDecisions() CharFigure {
	var needs []CharNeed
	for _, w := range decisionApps {
		needs = append(needs, CharNeed{w, AnyIntervals})
	}
	return CharFigure{Name: "oasis-decisions", Title: "OASIS's policy per object against Observation 3", Needs: needs,
		OASIS: decisionApps, Build: buildDecisions}
}

func buildDecisions(in CharInput) CharOutput {
	tab := TextTable{Suffix: "-objects", Title: "OASIS's decisions per object (4 KB pages, OASIS at the defaults, 4 GPUs, seed 1)",
		Header: []string{"app", "object", "class over the run", "Observation 3", "OASIS (time share from the first decision)", "decisions", "verdict"}}
	hist := TextTable{Suffix: "-history", Title: "OASIS's policy changes in time order", CSVOnly: true,
		Header: []string{"app", "object", "time (ns)", "policy", "cause"}}
	var right, harmless, wrong, judged int
	var wrongs []string
	for _, w := range decisionApps {
		res, run := in.Results[w], in.OASIS[w]
		if res == nil || run == nil {
			continue
		}
		single := slices.Contains(onePhaseApps, w)
		// An app whose kernel has implicit phases (st's iterations) shows
		// its rw-mix objects' run class to no decision OASIS makes.
		implicit := slices.ContainsFunc(res.Phases, func(p characterize.Phase) bool { return !p.Explicit })
		names := map[int]string{}
		for i := range res.Objects {
			names[res.Objects[i].ID] = paperName(w, res.Objects[i].Name)
		}
		for _, h := range run.PolicyHistory {
			hist.Rows = append(hist.Rows, []string{w, names[h.Object], fmt.Sprintf("%.0f", h.TimeNs), h.Policy, h.Cause})
		}
		for i := range res.ObjectRun {
			op := &res.ObjectRun[i]
			name := names[op.Object]
			rule := RuleFor(op.Small.Sharing(), op.Small.Access())
			shares, n := PolicyShares(run.PolicyHistory, op.Object, run.SimTimeNs)
			held := "on-touch (no shared fault, no decision)"
			got := "on-touch"
			if n > 0 {
				got = dominant(shares)
				var parts []string
				for _, p := range slices.Sorted(maps.Keys(shares)) {
					parts = append(parts, fmt.Sprintf("%s %s", p, pct(shares[p])))
				}
				held = strings.Join(parts, ", ")
			}
			verdict := "info (several explicit phases: see fig6)"
			switch {
			case !single:
			case rule == "":
				verdict = "no single rule (private-shared-mix)"
			case implicit && op.Small.Access() == characterize.RWMix:
				verdict = "info (implicit phases: its class changes from one to the next)"
			case got == rule:
				verdict = "right"
				right++
				judged++
			case rule == "on-touch" && got == "duplication" && op.Small.Access() == characterize.ReadOnly:
				verdict = "harmless (read-only: its one copy costs what a migration does)"
				harmless++
				judged++
			default:
				verdict = "WRONG"
				wrong++
				judged++
				wrongs = append(wrongs, w+" "+name)
			}
			tab.Rows = append(tab.Rows, []string{w, name, characterize.ObjectClass(&op.Small), orDash(rule), held, istr(n), verdict})
		}
	}
	sort.SliceStable(hist.Rows, func(i, j int) bool { return hist.Rows[i][0] < hist.Rows[j][0] })
	out := CharOutput{Tables: []TextTable{tab, hist}}
	mg := fmt.Sprintf("%d of %d objects of the one-kernel apps right, %d harmless", right, judged, harmless)
	if wrong > 0 {
		mg += "; wrong: " + strings.Join(wrongs, ", ")
	}
	out.Claims = append(out.Claims, Claim{"§V-D", "OASIS gives each object the policy Observation 3 gives its class",
		"every object", mg, boolVerdict(wrong == 0 && judged > 0)})
	out.Notes = append(out.Notes, "An object OASIS never decides on (no fault found its pages on another GPU) stays under on-touch, the baseline. "+
		"Shares are of the time from the object's first decision to the end of the run. "+
		"Classes are over the whole run, which is the class OASIS sees only in the one-kernel apps; st's implicit phases and the multi-launch apps are reported, not judged.")
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// RunTimed runs each workload under policy at the defaults (4 GPUs, seed
// 1) at scale, jobs at a time: the timed runs a figure's OASIS and
// OnTouch fields ask for. With profile, each run records its GPU-to-GPU
// page moves.
func RunTimed(workloads []string, policy string, profile bool, scale float64, jobs int, log io.Writer) (map[string]*platform.Result, map[string]*MoveProfile, error) {
	out, moves := map[string]*platform.Result{}, map[string]*MoveProfile{}
	var mu sync.Mutex
	err := inParallel(workloads, jobs, func(w string) error {
		cfg := config.DefaultConfig()
		cfg.GPUs = CharGPUs
		o := platform.Options{Workload: w, Policy: policy, Seed: CharSeed, Scale: scale, Size: "auto", Config: cfg}
		var prof *MoveProfile
		if profile {
			prof = NewMoveProfile()
			o.Moves = prof
		}
		start := time.Now()
		res, err := platform.Run(o)
		if err != nil {
			return fmt.Errorf("%s under %s: %w", w, policy, err)
		}
		mu.Lock()
		defer mu.Unlock()
		out[w], moves[w] = res, prof
		if log != nil {
			fmt.Fprintf(log, "ran %s under %s (scale %g, %d GPUs) in %.1f s\n", w, policy, scale, CharGPUs, time.Since(start).Seconds())
		}
		return nil
	})
	return out, moves, err
}
