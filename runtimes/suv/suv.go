// Package suv runs SUV-Mgmt ("SUV: Static Analysis Guided Unified Virtual
// Memory", MICRO 2024; its pure core is package suv at the module root)
// and its SC baseline in the driver. Importing it registers uvm.adaptive
// suv and sc. Before each kernel launch the program hands the driver a
// Launch (uvm.Driver.Place), which the runtime plans and carries out as a
// batch of its own.
package suv

import (
	"fmt"
	"maps"
	"slices"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	core "github.com/mgpu-sim/mgpu/suv"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// The values of uvm.adaptive that select SUV-Mgmt and its SC baseline.
const (
	Name   = "suv"
	NameSC = "sc"
)

// Config holds SUV-Mgmt's parameters (its paper, and its released policy code where the paper is silent), uvm.suv.*: a
// section of every uvm.Config.
var Config = uvm.RegisterSection(uvm.SectionSpec{Name: "suv", Field: "SUV", After: "adaptive", Order: 3,
	Doc: "SUV-Mgmt's parameters (package suv), used with uvm.adaptive=suv and sc."}, core.DefaultConfig())

func init() {
	for _, name := range []string{Name, NameSC} {
		var deps []uvm.Dependency
		if name == Name { // once for both
			deps = dependencies
		}
		uvm.RegisterRuntime(uvm.KeyAdaptive, name, uvm.RuntimeSpec{New: New, Requires: []uvm.Requirement{
			uvm.NeedsSoftware("plans for the driver's software fault handling"),
			uvm.NeedsOnTouch("extends on-touch migration (SUV's UVM baseline)")},
			Validate: func(c uvm.Config, page units.Bytes) error { return Config.Of(c).ForPageSize(page).Validate() },
			// The driver's counters, for Unknown structures.
			Counters: func(c uvm.Config) uvm.Counters {
				s := Config.Of(c)
				return uvm.Counters{Threshold: s.ACThreshold, Group: uint64(s.ACGroup)}
			},
			Dependencies: deps, CheckWorkload: checkWorkload})
	}
}

// dependencies are SUV's keys, which both runtimes read but SC's
// ranking, which ignores density.
var dependencies = []uvm.Dependency{
	{Keys: []string{"uvm.suv.*"}, On: Selected, While: uvm.KeyAdaptive, Use: "uvm.adaptive=suv or sc"},
	{Keys: []string{"uvm.suv.density_threshold"}, On: func(c uvm.Config) bool { return c.Adaptive != NameSC },
		While: uvm.KeyAdaptive, Use: "uvm.adaptive=suv", Note: "SC ranks whole structures by access count"},
}

// Selected reports whether c runs SUV-Mgmt or SC.
var Selected = uvm.SelectedIs(uvm.KeyAdaptive, Name, NameSC)

// Launch is what SUV-Mgmt needs of one kernel launch: the launch's
// argument objects and the hints its workload declares for them.
type Launch struct {
	// IDs, Objects and First are parallel: each argument's object ID, its
	// name and size, and its first page.
	IDs     []int
	Objects []core.Object
	First   []uint64
	Hints   core.Hints
}

// How SUV-Mgmt has placed a page, per GPU (suvMode.mode).
const (
	suvFree uint8 = iota // the driver's default: faults migrate, LRM evicts
	suvHBM               // pinned in this GPU's HBM (suvPinOnGPU, or an iteration's prefetch)
	suvHost              // pinned on the host, mapped remotely (suvPinOnHost)
	suvPool              // migrates on demand into its structure's pool (Temporal)
	suvAC                // into its pool by faults or its counter; evicted, remote until the counter fires (Unknown)
)

// suvMode adapts SUV-Mgmt (package suv) to the driver. At every launch it
// plans each GPU's HBM (suv.PlanLaunch, or PlanSC for the SC baseline) and
// carries the plan out as one driver call, a batch of its own that the
// launch waits for. Between launches it keeps the plan: faults on pinned
// pages map them rather than move them, pools evict only their own
// pages, access-counter notifications migrate only Unknown structures,
// and the driver's eviction never takes a pinned or pooled page.
type suvMode struct {
	uvm.Stages
	host *suvHints // the host-side half: launches' hints
	env  uvm.RuntimeEnv
	cfg  core.Config
	sc   bool
	page uint64
	// hbm is the HBM each GPU gives the application, in bytes: its
	// capacity (oversubscription holds the rest back, as cudaMalloc does
	// in the paper).
	hbm   int64
	mode  [][]uint8
	pools []map[int]*core.QuotaPool
	// placed is the page range of every object an action touched, for
	// free and verify.
	placed map[int]span
	// holds is the HBM each placed object holds, by object ID: its pins,
	// its pool's quota or its iteration window (0 when it lives on the
	// host). windows marks the Iterative ones whose window moves with
	// their host loop.
	holds   map[int]int64
	windows map[int]bool
	// inner is the driver's eviction policy for unplanned pages (nil
	// without a capacity limit).
	inner   eviction.Policy
	victims []uint64
	stats   suvStats
}

type span struct{ first, pages uint64 }

// suvStats are the driver's counts of SUV-Mgmt's actions.
type suvStats struct {
	Launches uint64
	// Pages given each treatment, summed over launches and GPUs.
	PinnedHBM, PinnedHost, Pooled, Counted, Prefetched, IterEvicted uint64
	// PoolEvictions are pages a pool evicted to stay within its quota;
	// ACMigrations pages an Unknown structure's counters moved in;
	// ACIgnored the notified pages outside every Unknown structure.
	PoolEvictions, ACMigrations, ACIgnored uint64
	// PeerMapped are pinned pages another GPU had pinned first, mapped to
	// it instead of moved.
	PeerMapped uint64
	// PlacedFaults are faults that reached the driver's decision on a page
	// SUV pinned, host-mapped or counted: a placement that did not hold
	// (an eviction of a pinned page, a lost mapping). Faults that only
	// raced a migration and found the page mapped are not among them.
	PlacedFaults uint64
}

// New makes SUV-Mgmt (or, under uvm.adaptive=sc, SC). It plans each GPU's
// HBM from its capacity and each page's object.
func New(env uvm.RuntimeEnv) (uvm.Runtime, error) {
	c := Config.Of(env.Config).ForPageSize(units.Bytes(env.PageSize))
	if err := c.Validate(); err != nil {
		return nil, err
	}
	name := env.Config.Adaptive
	if !env.Objects {
		return nil, fmt.Errorf("uvm.adaptive=%s needs the driver to know each page's object (WithObjectLookup)", name)
	}
	if env.Capacity <= 0 {
		return nil, fmt.Errorf("uvm.adaptive=%s plans a GPU's HBM: the driver needs its capacity (WithCapacity)", name)
	}
	m := &suvMode{env: env, cfg: c, sc: name == NameSC, page: env.PageSize,
		hbm: int64(env.Capacity) * int64(env.PageSize), placed: map[int]span{}, holds: map[int]int64{}, windows: map[int]bool{}}
	for g := 0; g < env.GPUs; g++ {
		m.mode = append(m.mode, make([]uint8, env.Pages))
		m.pools = append(m.pools, map[int]*core.QuotaPool{})
	}
	return m, nil
}

// Place turns launch l's declared accesses into SUV's hints (the host-side
// half, made at the first launch), plans them on every GPU and carries
// the plan out in the batch in service.
func (m *suvMode) Place(l uvm.Launch, invals [][]uvmproto.Inval) error {
	if m.host == nil {
		h, err := newHints(m.cfg, m.page, m.env.GPUs, m.env.Workload, m.cfg.Hints == core.HintsOracle)
		if err != nil {
			return err
		}
		m.host = h
	}
	return m.launch(m.host.launch(l.Index, l.Kernel), invals)
}

// CounterBatch migrates the notified pages of Unknown structures only.
func (m *suvMode) CounterBatch(g int, pages []uint64, invals [][]uvmproto.Inval) bool {
	for _, p := range pages {
		if m.counted(g, p, m.env.Ops.Table().Page(p)) {
			m.env.Ops.Migrate(g, p, invals)
		}
	}
	return true
}

// Prefetchable: the tree prefetcher may bring p to g unless SUV keeps it
// on the host.
func (m *suvMode) Prefetchable(g int, p uint64) bool {
	md := m.mode[g][p]
	return md != suvHost && (md != suvAC || m.faultsMigrate())
}

// faultsMigrate: a fault on an Unknown structure's page migrates it, as
// the driver's fault path does (core.Config.UnknownFault).
func (m *suvMode) faultsMigrate() bool { return m.cfg.UnknownFault == core.UnknownMigrate }

// MakeRoom trims the pools before the driver's eviction policy runs; in
// the checking mode it then checks what SUV promises.
func (m *suvMode) MakeRoom(pinned func(uint64) bool, launch bool, n int, invals [][]uvmproto.Inval) error {
	m.trim(pinned, n, invals)
	if m.env.Ops.Checking() {
		return m.verify(launch, n)
	}
	return nil
}

// Evicts: SUV's pools evict even where the driver has no eviction policy.
func (*suvMode) Evicts() bool { return true }

// Freed forgets a freed structure's placements.
func (m *suvMode) Freed(object int) { m.free(object) }

// DecorateEviction puts SUV-Mgmt between the page table and the driver's
// eviction policy, which then sees only the pages SUV does not hold.
func (m *suvMode) DecorateEviction(ev eviction.Policy, _ eviction.Options) (eviction.Policy, error) {
	if _, ok := ev.(eviction.Toucher); ok {
		c := m.env.Config
		return nil, fmt.Errorf("uvm.adaptive=%s keeps an eviction policy that needs no access stream for the pages it does not plan (lrm-2mb, SUV's UVM baseline): uvm.eviction=%s needs every access", c.Adaptive, c.Eviction)
	}
	m.inner = ev
	return m, nil
}

// DecoratePolicy answers faults on the pages SUV placed (suvPolicy).
func (m *suvMode) DecoratePolicy(p pagepolicy.Policy) pagepolicy.Policy { return suvPolicy{p, m} }

// launch plans, for every GPU, the objects of l that have no placement
// yet, from the HBM the placed ones leave (Algorithm 1's
// getAvailableHBM), and moves the windows of the placed Iterative ones
// within their own HBM (Algorithm 2). A placement holds until the program
// frees the object: the paper plans "before every kernel launch" from the
// available HBM and never says when a pin ends, and the released SUV-Mgmt
// skips structures already pinned and never unpins (penguin-suv.h:
// AllocationStateMap, "add code to evict anything whose use is over").
func (m *suvMode) launch(l *Launch, invals [][]uvmproto.Inval) error {
	m.stats.Launches++
	at := make(map[string]int, len(l.Objects))
	for i, o := range l.Objects {
		at[o.Name] = i
	}
	var fresh, loops core.Hints
	for _, h := range l.Hints {
		id := l.IDs[at[h.Object]]
		if _, placed := m.holds[id]; !placed {
			fresh = append(fresh, h)
		} else if m.windows[id] && h.Class == core.Iterative {
			loops = append(loops, h)
		}
	}
	avail := m.hbm
	for _, b := range m.holds {
		avail -= b
	}
	plan, err := m.plan(max(avail, 0), l.Objects, fresh)
	if err != nil {
		return err
	}
	if err := m.apply(plan, l, at, invals); err != nil {
		return err
	}
	m.logPlan(avail, plan)
	for _, pl := range plan.Placements {
		id := l.IDs[at[pl.Object]]
		m.holds[id] = pl.HBMBytes
		m.windows[id] = pl.Class == core.Iterative && pl.BatchIters > 0
	}
	for _, h := range loops {
		w, err := core.PlanLaunch(m.cfg, m.holds[l.IDs[at[h.Object]]], l.Objects, core.Hints{h})
		if err != nil {
			return err
		}
		if err := m.apply(w, l, at, invals); err != nil {
			return err
		}
	}
	return nil
}

// logPlan logs, at debug, where a launch's plan put each newly hinted
// structure and why: what a researcher needs to see why SUV pinned a
// structure on the host. Below debug, Debug() is nil and the calls on it
// do nothing; a launch is rare enough not to need a guard.
func (m *suvMode) logPlan(avail int64, plan core.Plan) {
	for _, pl := range plan.Placements {
		m.env.Log.Debug().Int("launch", int(m.stats.Launches)).Int64("hbm_left", avail).Str("object", pl.Object).
			Str("class", pl.Class.String()).Float64("density", pl.Density).Int64("hbm_bytes", pl.HBMBytes).
			Str("reason", pl.Reason).Msg("suv placement")
	}
}

// apply checks plan and carries it out on every GPU: they have the same
// HBM, so the same plan.
func (m *suvMode) apply(plan core.Plan, l *Launch, at map[string]int, invals [][]uvmproto.Inval) error {
	if err := plan.Verify(); err != nil {
		return err
	}
	for g := range m.mode {
		for _, a := range plan.Actions {
			i := at[a.Object]
			m.act(g, a, l.IDs[i], span{l.First[i], pagesOf(l.Objects[i].Bytes, m.page)}, invals)
		}
	}
	return nil
}

func (m *suvMode) plan(avail int64, objects []core.Object, hints core.Hints) (core.Plan, error) {
	if m.sc {
		return core.PlanSC(m.cfg, avail, objects, hints)
	}
	return core.PlanLaunch(m.cfg, avail, objects, hints)
}

// free forgets object id, which the program freed: its pages' modes, its
// pools and the HBM it held.
func (m *suvMode) free(id int) {
	sp, ok := m.placed[id]
	for g := range m.mode {
		if ok {
			clear(m.mode[g][sp.first : sp.first+sp.pages])
		}
		delete(m.pools[g], id)
	}
	delete(m.placed, id)
	delete(m.holds, id)
	delete(m.windows, id)
}

func pagesOf(bytes int64, page uint64) uint64 { return (uint64(bytes) + page - 1) / page }

// act carries out one action on g for object id, whose pages are obj.
func (m *suvMode) act(g int, a core.Action, id int, obj span, invals [][]uvmproto.Inval) {
	first := obj.first + uint64(a.Range.Off)/m.page
	end := min(obj.first+obj.pages, obj.first+(uint64(a.Range.Off+a.Range.Len)+m.page-1)/m.page)
	m.placed[id] = obj
	mode, count := m.treatment(a.Kind)
	var pool *core.QuotaPool
	if mode == suvPool || mode == suvAC {
		pool = m.pool(g, id, obj, uint64(a.Quota)/m.page)
	}
	for p := first; p < end; p++ {
		m.setMode(g, p, mode)
		*count++
		switch {
		case mode == suvHBM:
			m.fetch(g, p, invals)
		case mode == suvHost:
			m.toHost(g, p, invals)
		case m.resident(g, p):
			if !pool.Holds(p) {
				_ = pool.Place(p) // p is the pool's structure's page
			}
		case mode == suvPool || m.faultsMigrate():
			m.unmapRemote(g, p, invals) // SUV unsets the host pin: the next access faults
		default:
			m.mapHost(g, p, invals)
		}
	}
}

// treatment is the mode an action gives its pages and the count it adds
// to.
func (m *suvMode) treatment(k core.Kind) (uint8, *uint64) {
	switch k {
	case core.PinHBM:
		return suvHBM, &m.stats.PinnedHBM
	case core.Prefetch:
		return suvHBM, &m.stats.Prefetched
	case core.PinHost:
		return suvHost, &m.stats.PinnedHost
	case core.Evict:
		return suvHost, &m.stats.IterEvicted
	case core.OnDemand:
		return suvPool, &m.stats.Pooled
	}
	return suvAC, &m.stats.Counted
}

// pool returns g's pool for object id, made or resized to quota pages.
func (m *suvMode) pool(g, id int, obj span, quota uint64) *core.QuotaPool {
	q, ok := m.pools[g][id]
	if !ok {
		var err error
		q, err = core.NewQuotaPool(fmt.Sprint(id), obj.first, obj.pages, quota)
		if err != nil {
			panic(err) // an object's page count is positive and bounded by the table
		}
		m.pools[g][id] = q
	}
	q.SetQuota(quota)
	return q
}

// setMode changes p's mode on g; leaving a pool takes it out of the pool.
func (m *suvMode) setMode(g int, p uint64, mode uint8) {
	if old := m.mode[g][p]; (old == suvPool || old == suvAC) && mode != old {
		if q := m.poolOf(g, p); q != nil {
			q.Removed(p)
		}
	}
	m.mode[g][p] = mode
}

func (m *suvMode) poolOf(g int, p uint64) *core.QuotaPool {
	return m.pools[g][m.env.PageObject(p)]
}

func (m *suvMode) resident(g int, p uint64) bool {
	return m.env.Ops.Table().Page(p).Copies&(1<<uint(g)) != 0
}

// fetch brings p to g and pins it there, or, when another GPU pinned it
// first, maps it there: two GPUs pinning one structure share its copy
// rather than pass it back and forth.
func (m *suvMode) fetch(g int, p uint64, invals [][]uvmproto.Inval) {
	if m.resident(g, p) {
		return
	}
	pg := m.env.Ops.Table().Page(p)
	d := pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: pg.Bits}
	if h := pg.Owner; h != uvm.Host && m.mode[h][p] == suvHBM {
		if pg.Remote&(1<<uint(g)) != 0 {
			return
		}
		d.Action = pagepolicy.MapRemote
		m.stats.PeerMapped++
	}
	m.resolve(g, p, d, uvmproto.CauseHost, invals)
}

// toHost evicts g's copy of p and maps the host copy on g.
func (m *suvMode) toHost(g int, p uint64, invals [][]uvmproto.Inval) {
	if m.resident(g, p) {
		m.evict(g, p, invals)
	}
	m.mapHost(g, p, invals)
}

// evict takes g's copy of p back to the host, counted as an eviction.
func (m *suvMode) evict(g int, p uint64, invals [][]uvmproto.Inval) {
	plan := m.env.Ops.Plan()
	m.env.Ops.Table().Evict(g, p, plan)
	m.env.Ops.Counters(g).Evictions++
	m.env.Ops.Carry(g, plan, uvmproto.CauseHost, invals)
}

// mapHost maps p remotely on g when the host holds it and g does not map
// it yet (zero-copy over PCIe, no fault).
func (m *suvMode) mapHost(g int, p uint64, invals [][]uvmproto.Inval) {
	pg := m.env.Ops.Table().Page(p)
	if pg.Owner != uvm.Host || pg.Remote&(1<<uint(g)) != 0 {
		return
	}
	m.resolve(g, p, pagepolicy.Decision{Action: pagepolicy.MapRemote, HostRemote: true, Bits: pg.Bits}, uvmproto.CauseRemote, invals)
}

func (m *suvMode) unmapRemote(g int, p uint64, invals [][]uvmproto.Inval) {
	plan := m.env.Ops.Plan()
	m.env.Ops.Table().Unmap(g, p, plan)
	m.env.Ops.Carry(g, plan, uvmproto.CauseHost, invals)
}

func (m *suvMode) resolve(g int, p uint64, d pagepolicy.Decision, cause uvmproto.Cause, invals [][]uvmproto.Inval) {
	plan := m.env.Ops.Plan()
	m.env.Ops.Table().Resolve(g, p, false, d, plan)
	m.env.Ops.Carry(g, plan, cause, invals)
}

// counted reports whether a counter notification of p from g may migrate
// it: only an Unknown structure's pages (suvSetNoMigrateRegion elsewhere).
func (m *suvMode) counted(g int, p uint64, pg pagepolicy.Page) bool {
	if m.mode[g][p] == suvAC {
		if pg.Copies&(1<<uint(g)) == 0 {
			m.stats.ACMigrations++
		}
		return true
	}
	m.stats.ACIgnored++
	return false
}

// trim makes room on every GPU filled beyond its HBM from the pools that
// hold more than their quota, in object order, each its least recently
// migrated pages first, sparing the pages the batch is placing (pinned);
// an Unknown structure's evicted pages are mapped on the host again. A
// quota is a reservation, not a ceiling: while HBM is free a pool grows
// past it (with no oversubscription a Temporal structure then behaves as
// under the stock driver), and gives the excess back first when HBM runs
// out, so that a pool's growth never costs another structure its pages.
// The paper reserves WSS bytes (§V-C) and says no more; the released
// SUV-Mgmt only subtracts the WSS from what it plans and leaves the
// structure to the driver (penguin-suv.h, PENGUIN_DEC_MIGRATE_ON_DEMAND).
func (m *suvMode) trim(pinned func(uint64) bool, batch int, invals [][]uvmproto.Inval) {
	capacity := int(m.hbm / int64(m.page))
	for g, pools := range m.pools {
		over := m.env.Ops.Table().Used(g) - capacity
		if over <= 0 {
			continue
		}
		for _, id := range slices.Sorted(maps.Keys(pools)) {
			if over <= 0 {
				break
			}
			q := pools[id]
			n := min(q.Over(), over)
			if n == 0 {
				continue
			}
			m.victims = q.Victims(n+batch, m.victims[:0])
			for _, v := range m.victims {
				if n == 0 {
					break
				}
				if pinned(v) {
					continue
				}
				m.evict(g, v, invals)
				m.stats.PoolEvictions++
				n--
				over--
				if m.mode[g][v] == suvAC {
					m.mapHost(g, v, invals)
				}
			}
		}
	}
}

// held: the driver's eviction must not take p from g.
func (m *suvMode) held(g int, p uint64) bool {
	md := m.mode[g][p]
	return md == suvHBM || md == suvPool || md == suvAC
}

// Placed and Removed keep the pools and the driver's eviction policy told
// of residency changes.
func (m *suvMode) Placed(g int, p uint64) {
	if m.inner != nil {
		m.inner.Placed(g, p)
	}
	if md := m.mode[g][p]; md == suvPool || md == suvAC {
		if q := m.poolOf(g, p); q != nil {
			_ = q.Place(p)
		}
	}
}

func (m *suvMode) Removed(g int, p uint64) {
	if m.inner != nil {
		m.inner.Removed(g, p)
	}
	if md := m.mode[g][p]; md == suvPool || md == suvAC {
		if q := m.poolOf(g, p); q != nil {
			q.Removed(p)
		}
	}
}

// Victims asks the driver's policy for victims among the pages SUV does
// not hold.
func (m *suvMode) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	return m.inner.Victims(g, n, func(p uint64) bool { return pinned(p) || m.held(g, p) }, dst)
}

// suvPolicy answers faults on pages SUV placed: a host-pinned page (and a
// counted one under unknown_fault=remote) is mapped remotely, a pinned
// page comes back to its GPU (or is mapped to it when another GPU pinned
// it first); everything else is the driver's on-touch migration.
type suvPolicy struct {
	pagepolicy.Policy
	m *suvMode
}

func (w suvPolicy) Decide(f pagepolicy.Fault, pg pagepolicy.Page) pagepolicy.Decision {
	md := w.m.mode[f.GPU][f.Page]
	if md == suvAC && w.m.faultsMigrate() {
		return w.Policy.Decide(f, pg)
	}
	switch md {
	case suvHost, suvAC:
		w.m.stats.PlacedFaults++
		return pagepolicy.Decision{Action: pagepolicy.MapRemote, HostRemote: true, Bits: pg.Bits}
	case suvHBM:
		w.m.stats.PlacedFaults++
		if h := pg.Owner; h != uvm.Host && h != f.GPU && w.m.mode[h][f.Page] == suvHBM {
			return pagepolicy.Decision{Action: pagepolicy.MapRemote, Bits: pg.Bits}
		}
		return pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: pg.Bits}
	}
	return w.Policy.Decide(f, pg)
}

// Report adds SUV-Mgmt's (or SC's) counts.
func (m *suvMode) Report(r map[string]float64) {
	st := m.stats
	uvm.AddCounts(r, map[string]uint64{"suv_launches": st.Launches, "suv_pinned_hbm_pages": st.PinnedHBM,
		"suv_pinned_host_pages": st.PinnedHost, "suv_pooled_pages": st.Pooled, "suv_counted_pages": st.Counted,
		"suv_prefetched_pages": st.Prefetched, "suv_iteration_evicted_pages": st.IterEvicted,
		"suv_pool_evictions": st.PoolEvictions, "suv_ac_migrations": st.ACMigrations, "suv_ac_ignored": st.ACIgnored,
		"suv_peer_mapped_pages": st.PeerMapped, "suv_placed_faults": st.PlacedFaults})
}

// verify checks, in the checking mode, what SUV-Mgmt promises after each
// batch: every page a pool holds is resident (a pool refuses another
// structure's pages by construction), and within its quota (but for the
// pages the batch is still placing) whenever its GPU is full; and, after a
// launch's placement, the pinned pages fit each GPU's HBM.
func (m *suvMode) verify(launch bool, batch int) error {
	capacity := int(m.hbm / int64(m.page))
	for g, pools := range m.pools {
		full := m.env.Ops.Table().Used(g) > capacity
		for id, q := range pools {
			if over := q.Over(); full && over > batch {
				return fmt.Errorf("uvm: suv pool of object %d on GPU %d holds %d pages, quota %d, on a full GPU", id, g, q.Resident(), q.Quota())
			}
			sp := m.placed[id]
			for p := sp.first; p < sp.first+sp.pages; p++ {
				if q.Holds(p) && !m.resident(g, p) {
					return fmt.Errorf("uvm: suv pool of object %d on GPU %d holds page %d, which is not resident", id, g, p)
				}
			}
		}
		if !launch {
			continue
		}
		pinned := int64(0)
		for p, md := range m.mode[g] {
			if md == suvHBM && m.resident(g, uint64(p)) {
				pinned++
			}
		}
		if pinned*int64(m.page) > m.hbm {
			return fmt.Errorf("uvm: suv pinned %d pages on GPU %d, more than its %d bytes", pinned, g, m.hbm)
		}
	}
	return nil
}
