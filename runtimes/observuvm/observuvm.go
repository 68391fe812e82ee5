// Package observuvm runs ObservUVM's userspace engine in the driver
// ("Observability-aided GPU Memory Oversubscription", Pratheek B, Shah and
// Basu; its pure core is package observuvm at the module root). Importing it registers uvm.adaptive core.
package observuvm

import (
	"fmt"
	"slices"

	"github.com/mgpu-sim/mgpu/eviction"
	core "github.com/mgpu-sim/mgpu/observuvm"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// Name is the value of uvm.adaptive that selects ObservUVM.
const Name = "observuvm"

// Config holds ObservUVM's parameters (its paper, and the choices its doc tags give where the paper is silent), uvm.observuvm.*: a
// section of every uvm.Config.
var Config = uvm.RegisterSection(uvm.SectionSpec{Name: "observuvm", Field: "ObservUVM", After: "adaptive", Order: 2,
	Doc: "ObservUVM's parameters (package observuvm), used with uvm.adaptive=observuvm; the default is the paper's TM."}, defaultConfig())

func init() {
	uvm.RegisterRuntime(uvm.KeyAdaptive, Name, uvm.RuntimeSpec{New: New, Requires: []uvm.Requirement{
		uvm.NeedsSoftware("drives the driver's software fault handling"),
		uvm.NeedsOnTouch("manages on-touch migration (the stock driver)")},
		Validate: validate, Counters: counters, Dependencies: dependencies()})
}

// defaultConfig is ObservUVM's TM: the configuration the driver runs
// whole (TM+ and TM++ add FDP and RGP, not wired in yet).
func defaultConfig() core.Config {
	c, err := core.Preset(core.PresetTM)
	if err != nil {
		panic(err) // a preset of the package itself
	}
	return c
}

// validate checks ObservUVM's settings, and that the tree prefetcher its
// shallow prefetch steers is on.
func validate(c uvm.Config, _ units.Bytes) error {
	o := Config.Of(c)
	if err := o.Validate(); err != nil {
		return err
	}
	if s := o.Shallow; s != core.ShallowOff && c.Prefetch.Policy != prefetch.TBN {
		return fmt.Errorf("uvm.observuvm.shallow = %q: sets the tree prefetcher's threshold: set uvm.prefetch.policy=tbn (or uvm.observuvm.shallow=off)", s)
	}
	return nil
}

// counters are the samples' counters, which keep counting after they
// notify.
func counters(c uvm.Config) uvm.Counters {
	o := Config.Of(c)
	return uvm.Counters{Threshold: o.CounterThreshold, Group: uint64(o.CounterGranularity), Latched: true}
}

// policyRuns reports whether ObservUVM's eviction policy p runs: it is the
// policy, or one of the Tournament's.
func policyRuns(c uvm.Config, p string) bool {
	o := Config.Of(c)
	return o.Policy == p || o.Policy == core.Tournament && slices.Contains(o.Constituents(), p)
}

// dependencies are ObservUVM's keys, which take effect while it runs and
// its parts that read them do, and the driver's keys it decides instead.
func dependencies() []uvm.Dependency {
	o := Config.Of
	shallowIs := func(modes ...string) func(uvm.Config) bool {
		return func(c uvm.Config) bool { return slices.Contains(modes, o(c).Shallow) }
	}
	notMe := func(c uvm.Config) bool { return c.Adaptive != Name }
	return []uvm.Dependency{
		{Keys: []string{"uvm.prefetch.threshold"}, On: notMe, While: uvm.KeyAdaptive, Use: "uvm.adaptive=none",
			Note: "ObservUVM's uvm.observuvm.shallow sets the threshold: uvm.observuvm.tbp_threshold or ap_threshold"},
		{Keys: []string{"uvm.eviction", "uvm.eviction_chunk"}, On: notMe, While: uvm.KeyAdaptive,
			Use: "uvm.adaptive=none, uvmsmart, suv or sc", Note: "ObservUVM picks its victims with uvm.observuvm.policy"},
		{Keys: []string{"uvm.observuvm.*"}, On: uvm.SelectedIs(uvm.KeyAdaptive, Name), While: uvm.KeyAdaptive, Use: "uvm.adaptive=observuvm"},
		{Keys: []string{"uvm.observuvm.tournament_policies", "uvm.observuvm.tournament_threshold", "uvm.observuvm.tournament_factor",
			"uvm.observuvm.tournament_blame"},
			On:    func(c uvm.Config) bool { return o(c).Policy == core.Tournament },
			While: "uvm.observuvm.policy", Use: "uvm.observuvm.policy=tournament"},
		{Keys: []string{"uvm.observuvm.lfu_bins", "uvm.observuvm.lfu_keep_history"},
			On:    func(c uvm.Config) bool { return policyRuns(c, core.LFU) || o(c).Policy == core.Tournament },
			While: "uvm.observuvm.policy", Use: "uvm.observuvm.policy=lfu (or tournament with lfu among its policies)"},
		{Keys: []string{"uvm.observuvm.lfu_bins", "uvm.observuvm.lfu_keep_history"},
			On:    func(c uvm.Config) bool { return policyRuns(c, core.LFU) },
			While: "uvm.observuvm.tournament_policies", Use: "uvm.observuvm.tournament_policies with lfu among them"},
		{Keys: []string{"uvm.observuvm.cp_protected", "uvm.observuvm.cp_step", "uvm.observuvm.cp_victim"},
			On:    func(c uvm.Config) bool { return policyRuns(c, core.CP) || o(c).Policy == core.Tournament },
			While: "uvm.observuvm.policy", Use: "uvm.observuvm.policy=cp (or tournament with cp among its policies)"},
		{Keys: []string{"uvm.observuvm.cp_protected", "uvm.observuvm.cp_step", "uvm.observuvm.cp_victim"},
			On:    func(c uvm.Config) bool { return policyRuns(c, core.CP) },
			While: "uvm.observuvm.tournament_policies", Use: "uvm.observuvm.tournament_policies with cp among them"},
		{Keys: []string{"uvm.observuvm.tbp_threshold"}, On: shallowIs(core.ShallowTBP, core.ShallowFDP),
			While: "uvm.observuvm.shallow", Use: "uvm.observuvm.shallow=tbp or fdp"},
		{Keys: []string{"uvm.observuvm.ap_threshold"}, On: shallowIs(core.ShallowAP, core.ShallowFDP),
			While: "uvm.observuvm.shallow", Use: "uvm.observuvm.shallow=ap or fdp"},
		// Not feedback_regions and trigger_regions, FDP's and RGP's budgets:
		// the ObservUVM figures scale all three budgets of every run together
		// (figures.observBudgets), with FDP and RGP or without.
		{Keys: []string{"uvm.observuvm.fdp_threshold", "uvm.observuvm.fdp_ratio", "uvm.observuvm.fdp_reset",
			"uvm.observuvm.fdp_literal_count_sum"}, On: shallowIs(core.ShallowFDP),
			While: "uvm.observuvm.shallow", Use: "uvm.observuvm.shallow=fdp"},
		{Keys: []string{"uvm.observuvm.rgp_confidence", "uvm.observuvm.rgp_window", "uvm.observuvm.rgp_degree",
			"uvm.observuvm.rgp_lookahead"},
			On:    func(c uvm.Config) bool { return o(c).Deep == core.DeepRGP },
			While: "uvm.observuvm.deep", Use: "uvm.observuvm.deep=rgp"},
		{Keys: []string{"uvm.observuvm.max_samples", "uvm.observuvm.monitor_set", "uvm.observuvm.adapt_period",
			"uvm.observuvm.refault_raise", "uvm.observuvm.quiet_lower"},
			On:    func(c uvm.Config) bool { return o(c).AdaptiveSamples },
			While: "uvm.observuvm.adaptive_samples", Use: "uvm.observuvm.adaptive_samples=true"},
	}
}

// observe adapts ObservUVM's engine (package observuvm) to the driver: it
// tells the engine of faults, prefetches, evicted regions and counter
// notifications, picks victims through the engine's policy, and carries
// out the engine's actions within the current batch. A sample's block
// goes to the host and is mapped there remotely (SampleOut), comes back on
// a hit (SampleIn) and is unmapped when its region leaves (Release).
// FDP sets the tree prefetcher's threshold (SetThreshold) and RGP brings
// whole regions ahead of a stream (PrefetchRegion).
type observe struct {
	uvm.Stages
	env   uvm.RuntimeEnv
	e     *core.Engine
	geo   core.Geometry
	acts  []core.Action
	pages uint64
	// resident counts each GPU's resident pages per region, so that a
	// region's last page leaving is its eviction.
	resident [][]int32
	// left are the regions that emptied since the engine was last told;
	// sampling suppresses the count while a sample leaves on purpose.
	left     []regionOf
	sampling bool
	// listed[r] == call marks the regions the current Victims call listed.
	listed []uint32
	call   uint32
	// msgs are the messages between the driver and the engine since the
	// batch's driver time was last taken (BatchNs).
	msgs  uint64
	stats stats
}

type regionOf struct {
	g      int
	region uint64
}

// stats are the driver's counts of ObservUVM's actions.
type stats struct {
	SamplesOut, SamplesIn, Releases, SamplePagesOut, SamplePagesIn uint64
	RegionPrefetches, RegionPages                                  uint64
	// PeerSampleMaps are faults of one GPU on another's armed sample,
	// mapped remotely so that the sample stays on the host.
	PeerSampleMaps uint64
	// Messages are the driver-userspace messages, each costing
	// observuvm.message_ns of driver time.
	Messages uint64
}

// New makes the engine over the GPUs' prefetchers. shallow (FDP, TBP, AP)
// sets the tree prefetcher's threshold, so it needs one.
func New(env uvm.RuntimeEnv) (uvm.Runtime, error) {
	c := Config.Of(env.Config)
	c.Seed = env.Seed // the run's one seed
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Shallow != core.ShallowOff && (env.Trees == nil || env.Prefetch.Policy != prefetch.TBN) {
		return nil, fmt.Errorf("uvm.core.shallow=%s sets the tree prefetcher's threshold: set uvm.prefetch.policy=tbn (or shallow=off)", c.Shallow)
	}
	o := &observe{env: env, pages: env.Pages}
	e, err := core.NewEngine(c, core.Options{GPUs: env.GPUs, PageSize: env.PageSize, Pages: env.Pages, Resident: o.sampleable,
		Allocations: allocations(env)})
	if err != nil {
		return nil, err
	}
	o.e, o.geo = e, e.Geometry()
	regions := (env.Pages + o.geo.PagesPerRegion - 1) / o.geo.PagesPerRegion
	o.listed = make([]uint32, regions)
	for g := 0; g < env.GPUs; g++ {
		o.resident = append(o.resident, make([]int32, regions))
		if env.Trees != nil {
			env.Trees[g].SetAllThresholds(e.Threshold(g))
		}
	}
	return o, nil
}

// CounterBatch serves a counter batch as observation.
func (o *observe) CounterBatch(g int, pages []uint64, _ [][]uvmproto.Inval) bool {
	o.notifiedAll(g, pages)
	return true
}

// Migrated tells the engine of demand faults.
func (o *observe) Migrated(g int, p uint64, _ int, _ bool, cause uvm.MoveCause) {
	if cause == uvm.MoveFault {
		o.fault(g, p)
	}
}

// Prefetchable keeps an ObservUVM sample on the host, remote-mapped.
func (o *observe) Prefetchable(g int, p uint64) bool { return !o.isSample(g, p) }

// Decided tells the engine of the batch's prefetches and carries out what
// it asks.
func (o *observe) Decided(g int, counter bool, prefetched []uint64, invals [][]uvmproto.Inval) {
	if !counter {
		o.prefetched(g, prefetched)
	}
	o.apply(invals)
}

// Evicted tells the engine of the regions that left and carries out what
// it asks.
func (o *observe) Evicted(invals [][]uvmproto.Inval) {
	o.evicted()
	o.apply(invals)
}

// DecorateEviction replaces the driver's eviction: the engine's policy
// picks the regions.
func (o *observe) DecorateEviction(eviction.Policy, eviction.Options) (eviction.Policy, error) {
	return o.evictor(), nil
}

// DecoratePolicy keeps other GPUs' samples on the host (observePolicy).
func (o *observe) DecoratePolicy(p pagepolicy.Policy) pagepolicy.Policy { return observePolicy{p, o} }

// evictor is the eviction policy that asks the engine: with an oracle
// policy, one that also reports every access.
func (o *observe) evictor() eviction.Policy {
	if Config.Of(o.env.Config).Policy == core.OracleLRU {
		return oracleEvictor{o}
	}
	return o
}

// sampleable: page is on g and not pinned by the batch.
func (o *observe) sampleable(g int, page uint64) bool {
	return o.env.Ops.Table().Page(page).Copies&(1<<uint(g)) != 0 && !o.env.Ops.Pinned(page)
}

func (o *observe) Placed(g int, p uint64) { o.resident[g][o.geo.Region(p)]++ }

func (o *observe) Removed(g int, p uint64) {
	r := o.geo.Region(p)
	o.resident[g][r]--
	if o.resident[g][r] == 0 && !o.sampling {
		o.left = append(o.left, regionOf{g, r})
	}
}

// Victims lists the pages of the regions the engine's policy picks, whole
// regions, skipping pinned pages and regions with none to give.
func (o *observe) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	if o.call++; o.call == 0 {
		clear(o.listed)
		o.call = 1
	}
	start := len(dst)
	bit := uint64(1) << uint(g)
	skip := func(r uint64) bool {
		if int(r) >= len(o.resident[g]) || o.listed[r] == o.call || o.resident[g][r] == 0 {
			return true
		}
		lo, hi := o.regionPages(r)
		for p := lo; p < hi; p++ {
			if o.env.Ops.Table().Page(p).Copies&bit != 0 && !pinned(p) {
				return false
			}
		}
		return true
	}
	for len(dst)-start < n {
		r, ok := o.e.Victim(g, skip)
		if !ok {
			break
		}
		o.listed[r] = o.call
		o.msgs++ // the victim, read from the engine
		lo, hi := o.regionPages(r)
		for p := lo; p < hi; p++ {
			if o.env.Ops.Table().Page(p).Copies&bit != 0 && !pinned(p) {
				dst = append(dst, p)
			}
		}
	}
	return dst
}

func (o *observe) regionPages(r uint64) (lo, hi uint64) {
	lo = r * o.geo.PagesPerRegion
	return lo, min(lo+o.geo.PagesPerRegion, o.pages)
}

// oracleEvictor is observe with every access reported (Oracle-LRU).
type oracleEvictor struct{ *observe }

func (o oracleEvictor) Touch(g int, p uint64) { o.e.OnHit(g, p) }

// fault tells the engine that a demand fault brought page to g.
func (o *observe) fault(g int, page uint64) {
	o.msgs++
	o.acts = o.e.OnPageFault(g, page, o.acts)
}

// prefetched tells the engine which blocks of which regions the batch's
// prefetch brought to g (pages in ascending order within a region).
func (o *observe) prefetched(g int, pages []uint64) {
	for i := 0; i < len(pages); {
		r := o.geo.Region(pages[i])
		var blocks uint64
		for ; i < len(pages) && o.geo.Region(pages[i]) == r; i++ {
			blocks |= 1 << uint(o.geo.Block(pages[i]))
		}
		o.msgs++
		o.acts = o.e.OnPrefetch(g, r, blocks, o.acts)
	}
}

// notified tells the engine of one counter notification of g on page, a
// remote access to host memory.
// notified tells the engine of one notification of g's counters, labelled
// by where the page lives (§VIII-A: host and peer notifications apart).
// The GPU notifies after counter_threshold accesses, so the engine, whose
// counter unit models the same hardware (capacity and threshold), is
// offered that many: a notification is one counter reaching the
// threshold, not one access.
func (o *observe) notified(g int, page uint64) {
	src := core.HostSource()
	if h := o.env.Ops.Table().Page(page).Owner; h != uvm.Host {
		src = core.PeerSource(h)
	}
	o.msgs++
	for i := 0; i < Config.Of(o.env.Config).CounterThreshold; i++ {
		o.acts = o.e.OnRemoteAccess(g, page, src, o.acts)
	}
}

// notifiedAll tells the engine of a counter batch's notifications: its
// pages are whole 64 KB groups, one notification each.
func (o *observe) notifiedAll(g int, pages []uint64) {
	last := ^uint64(0)
	for _, p := range pages {
		if blk := p / o.geo.PagesPerBlock; blk != last {
			last = blk
			o.notified(g, p)
		}
	}
}

// evicted tells the engine of the regions that left.
func (o *observe) evicted() {
	for i := 0; i < len(o.left); i++ { // apply may empty more regions
		l := o.left[i]
		if o.resident[l.g][l.region] == 0 {
			o.msgs++
			o.acts = o.e.OnEviction(l.g, l.region, o.acts)
		}
	}
	o.left = o.left[:0]
}

// apply carries out the engine's actions in the current batch, adding to
// its shootdowns, copies and mappings; the pages it moves in join the
// batch's pinned pages.
func (o *observe) apply(invals [][]uvmproto.Inval) {
	t := o.env.Ops.Table()
	for i := 0; i < len(o.acts); i++ {
		a := o.acts[i]
		o.msgs++ // the action, carried down
		bit := uint64(1) << uint(a.GPU)
		switch a.Kind {
		case core.SampleOut:
			o.stats.SamplesOut++
			o.sampling = true
			for p := a.First; p < a.First+a.Pages && p < o.pages; p++ {
				pg := t.Page(p)
				if pg.Copies&bit == 0 {
					continue
				}
				plan := o.env.Ops.Plan()
				t.Evict(a.GPU, p, plan)
				if t.Page(p).Owner == uvm.Host {
					t.Resolve(a.GPU, p, false, pagepolicy.Decision{Action: pagepolicy.MapRemote, Bits: pg.Bits, HostRemote: true}, plan)
				}
				o.env.Ops.Carry(a.GPU, plan, uvmproto.CauseHost, invals)
				o.stats.SamplePagesOut++
			}
			o.sampling = false
		case core.SampleIn:
			o.stats.SamplesIn++
			for p := a.First; p < a.First+a.Pages && p < o.pages; p++ {
				pg := t.Page(p)
				if pg.Owner != uvm.Host || pg.Remote&bit == 0 {
					continue
				}
				plan := o.env.Ops.Plan()
				t.Resolve(a.GPU, p, false, pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: pg.Bits}, plan)
				o.env.Ops.Carry(a.GPU, plan, uvmproto.CauseHost, invals)
				o.env.Ops.Pin(p)
				o.stats.SamplePagesIn++
			}
		case core.Release:
			o.stats.Releases++
			for p := a.First; p < a.First+a.Pages && p < o.pages; p++ {
				plan := o.env.Ops.Plan()
				t.Unmap(a.GPU, p, plan)
				o.env.Ops.Carry(a.GPU, plan, uvmproto.CauseHost, invals)
			}
		case core.PrefetchRegion:
			o.prefetchRegion(a, invals)
		case core.SetThreshold:
			if o.env.Trees != nil {
				o.env.Trees[a.GPU].SetAllThresholds(a.Threshold)
			}
		default:
			o.env.Ops.Fail(fmt.Errorf("uvm: ObservUVM action %v is not carried out by the driver", a.Kind))
		}
	}
	o.acts = o.acts[:0]
}

// prefetchRegion is RGP's region prefetch: the region's pages that live on
// the host alone come to the GPU, except the trigger block, which stays on
// the host, remote-mapped, so that an access to it notifies; the engine
// then hears of the prefetch as of any other.
func (o *observe) prefetchRegion(a core.Action, invals [][]uvmproto.Inval) {
	t, env := o.env.Ops.Table(), o.env
	g, bit := a.GPU, uint64(1)<<uint(a.GPU)
	lo, hi := o.regionPages(a.Region)
	var blocks uint64
	o.stats.RegionPrefetches++
	for p := lo; p < hi; p++ {
		pg := t.Page(p)
		if pg.Owner != uvm.Host || pg.Copies != 0 || env.Objects && env.PageObject(p) < 0 {
			continue
		}
		plan := o.env.Ops.Plan()
		if p >= a.First && p < a.First+a.Pages {
			if pg.Remote&bit == 0 {
				t.Resolve(g, p, false, pagepolicy.Decision{Action: pagepolicy.MapRemote, Bits: pg.Bits, HostRemote: true}, plan)
				o.env.Ops.Carry(g, plan, uvmproto.CauseHost, invals)
			}
			continue
		}
		if o.isSample(g, p) {
			continue
		}
		t.Resolve(g, p, false, pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: pg.Bits}, plan)
		o.env.Ops.Carry(g, plan, uvmproto.CauseHost, invals)
		o.env.Ops.Pin(p)
		o.env.Ops.Counters(g).Prefetches++
		o.stats.RegionPages++
		blocks |= 1 << uint(o.geo.Block(p))
	}
	if blocks != 0 {
		o.acts = o.e.OnPrefetch(g, a.Region, blocks, o.acts)
	}
}

// allocations are the footprint's allocations as page ranges, for RGP's
// streams, from the object lookup (one range of every page without it).
func allocations(env uvm.RuntimeEnv) []core.Range {
	if !env.Objects {
		return nil
	}
	var out []core.Range
	cur := -1
	for p := uint64(0); p < env.Pages; p++ {
		obj := env.PageObject(p)
		switch {
		case obj < 0:
			cur = -1
		case obj == cur && len(out) > 0:
			out[len(out)-1].Pages++
		default:
			out = append(out, core.Range{First: p, Pages: 1})
			cur = obj
		}
	}
	return out
}

// isSample reports whether page is one of g's armed samples, which stay on
// the host: the tree prefetcher must not bring them back.
func (o *observe) isSample(g int, page uint64) bool { return o.e.Observer().IsSample(g, page) }

// sampledElsewhere reports whether page is an armed sample of a GPU other
// than g.
func (o *observe) sampledElsewhere(g int, page uint64) bool {
	for h := range o.resident {
		if h != g && o.isSample(h, page) {
			return true
		}
	}
	return false
}

// observePolicy keeps other GPUs' samples where their observer needs them:
// a fault on a host page that another GPU has armed as a sample maps it
// remotely instead of migrating it, which would end the observation
// unseen. Every other fault is the stock driver's.
type observePolicy struct {
	pagepolicy.Policy
	o *observe
}

func (w observePolicy) Decide(f pagepolicy.Fault, pg pagepolicy.Page) pagepolicy.Decision {
	if pg.Owner == uvm.Host && len(w.o.resident) > 1 && w.o.sampledElsewhere(f.GPU, f.Page) {
		w.o.stats.PeerSampleMaps++
		return pagepolicy.Decision{Action: pagepolicy.MapRemote, HostRemote: true, Bits: pg.Bits}
	}
	return w.Policy.Decide(f, pg)
}

// BatchNs is the driver's time in messages with the engine since it was
// last asked (uvm.HostTimer).
func (o *observe) BatchNs() float64 {
	n := o.msgs
	o.stats.Messages += n
	o.msgs = 0
	return float64(n) * Config.Of(o.env.Config).MessageNs
}

// Report adds ObservUVM's counts, summed over GPUs: the engine's, the
// observer's and the driver's, and under Tournament its blame sum and
// retired constituents, which say whether it chose a policy at all, and
// each constituent's blames and the GPUs it is still active on, which say
// which.
func (o *observe) Report(r map[string]float64) {
	m := map[string]uint64{"observuvm_samples_out": o.stats.SamplesOut, "observuvm_samples_in": o.stats.SamplesIn,
		"observuvm_releases": o.stats.Releases, "observuvm_sample_pages_out": o.stats.SamplePagesOut,
		"observuvm_sample_pages_in": o.stats.SamplePagesIn, "observuvm_region_prefetches": o.stats.RegionPrefetches,
		"observuvm_region_pages": o.stats.RegionPages, "observuvm_peer_sample_maps": o.stats.PeerSampleMaps,
		"observuvm_messages": o.stats.Messages}
	for g := range o.resident {
		es, os := o.e.Stats(g), o.e.Observer().Stats(g)
		for k, v := range map[string]uint64{"observuvm_notifications": es.Notifications, "observuvm_remote_accesses": es.RemoteAccesses,
			"observuvm_threshold_changes": es.ThresholdChanges, "observuvm_rgp_no_trigger": es.RGPNoTrigger,
			"observuvm_observations": os.Observations, "observuvm_hits": os.Hits, "observuvm_unseen": os.Unseen,
			"observuvm_stray": os.Stray, "observuvm_raises": os.Raises, "observuvm_lowers": os.Lowers} {
			m[k] += v
		}
		if c, ok := o.e.Policy().(core.Contest); ok {
			var blames, retired uint64
			for _, st := range c.Standings(g) {
				blames += st.Blame
				m["observuvm_tournament_blames_"+st.Name] += st.Blame
				if st.Active {
					m["observuvm_tournament_active_"+st.Name]++
				} else {
					retired++
				}
			}
			m["observuvm_tournament_blames"] += blames
			m["observuvm_tournament_retired"] += retired
		}
	}
	uvm.AddCounts(r, m)
}
