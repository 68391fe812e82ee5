package uvmmu

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/uvm"
	core "github.com/mgpu-sim/mgpu/uvmmu"
	"github.com/mgpu-sim/mgpu/uvmproto"
)

// hardware is UVMMU's fault handling for every GPU: one uvmmu.Unit each
// decides, and this adapter keeps the central page table in step and turns
// each plan into page data and shootdowns on the links.
//
// Where the unit runs: the unit belongs to the GPU, but it lives in the
// driver's core, beside the page table it must keep current. Its timing is
// still the GPU's. A fault's trip over PCIe to the driver stands for the
// PME's read request to host memory, and the data's trip back is the
// read's reply, so a migration costs one round trip, the unit's handling
// and the transfer, as in UVMMU §V-A ("migration handling latency + PCIe
// transfer time").
//
// Several GPUs: UVMMU moves page-groups between a GPU and the host only. A
// fault on a group another GPU holds first recalls it: that GPU frees the
// frame-group, shoots the pages down and writes them back to the host, and
// then the faulting GPU's unit migrates it in as usual.
type hardware struct {
	ops     uvm.HandlingOps
	table   *uvm.PageTable
	gpus    int
	units   []*core.Unit
	ppg     uint64
	frame   [][]uint32 // per GPU, by page-group: its frame-group, or noFrame
	flights []*flight  // by page-group: the migration or recall moving it
	byID    map[uint64]*flight
	nextID  uint64
	wakes   []sim.VTimeInSec // per unit: when it asked to be ticked (0: no)
	recalls uint64
	plan    uvm.Plan
	err     error // the first error met inside a step, which the step returns
}

// flight is one migration into a GPU (with its swap victim) or one recall
// of a page-group from the GPUs that hold it.
type flight struct {
	id      uint64
	gpu     int
	fill    bool // a migration into gpu's frame-group frame
	frame   uint32
	groups  [2]uint64 // the page-groups it moves: incoming, then a victim
	ngroups int
	pending int // page data and write-backs not yet arrived
	// waiting are the faults that met the flight, in arrival order;
	// they are handled again when it lands.
	waiting []waitingFault
	traced  bool // a task was started for it (tasks.go)
}

type waitingFault struct {
	gpu int
	f   uvmproto.FaultEntry
}

// noFrame marks a page-group that is not resident on a GPU.
const noFrame = ^uint32(0)

// hwIDBase keeps hardware flight IDs apart from software batch IDs in
// traces.
const hwIDBase = 1 << 62

// New makes a unit per GPU. Its frames are each GPU's frame-groups (its
// capacity, or the whole space when memory is not limited).
func New(env uvm.HandlingEnv) (uvm.FaultCore, error) {
	c := Config.Of(env.Config)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if uint64(c.PageBytes) != env.PageSize {
		return nil, fmt.Errorf("uvm.fault_handling=hardware: UVMMU's base page is uvm.uvmmu.page_bytes=%v, but page_size is %d B; set them equal", c.PageBytes, env.PageSize)
	}
	if env.Policy != "on-touch" {
		return nil, fmt.Errorf("uvm.fault_handling=hardware: UVMMU migrates the faulting page-group on every fault, which is the on-touch policy; --policy %s cannot apply (use --policy on-touch)", env.Policy)
	}
	if env.Prefetching {
		return nil, fmt.Errorf("uvm.fault_handling=hardware: UVMMU has no prefetcher beyond its 64 KB page-group (§V-B); set uvm.prefetch.policy=off")
	}
	gpus := env.GPUs
	h := &hardware{ops: env.Ops, table: env.Ops.Table(), gpus: gpus, ppg: uint64(c.PagesPerGroup()), byID: map[uint64]*flight{},
		wakes: make([]sim.VTimeInSec, gpus), nextID: hwIDBase}
	groups := (env.Pages + h.ppg - 1) / h.ppg
	h.flights = make([]*flight, groups)
	frames := uint32(groups)
	if env.Capacity > 0 && uint64(env.Capacity) < env.Pages {
		frames = uint32(uint64(env.Capacity) / h.ppg)
	}
	if frames == 0 {
		return nil, fmt.Errorf("uvm.fault_handling=hardware: GPU memory of %d pages holds no %d-page frame-group", env.Capacity, h.ppg)
	}
	var ev eviction.Policy
	if env.Config.Eviction != eviction.LinearRandom {
		var err error
		ev, err = eviction.NewWith(env.Config.Eviction, eviction.Options{GPUs: gpus, Pages: env.Pages,
			PagesPerChunk: max(1, uint64(env.Config.EvictionChunk)/env.PageSize), PagesPerBlock: h.ppg, Seed: env.Seed})
		if err != nil {
			return nil, err
		}
		env.Ops.UseEvictor(ev)
	}
	for g := 0; g < gpus; g++ {
		var victims *core.Victims // UVMMU Fig. 5's alternatives to Linear-Random
		if ev != nil {
			victims = &core.Victims{Policy: ev, GPU: g, FrameOf: h.frameOf(g)}
		}
		u, err := core.New(c, core.Setup{Frames: frames, ClockMHz: env.ClockMHz, Seed: env.Seed, Stream: uint64(g)}, victims)
		if err != nil {
			return nil, err
		}
		h.units = append(h.units, u)
		frame := make([]uint32, groups)
		for i := range frame {
			frame[i] = noFrame
		}
		h.frame = append(h.frame, frame)
	}
	return h, nil
}

// frameOf is GPU g's forward map, the frame-group of each page-group.
func (h *hardware) frameOf(g int) func(group uint64) (uint32, bool) {
	return func(group uint64) (uint32, bool) {
		fg := h.frame[g][group]
		return fg, fg != noFrame
	}
}

// Receive takes a message from a GMMU in hardware mode.
func (h *hardware) Receive(now sim.VTimeInSec, msg sim.Msg) error {
	if err := h.sync(now); err != nil {
		return err
	}
	switch m := msg.(type) {
	case *uvmproto.FaultBatchMsg:
		for _, f := range m.Faults {
			if err := h.fault(now, m.GPU, f); err != nil {
				return err
			}
		}
	case *uvmproto.TransferDoneMsg:
		return h.arrived(now, m.Batch)
	case *uvmproto.WritebackMsg:
		for _, p := range m.Pages {
			h.ops.Copied(m.From, uvm.Host, p)
		}
		return h.arrived(now, m.Batch)
	default:
		return fmt.Errorf("uvm: hardware fault handling got an unexpected %T", msg)
	}
	return h.drain(now)
}

// fault handles one fault of GPU g.
func (h *hardware) fault(now sim.VTimeInSec, g int, f uvmproto.FaultEntry) error {
	grp := f.Page / h.ppg
	if fl := h.flights[grp]; fl != nil {
		fl.waiting = append(fl.waiting, waitingFault{g, f})
		return nil
	}
	if m, ok := h.table.Adequate(g, f.Page, f.Write); ok {
		h.ops.Send(g, h.ops.Messages().Map([]uvmproto.Mapping{m}, []uvmproto.Resolution{{ServicedAt: now, Cause: uvmproto.CauseHost}}, false), 0)
		return nil
	}
	fl := h.newFlight(g, grp)
	if h.recall(now, fl) {
		fl.waiting = append(fl.waiting, waitingFault{g, f}) // handled again once the group is home
		return nil
	}
	fl.fill = true // the critical page's data resolves the fault
	return h.units[g].Fault(now, core.Fault{Group: grp, CID: uint16(g), Critical: uint8(f.Page % h.ppg), Remote: grp, Tag: fl.id})
}

func (h *hardware) newFlight(g int, grp uint64) *flight {
	h.nextID++
	fl := &flight{id: h.nextID, gpu: g, groups: [2]uint64{grp}, ngroups: 1}
	h.flights[grp], h.byID[fl.id] = fl, fl
	h.traceFlight(fl)
	return fl
}

// recall sends every other GPU's copy of fl's page-group back to the host,
// and reports whether there was any.
func (h *hardware) recall(now sim.VTimeInSec, fl *flight) bool {
	grp := fl.groups[0]
	others := uint64(0)
	for p := grp * h.ppg; p < (grp+1)*h.ppg && p < h.table.Len(); p++ {
		others |= h.table.Page(p).Copies &^ (1 << uint(fl.gpu))
	}
	for g := 0; g < h.gpus; g++ {
		if others&(1<<uint(g)) == 0 {
			continue
		}
		fg := h.frame[g][grp]
		if fg == noFrame {
			h.fail(fmt.Errorf("uvm: page-group %d is on GPU %d without a frame-group", grp, g))
			continue
		}
		h.frame[g][grp] = noFrame
		h.fail(h.units[g].Release(now, fg))
		h.evictGroup(now, g, grp, fl)
		h.recalls++
	}
	return others != 0
}

// evictGroup plans GPU g's copy of page-group grp back to the host: a
// shootdown whose pages then go back (uvmproto.InvalidateMsg.Writeback).
func (h *hardware) evictGroup(at sim.VTimeInSec, g int, grp uint64, fl *flight) {
	plan := &h.plan
	plan.Reset()
	for p := grp * h.ppg; p < (grp+1)*h.ppg && p < h.table.Len(); p++ {
		if h.table.Evict(g, p, plan) {
			h.ops.Counters(g).Evictions++
			h.ops.Counters(g).MigrationsD2H++
		}
	}
	if len(plan.Inval) == 0 {
		return
	}
	entries := make([]uvmproto.Inval, 0, len(plan.Inval))
	for _, iv := range plan.Inval {
		if iv.GPU != g {
			h.fail(fmt.Errorf("uvm: page %d is mapped by GPU %d beside its holder %d under hardware handling", iv.Page, iv.GPU, g))
			continue
		}
		entries = append(entries, iv)
		h.ops.Counters(g).Invalidations++
	}
	fl.pending++
	h.ops.Send(g, h.ops.Messages().InvalidateWriteback(entries, fl.id), at)
}

// sync brings every unit up to now, starts the plans its AFM served
// meanwhile and notes when it wants its next tick. A unit call replays the
// AFM first, so this runs before a fault is looked at: a frame-group about
// to be recalled may have just been handed out as a swap victim.
func (h *hardware) sync(now sim.VTimeInSec) error {
	for g, u := range h.units {
		for {
			if err := u.Tick(now); err != nil {
				return err
			}
			rd := u.Ready()
			if len(rd.Plans) == 0 {
				h.wakes[g] = 0
				if rd.Wake {
					h.wakes[g] = max(rd.WakeAt, now)
				}
				u.Advance()
				break
			}
			for i := range rd.Plans {
				h.start(g, &rd.Plans[i])
			}
			u.Advance()
		}
	}
	return h.err
}

// drain starts every plan the units made and asks for the earliest tick
// a unit wants.
func (h *hardware) drain(now sim.VTimeInSec) error {
	if err := h.sync(now); err != nil {
		return err
	}
	next := sim.VTimeInSec(0)
	for _, t := range h.wakes {
		if t != 0 && (next == 0 || t < next) {
			next = t
		}
	}
	if next != 0 {
		h.ops.Wake(next)
	}
	return nil
}

// Tick runs the units due at now.
func (h *hardware) Tick(now sim.VTimeInSec) error { return h.drain(now) }

// fail records the first error met inside a step, which the step in
// progress returns.
func (h *hardware) fail(err error) {
	if err != nil && h.err == nil {
		h.err = err
	}
}

// start carries out plan p of GPU g: the table moves the page-group to g
// (and the victim to the host), then the critical page, the rest of the
// group and the victim's shootdown and write-back leave at p.StartAt.
func (h *hardware) start(g int, p *core.Plan) {
	fl := h.byID[p.Tag]
	fl.frame = p.Frame
	h.frame[g][p.Group] = p.Frame
	if p.Swap {
		h.frame[g][p.Victim] = noFrame
		fl.groups[1], fl.ngroups = p.Victim, 2
		h.flights[p.Victim] = fl
		h.evictGroup(p.StartAt, g, p.Victim, fl)
	}
	res := uvmproto.Resolution{ServicedAt: p.StartAt, Cause: uvmproto.CauseHost}
	crit, rest := h.moveIn(g, p)
	if !p.ResumeOnCritical {
		crit, rest = append(crit, rest...), nil
	}
	for _, maps := range [][]uvmproto.Mapping{crit, rest} {
		if len(maps) == 0 {
			continue
		}
		pages := make([]uint64, len(maps))
		resolved := make([]uvmproto.Resolution, len(maps))
		for i, m := range maps {
			pages[i], resolved[i] = m.Page, res
		}
		fl.pending++
		h.ops.Send(g, h.ops.Messages().PageDataMapped(uvm.Host, g, pages, fl.id, maps, resolved), p.StartAt)
	}
}

// moveIn moves p's page-group to g in the table and returns the critical
// page's PTE and the rest's. Pages past the managed space do not exist.
func (h *hardware) moveIn(g int, p *core.Plan) (crit, rest []uvmproto.Mapping) {
	plan := &h.plan
	critPage := p.Group*h.ppg + uint64(p.Critical)
	for page := p.Group * h.ppg; page < (p.Group+1)*h.ppg && page < h.table.Len(); page++ {
		plan.Reset()
		h.table.Resolve(g, page, true, pagepolicy.Decision{Action: pagepolicy.Migrate, Bits: h.table.Page(page).Bits}, plan)
		if len(plan.Inval) > 0 {
			h.fail(fmt.Errorf("uvm: page %d was mapped elsewhere when GPU %d's UVMMU migrated it", page, g))
		}
		for _, t := range plan.Copy {
			h.ops.Copied(t.From, t.To, t.Page)
			h.ops.CountTransfer(t)
		}
		for _, m := range plan.Map {
			if m.Page == critPage {
				crit = append(crit, m)
			} else {
				rest = append(rest, m)
			}
		}
	}
	return crit, rest
}

// arrived counts one landed transfer of flight id; the last one ends it.
func (h *hardware) arrived(now sim.VTimeInSec, id uint64) error {
	fl := h.byID[id]
	if fl == nil {
		return fmt.Errorf("uvm: transfer of hardware migration %d arrived, but none is in flight", id)
	}
	fl.pending--
	if fl.pending > 0 {
		return nil
	}
	delete(h.byID, id)
	for _, grp := range fl.groups[:fl.ngroups] {
		h.flights[grp] = nil
	}
	if fl.traced {
		h.ops.EndTask(flightTask(fl.id))
	}
	if fl.fill {
		if err := h.units[fl.gpu].Complete(now, fl.frame); err != nil {
			return err
		}
	}
	// The flight's own GPU first: the group it brought serves its faults
	// before another GPU's fault can recall it.
	for _, own := range []bool{true, false} {
		for _, w := range fl.waiting {
			if (w.gpu == fl.gpu) != own {
				continue
			}
			if err := h.fault(now, w.gpu, w.f); err != nil {
				return err
			}
		}
	}
	return h.drain(now)
}

// Unit is GPU g's UVMMU unit when core is UVMMU's (a driver's
// uvm.Service.Handler), or nil.
func Unit(c uvm.FaultCore, g int) *core.Unit {
	if h, ok := c.(*hardware); ok {
		return h.units[g]
	}
	return nil
}

// Report adds the units' counts, summed over the GPUs.
func (h *hardware) Report(r map[string]float64) {
	m := map[string]uint64{"uvmmu_recalls": h.recalls}
	for _, u := range h.units {
		c := u.Counters()
		for k, v := range map[string]uint64{"uvmmu_faults": c.Faults, "uvmmu_fills": c.Fills, "uvmmu_swaps": c.Swaps,
			"uvmmu_dcq_empty_stalls": c.DCQEmptyStalls, "uvmmu_stall_ns": uint64(float64(c.StallTime) * 1e9),
			"uvmmu_refills": c.Refills, "uvmmu_refills_starved": c.RefillsStarved,
			"uvmmu_sram_reads": c.SRAMReads, "uvmmu_ipgt_reads": c.IPgTReads, "uvmmu_ipgt_accesses": c.IPgTAccesses,
			"uvmmu_victim_draws": c.VictimDraws, "uvmmu_victim_misses": c.VictimMisses} {
			m[k] += v
		}
	}
	uvm.AddCounts(r, m)
}

// Outstanding says how many migrations or recalls still wait for data.
func (h *hardware) Outstanding() []string {
	if len(h.byID) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d hardware migrations or recalls whose page data or write-backs never all arrived", len(h.byID))}
}

func flightTask(id uint64) string { return fmt.Sprintf("hw%d", id) }

// traceFlight starts the task of a hardware page-group migration.
func (h *hardware) traceFlight(fl *flight) {
	if h.ops.Tracing() {
		fl.traced = true
		h.ops.StartTask(flightTask(fl.id), "hw_migration", fmt.Sprintf("GPU %d: page-group %d", fl.gpu, fl.groups[0]))
	}
}
